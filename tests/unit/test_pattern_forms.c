// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern's forms beyond one word shared by all, counted exactly:
 * obj(N,RULE) words, a field of N objects of which each I/O uses one,
 * picked in turn, at random, by the job's CPU or by its number; slot
 * words, job N's 8 bytes at 8 x (N - 1) past the word, packed into shared
 * lines; pair words, the copy of jobs 2k + 1 and 2k + 2 at 128 x k past
 * the word, a line pair to itself.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_opts.h"
#include "pattern_job.h"
#include "unit.h"

static const struct fc_model *m = &fc_model_pattern;

/* Jobs of the model on one state, as the glue drives them */
struct run {
	void *params;
	unsigned char *state;
	size_t size;
	void *job[4];
	struct fc_counters c[4];
	char msg[512];		/* the first job_init's reason for failing */
};

static int run_start_fixed(struct run *r, const char *variant,
			   const char *words, const char *pattern,
			   const char *fixed, unsigned int jobs)
{
	char scratch[sizeof(r->msg)];
	unsigned int i;
	int err = 0;

	memset(r, 0, sizeof(*r));
	r->params = model_params(m);
	model_set(m, r->params, "variant", variant);
	model_set(m, r->params, "pattern_words", words);
	model_set(m, r->params, "pattern", pattern);
	model_set(m, r->params, "pattern_fixed", fixed);
	model_set(m, r->params, "pattern_writers", "0");
	r->size = m->state_size(r->params, 0);
	r->state = aligned_alloc(128, (r->size + 127) & ~(size_t)127);
	if (!r->state)
		abort();
	memset(r->state, 0, r->size);
	for (i = 0; i < jobs; i++) {
		r->job[i] = calloc(1, m->job_size);
		if (!r->job[i])
			abort();
		if (m->job_init(r->job[i], r->params, i + 1,
				err ? scratch : r->msg, sizeof(scratch)))
			err = 1;
	}
	return err;
}

static int run_start(struct run *r, const char *variant, const char *words,
		     const char *pattern, unsigned int jobs)
{
	return run_start_fixed(r, variant, words, pattern, "", jobs);
}

static void run_ios(struct run *r, unsigned int job, unsigned int n)
{
	struct fc_io io = { .ddir = FC_READ, .len = 4096, .job = r->job[job] };

	while (n--) {
		r->c[job].ios[FC_READ]++;
		if (m->io(r->state, r->params, &io, &r->c[job]))
			abort();
	}
}

static void run_end(struct run *r)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		free(r->job[i]);
	free(r->params);
	free(r->state);
}

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

/* The shared arena's word at @off */
static unsigned long arena_word(struct run *r, unsigned int off)
{
	return *(unsigned long *)(r->state + PATTERN_HEADER + off);
}

static void slots_pack_the_jobs_words(void)
{
	struct run r;

	CHECK(!run_start(&r, "always", "c@1+8:slot=0x100,d@2",
			 "atomic_inc(c),atomic_inc(d)", 3));
	run_ios(&r, 0, 5);
	run_ios(&r, 1, 7);
	run_ios(&r, 2, 11);
	CHECK_EQ(arena_word(&r, 64 + 8), 0x100 + 5);
	CHECK_EQ(arena_word(&r, 64 + 16), 0x100 + 7);
	CHECK_EQ(arena_word(&r, 64 + 24), 0x100 + 11);
	CHECK_EQ(arena_word(&r, 128), 23);
	CHECK_EQ(r.c[1].rmw[0], 7);
	run_end(&r);
	/* test first: each job's own slot, so once per job */
	CHECK(!run_start(&r, "test_first", "c@0:slot", "set_bit(c,2)", 2));
	run_ios(&r, 0, 9);
	run_ios(&r, 1, 9);
	CHECK_EQ(r.c[0].rmw[0] + r.c[1].rmw[0], 2);
	CHECK_EQ(arena_word(&r, 0), 4);
	CHECK_EQ(arena_word(&r, 8), 4);
	run_end(&r);
}

/* slot(STRIDE): job N's copy STRIDE x (N - 1) bytes on, between words
 * of the others (a per-CPU object of 256 bytes, 16 of them in a row) */
static void slots_with_a_stride(void)
{
	struct run r;
	struct pattern_prog p;
	struct pattern_params pp = { .words = "r@1+56:slot(12)",
				     .pattern = "atomic_inc(r)" };
	char msg[512];

	CHECK(!run_start(&r, "always", "k0@0,k1@4,k2@8,r@1+56:slot(256)=5",
			 "READ_ONCE(k1),atomic_inc(r)", 3));
	run_ios(&r, 0, 2);
	run_ios(&r, 1, 3);
	run_ios(&r, 2, 4);
	CHECK_EQ(arena_word(&r, 120), 5 + 2);
	CHECK_EQ(arena_word(&r, 120 + 256), 5 + 3);
	CHECK_EQ(arena_word(&r, 120 + 512), 5 + 4);
	CHECK_EQ(arena_word(&r, 256), 0);
	run_end(&r);
	/* job 2's copy would be on k1 */
	CHECK(run_start(&r, "always", "k0@0,k1@4,r@0:slot(256)",
			"atomic_inc(r)", 2));
	run_end(&r);
	CHECK(pattern_compile(&pp, true, &p, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "slot(STRIDE): STRIDE a multiple of 8"));
}

