// SPDX-License-Identifier: GPL-2.0
/*
 * model=bh_lru
 *
 * __find_get_block() with and without the per-CPU buffer_head LRU in front
 * of __find_get_block_slow() (fs/buffer.c), after the 2023 thread on the
 * per-CPU cache and isolated CPUs (scenario S5 in docs/scenarios.md). Measured
 * there, one CPU looking up blocks 1..mod in turn: 41 ns (mod=1) .. 63 ns
 * (mod=16) per lookup with the LRU, 138 ns past 16 (every lookup misses); 42
 * ns per hit against 68 ns for the slow path.
 *
 *   bh_lru=on   lookup_bh_lru(): search the 16 entries, most recent first; a
 *               hit moves the entry to the front; a miss goes to the slow
 *               path and bh_lru_install()s the result at the front
 *   bh_lru=off  the slow path only (the LRU disabled, as the thread ends up
 *               doing for isolated CPUs)
 *
 * The LRU is this job's own (io->job): a job stands for a CPU. The block
 * device's mapping, its pages and their buffer heads are the shared state,
 * as one bdev's page cache is. The kernel's bh_lru_lock() disables
 * interrupts, which user space cannot: the model leaves it out.
 *
 * Time per lookup: clock_gettime(CLOCK_MONOTONIC) before and after the
 * lookups_per_io lookups of one I/O (each followed by the caller's
 * brelse()), so the clock's own cost is spread over the batch.
 */
#include <stddef.h>

#include "buffer_head.h"
#include "model.h"
#include "shm.h"

#define BH_LRU_SIZE	16
/* The bdev holds blocks 0..BH_LRU_MAX_MOD whatever mod is, so jobs with
 * other mods (the sweep's sections) can share one without overrunning it. */
#define BH_LRU_MAX_MOD	4096

/* One 4 KiB block per 4 KiB page: one head per page, as on a bdev with 4K
 * blocks. struct page is 64 bytes, as the kernel's. */
struct page {
	unsigned long flags;
	int _refcount;
	int pad[13];
};

struct bdev_mapping {
	int private_lock;		/* spinlock_t */
	unsigned char pad[FC_SHM_ALIGN - sizeof(int)];
	/* then pages[nr], then their buffer heads bhs[nr] */
};

struct bh_lru {
	struct buffer_head *bhs[BH_LRU_SIZE];
	unsigned long long next;	/* this job's place in the block cycle */
};

struct bh_lru_params {
	unsigned int variant;		/* BH_LRU_ON, BH_LRU_OFF */
	unsigned int mod;		/* blocks 1..mod, in turn */
	unsigned int lookups_per_io;
};

enum { BH_LRU_ON = 0, BH_LRU_OFF };

/* counted RMWs, by what they are for */
enum { PATH_GET_BH = 0, PATH_BRELSE, PATH_SPIN_LOCK, PATH_PAGE_REF };

/* model_stats: lookups, hits, misses, the hit's index 1..16, time */
enum {
	STAT_LOOKUPS = 0,
	STAT_HITS,
	STAT_MISSES,
	STAT_HIT_IDX1,		/* .. STAT_HIT_IDX1 + 15 */
	STAT_LOOKUP_NS = STAT_HIT_IDX1 + BH_LRU_SIZE,
};

static inline struct page *bdev_pages(struct bdev_mapping *m)
{
	return (struct page *)(m + 1);
}

static inline struct buffer_head *bdev_bhs(struct bdev_mapping *m,
					   unsigned long long nr_pages)
{
	return (struct buffer_head *)(bdev_pages(m) + nr_pages);
}

static inline void get_bh(struct buffer_head *bh, struct fc_counters *c)
{
	fc_count_rmw(c, PATH_GET_BH, true);
	__atomic_fetch_add(&bh->b_count, 1, __ATOMIC_RELAXED);
}

static inline void brelse(struct buffer_head *bh, struct fc_counters *c)
{
	if (!bh)
		return;
	fc_count_rmw(c, PATH_BRELSE, true);
	__atomic_fetch_sub(&bh->b_count, 1, __ATOMIC_RELEASE);
}

static inline void spin_lock(int *lock, struct fc_counters *c)
{
	fc_count_rmw(c, PATH_SPIN_LOCK, true);
	while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(lock, __ATOMIC_RELAXED))
			;
}

