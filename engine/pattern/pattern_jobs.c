// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern: the jobs of a run checked together before any of them
 * runs an I/O, by the engine (fio's setup of its jobs) and by the
 * simulator (its CPUs as jobs 1 to N) alike: each job's copies of its
 * slot and pair words in the arena and on no other word's place, for its
 * number; and the locks of the jobs on each file (pattern_locks.c). Each
 * refusal is one line, the same from both.
 */
#include "pattern_locks.h"

/* ----- slot words: job N's copy, STRIDE x (N - 1) past the word ----- */

/* The word of @p other than @a, its slot for a job up to @job included,
 * at byte @at (pair words are pattern_pair_fit()'s), or NULL */
static const struct pattern_word *slot_taken(const struct pattern_prog *p,
					     const struct pattern_word *a,
					     unsigned int at, unsigned int job)
{
	const struct pattern_word *b;

	for (b = p->word; b < p->word + p->nr_words; b++) {
		if (b == a)
			continue;
		if (b->sharing == PATTERN_ALL && b->offset == at)
			return b;
		if (b->sharing == PATTERN_SLOT && at >= b->offset &&
		    (at - b->offset) % b->stride == 0 &&
		    (at - b->offset) / b->stride < job)
			return b;
	}
	return NULL;
}

/* Job @job's slot of slot word @a, at byte @at, refused: past the arena,
 * or on word @b's place */
static int slot_misfit(const struct pattern_word *a, unsigned int job,
		       unsigned int at, const struct pattern_word *b,
		       char *msg, size_t len)
{
	unsigned int most = (PATTERN_ARENA - 1 - a->offset) / a->stride + 1;

	if (b)
		snprintf(msg, len, "pattern_words: slot word %s at %u jobs: "
			 "job %u's slot is at byte %u, where word %s is: each "
			 "job's slot needs a place of its own", a->name, job,
			 job, at, b->name);
	else
		snprintf(msg, len, "pattern_words: slot word %s at %u jobs: "
			 "job %u's slot is at byte %u, past the arena (%d "
			 "bytes): at byte %u a slot(%u) word holds jobs 1 to "
			 "%u", a->name, job, job, at, PATTERN_ARENA, a->offset,
			 a->stride, most);
	return -1;
}

int pattern_slot_fit(const struct pattern_prog *p, unsigned int job,
		     char *msg, size_t len)
{
	const struct pattern_word *a, *b;
	unsigned int at, k = job ? job - 1 : 0;

	for (a = p->word; a < p->word + p->nr_words; a++) {
		if (a->sharing != PATTERN_SLOT)
			continue;
		at = a->offset + a->stride * k;
		if (at >= PATTERN_ARENA)
			return slot_misfit(a, k + 1, at, NULL, msg, len);
		b = slot_taken(p, a, at, k + 1);
		if (b)
			return slot_misfit(a, k + 1, at, b, msg, len);
	}
	return 0;
}

/* ----- pair words: a copy per pair of jobs, a line pair to itself ----- */

/*
 * Whether a copy of word @b that is not pair @k's is in the line pair
 * @blk of the arena, for @jobs jobs: an arena word, a slot of one of the
 * jobs, a copy of another pair
 */
static bool pair_block_taken(const struct pattern_word *b, unsigned int blk,
			     unsigned int k, unsigned int jobs)
{
	unsigned int m, at, copies;

	switch (b->sharing) {
	case PATTERN_ALL:
		return b->offset / PATTERN_PAIR_STRIDE == blk;
	case PATTERN_SLOT:
		/* the first slot at or past the line pair's start */
		at = blk * PATTERN_PAIR_STRIDE;
		m = b->offset >= at ? 0 :
		    (at - b->offset + b->stride - 1) / b->stride;
		at = b->offset + b->stride * m;
		return m < jobs && at / PATTERN_PAIR_STRIDE == blk;
	case PATTERN_PAIR:
		copies = (jobs + 1) / 2;
		for (m = 0; m < copies; m++) {
			at = b->offset + PATTERN_PAIR_STRIDE * m;
			if (m != k && at < PATTERN_ARENA &&
			    at / PATTERN_PAIR_STRIDE == blk)
				return true;
		}
		return false;
	default:
		return false;	/* :job, :node, :obj: not in the arena */
	}
}

/* Whether pair @k's copy of pair word @a fits for @jobs jobs; else why */
static int pair_copy_fits(const struct pattern_prog *p,
			  const struct pattern_word *a, unsigned int k,
			  unsigned int jobs, char *msg, size_t len)
{
	const struct pattern_word *b;
	unsigned int at = a->offset + PATTERN_PAIR_STRIDE * k;

	if (at >= PATTERN_ARENA) {
		snprintf(msg, len, "pattern_words: pair word %s at %u jobs: "
			 "the copy of jobs %u and %u is at byte %u, past the "
			 "arena (%d bytes): on line %u a pair word holds jobs "
			 "1 to %u", a->name, jobs, 2 * k + 1, 2 * k + 2, at,
			 PATTERN_ARENA, a->offset / PATTERN_LINE, 2 * k);
		return -1;
	}
	for (b = p->word; b < p->word + p->nr_words; b++) {
		if (!pair_block_taken(b, at / PATTERN_PAIR_STRIDE, k, jobs))
			continue;
		snprintf(msg, len, "pattern_words: pair word %s at %u jobs: "
			 "the copy of jobs %u and %u (line %u) shares its line "
			 "pair (128 bytes) with word %s: each pair's copy "
			 "needs a line pair to itself", a->name, jobs,
			 2 * k + 1, 2 * k + 2, at / PATTERN_LINE, b->name);
		return -1;
	}
	return 0;
}

int pattern_pair_fit(const struct pattern_prog *p, unsigned int jobs,
		     char *msg, size_t len)
{
	const struct pattern_word *a;
	unsigned int k;

	for (k = 0; k < (jobs + 1) / 2; k++)
		for (a = p->word; a < p->word + p->nr_words; a++)
			if (a->sharing == PATTERN_PAIR &&
			    pair_copy_fits(p, a, k, jobs, msg, len))
				return -1;
	return 0;
}


/* ----- the jobs together ----- */

/*
 * The lowest job number of a member on sequence @p whose pair copies do
 * not fit (0: none): a copy that does not fit for some jobs does not for
 * more, so the first number that does not is searched for
 */
static unsigned int pair_misfit(const struct pattern_member *m,
				unsigned int n, const struct pattern_prog *p)
{
	unsigned int i, lo = 1, hi = 0, mid, first = 0;

	for (i = 0; i < n; i++)
		if (m[i].prog == p && m[i].job > hi)
			hi = m[i].job;
	if (!hi || !pattern_pair_fit(p, hi, NULL, 0))
		return 0;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pattern_pair_fit(p, mid, NULL, 0))
			hi = mid;
		else
			lo = mid + 1;
	}
	for (i = 0; i < n; i++)
		if (m[i].prog == p && m[i].job >= lo &&
		    (!first || m[i].job < first))
			first = m[i].job;
	return first;
}

