// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern's forms beyond one word shared by all, counted exactly:
 * obj(N,RULE) words, a field of N objects of which each I/O uses one,
 * picked in turn, at random, by the job's CPU or by its number; CAS
 * loops, guards, values of the job, alternatives (the slot and pair words:
 * test_pattern_copies.c).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_opts.h"
#include "pattern_job.h"
#include "unit.h"
#include "forms_run.h"

/* Object @k's word at @off (line * 64 + offset) */
static unsigned long obj_word(struct run *r, unsigned int stride,
			      unsigned int k, unsigned int off)
{
	return *(unsigned long *)(r->state + PATTERN_STATE + k * stride + off);
}

static void objects_are_laid_out_and_initialised(void)
{
	struct run r;
	unsigned int k;

	/* lines 0 and 1 of each object: 128 bytes, 5 objects after the state */
	CHECK(!run_start(&r, "always", "a@0:obj(5,turn)=0x10,b@1+8:obj(5,turn)",
			 "set_bit(a,0),set_bit(b,3)", 1));
	CHECK_EQ(r.size, PATTERN_STATE + 5 * 128);
	run_ios(&r, 0, 5);
	for (k = 0; k < 5; k++) {
		CHECK_EQ(obj_word(&r, 128, k, 0), 0x11);
		CHECK_EQ(obj_word(&r, 128, k, 72), 0x8);
	}
	CHECK_EQ(r.c[0].rmw[0], 5);
	CHECK_EQ(r.c[0].rmw[1], 5);
	run_end(&r);
}

/* In turn: job 1 starts at object 0, job 2 at object 1, each goes on */
static void turn_visits_each_object_in_turn(void)
{
	struct run r;

	CHECK(!run_start(&r, "test_first", "a@0:obj(8,turn)", "set_bit(a,0)",
			 2));
	run_ios(&r, 0, 3);		/* objects 0, 1, 2 */
	run_ios(&r, 1, 3);		/* objects 1, 2, 3: only 3 is new */
	CHECK_EQ(r.c[0].rmw[0], 3);
	CHECK_EQ(r.c[1].rmw[0], 1);
	CHECK_EQ(r.c[1].skipped[0], 2);
	run_ios(&r, 0, 100);		/* 3..7 new, then all set */
	CHECK_EQ(r.c[0].rmw[0], 3 + 4);
	CHECK_EQ(r.c[0].rmw[0] + r.c[0].skipped[0], 103);
	CHECK_EQ(obj_word(&r, 128, 7, 0), 1);
	run_end(&r);
}

/* By the job's number: job 3 of 2 objects uses object 0, job 2 object 1 */
static void job_picks_one_object(void)
{
	struct run r;

	CHECK(!run_start(&r, "always", "a@0:obj(2,job)", "atomic_inc(a)", 3));
	run_ios(&r, 1, 10);
	run_ios(&r, 2, 7);
	CHECK_EQ(obj_word(&r, 128, 0, 0), 7);
	CHECK_EQ(obj_word(&r, 128, 1, 0), 10);
	run_end(&r);
}

/* At random: every I/O counted, the objects' sum is the I/Os, and 1000
 * picks among 4 objects leave none unused */
static void random_spreads_over_the_objects(void)
{
	struct run r;
	unsigned long sum = 0;
	unsigned int k;

	CHECK(!run_start(&r, "always", "a@0:obj(4,random)", "atomic_inc(a)",
			 1));
	run_ios(&r, 0, 1000);
	for (k = 0; k < 4; k++) {
		CHECK(obj_word(&r, 128, k, 0) > 0);
		sum += obj_word(&r, 128, k, 0);
	}
	CHECK_EQ(sum, 1000);
	CHECK_EQ(r.c[0].rmw[0], 1000);
	run_end(&r);
}

/* By the job's CPU: one object for the whole job */
static void cpu_picks_one_object(void)
{
	struct run r;
	unsigned long used = 0;
	unsigned int k;

	CHECK(!run_start(&r, "always", "a@0:obj(3,cpu)", "atomic_inc(a)", 1));
	run_ios(&r, 0, 9);
	for (k = 0; k < 3; k++)
		used += obj_word(&r, 128, k, 0) == 9;
	CHECK_EQ(used, 1);
	CHECK_EQ(r.c[0].stat[name_index(m->stats, "reader_calls")], 0);
	run_end(&r);
}