static inline void spin_unlock(int *lock)
{
	__atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

/*
 * The block's page and head, as the bdev's page cache holds them once the
 * block has been read: the zero state is an empty cache, and the first
 * lookup of a block "reads" it (one RMW per head per run, not counted).
 */
static struct buffer_head *bdev_page_buffers(struct bdev_mapping *m,
					     unsigned long long nr_pages,
					     unsigned long long index)
{
	struct buffer_head *bh = bdev_bhs(m, nr_pages) + index;

	if (!buffer_mapped(bh)) {
		__atomic_store_n(&bh->b_blocknr, index, __ATOMIC_RELAXED);
		__atomic_store_n(&bh->b_size, BH_SIZE, __ATOMIC_RELAXED);
		__atomic_store_n(&bh->b_this_page, bh, __ATOMIC_RELAXED);
		test_set_buffer_mapped(bh);
	}
	return bh;
}

/* find_get_page() on the bdev mapping, the page lock, the walk of the
 * page's heads, a reference on the head found. */
static struct buffer_head *
__find_get_block_slow(struct bdev_mapping *m, unsigned long long nr_pages,
		      unsigned long long block, struct fc_counters *c)
{
	struct page *page;
	struct buffer_head *head, *bh, *ret = NULL;

	if (block >= nr_pages)
		return NULL;
	page = bdev_pages(m) + block;	/* one block per page */
	fc_count_rmw(c, PATH_PAGE_REF, true);	/* get_page() */
	__atomic_fetch_add(&page->_refcount, 1, __ATOMIC_RELAXED);

	spin_lock(&m->private_lock, c);
	head = bdev_page_buffers(m, nr_pages, block);
	bh = head;
	do {
		if (buffer_mapped(bh) &&
		    __atomic_load_n(&bh->b_blocknr, __ATOMIC_RELAXED) == block) {
			ret = bh;
			get_bh(bh, c);
			break;
		}
		bh = __atomic_load_n(&bh->b_this_page, __ATOMIC_RELAXED);
	} while (bh != head);
	spin_unlock(&m->private_lock);

	fc_count_rmw(c, PATH_PAGE_REF, true);	/* put_page() */
	__atomic_fetch_sub(&page->_refcount, 1, __ATOMIC_RELEASE);
	return ret;
}

/* Most recent first; a hit moves its entry to the front. */
static struct buffer_head *lookup_bh_lru(struct bh_lru *lru,
					 unsigned long long block,
					 struct fc_counters *c)
{
	unsigned int i;

	for (i = 0; i < BH_LRU_SIZE; i++) {
		struct buffer_head *bh = lru->bhs[i];

		if (bh && __atomic_load_n(&bh->b_blocknr, __ATOMIC_RELAXED) ==
			  block &&
		    __atomic_load_n(&bh->b_size, __ATOMIC_RELAXED) == BH_SIZE) {
			c->stat[STAT_HIT_IDX1 + i]++;
			for (; i; i--)
				lru->bhs[i] = lru->bhs[i - 1];
			lru->bhs[0] = bh;
			get_bh(bh, c);
			return bh;
		}
	}
	return NULL;
}

/* At the front; the last entry falls out and loses the LRU's reference. */
static void bh_lru_install(struct bh_lru *lru, struct buffer_head *bh,
			   struct fc_counters *c)
{
	struct buffer_head *evictee = bh, *tmp;
	unsigned int i;

	for (i = 0; i < BH_LRU_SIZE; i++) {
		tmp = lru->bhs[i];
		lru->bhs[i] = evictee;
		evictee = tmp;
		if (evictee == bh)
			return;		/* it was there already */
	}
	get_bh(bh, c);
	brelse(evictee, c);
}

static struct buffer_head *__find_get_block(struct bdev_mapping *m,
					    unsigned long long nr_pages,
					    struct bh_lru *lru,
					    unsigned long long block,
					    struct fc_counters *c)
{
	struct buffer_head *bh = lru ? lookup_bh_lru(lru, block, c) : NULL;

	c->stat[STAT_LOOKUPS]++;
	if (bh) {
		c->stat[STAT_HITS]++;
		return bh;
	}
	c->stat[STAT_MISSES]++;
	bh = __find_get_block_slow(m, nr_pages, block, c);
	if (bh && lru)
		bh_lru_install(lru, bh, c);
	return bh;
}

static unsigned long long bh_lru_pages(const struct bh_lru_params *p)
{
	(void)p;
	return BH_LRU_MAX_MOD + 1ULL;	/* blocks 1..mod, block 0 unused */
}

static size_t bh_lru_state_size(const void *params,
				unsigned long long file_size)
{
	unsigned long long nr = bh_lru_pages(params);

	(void)file_size;
	return sizeof(struct bdev_mapping) +
	       nr * (sizeof(struct page) + sizeof(struct buffer_head));
}

/* One I/O: lookups_per_io lookups of the next blocks of 1..mod, each
 * released by its caller, timed as one batch. */
static int bh_lru_io(void *state, const void *params, const struct fc_io *io,
		     struct fc_counters *c)
{
	const struct bh_lru_params *p = params;
	unsigned long long nr = bh_lru_pages(p), t0;
	struct bh_lru *lru = io->job;
	unsigned int i;

	t0 = fc_now_ns();
	for (i = 0; i < p->lookups_per_io; i++) {
		unsigned long long block = 1 + lru->next++ % p->mod;

		brelse(__find_get_block(state, nr,
					p->variant == BH_LRU_ON ? lru : NULL,
					block, c), c);
	}
	c->stat[STAT_LOOKUP_NS] += fc_now_ns() - t0;
	c->checks += p->lookups_per_io;
	return 0;
}

/* The CPU goes away (buffer_exit_cpu_dead): its LRU's references go. */
static void bh_lru_job_exit(void *job, const void *params)
{
	struct bh_lru *lru = job;
	unsigned int i;

	(void)params;
	for (i = 0; i < BH_LRU_SIZE; i++)
		if (lru->bhs[i])
			__atomic_fetch_sub(&lru->bhs[i]->b_count, 1,
					   __ATOMIC_RELEASE);
}

static const char *const bh_lru_paths[] = {
	[PATH_GET_BH]		= "get_bh",
	[PATH_BRELSE]		= "brelse",
	[PATH_SPIN_LOCK]	= "private_lock",
	[PATH_PAGE_REF]		= "page_ref",
	NULL,
};

static const char *const bh_lru_stats[] = {
	[STAT_LOOKUPS] = "lookups", [STAT_HITS] = "hits",
	[STAT_MISSES] = "misses",
	[STAT_HIT_IDX1 + 0] = "hit_idx1", [STAT_HIT_IDX1 + 1] = "hit_idx2",
	[STAT_HIT_IDX1 + 2] = "hit_idx3", [STAT_HIT_IDX1 + 3] = "hit_idx4",
	[STAT_HIT_IDX1 + 4] = "hit_idx5", [STAT_HIT_IDX1 + 5] = "hit_idx6",
	[STAT_HIT_IDX1 + 6] = "hit_idx7", [STAT_HIT_IDX1 + 7] = "hit_idx8",
	[STAT_HIT_IDX1 + 8] = "hit_idx9", [STAT_HIT_IDX1 + 9] = "hit_idx10",
	[STAT_HIT_IDX1 + 10] = "hit_idx11", [STAT_HIT_IDX1 + 11] = "hit_idx12",
	[STAT_HIT_IDX1 + 12] = "hit_idx13", [STAT_HIT_IDX1 + 13] = "hit_idx14",
	[STAT_HIT_IDX1 + 14] = "hit_idx15", [STAT_HIT_IDX1 + 15] = "hit_idx16",
	[STAT_LOOKUP_NS] = "lookup_ns",
	NULL,
};

static const char *const bh_lru_names[] = {
	[BH_LRU_ON] = "on", [BH_LRU_OFF] = "off", NULL };

static const struct fc_model_option bh_lru_options[] = {
	{
		.name	= "variant",
		.help	= "on: the per-CPU (per-job) LRU of 16 buffer heads in "
			  "front of __find_get_block_slow(); off: the slow path "
			  "only",
		.def	= "on",
		.choices = bh_lru_names,
		.offset	= offsetof(struct bh_lru_params, variant),
		.is_variant = 1,
	},
	{
		.name	= "mod",
		.help	= "Distinct blocks looked up in turn (1..mod), as the "
			  "thread's test; past 16 the LRU misses every time",
		.def	= "1",
		.min	= 1,
		.max	= BH_LRU_MAX_MOD,
		.offset	= offsetof(struct bh_lru_params, mod),
	},
	{
		.name	= "lookups_per_io",
		.help	= "__find_get_block() calls per I/O, timed together",
		.def	= "1000",
		.min	= 1,
		.max	= 100000000,
		.offset	= offsetof(struct bh_lru_params, lookups_per_io),
	},
	{ .name = NULL },
};

const struct fc_model fc_model_bh_lru = {
	.name		= "bh_lru",
	.order		= 5,
	.paths		= bh_lru_paths,
	.stats		= bh_lru_stats,
	.options	= bh_lru_options,
	.params_size	= sizeof(struct bh_lru_params),
	.state_size	= bh_lru_state_size,
	.io		= bh_lru_io,
	.job_size	= sizeof(struct bh_lru),
	.job_exit	= bh_lru_job_exit,
};
FC_REGISTER_MODEL(fc_model_bh_lru)
