// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern's words with a copy per job or per pair, counted exactly:
 * slot words, job N's 8 bytes at 8 x (N - 1) past the word, packed into
 * shared lines; pair words, the copy of jobs 2k + 1 and 2k + 2 at 128 x k
 * past the word, a line pair to itself; and their refusals.
 */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "forms_run.h"

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
	CHECK(!strcmp(r.msg, "pattern_words: slot word c at 4 jobs: job 4's "
		      "slot is at byte 4096, past the arena (4096 bytes): at "
		      "byte 4072 a slot(8) word holds jobs 1 to 3"));
	run_end(&r);
	CHECK(!run_start(&r, "always", "c@63+40:slot", "atomic_inc(c)", 3));
	run_end(&r);
	CHECK(run_start(&r, "always", "c@0:slot,d@0+16", "atomic_inc(c)", 3));
	CHECK(!strcmp(r.msg, "pattern_words: slot word c at 3 jobs: job 3's "
		      "slot is at byte 16, where word d is: each job's slot "
		      "needs a place of its own"));
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
int main(void)
{
	RUN(slots_pack_the_jobs_words);
	RUN(slots_must_fit);
	RUN(slots_with_a_stride);
	RUN(pairs_share_a_copy_each);
	RUN(pairs_must_fit);
	UNIT_EXIT();
}
