/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The O_DIRECT read path's check for writeback errors, mm/filemap.c:
 *
 *   blkdev_aio_read -> generic_file_aio_read -> filemap_write_and_wait_range
 *       if (!mapping->nrpages) filemap_check_errors(mapping)
 */
#ifndef FLAGCHECK_FILEMAP_H
#define FLAGCHECK_FILEMAP_H

#include "counters.h"
#include "model.h"
#include "shm.h"

/* include/linux/pagemap.h: bits of mapping->flags */
enum mapping_flags {
	AS_EIO		= 0,	/* IO error on async write */
	AS_ENOSPC	= 1,	/* ENOSPC on async write */
};

/*
 * The part of struct address_space the path touches: flags and nrpages sit
 * in one cache line, as they do in the kernel, so the plain read of nrpages
 * pays for every RMW on flags too. Aligned so that two files' mappings never
 * share a line.
 */
struct address_space {
	unsigned long flags;
	unsigned long nrpages;
} __attribute__((aligned(FC_SHM_ALIGN)));

/* Writeback error to inject, as mapping_set_error() would record it. */
enum filemap_inject {
	FILEMAP_INJECT_NONE = 0,
	FILEMAP_INJECT_EIO,
	FILEMAP_INJECT_ENOSPC,
};

struct filemap_params {
	unsigned int flag_check;	/* enum fc_variant */
	unsigned int inject;		/* enum filemap_inject */
	unsigned int inject_every;	/* every N-th I/O of a job injects */
};

int filemap_check_errors_always(struct address_space *mapping,
				struct fc_counters *c);
int filemap_check_errors_test_first(struct address_space *mapping,
				    struct fc_counters *c);
void mapping_set_error(struct address_space *mapping, int error,
		       struct fc_counters *c);

#endif
