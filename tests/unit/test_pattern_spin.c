// SPDX-License-Identifier: GPL-2.0
/*
 * A spin_lock() on a lock no one frees gives up once the engine says the
 * job must stop (fio ending it, its runtime over: job.c), not before: the
 * I/O fails with -EDEADLK and one line naming the operation and the lock,
 * and the locks the I/O took before it are released (the one it waited
 * on is not its own). Run plain, under ASan/UBSan and TSan.
 */
#include <errno.h>
#include <string.h>

#include "pattern_run.h"
#include "unit.h"

/* The engine's question: "stop" from the @after-th time it is asked */
struct stopper {
	struct fc_stop stop;
	unsigned int asked, after;
};

static const char *stop_after(const struct fc_stop *s)
{
	struct stopper *st = (struct stopper *)s;

	return ++st->asked >= st->after ? "the test said so" : NULL;
}

static int one_io(struct run *r, struct stopper *st)
{
	struct fc_io io = { .ddir = FC_READ, .len = 4096, .job = r->job,
			    .stop = &st->stop };

	r->c.ios[FC_READ]++;
	return m->io(r->state, r->params, &io, &r->c);
}

static void a_spin_on_a_held_lock_gives_up_when_told(void)
{
	struct stopper st = { .stop.why = stop_after, .after = 3 };
	unsigned long *a, *b;
	struct run r;

	run_start(&r, "always", "a@0,b@2", "spin_lock(a),spin_lock(b),"
		  "work(1),spin_unlock(b),spin_unlock(a)", "", "0", 1);
	CHECK_EQ(r.err, 0);
	CHECK_EQ(one_io(&r, &st), 0);		/* free: no question */
	CHECK_EQ(st.asked, 0);
	a = (unsigned long *)(r.state + 128);
	b = (unsigned long *)(r.state + 128 + 128);
	*b = 1;					/* held, for ever */
	CHECK_EQ(one_io(&r, &st), -EDEADLK);
	CHECK_EQ(st.asked, 3);			/* asked until told */
	CHECK_EQ(*a, 0);			/* its own lock released */
	CHECK_EQ(*b, 1);			/* the other's not */
	CHECK(!strcmp(m->io_error(r.job), "pattern: operation 2 "
		      "'spin_lock(b)': gave up when the test said so, lock b "
		      "still held: the job that holds it stopped or is "
		      "stuck"));
	/* the failed spin's attempts: one cmpxchg, failed */
	CHECK_EQ(r.c.rmw[1], 2);
	CHECK_EQ(r.c.retries[1], 1);
	*b = 0;
	st.asked = 0;
	CHECK_EQ(one_io(&r, &st), 0);		/* free again: runs */
	CHECK(m->io_error(r.job) == NULL);
	run_end(&r);
}

/* No question is asked of a sequence without a lock, none of one whose
 * lock is free, and a job the engine never asks (no stop) never stops */
static void no_lock_no_question(void)
{
	struct stopper st = { .stop.why = stop_after, .after = 1 };
	struct run r;

	run_start(&r, "always", "a@0", "atomic_inc(a)", "", "0", 1);
	CHECK_EQ(one_io(&r, &st), 0);
	CHECK_EQ(st.asked, 0);
	CHECK(m->io_error(r.job) == NULL);
	run_end(&r);
}

int main(void)
{
	RUN(a_spin_on_a_held_lock_gives_up_when_told);
	RUN(no_lock_no_question);
	UNIT_EXIT();
}
