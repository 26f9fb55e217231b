// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern's jobs checked together before any I/O (->run_check:
 * pattern_jobs.c, pattern_locks.c, pattern_lock_order.c), as the engine
 * runs it over fio's jobs and the simulator over its CPUs: locks taken in
 * both orders (across alternatives, across sections on one file), a lock
 * written or given an initial value by another section, a slot on a lock,
 * a layout that does not fit the jobs' numbers; each refused in one line
 * naming the lowest-numbered job, and what fits accepted.
 */
#include <string.h>

#include "model_opts.h"
#include "pattern.h"
#include "unit.h"

static const struct fc_model *m = &fc_model_pattern;

/* One job section: its words, its sequence, its jobs */
struct section {
	const char *words, *pattern;
	unsigned int numjobs;
	const char *writers;
};

#define MAX_JOBS	16

/* Sections on one file (@private: each job on its own), numbered in
 * turn as fio numbers them: 0, or -1 with the message in @msg */
static int check_on(const struct section *s, unsigned int n, bool private,
		    char *msg, size_t len)
{
	struct fc_run_job jobs[MAX_JOBS] = { { 0 } };
	void *params[MAX_JOBS];
	unsigned int i, k, nj = 0;
	int err;

	for (i = 0; i < n; i++) {
		params[i] = model_params(m);
		model_set(m, params[i], "variant", "always");
		model_set(m, params[i], "pattern_words", s[i].words);
		model_set(m, params[i], "pattern", s[i].pattern);
		model_set(m, params[i], "pattern_writers",
			  s[i].writers ? s[i].writers : "0");
		for (k = 0; k < s[i].numjobs && nj < MAX_JOBS; k++, nj++)
			jobs[nj] = (struct fc_run_job){ .params = params[i],
				.job_number = nj + 1,
				.state = private ? nj : 0 };
	}
	msg[0] = '\0';
	err = m->run_check(jobs, nj, msg, len);
	for (i = 0; i < n; i++)
		free(params[i]);
	return err;
}

static int check(const struct section *s, unsigned int n, char *msg,
		 size_t len)
{
	return check_on(s, n, false, msg, len);
}

/* Refused, in one line holding @says */
static int refused(const struct section *s, unsigned int n, const char *says)
{
	char msg[1024];

	if (check(s, n, msg, sizeof(msg)) == -1 && strstr(msg, says) &&
	    !strchr(msg, '\n'))
		return 1;
	fprintf(stderr, "got '%s', wanted '%s'\n", msg, says);
	return 0;
}

static int accepted(const struct section *s, unsigned int n)
{
	char msg[1024];

	if (!check(s, n, msg, sizeof(msg)))
		return 1;
	fprintf(stderr, "refused: %s\n", msg);
	return 0;
}

#define AB "spin_lock(a),spin_lock(b),work(10),spin_unlock(b),spin_unlock(a)"
#define BA "spin_lock(b),spin_lock(a),work(10),spin_unlock(a),spin_unlock(b)"

/* Two locks in both orders, by two alternatives of one sequence: two jobs
 * would deadlock; one job alone is refused too (the rule is the order) */
static void opposite_orders_across_alternatives(void)
{
	struct section ab_ba = { "a@0,b@2", AB "|" BA, 2, NULL };
	struct section ab_ab = { "a@0,b@2", AB "|" AB "|spin_lock(b),"
				 "spin_unlock(b)", 4, NULL };

	CHECK(refused(&ab_ba, 1, "pattern: job 1's operation 2 "
		      "'spin_lock(b)' takes b (byte 128 of the arena) while it "
		      "holds a (byte 0 of the arena), and job 1's operation 7 "
		      "'spin_lock(a)' takes a (byte 0 of the arena) while it "
		      "holds b (byte 128 of the arena): the jobs on one file "
		      "could each hold a lock another waits for: take the locks "
		      "in one order in every alternative and job"));
	ab_ba.numjobs = 1;
	CHECK(refused(&ab_ba, 1, "could each hold a lock another waits for"));
	CHECK(accepted(&ab_ab, 1));
}

/* ... across the sections of one file, whatever their names; a cycle of
 * three; :job locks are no other job's; on files of their own, none */
static void opposite_orders_across_sections(void)
{
	struct section two[] = { { "a@0,b@2", AB, 1, NULL },
				 { "y@0,x@2", "spin_lock(x),spin_lock(y),"
				   "spin_unlock(y),spin_unlock(x)", 1, NULL } };
	struct section three[] = {
		{ "a@0,b@1", "spin_lock(a),spin_lock(b),spin_unlock(b),"
		  "spin_unlock(a)", 1, NULL },
		{ "b@1,c@2", "spin_lock(b),spin_lock(c),spin_unlock(c),"
		  "spin_unlock(b)", 1, NULL },
		{ "c@2,a@0", "spin_lock(c),spin_lock(a),spin_unlock(a),"
		  "spin_unlock(c)", 1, NULL } };
	struct section own[] = { { "a@0:job,b@2:job", AB "|" BA, 2, NULL } };
	char msg[1024];

	CHECK(refused(two, 2, "job 1's operation 2 'spin_lock(b)' takes b "
		      "(byte 128 of the arena) while it holds a (byte 0 of the "
		      "arena), and job 2's operation 2 'spin_lock(y)' takes y "
		      "(byte 0 of the arena) while it holds x (byte 128 of the "
		      "arena)"));
	CHECK(check_on(two, 2, true, msg, sizeof(msg)) == 0);
	CHECK(refused(three, 3, ", and job 2's operation 2 'spin_lock(c)'"));
	CHECK(refused(three, 3, ", and job 3's operation 2 'spin_lock(a)'"));
	CHECK(accepted(three, 2));
	CHECK(accepted(own, 1));
}