static void a_test_guards_another_word(void)
{
	struct run r;

	CHECK(!run_start_fixed(&r, "test_first", "state@0,count@2",
			       "set_bit(state,3),atomic_inc(count)",
			       "test_bit(state,3),set_bit(state,3)/if_test=0,"
			       "atomic_inc(count)/if_test=0", 1));
	run_ios(&r, 0, 10);
	CHECK_EQ(r.c[0].rmw[0] + r.c[0].skipped[0], 0);	/* a load */
	CHECK_EQ(r.c[0].rmw[1], 1);
	CHECK_EQ(r.c[0].skipped[1], 9);
	CHECK_EQ(r.c[0].rmw[2], 1);
	CHECK_EQ(r.c[0].skipped[2], 9);
	CHECK_EQ(arena_word(&r, 128), 1);
	run_end(&r);
	/* /if_test=1 runs when the bit is set: here never */
	CHECK(!run_start(&r, "always", "state@0,count@2",
			 "test_bit(state,3),atomic_inc(count)/if_test=1", 1));
	run_ios(&r, 0, 4);
	CHECK_EQ(r.c[0].skipped[1], 4);
	run_end(&r);
}

/* atomic_inc_not_zero: no RMW on 0 (skipped), one per call otherwise */
static void cas_loops_skip_and_count(void)
{
	struct run r;
	int retries = name_index(m->stats, "retries"), i;

	CHECK(!run_start(&r, "always", "ref@0,live@1=5",
			 "atomic_inc_not_zero(ref),atomic_inc_not_zero(live),"
			 "atomic_add_unless(live,2,9)", 1));
	run_ios(&r, 0, 6);
	CHECK_EQ(r.c[0].skipped[0], 6);
	CHECK_EQ(r.c[0].rmw[0], 0);
	CHECK_EQ(r.c[0].rmw[1], 6);
	/* live: 5, then +1 and +2 unless 9: 6 8, 9 (skipped), 10 12, ... */
	CHECK_EQ(r.c[0].rmw[2], 5);
	CHECK_EQ(r.c[0].skipped[2], 1);
	CHECK_EQ(r.c[0].stat[retries], 0);
	for (i = 0; i < 3; i++)		/* alone: no attempt fails */
		CHECK_EQ(r.c[0].retries[i], 0);
	CHECK_EQ(arena_word(&r, 64), 5 + 6 + 2 * 5);
	run_end(&r);
}

struct racer {
	struct run *r;
	unsigned int job;
};

static void *race(void *arg)
{
	struct racer *x = arg;

	run_ios(x->r, x->job, 200000);
	return NULL;
}

#define RACERS	4

/* Four jobs racing on one word, two CAS loops a call: every attempt an
 * RMW, every failed one a retry of its own path, so per path rmw - retries
 * == calls exactly, the record's retries are the paths' sum, and the word
 * counts every call */
static void cas_retries_are_exact_under_contention(void)
{
	struct run r;
	struct racer x[RACERS];
	pthread_t t[RACERS];
	int retries = name_index(m->stats, "retries"), i, p;

	CHECK(!run_start(&r, "always", "ref@0=1",
			 "atomic_inc_not_zero(ref),atomic_add_unless(ref,1,0)",
			 RACERS));
	/* attach all first, so that none writes the init over another */
	for (i = 0; i < RACERS; i++) {
		x[i] = (struct racer){ &r, i };
		run_ios(&r, i, 1);
	}
	for (i = 0; i < RACERS; i++)
		pthread_create(&t[i], NULL, race, &x[i]);
	for (i = 0; i < RACERS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < RACERS; i++) {
		for (p = 0; p < 2; p++) {
			CHECK_EQ(r.c[i].skipped[p], 0);
			CHECK_EQ(r.c[i].rmw[p] - r.c[i].retries[p], 200001);
		}
		CHECK_EQ(r.c[i].stat[retries],
			 r.c[i].retries[0] + r.c[i].retries[1]);
	}
	CHECK_EQ(arena_word(&r, 0), 1 + 2 * RACERS * 200001);
	run_end(&r);
}