/* The copies of the lowest-numbered job that has one that does not fit
 * (its slots before its pairs, as a job's start places them) */
static int jobs_fit(const struct pattern_member *m, unsigned int n,
		    char *msg, size_t len)
{
	const struct pattern_prog *slot_p = NULL, *pair_p = NULL;
	unsigned int i, k, job, slot_job = 0, pair_job = 0;

	for (i = 0; i < n; i++)
		if ((!slot_job || m[i].job < slot_job) &&
		    pattern_slot_fit(m[i].prog, m[i].job, NULL, 0)) {
			slot_job = m[i].job;
			slot_p = m[i].prog;
		}
	for (i = 0; i < n; i++) {
		for (k = 0; k < i && m[k].prog != m[i].prog; k++)
			;
		job = k < i ? 0 : pair_misfit(m, n, m[i].prog);
		if (job && (!pair_job || job < pair_job)) {
			pair_job = job;
			pair_p = m[i].prog;
		}
	}
	if (slot_p && (!pair_p || slot_job <= pair_job))
		return pattern_slot_fit(slot_p, slot_job, msg, len);
	return pair_p ? pattern_pair_fit(pair_p, pair_job, msg, len) : 0;
}

static int by_state(const void *a, const void *b)
{
	const struct pattern_member *x = a, *y = b;

	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

int pattern_check_jobs(const struct pattern_member *m, unsigned int n,
		       char *msg, size_t len)
{
	struct pattern_member *s;
	unsigned int i, j;
	int err = 0;

	if (!n || jobs_fit(m, n, msg, len))
		return n ? -1 : 0;
	s = malloc(n * sizeof(*s));
	if (!s) {
		snprintf(msg, len, "pattern: out of memory, %u jobs", n);
		return -1;
	}
	memcpy(s, m, n * sizeof(*s));
	qsort(s, n, sizeof(*s), by_state);
	for (i = 0; i < n && !err; i = j) {
		for (j = i + 1; j < n && s[j].state == s[i].state; j++)
			;
		err = pattern_state_locks(s + i, j - i, msg, len);
	}
	free(s);
	return err;
}
