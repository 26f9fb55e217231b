/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The O_DIRECT read path's check for writeback errors, with the kernel's
 * names, around commit 7fcbbaf18392 (2014; see filemap.c):
 *
 *   blkdev_aio_read -> generic_file_aio_read -> filemap_write_and_wait_range
 *       if (!mapping->nrpages) filemap_check_errors(mapping)
 *
 * AS_EIO and AS_ENOSPC are include/linux/pagemap.h's bits of mapping->flags,
 * numbered as there at that commit; struct address_space (include/linux/fs.h)
 * is cut down to the two fields the path touches.
 */
#ifndef FLAGCHECK_FILEMAP_H
#define FLAGCHECK_FILEMAP_H

#include "counters.h"
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

/*
 * filemap_check_errors() before and after 7fcbbaf18392; each counts the
 * RMWs it runs or skips at the caller's @path (counters.h).
 */
int filemap_check_errors_always(struct address_space *mapping,
				struct fc_counters *c, int path);
int filemap_check_errors_test_first(struct address_space *mapping,
				    struct fc_counters *c, int path);
/* Writeback's: counts the 0 -> 1 transitions in c->errors_set */
void mapping_set_error(struct address_space *mapping, int error,
		       struct fc_counters *c);

#endif