/* A slot past the arena, or on another word's place: refused at start */
static void slots_must_fit(void)
{
	struct run r;

	CHECK(run_start(&r, "always", "c@63+40:slot", "atomic_inc(c)", 4));
	CHECK(!strcmp(r.msg, "pattern_words: job 4's slot of word c is at "
		      "byte 4096, past the arena (4096 bytes): place the slot "
		      "word where every job's slot fits"));
	run_end(&r);
	CHECK(!run_start(&r, "always", "c@63+40:slot", "atomic_inc(c)", 3));
	run_end(&r);
	CHECK(run_start(&r, "always", "c@0:slot,d@0+16", "atomic_inc(c)", 3));
	CHECK(!strcmp(r.msg, "pattern_words: job 3's slot of word c is at "
		      "byte 16, on another word's place: place the slot word "
		      "where every job's slot fits"));
	run_end(&r);
	CHECK(run_start(&r, "always", "c@0:slot,d@0", "atomic_inc(c)", 1));
	run_end(&r);
}

/* pair words: jobs 1 and 2 use the copy at the word, jobs 3 and 4 the one
 * 128 bytes on; each copy starts at INIT, counts its pair's I/Os only */
static void pairs_share_a_copy_each(void)
{
	struct run r;

	CHECK(!run_start(&r, "always", "ref@1+8:pair=0x100,d@4",
			 "atomic_inc(ref),atomic_inc(d)", 4));
	run_ios(&r, 0, 5);
	run_ios(&r, 1, 7);
	run_ios(&r, 2, 11);
	run_ios(&r, 3, 13);
	CHECK_EQ(arena_word(&r, 64 + 8), 0x100 + 5 + 7);
	CHECK_EQ(arena_word(&r, 64 + 8 + 128), 0x100 + 11 + 13);
	CHECK_EQ(arena_word(&r, 64 + 8 + 256), 0x100);	/* unused pair 2 */
	CHECK_EQ(arena_word(&r, 256), 5 + 7 + 11 + 13);
	CHECK_EQ(r.c[2].rmw[0], 11);
	run_end(&r);
	/*
	 * test first, the job's number stored when it is not there: a job
	 * stores again only after its partner wrote, never after the other
	 * pair did (one copy for all: job 3 would store over 1, job 1 over 4)
	 */
	CHECK(!run_start(&r, "test_first", "ref@0:pair", "WRITE_ONCE(ref,job)",
			 4));
	run_ios(&r, 0, 3);	/* 0 -> 1 */
	run_ios(&r, 2, 3);	/* pair 1's: 0 -> 3 */
	run_ios(&r, 1, 3);	/* 1 -> 2 */
	run_ios(&r, 3, 3);	/* 3 -> 4 */
	run_ios(&r, 0, 3);	/* 2 -> 1 */
	run_ios(&r, 2, 3);	/* 4 -> 3 */
	CHECK_EQ(r.c[0].stores[0], 2);
	CHECK_EQ(r.c[1].stores[0], 1);
	CHECK_EQ(r.c[2].stores[0], 2);
	CHECK_EQ(r.c[3].stores[0], 1);
	CHECK_EQ(arena_word(&r, 0), 1);
	CHECK_EQ(arena_word(&r, 128), 3);
	run_end(&r);
}

/* A pair's copy past the arena, or on a line pair not its own: refused
 * at the start of the first job that would use it, in one line */
static void pairs_must_fit(void)
{
	struct run r;

	CHECK(!run_start(&r, "always", "ref@62:pair", "atomic_inc(ref)", 2));
	run_end(&r);
	CHECK(run_start(&r, "always", "ref@62:pair", "atomic_inc(ref)", 3));
	CHECK(!strcmp(r.msg, "pattern_words: pair word ref at 3 jobs: the "
		      "copy of jobs 3 and 4 is at byte 4096, past the arena "
		      "(4096 bytes): on line 62 a pair word holds jobs 1 to 2"));
	run_end(&r);
	/* pair 1's copy on line 2, where an arena word is */
	CHECK(!run_start(&r, "always", "ref@0:pair,x@3", "atomic_inc(ref)", 2));
	run_end(&r);
	CHECK(run_start(&r, "always", "ref@0:pair,x@3", "atomic_inc(ref)", 4));
	CHECK(!strcmp(r.msg, "pattern_words: pair word ref at 3 jobs: the "
		      "copy of jobs 3 and 4 (line 2) shares its line pair (128 "
		      "bytes) with word x: each pair's copy needs a line pair "
		      "to itself"));
	run_end(&r);
	/* pair 0's line pair holds another word; b's copy on a's next one */
	CHECK(run_start(&r, "always", "ref@0:pair,x@1", "atomic_inc(ref)", 1));
	CHECK(strstr(r.msg, "the copy of jobs 1 and 2 (line 0) shares its "
		     "line pair (128 bytes) with word x"));
	run_end(&r);
	CHECK(run_start(&r, "always", "a@0:pair,b@2:pair", "atomic_inc(a)",
			3));
	CHECK(strstr(r.msg, "pair word b at 3 jobs: the copy of jobs 1 and 2 "
		     "(line 2) shares its line pair (128 bytes) with word a"));
	run_end(&r);
	/* the same pair's words share a line pair */
	CHECK(!run_start(&r, "always", "a@0:pair,b@1+8:pair",
			 "atomic_inc(a),atomic_inc(b)", 4));
	run_end(&r);
}

/* A test of one word guarding operations on another: the bit of state
 * and the shared count, as in if (!test_bit()) { set_bit(); atomic_inc(); } */
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
	RUN(slots_pack_the_jobs_words);
	RUN(slots_must_fit);
	RUN(slots_with_a_stride);
	RUN(pairs_share_a_copy_each);
	RUN(pairs_must_fit);
	RUN(objects_are_laid_out_and_initialised);
	RUN(turn_visits_each_object_in_turn);
	RUN(job_picks_one_object);
	RUN(random_spreads_over_the_objects);
	RUN(cpu_picks_one_object);
	UNIT_EXIT();
}
