// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern: the operations, one function each, made from the rows of
 * ops.tbl (what each does: pattern_does.h, written from the table, as the
 * simulator runs it too), and their guards. Each runs its step @n times (its *N) and counts
 * each call: an RMW or a store it ran, or one its test or a guard skipped.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "atomic.h"
#include "bitops.h"
#include "pattern_fns.h"

static void work_ns(uint64_t ns);
#include "pattern_does.h"

/* ----- work(ns): a spin on the clock ----- */

/*
 * The path's other work: a spin until @ns have passed on CLOCK_MONOTONIC,
 * touching no shared memory. Counted on the clock the ns are meant in, not
 * as a loop count calibrated at start: such a count runs short whenever the
 * CPU runs faster than it did then (the host's frequency, a vCPU moved),
 * and the rest of the call is what the prediction takes as given. It runs
 * over by at most one clock read (fc_clock_cost_ns).
 */
static void work_ns(uint64_t ns)
{
	uint64_t t0 = fc_now_ns();

	while (fc_now_ns() - t0 < ns)
		;
}

/* ----- the operations: the table's rows (pattern_does.h) ----- */


/* Inlined with the row: its test and run are then a few instructions */
#define pattern_inline	inline __attribute__((always_inline))

/* An RMW or a store counted, run or skipped; a load or a barrier not */
static pattern_inline void pattern_count(struct fc_counters *c,
					  unsigned int i, bool run,
					  enum pattern_kind kind)
{
	if (kind == KIND_RMW)
		fc_count_rmw(c, i, run);
	else if (kind == KIND_STORE)
		fc_count_store(c, i, run);
}

/*
 * An operation @n times: always, or in its test-first form when its test
 * says so; its results summed in a register (no load waits for them), or
 * a bit's test kept for the /if_test guards after it (@result's value
 * when the test-first form skips: the bit as the operation leaves it)
 */
static pattern_inline void pattern_run(struct pattern_job *j,
					const struct pattern_step *s,
					struct fc_counters *c, unsigned int n,
					enum pattern_kind kind, int result,
					pattern_test_fn *test,
					pattern_run_fn *run)
{
	unsigned long *w = s->w, a = s->arg, b = s->op->arg2, sum = 0, r;
	bool runs;

	while (n--) {
		runs = !s->test_first || test(w, a, b, 0);
		r = runs ? run(w, a, b, 0) : (unsigned long)result;
		if (result == SUM)
			sum += r;
		else
			j->tested = r != 0;
		pattern_count(c, s->i, runs, kind);
	}
	j->sink += sum;
}

/*
 * A CAS loop, as atomic_fetch_add_unless() loops on try_cmpxchg(): no RMW
 * if the test refuses the value seen (counted skipped), else one cmpxchg
 * per attempt, each an RMW, each failed one a retry.
 */
static pattern_inline unsigned long pattern_cas(const struct pattern_step *s,
						 struct fc_counters *c,
						 pattern_test_fn *test,
						 pattern_run_fn *run)
{
	unsigned long *w = s->w, a = s->arg, b = s->op->arg2;
	unsigned long old = read_once(w), prev;

	for (;;) {
		if (!test(w, a, b, old)) {
			fc_count_rmw(c, s->i, false);
			return 0;
		}
		fc_count_rmw(c, s->i, true);
		prev = atomic_long_cmpxchg(w, old, run(w, a, b, old));
		if (prev == old)
			return old;
		old = prev;
		fc_count_retry(c, s->i);
		c->stat[STAT_RETRIES]++;	/* the record's: the paths' sum */
	}
}

static pattern_inline void pattern_loop(struct pattern_job *j,
					 const struct pattern_step *s,
					 struct fc_counters *c, unsigned int n,
					 pattern_test_fn *test,
					 pattern_run_fn *run)
{
	unsigned long sum = 0;

	while (n--)
		sum += pattern_cas(s, c, test, run);
	j->sink += sum;
}

