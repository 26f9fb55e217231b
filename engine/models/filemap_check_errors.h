/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model=filemap_check_errors
 *
 * filemap_check_errors() (kernel/filemap.c) before and after 7fcbbaf18392 on
 * the O_DIRECT read path. Its params, for the unit tests.
 */
#ifndef FLAGCHECK_FILEMAP_CHECK_ERRORS_H
#define FLAGCHECK_FILEMAP_CHECK_ERRORS_H

#include "filemap.h"
#include "model.h"

/* The one counted path */
enum { PATH_FILEMAP_CHECK_ERRORS = 0 };

/* Writeback error to inject, as mapping_set_error() would record it. */
enum filemap_inject {
	FILEMAP_INJECT_NONE = 0,
	FILEMAP_INJECT_EIO,
	FILEMAP_INJECT_ENOSPC,
};

struct filemap_params {
	unsigned int variant;		/* enum fc_variant */
	unsigned int inject;		/* enum filemap_inject */
	unsigned int inject_every;	/* every N-th I/O of a job injects */
};

extern const struct fc_model fc_model_filemap_check_errors;

#endif
