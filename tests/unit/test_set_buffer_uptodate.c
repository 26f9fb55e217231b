// SPDX-License-Identifier: GPL-2.0
/* set_buffer_uptodate in its three kernels (before, always = d4252071b97d,
 * test_first = 2f79cdfe58c1): the same final state; always runs the barrier
 * and the RMW on every call; before and test_first run neither once the
 * buffers are uptodate (checked on read-only pages, where any RMW faults);
 * test_first's barrier comes with the first transition only. */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "buffer_head.h"
#include "model.h"
#include "model_opts.h"
#include "unit.h"

extern const struct fc_model fc_model_set_buffer_uptodate;
static const struct fc_model *m = &fc_model_set_buffer_uptodate;
static const char *const variants[] = { "before", "always", "test_first" };

#define NBH	3

static int barriers(const struct fc_counters *c)
{
	return c->stat[name_index(m->stats, "smp_mb__before_atomic")];
}

static void *params_of(const char *variant)
{
	void *p = model_params(m);

	model_set(m, p, "variant", variant);
	return p;
}

static int one_op(void *state, void *p, struct fc_counters *c)
{
	struct fc_io io = { .ddir = FC_WRITE, .len = 4096 };

	c->ios[FC_WRITE]++;
	return m->io(state, p, &io, c);
}

static void the_model_as_the_glue_sees_it(void)
{
	const struct fc_model_option *o = model_opt(m, "variant");
	void *p = model_params(m);
	int i;

	CHECK(!strcmp(m->name, "set_buffer_uptodate"));
	CHECK(!strcmp(m->paths[0], "set_buffer_uptodate"));
	CHECK(!strcmp(m->paths[1], "mark_buffer_dirty"));
	CHECK(m->paths[2] == NULL);
	CHECK(o && o->is_variant && !strcmp(o->def, "test_first"));
	for (i = 0; i < 3; i++)
		CHECK(!strcmp(o->choices[name_index(o->choices, variants[i])],
			      variants[i]));
	CHECK(!strcmp(model_opt(m, "metadata_bhs")->def, "3"));
	CHECK_EQ(m->state_size(p, 1 << 30), NBH * sizeof(struct buffer_head));
	for (i = 0; fc_models[i] && fc_models[i] != m; i++)
		;
	CHECK(fc_models[i] == m);
	free(p);
}

/* 1000 operations from the zero state: every variant ends with the same
 * bytes; the RMWs and barriers each variant ran */
static void same_state_and_the_cost_of_each_variant(void)
{
	static const unsigned long long rmw[] = { NBH, 1000 * NBH, NBH };
	static const unsigned long long mb[] = { 0, 1000 * NBH, NBH };
	struct buffer_head ref[NBH];
	int v, i;

	for (v = 0; v < 3; v++) {
		struct buffer_head bh[NBH];
		struct fc_counters c = { 0 };
		void *p = params_of(variants[v]);

		memset(bh, 0, sizeof(bh));
		for (i = 0; i < 1000; i++)
			CHECK_EQ(one_op(bh, p, &c), 0);
		for (i = 0; i < NBH; i++)
			CHECK(buffer_uptodate(&bh[i]) && buffer_dirty(&bh[i]));
		if (v == 0)
			memcpy(ref, bh, sizeof(ref));
		CHECK(!memcmp(ref, bh, sizeof(ref)));
		CHECK_EQ(c.checks, 1000);
		CHECK_EQ(c.rmw[0], rmw[v]);
		CHECK_EQ(c.rmw[0] + c.skipped[0], 1000 * NBH);
		CHECK_EQ(barriers(&c), mb[v]);
		/* mark_buffer_dirty: test first in all three */
		CHECK_EQ(c.rmw[1], NBH);
		printf("     %-10s rmw=%llu barriers=%d\n", variants[v],
		       (unsigned long long)c.rmw[0], barriers(&c));
		free(p);
	}
}

/* Uptodate and dirty buffers on a read-only page: before and test_first
 * run through without a fault (no RMW) and without a barrier */
static void no_rmw_no_barrier_when_nothing_changes(void)
{
	int v;

	for (v = 0; v < 3; v += 2) {	/* before, test_first */
		struct fc_counters c = { 0 };
		void *p = params_of(variants[v]);
		struct buffer_head *bh;
		int i;

		bh = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(bh != MAP_FAILED);
		one_op(bh, p, &c);
		CHECK(mprotect(bh, 4096, PROT_READ) == 0);
		memset(&c, 0, sizeof(c));
		for (i = 0; i < 10000; i++)
			one_op(bh, p, &c);
		CHECK_EQ(fc_counters_rmw(&c), 0);
		CHECK_EQ(barriers(&c), 0);
		CHECK_EQ(c.skipped[0], 10000 * NBH);
		munmap(bh, 4096);
		free(p);
	}
}

/* Jobs sharing the buffers: the state ends uptodate and dirty in every
 * variant; always pays per call, the others only for racing first calls. */
#define THREADS	4
#define OPS	50000

struct worker {
	void *state, *p;
	struct fc_counters c;
	pthread_t t;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	int i;

	for (i = 0; i < OPS; i++)
		one_op(w->state, w->p, &w->c);
	return NULL;
}

static void concurrent_jobs(void)
{
	int v, i;

	for (v = 0; v < 3; v++) {
		struct buffer_head bh[NBH];
		struct worker w[THREADS];
		unsigned long long rmw = 0, mb = 0;
		void *p = params_of(variants[v]);

		memset(bh, 0, sizeof(bh));
		memset(w, 0, sizeof(w));
		for (i = 0; i < THREADS; i++) {
			w[i].state = bh;
			w[i].p = p;
			CHECK(pthread_create(&w[i].t, NULL, worker_run, &w[i]) == 0);
		}
		for (i = 0; i < THREADS; i++) {
			pthread_join(w[i].t, NULL);
			rmw += w[i].c.rmw[0];
			mb += barriers(&w[i].c);
		}
		for (i = 0; i < NBH; i++)
			CHECK(buffer_uptodate(&bh[i]) && buffer_dirty(&bh[i]));
		if (v == 1) {
			CHECK_EQ(rmw, (unsigned long long)THREADS * OPS * NBH);
			CHECK_EQ(mb, rmw);
		} else {
			CHECK(rmw >= NBH && rmw <= THREADS * NBH);
			CHECK_EQ(mb, v == 2 ? rmw : 0);
		}
		free(p);
	}
}

int main(void)
{
	RUN(the_model_as_the_glue_sees_it);
	RUN(same_state_and_the_cost_of_each_variant);
	RUN(no_rmw_no_barrier_when_nothing_changes);
	RUN(concurrent_jobs);
	UNIT_EXIT();
}