/* A spin asks whether to give up once in this many re-reads */
#define PATTERN_SPIN_ASK	4096

/*
 * The job must stop (fio's answer, io->stop): the spin at @s gives up,
 * the I/O fails (pattern_io_locked()), saying why with the lock's name
 */
static bool __attribute__((noinline, cold))
pattern_give_up(struct pattern_job *j, const struct pattern_step *s)
{
	const char *why = j->stop ? j->stop->why(j->stop) : NULL;
	const char *item = strchr(s->op->path, ':');

	if (!why)
		return false;
	snprintf(j->stuck_why, sizeof(j->stuck_why), "pattern: operation "
		 "%u '%s': gave up when %s, lock %s still held: the job that "
		 "holds it stopped or is stuck", s->i + 1,
		 item ? item + 1 : s->op->path,
		 why, j->prog.word[s->op->word].name);
	j->stuck = s;
	return true;
}

/*
 * A spin, as a lock is taken (arch_spin_lock() as test-and-test-and-set):
 * a first cmpxchg from 0 (free) with no load before it, as
 * queued_spin_lock()'s fast path; each attempt an RMW, each failed one a
 * retry; while the test refuses the value seen (held) it re-reads the
 * word, uncounted, with cpu_relax(), as the kernel's spin does. Now and
 * then it asks whether the job must stop: a lock no one frees would keep
 * fio from ending the job (it never gets the I/O back).
 */
static pattern_inline void pattern_spin(struct pattern_job *j,
					 const struct pattern_step *s,
					 struct fc_counters *c,
					 pattern_test_fn *test,
					 pattern_run_fn *run)
{
	unsigned long *w = s->w, a = s->arg, b = s->op->arg2;
	unsigned long old = 0, prev;
	unsigned int spins = 0;

	for (;;) {
		fc_count_rmw(c, s->i, true);
		prev = atomic_long_cmpxchg(w, old, run(w, a, b, old));
		if (prev == old)
			return;
		fc_count_retry(c, s->i);
		c->stat[STAT_RETRIES]++;
		for (old = prev; !test(w, a, b, old); old = read_once(w)) {
			if (!(++spins % PATTERN_SPIN_ASK) &&
			    pattern_give_up(j, s))
				return;
			cpu_relax();
		}
	}
}

