// SPDX-License-Identifier: GPL-2.0
/*
 * mm/filemap.c: filemap_check_errors() before and after commit
 * 7fcbbaf18392 ("mm/filemap.c: avoid always dirtying mapping->flags on
 * O_DIRECT", Jens Axboe, 2014), and include/linux/pagemap.h's
 * mapping_set_error() of that time.
 */
#include <errno.h>

#include "bitops.h"
#include "filemap.h"

/* A test_and_clear_bit() that the counters see. */
static inline bool counted_test_and_clear_bit(long nr, unsigned long *addr,
					      struct fc_counters *c, int path)
{
	fc_count_rmw(c, path, true);
	return test_and_clear_bit(nr, addr);
}

/* test_bit() that counts the RMW it makes unnecessary */
static inline bool counted_test_bit(long nr, const unsigned long *addr,
				    struct fc_counters *c, int path)
{
	if (test_bit(nr, addr))
		return true;
	fc_count_rmw(c, path, false);
	return false;
}

/* Before 7fcbbaf18392: two RMWs on every call, so every caller takes the
 * line exclusive, error or not. */
int filemap_check_errors_always(struct address_space *mapping,
				struct fc_counters *c, int path)
{
	int ret = 0;
	/* Check for outstanding write errors */
	if (counted_test_and_clear_bit(AS_ENOSPC, &mapping->flags, c, path))
		ret = -ENOSPC;
	if (counted_test_and_clear_bit(AS_EIO, &mapping->flags, c, path))
		ret = -EIO;
	return ret;
}

/* 7fcbbaf18392: a plain test first; the line stays shared while no error is
 * pending. */
int filemap_check_errors_test_first(struct address_space *mapping,
				    struct fc_counters *c, int path)
{
	int ret = 0;
	/* Check for outstanding write errors */
	if (counted_test_bit(AS_ENOSPC, &mapping->flags, c, path) &&
	    counted_test_and_clear_bit(AS_ENOSPC, &mapping->flags, c, path))
		ret = -ENOSPC;
	if (counted_test_bit(AS_EIO, &mapping->flags, c, path) &&
	    counted_test_and_clear_bit(AS_EIO, &mapping->flags, c, path))
		ret = -EIO;
	return ret;
}

/*
 * What writeback does when a page's write fails. The kernel uses set_bit();
 * the model needs the old value to count 0 -> 1 transitions, and a set while
 * the bit is already set coalesces, as in the kernel. Writeback's RMW, not
 * the checked path's: not in c->rmw.
 */
void mapping_set_error(struct address_space *mapping, int error,
		       struct fc_counters *c)
{
	if (!test_and_set_bit(error == -ENOSPC ? AS_ENOSPC : AS_EIO,
			      &mapping->flags))
		c->errors_set++;
}
