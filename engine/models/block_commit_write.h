/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model=block_commit_write
 *
 * __block_commit_write() (kernel/buffer.c) before and after the 2021
 * fs/buffer.c patch. Its params and counted paths, for the unit tests.
 */
#ifndef FLAGCHECK_BLOCK_COMMIT_WRITE_H
#define FLAGCHECK_BLOCK_COMMIT_WRITE_H

#include "buffer_head.h"
#include "model.h"

/* The counted paths (rmw[]/skipped[] index) */
enum {
	PATH_SET_BUFFER_UPTODATE = 0,
	PATH_MARK_BUFFER_DIRTY,
	PATH_CLEAR_BUFFER_NEW,
};

enum { PAGE_SIZE_4K = 0, PAGE_SIZE_16K, PAGE_SIZE_64K };

struct block_commit_params {
	unsigned int variant;		/* enum fc_variant */
	unsigned int page_size;		/* PAGE_SIZE_4K, ... */
};

unsigned int block_commit_page_size(const struct block_commit_params *p);

extern const struct fc_model fc_model_block_commit_write;

#endif
