// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern's /if_test after a test that a guard skipped (pattern.h,
 * UNTESTED): an operation guarded by a test that did not run this I/O does
 * not run, whichever guard skipped the test (/every, /every_ns, /below,
 * /if_test), as a kernel block under an if () whose test was never reached;
 * a test that ran, or whose test-first form skipped its RMW, is read.
 */
#include "model.h"
#include "model_opts.h"
#include "pattern_job.h"
#include "unit.h"
#include "forms_run.h"

/*
 * The trap of sched_balance_running (3324b2180c17): the cmpxchg skipped
 * when balancing is not due, and the release only after a cmpxchg that
 * took the word. Every 4th I/O tests and sets the bit, and only those I/Os
 * store the release: 2 of 8.
 */
static void every_skips_what_its_test_guards(void)
{
	struct run r;

	CHECK(!run_start(&r, "always", "running@0",
			 "test_and_set_bit(running,0)/every=4,"
			 "atomic_set(running,0)/if_test=0", 1));
	run_ios(&r, 0, 8);
	CHECK_EQ(r.c[0].rmw[0], 2);
	CHECK_EQ(r.c[0].skipped[0], 6);
	CHECK_EQ(r.c[0].stores[1], 2);
	CHECK_EQ(r.c[0].stores_skipped[1], 6);
	CHECK_EQ(arena_word(&r, 0), 0);
	run_end(&r);
}

/* /every_ns: one test in a period longer than the run, the first I/O's */
static void every_ns_skips_what_its_test_guards(void)
{
	struct run r;

	CHECK(!run_start(&r, "always", "state@0,count@2",
			 "test_bit(state,0)/every_ns=1000000000000,"
			 "atomic_inc(count)/if_test=0", 1));
	run_ios(&r, 0, 5);
	CHECK_EQ(r.c[0].rmw[1], 1);
	CHECK_EQ(r.c[0].skipped[1], 4);
	CHECK_EQ(arena_word(&r, 128), 1);
	run_end(&r);
}

/*
 * /below: test_and_set_bit() while the word is below 1, so on the first
 * I/O only; /if_test=0 after it runs then, and never on the I/Os whose
 * test /below skipped (it would run on each if it read that old 0)
 */
static void below_skips_what_its_test_guards(void)
{
	struct run r;

	CHECK(!run_start(&r, "always", "state@0,count@2",
			 "test_and_set_bit(state,0)/below=1,"
			 "atomic_inc(count)/if_test=0", 1));
	run_ios(&r, 0, 6);
	CHECK_EQ(r.c[0].rmw[0], 1);
	CHECK_EQ(r.c[0].skipped[0], 5);
	CHECK_EQ(r.c[0].rmw[1], 1);
	CHECK_EQ(r.c[0].skipped[1], 5);
	run_end(&r);
}

/*
 * A test guarded by another: if (!test_bit(a)) { if (test_bit(b)) ... }.
 * a is clear, so b's test never runs with a set: here a is set, b's test
 * is skipped, and the inc it guards does not run, though a's test found
 * the V it asks for
 */
static void a_skipped_test_guards_nothing(void)
{
	struct run r;

	CHECK(!run_start(&r, "always", "a@0=1,b@2,count@4",
			 "test_bit(a,0),test_bit(b,0)/if_test=0,"
			 "atomic_inc(count)/if_test=1", 1));
	run_ios(&r, 0, 3);
	CHECK_EQ(r.c[0].rmw[2], 0);
	CHECK_EQ(r.c[0].skipped[2], 3);
	run_end(&r);
}

/* A test-first form that skips its RMW still tested the bit: read */
static void a_test_first_skip_is_a_test(void)
{
	struct run r;

	CHECK(!run_start(&r, "always", "state@0=1,count@2",
			 "?test_and_set_bit(state,0),atomic_inc(count)/if_test=1",
			 1));
	run_ios(&r, 0, 4);
	CHECK_EQ(r.c[0].skipped[0], 4);
	CHECK_EQ(r.c[0].rmw[1], 4);
	run_end(&r);
}

int main(void)
{
	RUN(every_skips_what_its_test_guards);
	RUN(every_ns_skips_what_its_test_guards);
	RUN(below_skips_what_its_test_guards);
	RUN(a_skipped_test_guards_nothing);
	RUN(a_test_first_skip_is_a_test);
	UNIT_EXIT();
}
