// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern: the operations, one function each, as the table of
 * pattern_ops.h names them, and their guards. Each runs its step @n times
 * (its *N) and counts each call: an RMW or a store it ran, or one its test
 * or a guard skipped.
 */
#include <stdint.h>

#include "atomic.h"
#include "bitops.h"
#include "pattern_job.h"

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

/* ----- the operations: one function each ----- */

/* Whether the operation runs: always, or in its test-first form only when
 * the bit is not already as it leaves it (no load in the always form) */
static inline bool bit_runs(const struct pattern_step *s, bool leaves_set)
{
	return !s->test_first || test_bit(s->arg, s->w) != leaves_set;
}

/*
 * The bit operations (bitops.h): the atomic ones counted as RMWs,
 * __set_bit() and __clear_bit() as plain stores.
 */
#define PATTERN_BITOP(name, leaves_set, count, call)			\
static void op_##name(struct pattern_job *j,				\
		      const struct pattern_step *s,			\
		      struct fc_counters *c, unsigned int n)		\
{									\
	bool run;							\
									\
	(void)j;							\
	while (n--) {							\
		run = bit_runs(s, leaves_set);				\
		if (run)						\
			call;						\
		count(c, s->i, run);					\
	}								\
}

PATTERN_BITOP(__set_bit, true, fc_count_store, __set_bit(s->arg, s->w))
PATTERN_BITOP(__clear_bit, false, fc_count_store, __clear_bit(s->arg, s->w))
PATTERN_BITOP(set_bit, true, fc_count_rmw, set_bit(s->arg, s->w))
PATTERN_BITOP(clear_bit, false, fc_count_rmw, clear_bit(s->arg, s->w))

/*
 * test_bit || test_and_set_bit, test_bit && test_and_clear_bit: the bit
 * as it was (the test's, when the test-first form skips) is kept for the
 * /if_test guards after it
 */
#define PATTERN_TESTOP(name, leaves_set)				\
static void op_##name(struct pattern_job *j,				\
		      const struct pattern_step *s,			\
		      struct fc_counters *c, unsigned int n)		\
{									\
	bool run;							\
									\
	while (n--) {							\
		run = bit_runs(s, leaves_set);				\
		j->tested = run ? name(s->arg, s->w) : leaves_set;	\
		fc_count_rmw(c, s->i, run);				\
	}								\
}

PATTERN_TESTOP(test_and_set_bit, true)
PATTERN_TESTOP(test_and_clear_bit, false)

static void op_change_bit(struct pattern_job *j, const struct pattern_step *s,
			  struct fc_counters *c, unsigned int n)
{
	(void)j;
	while (n--) {
		change_bit(s->arg, s->w);
		fc_count_rmw(c, s->i, true);
	}
}

/* READ_ONCE(), atomic_read(): what they read summed in a register, not
 * in memory that the next load would wait for */
static void op_read_once(struct pattern_job *j, const struct pattern_step *s,
			 struct fc_counters *c, unsigned int n)
{
	unsigned long *w = s->w, sum = 0;

	(void)c;
	while (n--)
		sum += read_once(w);
	j->sink += sum;
}

/* WRITE_ONCE(), atomic_set(): if (READ_ONCE(w) != v) WRITE_ONCE(w, v) */
static void op_write_once(struct pattern_job *j, const struct pattern_step *s,
			  struct fc_counters *c, unsigned int n)
{
	bool run;

	(void)j;
	while (n--) {
		run = !s->test_first || read_once(s->w) != s->arg;
		if (run)
			write_once(s->w, s->arg);
		fc_count_store(c, s->i, run);
	}
}

static inline void atomic_add_n(unsigned long d, const struct pattern_step *s,
				struct fc_counters *c, unsigned int n)
{
	while (n--) {
		atomic_long_add(d, s->w);
		fc_count_rmw(c, s->i, true);
	}
}

