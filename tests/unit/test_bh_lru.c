// SPDX-License-Identifier: GPL-2.0
/* The per-CPU buffer_head LRU: exact hits, misses and hit depths for known
 * sequences of blocks; the LRU's order and the references it holds; the
 * shared heads are the same with and without it; jobs sharing the bdev each
 * keep their own LRU, and the reference counts stay exact. */
#include <pthread.h>
#include <string.h>

#include "buffer_head.h"
#include "model.h"
#include "model_opts.h"
#include "unit.h"

extern const struct fc_model fc_model_bh_lru;
static const struct fc_model *m = &fc_model_bh_lru;

#define LRU	16

/* the job memory's layout: the LRU's entries first */
struct lru_view {
	struct buffer_head *bhs[LRU];
	unsigned long long next;
};

static unsigned long long stat(const struct fc_counters *c, const char *n)
{
	int i = name_index(m->stats, n);

	if (i < 0)
		abort();
	return c->stat[i];
}

static unsigned long long hit_idx(const struct fc_counters *c, int idx)
{
	char name[16];

	snprintf(name, sizeof(name), "hit_idx%d", idx);
	return stat(c, name);
}

struct bdev {
	void *p, *state;
	struct lru_view *lru;
	size_t size;
};

static void bdev_open(struct bdev *b, const char *lru, unsigned int mod)
{
	char num[16];

	b->p = model_params(m);
	model_set(m, b->p, "variant", lru);
	snprintf(num, sizeof(num), "%u", mod);
	model_set(m, b->p, "mod", num);
	b->size = m->state_size(b->p, 0);
	b->state = aligned_alloc(128, (b->size + 127) & ~(size_t)127);
	b->lru = calloc(1, m->job_size);
	if (!b->state || !b->lru)
		abort();
	memset(b->state, 0, b->size);
}

static void bdev_close(struct bdev *b)
{
	free(b->p);
	free(b->state);
	free(b->lru);
}

/* @n lookups of the next blocks of 1..mod (mod may change between calls,
 * the job's place in the cycle goes on) */
static void lookups(struct bdev *b, unsigned int mod, unsigned int n,
		    struct fc_counters *c)
{
	char num[16];
	struct fc_io io = { .ddir = FC_READ, .len = 4096, .job = b->lru };

	snprintf(num, sizeof(num), "%u", mod);
	model_set(m, b->p, "mod", num);
	snprintf(num, sizeof(num), "%u", n);
	model_set(m, b->p, "lookups_per_io", num);
	c->ios[FC_READ]++;
	m->io(b->state, b->p, &io, c);
}

static void the_model_as_the_glue_sees_it(void)
{
	const struct fc_model_option *o = model_opt(m, "variant");
	int i;

	CHECK(!strcmp(m->name, "bh_lru"));
	CHECK(o && o->is_variant && !strcmp(o->def, "on"));
	CHECK(!strcmp(o->choices[0], "on") && !strcmp(o->choices[1], "off"));
	CHECK(!strcmp(model_opt(m, "mod")->def, "1"));
	CHECK(!strcmp(model_opt(m, "lookups_per_io")->def, "1000"));
	CHECK(m->job_size >= sizeof(struct lru_view) && !m->job_init);
	CHECK_EQ(model_opt(m, "mod")->max, 4096);
	for (i = 0; m->stats[i]; i++)
		;
	CHECK_EQ(i, 3 + LRU + 1);
	CHECK(i <= FC_MAX_STATS);
	CHECK(!strcmp(m->stats[0], "lookups") && !strcmp(m->stats[1], "hits") &&
	      !strcmp(m->stats[2], "misses") &&
	      !strcmp(m->stats[3], "hit_idx1") &&
	      !strcmp(m->stats[18], "hit_idx16") &&
	      !strcmp(m->stats[19], "lookup_ns"));
}

/* Blocks 1..mod in turn, 10 rounds: the first round misses, then every
 * lookup finds its block at index mod (the least recent of mod); past 16
 * the LRU holds none of them when asked. */
static void cycles_hit_at_depth_mod_until_16(void)
{
	unsigned int mod;

	for (mod = 1; mod <= 20; mod++) {
		struct fc_counters c = { 0 };
		struct bdev b;
		int i;

		bdev_open(&b, "on", mod);
		lookups(&b, mod, 10 * mod, &c);
		CHECK_EQ(stat(&c, "lookups"), 10 * mod);
		CHECK_EQ(c.checks, 10 * mod);
		if (mod <= LRU) {
			CHECK_EQ(stat(&c, "misses"), mod);
			CHECK_EQ(stat(&c, "hits"), 9 * mod);
			for (i = 1; i <= LRU; i++)
				CHECK_EQ(hit_idx(&c, i),
					 i == (int)mod ? 9 * mod : 0);
		} else {
			CHECK_EQ(stat(&c, "misses"), 10 * mod);
			CHECK_EQ(stat(&c, "hits"), 0);
		}
		/* every lookup got one reference and its caller dropped it */
		CHECK_EQ(c.rmw[0] - c.rmw[1],
			 mod <= LRU ? mod : LRU);	/* the LRU's own */
		bdev_close(&b);
	}
}

/* A sequence by hand: 1 2 1 2 (M M H2 H2), then 1 1 (H2 H1), then 1..3
 * (H1 H2 M) */
