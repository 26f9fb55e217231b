// SPDX-License-Identifier: GPL-2.0
/*
 * model=set_buffer_uptodate
 *
 * set_buffer_uptodate() in three kernels, the three columns of the LKP
 * report "d4252071b9: fxmark.ssd_ext4_no_jnl_DWTL_54_directio.works/sec
 * -26.5% regression" (Yin Fengwei, September 2022):
 *
 *   before      e394ff83, the parent: BUFFER_FNS(Uptodate) since 60f91826ca62
 *               (2017), test_bit() first, set_bit() only when clear
 *   always      d4252071b97d ("buffer: add barriers to set_buffer_uptodate
 *               and buffer_uptodate"): smp_mb__before_atomic(); set_bit() on
 *               every call
 *   test_first  2f79cdfe58c1 (6812880b in the report): test first again; the
 *               barrier and set_bit() only on the first transition
 *
 * The hot caller is ext4 without a journal: __ext4_handle_dirty_metadata()
 * runs set_buffer_uptodate(bh); mark_buffer_dirty(bh) on every metadata
 * buffer an operation changes. A truncate (fxmark DWTL) changes the group's
 * block bitmap, the group descriptor block and the inode table block, and
 * the files of every job share them: one flags word per buffer, shared by
 * all CPUs.
 *
 * Barrier: smp_mb__before_atomic() from bitops.h, as the kernel emits it:
 * a compiler barrier on x86 (the locked set_bit() is the full barrier), dmb
 * ish on arm64. Counted in model_stats, so a test can see that test_first
 * runs none once the buffers are uptodate.
 */
#include <stddef.h>

#include "buffer_head.h"
#include "model.h"

enum uptodate_variant {
	UPTODATE_ALWAYS = FC_ALWAYS,		/* d4252071b97d */
	UPTODATE_TEST_FIRST = FC_TEST_FIRST,	/* 2f79cdfe58c1 */
	UPTODATE_BEFORE,			/* e394ff83, its parent */
};

struct uptodate_params {
	unsigned int variant;		/* enum uptodate_variant */
	unsigned int metadata_bhs;	/* buffers dirtied per operation */
};

/* counted paths */
enum { PATH_SET_BUFFER_UPTODATE = 0, PATH_MARK_BUFFER_DIRTY };
enum { STAT_BARRIERS = 0 };

static inline void counted_smp_mb__before_atomic(struct fc_counters *c)
{
	c->stat[STAT_BARRIERS]++;
	smp_mb__before_atomic();
}

/* d4252071b97d: a barrier and an RMW whatever the bit's value */
static inline void set_buffer_uptodate_always(struct buffer_head *bh,
					      struct fc_counters *c)
{
	/* make it consistent with folio_mark_uptodate */
	counted_smp_mb__before_atomic(c);
	set_bit(BH_Uptodate, &bh->b_state);
	fc_count_rmw(c, PATH_SET_BUFFER_UPTODATE, true);
}

/* 2f79cdfe58c1: only the first transition to uptodate needs the barrier */
static inline void set_buffer_uptodate_test_first(struct buffer_head *bh,
						  struct fc_counters *c)
{
	if (test_bit(BH_Uptodate, &bh->b_state)) {
		fc_count_rmw(c, PATH_SET_BUFFER_UPTODATE, false);
		return;
	}
	counted_smp_mb__before_atomic(c);
	set_bit(BH_Uptodate, &bh->b_state);
	fc_count_rmw(c, PATH_SET_BUFFER_UPTODATE, true);
}

/* e394ff83: BUFFER_FNS' set_buffer_uptodate(), test first, no barrier */
static inline void set_buffer_uptodate_before(struct buffer_head *bh,
					      struct fc_counters *c)
{
	fc_count_rmw(c, PATH_SET_BUFFER_UPTODATE, set_buffer_uptodate(bh));
}

/* fs/ext4/ext4_jbd2.c, no journal: the buffer becomes uptodate and dirty */
static void ext4_handle_dirty_metadata(struct buffer_head *bh,
				       enum uptodate_variant v,
				       struct fc_counters *c)
{
	switch (v) {
	case UPTODATE_ALWAYS:
		set_buffer_uptodate_always(bh, c);
		break;
	case UPTODATE_TEST_FIRST:
		set_buffer_uptodate_test_first(bh, c);
		break;
	case UPTODATE_BEFORE:
		set_buffer_uptodate_before(bh, c);
		break;
	}
	fc_count_rmw(c, PATH_MARK_BUFFER_DIRTY, mark_buffer_dirty(bh));
}

static size_t uptodate_state_size(const void *params,
				  unsigned long long file_size)
{
	const struct uptodate_params *p = params;

	(void)file_size;
	return p->metadata_bhs * sizeof(struct buffer_head);
}

/* One operation (a DWTL truncate): every shared metadata buffer it changes
 * goes through the no-journal dirty path once. */
static int uptodate_io(void *state, const void *params,
		       const struct fc_io *io, struct fc_counters *c)
{
	const struct uptodate_params *p = params;
	struct buffer_head *bh = state;
	unsigned int i;

	(void)io;
	c->checks++;
	for (i = 0; i < p->metadata_bhs; i++)
		ext4_handle_dirty_metadata(&bh[i], p->variant, c);
	return 0;
}

static const char *const uptodate_paths[] = {
	[PATH_SET_BUFFER_UPTODATE]	= "set_buffer_uptodate",
	[PATH_MARK_BUFFER_DIRTY]	= "mark_buffer_dirty",
	NULL,
};

static const char *const uptodate_stats[] = {
	[STAT_BARRIERS] = "smp_mb__before_atomic",
	NULL,
};

static const char *const uptodate_names[] = {
	[UPTODATE_ALWAYS]	= "always",
	[UPTODATE_TEST_FIRST]	= "test_first",
	[UPTODATE_BEFORE]	= "before",
	NULL,
};

static const struct fc_model_option uptodate_options[] = {
	{
		.name	= "variant",
		.help	= "before: test_bit() first, no barrier (e394ff83, "
			  "BUFFER_FNS since 60f91826ca62); always: "
			  "smp_mb__before_atomic() and set_bit() on every call "
			  "(d4252071b97d, the regression); test_first: test "
			  "first, barrier and set_bit() on the first transition "
			  "only (2f79cdfe58c1, the fix)",
		.def	= "test_first",
		.choices = uptodate_names,
		.offset	= offsetof(struct uptodate_params, variant),
		.is_variant = 1,
	},
	{
		.name	= "metadata_bhs",
		.help	= "Shared metadata buffers each operation dirties (a "
			  "DWTL truncate: block bitmap, group descriptor, inode "
			  "table block)",
		.def	= "3",
		.min	= 1,
		.max	= 64,
		.offset	= offsetof(struct uptodate_params, metadata_bhs),
	},
	{ .name = NULL },
};

const struct fc_model fc_model_set_buffer_uptodate = {
	.name		= "set_buffer_uptodate",
	.order		= 4,
	.paths		= uptodate_paths,
	.stats		= uptodate_stats,
	.options	= uptodate_options,
	.params_size	= sizeof(struct uptodate_params),
	.state_size	= uptodate_state_size,
	.io		= uptodate_io,
};
FC_REGISTER_MODEL(fc_model_set_buffer_uptodate)