static void op_atomic_add(struct pattern_job *j, const struct pattern_step *s,
			  struct fc_counters *c, unsigned int n)
{
	(void)j;
	atomic_add_n(s->arg, s, c, n);
}

static void op_atomic_inc(struct pattern_job *j, const struct pattern_step *s,
			  struct fc_counters *c, unsigned int n)
{
	(void)j;
	atomic_add_n(1, s, c, n);
}

static void op_atomic_dec(struct pattern_job *j, const struct pattern_step *s,
			  struct fc_counters *c, unsigned int n)
{
	(void)j;
	atomic_add_n(-1UL, s, c, n);
}

/*
 * atomic_add_return(), atomic_sub_return(): the kernel's counters that use
 * the new value (a charge against a limit): one fully ordered RMW, the
 * values summed where the next load would not wait for them
 */
static inline void atomic_add_return_n(struct pattern_job *j,
				       unsigned long d,
				       const struct pattern_step *s,
				       struct fc_counters *c, unsigned int n)
{
	unsigned long sum = 0;

	while (n--) {
		sum += atomic_long_add_return(d, s->w);
		fc_count_rmw(c, s->i, true);
	}
	j->sink += sum;
}

static void op_atomic_add_return(struct pattern_job *j,
				 const struct pattern_step *s,
				 struct fc_counters *c, unsigned int n)
{
	atomic_add_return_n(j, s->arg, s, c, n);
}

static void op_atomic_sub_return(struct pattern_job *j,
				 const struct pattern_step *s,
				 struct fc_counters *c, unsigned int n)
{
	atomic_add_return_n(j, -s->arg, s, c, n);
}

/*
 * WRITE_ONCE_MAX(w, v): a watermark (mm/page_counter.c's shape), stored
 * on every call in its always form; test first: if (v > READ_ONCE(w)),
 * so a watermark that has stopped rising is only read
 */
static void op_write_once_max(struct pattern_job *j,
			      const struct pattern_step *s,
			      struct fc_counters *c, unsigned int n)
{
	bool run;

	(void)j;
	while (n--) {
		run = !s->test_first || s->arg > read_once(s->w);
		if (run)
			write_once(s->w, s->arg);
		fc_count_store(c, s->i, run);
	}
}

/* test first: if (atomic_read(w) != v) */
static void op_atomic_xchg(struct pattern_job *j, const struct pattern_step *s,
			   struct fc_counters *c, unsigned int n)
{
	bool run;

	while (n--) {
		run = !s->test_first || read_once(s->w) != s->arg;
		if (run)
			j->sink += atomic_long_xchg(s->w, s->arg);
		fc_count_rmw(c, s->i, run);
	}
}

/* test first: if (atomic_read(w) == old) */
static void op_atomic_cmpxchg(struct pattern_job *j,
			      const struct pattern_step *s,
			      struct fc_counters *c, unsigned int n)
{
	bool run;

	while (n--) {
		run = !s->test_first || read_once(s->w) == s->arg;
		if (run)
			j->sink += atomic_long_cmpxchg(s->w, s->arg,
						       s->op->arg2);
		fc_count_rmw(c, s->i, run);
	}
}

/* test_bit(): a load, its result kept for the /if_test guards after it */
static void op_test_bit(struct pattern_job *j, const struct pattern_step *s,
			struct fc_counters *c, unsigned int n)
{
	(void)c;
	while (n--)
		j->tested = test_bit(s->arg, s->w);
}

/*
 * atomic_add_unless(v, a, u), as atomic_fetch_add_unless() loops on
 * try_cmpxchg(): no RMW if the word holds u (counted skipped), else one
 * cmpxchg per attempt, each an RMW, each failed one a retry.
 */