/* Values that are the job's own: WRITE_ONCE(last, job) in its test-first
 * form stores only when another job wrote last */
static void values_of_the_job(void)
{
	struct run r;

	CHECK(!run_start(&r, "test_first", "last@0", "WRITE_ONCE(last,job)",
			 2));
	run_ios(&r, 0, 3);
	run_ios(&r, 1, 3);
	run_ios(&r, 0, 3);
	CHECK_EQ(r.c[0].stores[0], 2);
	CHECK_EQ(r.c[1].stores[0], 1);
	CHECK_EQ(r.c[0].stores_skipped[0] + r.c[1].stores_skipped[0], 9 - 3);
	CHECK_EQ(r.c[0].skipped[0] + r.c[1].skipped[0], 0);
	CHECK_EQ(arena_word(&r, 0), 1);
	run_end(&r);
	CHECK(!run_start(&r, "test_first", "last@0", "WRITE_ONCE(last,cpu)",
			 1));
	run_ios(&r, 0, 5);
	CHECK_EQ(r.c[0].stores[0], arena_word(&r, 0) ? 1 : 0);
	CHECK_EQ(r.c[0].stores[0] + r.c[0].stores_skipped[0], 5);
	CHECK_EQ(r.c[0].skipped[0], 0);
	run_end(&r);
}

/* A|B|C: the I/Os take the sequences in turn (a weight: an alternative
 * written twice), the operations numbered across them */
static void alternatives_in_turn(void)
{
	struct run r;
	char msg[512];
	struct pattern_prog p;
	struct pattern_params pp = { .words = "a@0,b@1",
				     .pattern = "atomic_inc(a)||atomic_dec(a)" };

	CHECK(!run_start(&r, "always", "a@0,b@1",
			 "atomic_inc(a)|atomic_inc(b),atomic_inc(b)|"
			 "atomic_dec(a)", 1));
	run_ios(&r, 0, 7);
	CHECK_EQ(r.c[0].rmw[0], 3);	/* I/Os 0, 3, 6 */
	CHECK_EQ(r.c[0].rmw[1], 2);	/* 1, 4 */
	CHECK_EQ(r.c[0].rmw[2], 2);
	CHECK_EQ(r.c[0].rmw[3], 2);	/* 2, 5 */
	CHECK_EQ(arena_word(&r, 0), 1);
	CHECK_EQ(arena_word(&r, 64), 4);
	run_end(&r);
	CHECK(pattern_compile(&pp, true, &p, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "pattern: alternative 2 is empty"));
	pp.pattern = "smp_mb()|smp_mb()|smp_mb()|smp_mb()|smp_mb()|smp_mb()|"
		     "smp_mb()|smp_mb()|smp_mb()|smp_mb()|smp_mb()|smp_mb()|"
		     "smp_mb()|smp_mb()|smp_mb()|smp_mb()|smp_mb()";
	CHECK(pattern_compile(&pp, true, &p, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "more than 16 alternatives"));
}

/* 64 operations a call, each its own path */
static void sixty_four_operations(void)
{
	static char seq[64 * 16 + 1];
	struct run r;
	unsigned int i;

	for (i = 0; i < 64; i++)
		sprintf(seq + strlen(seq), "%satomic_inc(c)", i ? "," : "");
	CHECK(!run_start(&r, "always", "c@0", seq, 1));
	run_ios(&r, 0, 3);
	for (i = 0; i < 64; i++)
		CHECK_EQ(r.c[0].rmw[i], 3);
	CHECK_EQ(arena_word(&r, 0), 3 * 64);
	run_end(&r);
	strcat(seq, ",atomic_inc(c)");
	CHECK(run_start(&r, "always", "c@0", seq, 1));
	run_end(&r);
}

int main(void)
{
	RUN(a_test_guards_another_word);
	RUN(cas_loops_skip_and_count);
	RUN(cas_retries_are_exact_under_contention);
	RUN(values_of_the_job);
	RUN(sixty_four_operations);
	RUN(alternatives_in_turn);
	RUN(objects_are_laid_out_and_initialised);
	RUN(turn_visits_each_object_in_turn);
	RUN(job_picks_one_object);
	RUN(random_spreads_over_the_objects);
	RUN(cpu_picks_one_object);
	UNIT_EXIT();
}