/* Each row's function: its loop or its run, inlined with its row */
#define PATTERN_RUN(code, name, kind, args, tf, flip, loop)		\
static void run_##code(struct pattern_job *j,				\
		       const struct pattern_step *s,			\
		       struct fc_counters *c, unsigned int n)		\
{									\
	if (loop == PATTERN_SPIN)					\
		while (n-- && !j->stuck)				\
			pattern_spin(j, s, c, code##_test, code##_run);	\
	else if (loop)							\
		pattern_loop(j, s, c, n, code##_test, code##_run);	\
	else								\
		pattern_run(j, s, c, n, KIND_##kind, code##_result,	\
			    code##_test, code##_run);			\
}
PATTERN_OPS(PATTERN_RUN)
#undef PATTERN_RUN

/*
 * Each opcode's function, from the one table (ops.tbl).
 * smp_mb__before_atomic() has none where the kernel emits only a compiler
 * barrier (x86): the job leaves it out of its steps, and the call of the
 * next step is a compiler barrier already.
 */
#ifdef SMP_MB__BEFORE_ATOMIC_IS_BARRIER
#define BARRIER_ONLY(code)	((code) == OP_SMP_MB__BEFORE_ATOMIC)
#else
#define BARRIER_ONLY(code)	0
#endif
#define PATTERN_FN(code, name, kind, args, tf, flip, loop)		\
	[code] = BARRIER_ONLY(code) ? NULL : run_##code,
pattern_fn *const pattern_fns[PATTERN_NR_OPCODES] = { PATTERN_OPS(PATTERN_FN) };
#undef PATTERN_FN

/* ----- the guards ----- */

/* A guard skipped @n calls: counted; a test's leaves its guarded ones out */
static inline void pattern_skip(struct pattern_job *j,
				const struct pattern_op *op, unsigned int i,
				unsigned int n, struct fc_counters *c)
{
	if (op->tests)
		j->tested = UNTESTED;
	if (op->kind == KIND_RMW)
		c->skipped[i] += n;
	else if (op->kind == KIND_STORE)
		c->stores_skipped[i] += n;
}

/*
 * /flip_every: another path of the kernel puts the word in the state the
 * operation undoes (its row's undo), with an RMW of its own (counted in
 * flips, not rmw).
 */
static void pattern_flip(const struct pattern_op *op, unsigned long *w,
			 struct fc_counters *c)
{
	pattern_does[op->code].undo(w, op->arg);
	c->stat[STAT_FLIPS]++;
}

/* The per-I/O guards (flip, /every, /every_ns): true if it is skipped */
static bool __attribute__((noinline))
pattern_guard(struct pattern_job *j, const struct pattern_op *op,
	      unsigned int i, unsigned long *w, struct fc_counters *c)
{
	uint64_t now;

	if (op->if_test && j->tested != op->if_test - 1)
		goto skip;
	if (op->flip_every && j->calls % op->flip_every == 0)
		pattern_flip(op, w, c);
	if (op->every && j->op_calls[i]++ % op->every)
		goto skip;
	if (op->every_ns) {
		now = fc_now_ns();
		if (j->op_last_ns[i] && now - j->op_last_ns[i] < op->every_ns)
			goto skip;
		j->op_last_ns[i] = now;
	}
	return false;
skip:
	pattern_skip(j, op, i, op->repeat, c);
	return true;
}

/* A step with a guard: the guards first, then /below=T per run */
void __attribute__((noinline))
pattern_guarded(struct pattern_job *j, const struct pattern_step *s,
		struct fc_counters *c)
{
	const struct pattern_op *op = s->op;
	unsigned int r;

	if (pattern_guard(j, op, s->i, s->w, c))
		return;
	if (!op->below) {
		s->fn(j, s, c, s->repeat);
		return;
	}
	for (r = 0; r < s->repeat; r++) {
		/* /below=T: if (atomic_read(w) < T) */
		if (read_once(s->w) >= op->below)
			pattern_skip(j, op, s->i, 1, c);
		else
			s->fn(j, s, c, 1);
	}
}

/* ----- a sequence with a lock ----- */

/*
 * A spin gave up at j->stuck: the locks this I/O took before it are
 * released by their spin_unlock() steps (the others' are not this job's)
 */
static void pattern_unstick(struct pattern_job *j,
			    const struct pattern_step *first,
			    struct fc_counters *c)
{
	const struct pattern_step *s, *t;
	int held;

	for (s = j->stuck + 1; s->fn; s++) {
		if (s->op->code != OP_SPIN_UNLOCK)
			continue;
		for (held = 0, t = first; t < j->stuck; t++)
			if (t->w == s->w && t->op->code == OP_SPIN_LOCK)
				held++;
			else if (t->w == s->w && t->op->code == OP_SPIN_UNLOCK)
				held--;
		if (held > 0)
			s->fn(j, s, c, 1);
	}
}

/* A sequence with a lock: its steps, up to a spin that gave up */
int __attribute__((noinline))
pattern_io_locked(struct pattern_job *j, const struct pattern_step *first,
		  const struct fc_io *io, struct fc_counters *c)
{
	const struct pattern_step *s;

	j->stop = io->stop;
	j->stuck = NULL;
	for (s = first; s->fn && !j->stuck; s++) {
		if (s->guarded)
			pattern_guarded(j, s, c);
		else
			s->fn(j, s, c, s->repeat);
	}
	if (!j->stuck)
		return 0;
	pattern_unstick(j, first, c);
	return -EDEADLK;
}