static inline void add_unless(struct pattern_job *j,
			      const struct pattern_step *s,
			      struct fc_counters *c, unsigned long a,
			      unsigned long u)
{
	unsigned long old = read_once(s->w), prev;

	for (;;) {
		if (old == u) {
			fc_count_rmw(c, s->i, false);
			return;
		}
		fc_count_rmw(c, s->i, true);
		prev = atomic_long_cmpxchg(s->w, old, old + a);
		if (prev == old)
			break;
		old = prev;
		fc_count_retry(c, s->i);
		c->stat[STAT_RETRIES]++;	/* the record's: the paths' sum */
	}
	j->sink += old;
}

static void op_atomic_add_unless(struct pattern_job *j,
				 const struct pattern_step *s,
				 struct fc_counters *c, unsigned int n)
{
	while (n--)
		add_unless(j, s, c, s->arg, s->op->arg2);
}

/* atomic_inc_not_zero(v): atomic_add_unless(v, 1, 0) */
static void op_atomic_inc_not_zero(struct pattern_job *j,
				   const struct pattern_step *s,
				   struct fc_counters *c, unsigned int n)
{
	while (n--)
		add_unless(j, s, c, 1, 0);
}

static void op_smp_mb(struct pattern_job *j, const struct pattern_step *s,
		      struct fc_counters *c, unsigned int n)
{
	(void)j, (void)s, (void)c;
	while (n--)
		smp_mb();
}

#ifndef SMP_MB__BEFORE_ATOMIC_IS_BARRIER
static void op_smp_mb__before_atomic(struct pattern_job *j,
				     const struct pattern_step *s,
				     struct fc_counters *c, unsigned int n)
{
	(void)j, (void)s, (void)c;
	while (n--)
		smp_mb__before_atomic();
}
#endif

static void op_work(struct pattern_job *j, const struct pattern_step *s,
		    struct fc_counters *c, unsigned int n)
{
	(void)j, (void)c;
	while (n--)
		work_ns(s->op->arg);
}

/*
 * Each opcode's function, from the one table (pattern_ops.h).
 * smp_mb__before_atomic() has none where the kernel emits only a compiler
 * barrier (x86): the job leaves it out of its steps, and the call of the
 * next step is a compiler barrier already.
 */
#ifdef SMP_MB__BEFORE_ATOMIC_IS_BARRIER
#define op_smp_mb__before_atomic NULL
#endif
#define PATTERN_FN(code, name, kind, args, tf, flip, loop, fn) [code] = fn,
pattern_fn *const pattern_fns[PATTERN_NR_OPCODES] = { PATTERN_OPS(PATTERN_FN) };
#undef PATTERN_FN

/* ----- the guards ----- */

static inline void pattern_skip(const struct pattern_op *op, unsigned int i,
				unsigned int n, struct fc_counters *c)
{
	if (op->kind == KIND_RMW)
		c->skipped[i] += n;
	else if (op->kind == KIND_STORE)
		c->stores_skipped[i] += n;
}

/*
 * /flip_every: another path of the kernel puts the word in the state the
 * operation undoes, with an RMW of its own (counted in flips, not rmw).
 */
static void pattern_flip(const struct pattern_op *op, unsigned long *w,
			 struct fc_counters *c)
{
	switch (op->code) {
	case OP___SET_BIT: case OP_SET_BIT: case OP_TEST_AND_SET_BIT:
		clear_bit(op->arg, w);
		break;
	case OP___CLEAR_BIT: case OP_CLEAR_BIT: case OP_TEST_AND_CLEAR_BIT:
		set_bit(op->arg, w);
		break;
	case OP_ATOMIC_CMPXCHG:		/* back to the value it expects */
		atomic_long_xchg(w, op->arg);
		break;
	default:			/* WRITE_ONCE, atomic_set, xchg: ~v */
		atomic_long_xchg(w, ~op->arg);
		break;
	}
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
	pattern_skip(op, i, op->repeat, c);
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
			pattern_skip(op, s->i, 1, c);
		else
			s->fn(j, s, c, 1);
	}
}
