// SPDX-License-Identifier: GPL-2.0
/* model=pattern counts exactly: each operation its RMWs, stores and skips
 * in both forms; guards, flips, repeats and readers as documented; the
 * words placed by their sharing; their initial values written once
 * however many jobs race. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pattern_run.h"
#include "unit.h"

/* S1: two test_and_clear_bit() per I/O: 2 RMWs always, none test_first */
static void s1_counts(void)
{
	const char *const *paths;
	struct run r;

	run_start(&r, "always", "flags@0", "test_and_clear_bit(flags,0),"
		  "test_and_clear_bit(flags,1)", "", "0", 1);
	CHECK_EQ(r.err, 0);
	run_ios(&r, r.state, 1000);
	CHECK_EQ(fc_counters_rmw(&r.c), 2000);
	CHECK_EQ(r.c.rmw[0], 1000);
	CHECK_EQ(fc_counters_skipped(&r.c) + fc_counters_stores(&r.c), 0);
	CHECK_EQ(r.c.checks, 1000);
	paths = m->job_paths(r.job);
	CHECK(!strcmp(paths[0], "1:test_and_clear_bit(flags,0)"));
	CHECK(!strcmp(paths[1], "2:test_and_clear_bit(flags,1)") && !paths[2]);
	run_end(&r);

	run_start(&r, "test_first", "flags@0", "test_and_clear_bit(flags,0),"
		  "test_and_clear_bit(flags,1)", "", "0", 1);
	run_ios(&r, r.state, 1000);
	CHECK_EQ(fc_counters_rmw(&r.c), 0);
	CHECK_EQ(fc_counters_skipped(&r.c), 2000);
	run_end(&r);
}

/* One I/O of @pattern in @variant on a word initialised to @init: the
 * counters of path 0 and the word after */
struct one {
	uint64_t rmw, stores, skipped;
	unsigned long word;
};

static struct one one_io(const char *variant, const char *init,
			 const char *pattern)
{
	char words[64];
	struct one o;
	struct run r;

	snprintf(words, sizeof(words), "w@3+16=%s", init);
	run_start(&r, variant, words, pattern, "", "0", 1);
	if (r.err)
		abort();
	run_ios(&r, r.state, 1);
	o.rmw = r.c.rmw[0];
	o.stores = r.c.stores[0];
	o.skipped = r.c.skipped[0] + r.c.stores_skipped[0];
	o.word = shared_word(&r, 3 * 64 + 16);
	run_end(&r);
	return o;
}

/* Each operation, both forms, on a word where it changes something and
 * on one where it does not */