/* A lock's place written by another section's operation or initial
 * value, or by a job's slot: refused; a load of it is not */
static void a_lock_written_by_another_section(void)
{
	struct section s[] = { { "lk@0", "spin_lock(lk),work(10),"
				 "spin_unlock(lk)", 1, NULL },
			       { "c@0", "atomic_inc(c)", 1, NULL } };

	CHECK(refused(s, 2, "pattern: job 2's operation 1 'atomic_inc(c)' "
		      "writes byte 0 of the arena, where job 1's operation 1 "
		      "'spin_lock(lk)' takes lock lk: only spin_lock() and "
		      "spin_unlock() write a lock word, in every job on the "
		      "file"));
	s[1] = (struct section){ "c@0", "READ_ONCE(c)", 1, NULL };
	CHECK(accepted(s, 2));
	s[1] = (struct section){ "c@0=1", "READ_ONCE(c)", 1, NULL };
	CHECK(refused(s, 2, "pattern_words: job 2's word c starts at 1 at "
		      "byte 0 of the arena, where job 1's operation 1 "
		      "'spin_lock(lk)' takes lock lk: a lock word starts at 0"));
	/* pair 1's copy (not used by 2 jobs) starts on the lock */
	s[1] = (struct section){ "r@62:pair=5", "READ_ONCE(r)", 1, NULL };
	s[0].words = "lk@0,x@1";
	s[0].pattern = "spin_lock(lk),spin_unlock(lk),READ_ONCE(x)";
	CHECK(accepted(s, 2));
	s[0] = (struct section){ "lk@63+8", "spin_lock(lk),spin_unlock(lk)",
				 1, NULL };
	s[1].words = "r@61+8:pair=5";
	CHECK(refused(s, 2, "job 2's word r starts at 5 at byte 4040 of the "
		      "arena"));
	/* job 2's slot of s is the lock of job 1 */
	s[0] = (struct section){ "lk@0+8", "spin_lock(lk),spin_unlock(lk)", 1, NULL };
	s[1] = (struct section){ "s@0:slot", "READ_ONCE(s)", 1, NULL };
	CHECK(refused(s, 2, "job 2's slot of word s is at byte 8 of the arena, "
		      "where job 1's operation 1 'spin_lock(lk)' takes lock lk: "
		      "a job writes its slot's initial value when it starts"));
	/* a writer past pattern_writers runs nothing: no write */
	s[1] = (struct section){ "c@0+8", "atomic_inc(c)", 1, "1" };
	CHECK(accepted(s, 2));
	s[1].writers = "2";
	CHECK(refused(s, 2, "job 2's operation 1 'atomic_inc(c)' writes"));
}

/* :obj locks need the same objects in every job on the file */
static void obj_locks_need_the_same_objects(void)
{
	struct section s[] = { { "l@0:obj(4,turn)", "spin_lock(l),"
				 "spin_unlock(l)", 1, NULL },
			       { "c@3:obj(4,turn)", "atomic_inc(c)", 1, NULL } };

	CHECK(refused(s, 2, "pattern_words: job 2's obj words (4 objects of "
		      "256 bytes) differ from job 1's (4 of 128 bytes)"));
	s[1].words = "c@1:obj(4,turn)";
	CHECK(accepted(s, 2));
	s[1].words = "c@0:obj(4,turn)";
	CHECK(refused(s, 2, "writes byte 0 of each object"));
}

/* The layout of the lowest-numbered job that does not fit, as a job's
 * start would say it: a slot past the arena at 2 jobs, a pair at 3 */
static void layouts_fit_every_job_number(void)
{
	struct section slot = { "s@0:slot(4096)", "atomic_inc(s)", 2, NULL };
	struct section pair = { "ref@62:pair", "atomic_inc(ref)", 4, NULL };

	CHECK(refused(&slot, 1, "pattern_words: slot word s at 2 jobs: job 2's "
		      "slot is at byte 4096, past the arena (4096 bytes): at "
		      "byte 0 a slot(4096) word holds jobs 1 to 1"));
	slot.numjobs = 1;
	CHECK(accepted(&slot, 1));
	CHECK(refused(&pair, 1, "pattern_words: pair word ref at 3 jobs: the "
		      "copy of jobs 3 and 4 is at byte 4096, past the arena "
		      "(4096 bytes): on line 62 a pair word holds jobs 1 to 2"));
}

int main(void)
{
	RUN(opposite_orders_across_alternatives);
	RUN(opposite_orders_across_sections);
	RUN(a_lock_written_by_another_section);
	RUN(obj_locks_need_the_same_objects);
	RUN(layouts_fit_every_job_number);
	UNIT_EXIT();
}
