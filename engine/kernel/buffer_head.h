/* SPDX-License-Identifier: GPL-2.0 */
/*
 * include/linux/buffer_head.h, the part the models touch, with the kernel's
 * names. It mirrors no single kernel; per item:
 *
 *  - enum bh_state_bits: the numbers of 5.11 (BH_Mapped = 4: the old
 *    BH_Uptodate_Lock bit is gone, the lock is b_uptodate_lock). BH_Verified
 *    is not the kernel's number (see below).
 *  - struct buffer_head: the fields and order of 6.4 (64-bit, 104 bytes;
 *    b_page stands for 6.4's union of b_page and b_folio).
 *  - BUFFER_FNS: the generator since 60f91826ca62 (2017): set_buffer_x()
 *    tests first (still the form of 6.4 for every bit it generates).
 *    BUFFER_FNS(Uptodate, uptodate) is the pre-6.0 form: d4252071b97d
 *    (August 2022, 6.0-rc) replaced it with a hand-written
 *    set_buffer_uptodate() (a barrier first) and buffer_uptodate() (an
 *    acquire load); models/set_buffer_uptodate.c models those kernels
 *    itself and uses this one as its "before".
 *  - mark_buffer_dirty(), __block_write_begin(), __block_commit_write():
 *    see buffer.c.
 *
 * One addition for the counters: a helper that may skip its RMW returns
 * whether it ran it, and the caller counts that (fc_count_rmw(), counters.h).
 */
#ifndef FLAGCHECK_BUFFER_HEAD_H
#define FLAGCHECK_BUFFER_HEAD_H

#include <stdbool.h>
#include <stddef.h>

#include "bitops.h"
#include "counters.h"

/* The bits of b_state the modelled paths touch. */
enum bh_state_bits {
	BH_Uptodate,	/* the block's data in memory is valid */
	BH_Dirty,	/* ... and newer than on disk */
	BH_Lock,
	BH_Req,
	BH_Mapped,	/* the block has a place on disk */
	BH_New,		/* ... which get_block() has just allocated */
	/* ext4's (BUFFER_FNS(Verified, verified) in the filesystem's own
	 * header), above BH_PrivateStart; its number is not the kernel's and
	 * does not matter, only that it lives in b_state */
	BH_Verified = 23,	/* ext4 checked the metadata block (checksum) */
};

/* One block per buffer head: a page holds page_size / BH_SIZE of them. */
#define BH_SIZE		4096U

/*
 * Layout: the heads of a page are consecutive objects of the kernel's size,
 * 104 bytes on 64-bit (one slab object per head;
 * alloc_page_buffers() takes them one after another, so a page's heads
 * mostly sit side by side in one slab page). With that stride no two b_state
 * words ever share a 64-byte line, exactly as in the kernel, and walking a
 * page's 16 heads loads 16 distinct lines, as the kernel's walk does. The
 * footprint is the kernel's too: 104 bytes per 4 KiB of file, 130 MiB of
 * arena for the report's 5 GiB file. Packing the words densely would put
 * eight heads in one line and invent sharing the kernel does not have;
 * padding each to 128 bytes would spread them wider than the kernel does.
 */
#define BH_OBJECT_SIZE	104

/* 6.4's fields in 6.4's order (64-bit); the lookup model (models/bh_lru.c) uses
 * b_blocknr, b_size, b_count, the others only keep the layout. */
struct buffer_head {
	unsigned long b_state;
	struct buffer_head *b_this_page;
	void *b_page;			/* union { b_page, b_folio } */
	unsigned long long b_blocknr;	/* sector_t */
	size_t b_size;
	char *b_data;
	void *b_bdev;
	void *b_end_io;
	void *b_private;
	void *b_assoc_buffers[2];	/* struct list_head */
	void *b_assoc_map;
	int b_count;			/* atomic_t */
	int b_uptodate_lock;		/* spinlock_t */
};

#if defined(__LP64__)
_Static_assert(sizeof(struct buffer_head) == BH_OBJECT_SIZE,
	       "struct buffer_head must keep the kernel's 104 bytes");
#endif

/*
 * The kernel's generator, with one addition for the counters: the set and
 * clear helpers return whether they ran the atomic RMW.
 *
 *   buffer_x()        a plain load
 *   set_buffer_x()    tests first, set_bit() only when clear (60f91826ca62,
 *                     2017: the kernel's form since then)
 *   clear_buffer_x()  clear_bit() whatever the bit's value (still the
 *                     kernel's form: the 2021 fix tests at the call site)
 */
#define BUFFER_FNS(bit, name)						\
static inline bool buffer_##name(const struct buffer_head *bh)		\
{									\
	return test_bit(BH_##bit, &bh->b_state);			\
}									\
static inline bool set_buffer_##name(struct buffer_head *bh)		\
{									\
	if (test_bit(BH_##bit, &bh->b_state))				\
		return false;						\
	set_bit(BH_##bit, &bh->b_state);				\
	return true;							\
}									\
static inline bool clear_buffer_##name(struct buffer_head *bh)		\
{									\
	clear_bit(BH_##bit, &bh->b_state);				\
	return true;							\
}

/* test_set_buffer_x() / test_clear_buffer_x(): fully ordered RMWs */
#define TAS_BUFFER_FNS(bit, name)					\
static inline bool test_set_buffer_##name(struct buffer_head *bh)	\
{									\
	return test_and_set_bit(BH_##bit, &bh->b_state);		\
}									\
static inline bool test_clear_buffer_##name(struct buffer_head *bh)	\
{									\
	return test_and_clear_bit(BH_##bit, &bh->b_state);		\
}

BUFFER_FNS(Uptodate, uptodate)	/* the pre-6.0 form: see above */
BUFFER_FNS(Dirty, dirty)
TAS_BUFFER_FNS(Dirty, dirty)
BUFFER_FNS(Mapped, mapped)
TAS_BUFFER_FNS(Mapped, mapped)
BUFFER_FNS(New, new)
BUFFER_FNS(Verified, verified)	/* ext4's */

/* buffer.c: fs/buffer.c */

/* true: it ran the RMW (the buffer was clean) */
bool mark_buffer_dirty(struct buffer_head *bh);
void __block_write_begin(struct buffer_head *head, unsigned int nr);

/*
 * Where __block_commit_write() counts the RMWs it runs or skips: the
 * caller's counters and the caller's path numbers (counters.h), one per
 * helper it calls.
 */
struct block_commit_count {
	struct fc_counters *c;
	int set_uptodate;	/* set_buffer_uptodate() */
	int mark_dirty;		/* mark_buffer_dirty() */
	int clear_new;		/* clear_buffer_new() */
};

void __block_commit_write(struct buffer_head *head, unsigned int nr,
			  unsigned int from, unsigned int to,
			  bool test_new_first,
			  const struct block_commit_count *count);

#endif