static void each_operation_counts(void)
{
	static const struct {
		const char *op, *init;
		uint64_t rmw, stores;		/* always */
		uint64_t tf_rmw, tf_stores;	/* test_first */
		unsigned long after;
	} cases[] = {
		{ "READ_ONCE(w)", "5", 0, 0, 0, 0, 5 },
		{ "atomic_read(w)", "5", 0, 0, 0, 0, 5 },
		{ "WRITE_ONCE(w,5)", "5", 0, 1, 0, 0, 5 },
		{ "WRITE_ONCE(w,5)", "4", 0, 1, 0, 1, 5 },
		{ "atomic_set(w,5)", "5", 0, 1, 0, 0, 5 },
		{ "__set_bit(w,2)", "4", 0, 1, 0, 0, 4 },
		{ "__set_bit(w,2)", "0", 0, 1, 0, 1, 4 },
		{ "__clear_bit(w,2)", "0", 0, 1, 0, 0, 0 },
		{ "__clear_bit(w,2)", "6", 0, 1, 0, 1, 2 },
		{ "set_bit(w,63)", "0x8000000000000000", 1, 0, 0, 0,
		  0x8000000000000000UL },
		{ "set_bit(w,0)", "0", 1, 0, 1, 0, 1 },
		{ "clear_bit(w,0)", "0", 1, 0, 0, 0, 0 },
		{ "clear_bit(w,0)", "3", 1, 0, 1, 0, 2 },
		{ "change_bit(w,1)", "3", 1, 0, 1, 0, 1 },
		{ "test_and_set_bit(w,0)", "1", 1, 0, 0, 0, 1 },
		{ "test_and_set_bit(w,0)", "0", 1, 0, 1, 0, 1 },
		{ "test_and_clear_bit(w,0)", "0", 1, 0, 0, 0, 0 },
		{ "test_and_clear_bit(w,0)", "1", 1, 0, 1, 0, 0 },
		{ "atomic_add(w,3)", "4", 1, 0, 1, 0, 7 },
		{ "atomic_inc(w)", "4", 1, 0, 1, 0, 5 },
		{ "atomic_dec(w)", "4", 1, 0, 1, 0, 3 },
		{ "atomic_xchg(w,9)", "9", 1, 0, 0, 0, 9 },
		{ "atomic_xchg(w,9)", "1", 1, 0, 1, 0, 9 },
		/* a failed cmpxchg is still an RMW in the always form */
		{ "atomic_cmpxchg(w,1,2)", "7", 1, 0, 0, 0, 7 },
		{ "atomic_cmpxchg(w,1,2)", "1", 1, 0, 1, 0, 2 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct one a = one_io("always", cases[i].init, cases[i].op);
		struct one t = one_io("test_first", cases[i].init, cases[i].op);
		uint64_t counted = cases[i].rmw + cases[i].stores;

		if (a.rmw != cases[i].rmw || a.stores != cases[i].stores ||
		    a.skipped || t.rmw != cases[i].tf_rmw ||
		    t.stores != cases[i].tf_stores ||
		    t.skipped != counted - t.rmw - t.stores ||
		    a.word != cases[i].after || t.word != cases[i].after) {
			fprintf(stderr, "case %u %s init %s: always %llu/%llu/"
				"%llu %#lx, test_first %llu/%llu/%llu %#lx\n",
				i, cases[i].op, cases[i].init,
				(unsigned long long)a.rmw,
				(unsigned long long)a.stores,
				(unsigned long long)a.skipped, a.word,
				(unsigned long long)t.rmw,
				(unsigned long long)t.stores,
				(unsigned long long)t.skipped, t.word);
			CHECK(0);
		}
	}
}

/* '?' in pattern runs the test-first form in always too (as written), and
 * pattern_fixed replaces the sequence in test_first */
static void explicit_forms_and_the_fixed_sequence(void)
{
	struct run r;

	run_start(&r, "always", "f@0", "?set_bit(f,1),set_bit(f,1)", "", "0",
		  1);
	run_ios(&r, r.state, 10);
	CHECK_EQ(r.c.rmw[0], 1);
	CHECK_EQ(r.c.skipped[0], 9);
	CHECK_EQ(r.c.rmw[1], 10);
	run_end(&r);

	run_start(&r, "test_first", "f@0,g@2", "set_bit(f,1),set_bit(f,2)",
		  "atomic_inc(g)/every=4", "0", 1);
	run_ios(&r, r.state, 10);
	CHECK(!strcmp(m->job_paths(r.job)[0], "1:atomic_inc(g)/every=4"));
	CHECK(!m->job_paths(r.job)[1]);
	CHECK_EQ(r.c.rmw[0], 3);	/* I/Os 1, 5, 9 */
	CHECK_EQ(r.c.skipped[0], 7);
	CHECK_EQ(shared_word(&r, 128), 3);
	CHECK_EQ(shared_word(&r, 0), 0);
	run_end(&r);
}

static void guards_and_repeats(void)
{
	struct run r;

	/* the memcg threshold: adds until the word reaches 64 */
	run_start(&r, "always", "nr@0", "atomic_add(nr,1)/below=64*4", "", "0",
		  1);
	run_ios(&r, r.state, 100);
	CHECK_EQ(r.c.rmw[0], 64);
	CHECK_EQ(r.c.skipped[0], 400 - 64);
	CHECK_EQ(shared_word(&r, 0), 64);
	run_end(&r);

	/* at most once per second of the job: only the first I/O here */
	run_start(&r, "always", "l@0", "atomic_add(l,2)/every_ns=1000000000*3",
		  "", "0", 1);
	run_ios(&r, r.state, 50);
	CHECK_EQ(r.c.rmw[0], 3);
	CHECK_EQ(r.c.skipped[0], 49 * 3);
	run_end(&r);

	/* a flip every 10th I/O: test_first clears it once per flip */
	run_start(&r, "test_first", "f@0", "clear_bit(f,7)/flip_every=10*2",
		  "", "0", 1);
	run_ios(&r, r.state, 1000);
	CHECK_EQ(r.c.stat[name_index(m->stats, "flips")], 100);
	CHECK_EQ(r.c.rmw[0], 100);
	CHECK_EQ(r.c.skipped[0], 2000 - 100);
	run_end(&r);

	/* WRITE_ONCE with flips: always stores every time */
	run_start(&r, "always", "f@0", "WRITE_ONCE(f,1)/flip_every=4", "", "0",
		  1);
	run_ios(&r, r.state, 100);
	CHECK_EQ(r.c.stores[0], 100);
	CHECK_EQ(fc_counters_rmw(&r.c), 0);
	CHECK_EQ(r.c.stat[name_index(m->stats, "flips")], 25);
	run_end(&r);

	/* barriers and work count nothing */
	run_start(&r, "always", "", "smp_mb(),smp_mb__before_atomic(),work(50)",
		  "", "0", 1);
	CHECK_EQ(r.err, 0);
	run_ios(&r, r.state, 10);
	CHECK_EQ(fc_counters_rmw(&r.c) + fc_counters_stores(&r.c) +
		 fc_counters_skipped(&r.c), 0);
	CHECK_EQ(r.c.checks, 10);
	run_end(&r);
}

/* Jobs past pattern_writers only read, once per word per I/O */
static void readers_only_read(void)
{
	int calls = name_index(m->stats, "reader_calls");
	int loads = name_index(m->stats, "reader_loads");
	struct run r;

	run_start(&r, "always", "f@0,g@1", "set_bit(f,1),set_bit(f,2),"
		  "atomic_inc(g),work(10)", "", "2", 3);
	run_ios(&r, r.state, 100);
	CHECK_EQ(fc_counters_rmw(&r.c) + fc_counters_stores(&r.c) +
		 fc_counters_skipped(&r.c), 0);
	CHECK_EQ(r.c.stat[calls], 100);
	CHECK_EQ(r.c.stat[loads], 200);
	CHECK_EQ(r.c.checks, 100);
	run_end(&r);

	run_start(&r, "always", "f@0,g@1", "set_bit(f,1),atomic_inc(g)", "",
		  "2", 2);
	run_ios(&r, r.state, 100);
	CHECK_EQ(fc_counters_rmw(&r.c), 200);
	CHECK_EQ(r.c.stat[calls], 0);
	run_end(&r);
}

/* job words live in the job; node words in the node's copy of the state */
static void sharing_places_the_words(void)
{
	struct run r;
	unsigned int i;
	bool in_state = false;

	run_start(&r, "always", "mine@5:job=0x10", "atomic_inc(mine)", "", "0",
		  1);
	run_ios(&r, r.state, 7);
	for (i = 0; i < m->state_size(r.params, 0); i++)
		in_state |= r.state[i] != 0 && i >= 128;
	CHECK(!in_state);
	CHECK_EQ(r.c.rmw[0], 7);
	run_end(&r);

	/* this CPU's node's copy: after the run's own arena */
	run_start(&r, "always", "n@5:node=0x10,a@5", "atomic_inc(n),"
		  "atomic_add(a,2)", "", "0", 1);
	CHECK_EQ(r.err, 0);
	run_ios(&r, r.state, 7);
	CHECK_EQ(shared_word(&r, 5 * 64), 14);
	for (i = 0; i < PATTERN_MAX_NODES; i++)
		if (shared_word(&r, (1 + i) * PATTERN_ARENA + 5 * 64) == 0x17)
			break;
	CHECK(i < PATTERN_MAX_NODES);
	run_end(&r);
}

/* Many jobs attach to one state at once: the initial value is written
 * once, before any of them runs an operation on it */
#define THREADS	4
#define ITERS	20000

struct racer {
	struct run r;
	unsigned char *state;
};

static void *racer_main(void *arg)
{
	struct racer *x = arg;

	run_ios(&x->r, x->state, ITERS);
	return NULL;
}

static void init_once_under_concurrency(void)
{
	struct racer x[THREADS];
	pthread_t t[THREADS];
	uint64_t rmw = 0;
	int i;

	for (i = 0; i < THREADS; i++)
		run_start(&x[i].r, "always", "n@0=1000000,f@1",
			  "atomic_inc(n),test_and_set_bit(f,3)", "", "0", i + 1);
	for (i = 0; i < THREADS; i++) {
		x[i].state = x[0].r.state;
		pthread_create(&t[i], NULL, racer_main, &x[i]);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		rmw += fc_counters_rmw(&x[i].r.c);
	}
	CHECK_EQ(rmw, 2ULL * THREADS * ITERS);
	CHECK_EQ(shared_word(&x[0].r, 0), 1000000 + THREADS * ITERS);
	CHECK_EQ(shared_word(&x[0].r, 64), 8);
	for (i = 0; i < THREADS; i++)
		run_end(&x[i].r);
}

int main(void)
{
	RUN(s1_counts);
	RUN(each_operation_counts);
	RUN(explicit_forms_and_the_fixed_sequence);
	RUN(guards_and_repeats);
	RUN(readers_only_read);
	RUN(sharing_places_the_words);
	RUN(init_once_under_concurrency);
	UNIT_EXIT();
}