static void a_known_sequence(void)
{
	struct fc_counters c = { 0 };
	struct bdev b;

	bdev_open(&b, "on", 2);
	lookups(&b, 2, 4, &c);
	CHECK_EQ(stat(&c, "misses"), 2);
	CHECK_EQ(hit_idx(&c, 2), 2);
	CHECK_EQ(b.lru->bhs[0]->b_blocknr, 2);
	CHECK_EQ(b.lru->bhs[1]->b_blocknr, 1);
	CHECK(b.lru->bhs[2] == NULL);
	lookups(&b, 1, 2, &c);		/* next=4: block 1, 1 */
	CHECK_EQ(hit_idx(&c, 2), 3);
	CHECK_EQ(hit_idx(&c, 1), 1);
	CHECK_EQ(b.lru->bhs[0]->b_blocknr, 1);
	lookups(&b, 3, 3, &c);		/* next=6: blocks 1, 2, 3 */
	CHECK_EQ(hit_idx(&c, 1), 2);
	CHECK_EQ(hit_idx(&c, 2), 4);
	CHECK_EQ(stat(&c, "misses"), 3);
	CHECK_EQ(stat(&c, "hits"), 6);
	CHECK_EQ(stat(&c, "lookups"), 9);
	CHECK_EQ(b.lru->bhs[0]->b_blocknr, 3);
	CHECK_EQ(b.lru->bhs[1]->b_blocknr, 2);
	CHECK_EQ(b.lru->bhs[2]->b_blocknr, 1);
	/* the slow path ran once per miss: page lock, page ref get and put */
	CHECK_EQ(c.rmw[2], 3);
	CHECK_EQ(c.rmw[3], 6);
	bdev_close(&b);
}

/* Off: every lookup takes the slow path; the heads found are the same as
 * with the LRU, which only adds its one reference per entry. */
static void off_always_slow_same_heads(void)
{
	struct fc_counters con = { 0 }, coff = { 0 };
	struct bdev on, off;
	struct buffer_head *hon, *hoff;
	unsigned int i;

	bdev_open(&on, "on", 10);
	bdev_open(&off, "off", 10);
	lookups(&on, 10, 1000, &con);
	lookups(&off, 10, 1000, &coff);
	CHECK_EQ(stat(&coff, "misses"), 1000);
	CHECK_EQ(stat(&coff, "hits"), 0);
	CHECK_EQ(coff.rmw[2], 1000);
	CHECK_EQ(stat(&con, "hits"), 990);
	CHECK(off.lru->bhs[0] == NULL);
	CHECK(stat(&coff, "lookup_ns") > 0);
	/* the heads: the tail of the state, one per page of blocks 0..10 */
	hon = (struct buffer_head *)((char *)on.state + on.size) - 4097;
	hoff = (struct buffer_head *)((char *)off.state + off.size) - 4097;
	for (i = 1; i <= 10; i++) {
		CHECK_EQ(hon[i].b_blocknr, i);
		CHECK_EQ(hoff[i].b_blocknr, i);
		CHECK(buffer_mapped(&hon[i]) && buffer_mapped(&hoff[i]));
		CHECK_EQ(hoff[i].b_count, 0);
		CHECK_EQ(hon[i].b_count, 1);	/* the LRU's reference */
	}
	CHECK(!buffer_mapped(&hon[0]));	/* block 0 never asked */
	bdev_close(&on);
	bdev_close(&off);
}

/* Four jobs, one bdev, each its own LRU: at the end each head's count is
 * the number of LRUs that hold it. */
#define JOBS	4

struct job {
	struct bdev *b;
	struct lru_view *lru;
	void *p;
	struct fc_counters c;
	pthread_t t;
};

static void *job_run(void *arg)
{
	struct job *j = arg;
	struct fc_io io = { .ddir = FC_READ, .len = 4096, .job = j->lru };
	int i;

	for (i = 0; i < 200; i++) {
		j->c.ios[FC_READ]++;
		m->io(j->b->state, j->p, &io, &j->c);
	}
	return NULL;
}

static void jobs_keep_their_own_lru(void)
{
	struct job j[JOBS];
	struct bdev b;
	struct buffer_head *heads;
	int i, k, held;

	bdev_open(&b, "on", 18);
	model_set(m, b.p, "lookups_per_io", "100");
	memset(j, 0, sizeof(j));
	for (i = 0; i < JOBS; i++) {
		j[i].b = &b;
		j[i].p = b.p;
		j[i].lru = calloc(1, m->job_size);
		CHECK(j[i].lru);
		j[i].lru->next = i * 5;	/* different places in the cycle */
		CHECK(pthread_create(&j[i].t, NULL, job_run, &j[i]) == 0);
	}
	for (i = 0; i < JOBS; i++)
		pthread_join(j[i].t, NULL);
	heads = (struct buffer_head *)((char *)b.state + b.size) - 4097;
	for (k = 1; k <= 18; k++) {
		held = 0;
		for (i = 0; i < JOBS; i++) {
			int e;

			for (e = 0; e < LRU; e++)
				held += j[i].lru->bhs[e] == &heads[k];
		}
		CHECK_EQ(heads[k].b_count, held);
	}
	for (i = 0; i < JOBS; i++) {
		CHECK_EQ(stat(&j[i].c, "lookups"), 200 * 100);
		CHECK_EQ(stat(&j[i].c, "hits"), 0);	/* 18 > 16 */
		m->job_exit(j[i].lru, b.p);	/* drops its references */
		free(j[i].lru);
	}
	for (k = 0; k <= 18; k++)
		CHECK_EQ(heads[k].b_count, 0);
	bdev_close(&b);
}

int main(void)
{
	RUN(the_model_as_the_glue_sees_it);
	RUN(cycles_hit_at_depth_mod_until_16);
	RUN(a_known_sequence);
	RUN(off_always_slow_same_heads);
	RUN(jobs_keep_their_own_lru);
	UNIT_EXIT();
}
