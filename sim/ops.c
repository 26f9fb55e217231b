// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-sim: what each operation of the table (pattern_ops.h) does to
 * a simulated word: its row's test, run, undo and result
 * (pattern_does.h), the same functions the engine's pattern_ops.c runs on
 * the shared arena, here on a word that only the simulator's one thread
 * touches. @arg is the operation's value as the job has it (a constant,
 * or the job's CPU or number). When each access happens and what it costs
 * is cpu.c's and unit.c's; a CAS loop's attempts are cpu.c's sim_cas().
 */
#include <stdint.h>

#include "atomic.h"
#include "bitops.h"
#include "sim_int.h"

/* work(ns): time, which cpu.c counts; no word is touched */
static inline void work_ns(uint64_t ns)
{
	(void)ns;
}

#include "pattern_does.h"

#define SIM_CASE(code, call)						\
	case code:							\
		return call;

/* Whether the test-first form runs the operation on the word @w */
bool sim_test_runs(const struct pattern_op *op, unsigned long arg,
		   unsigned long *w)
{
#define SIM_TEST(code, name, kind, args, tf, flip, loop, does)		\
	SIM_CASE(code, code##_test(w, arg, op->arg2, 0))
	switch (op->code) {
	PATTERN_OPS(SIM_TEST)
	default:
		return true;
	}
#undef SIM_TEST
}

/* The operation on @w, and its result */
unsigned long sim_effect(const struct pattern_op *op, unsigned long arg,
			 unsigned long *w)
{
#define SIM_RUN(code, name, kind, args, tf, flip, loop, does)		\
	SIM_CASE(code, code##_run(w, arg, op->arg2, 0))
	switch (op->code) {
	PATTERN_OPS(SIM_RUN)
	default:
		return 0;
	}
#undef SIM_RUN
}

/* The result's use: SUM, or a test of a bit with its value if skipped */
int sim_result(const struct pattern_op *op)
{
#define SIM_RESULT(code, name, kind, args, tf, flip, loop, does)	\
	SIM_CASE(code, code##_result)
	switch (op->code) {
	PATTERN_OPS(SIM_RESULT)
	default:
		return SUM;
	}
#undef SIM_RESULT
}

/* A CAS loop saw @old: whether to try, and the value it would swap in */
bool sim_cas_tries(const struct pattern_op *op, unsigned long arg,
		   unsigned long old)
{
#define SIM_TRIES(code, name, kind, args, tf, flip, loop, does)	\
	SIM_CASE(code, code##_test(&seen, arg, op->arg2, old))
	unsigned long seen = old;	/* a loop's test reads no word */

	switch (op->code) {
	PATTERN_OPS(SIM_TRIES)
	default:
		return false;
	}
#undef SIM_TRIES
}

unsigned long sim_cas_new(const struct pattern_op *op, unsigned long arg,
			  unsigned long old)
{
#define SIM_NEW(code, name, kind, args, tf, flip, loop, does)		\
	SIM_CASE(code, code##_run(&seen, arg, op->arg2, old))
	unsigned long seen = old;

	switch (op->code) {
	PATTERN_OPS(SIM_NEW)
	default:
		return old;
	}
#undef SIM_NEW
}

/* /flip_every: the state the operation undoes */
void sim_flip(const struct pattern_op *op, unsigned long arg,
	      unsigned long *w)
{
#define SIM_UNDO(code, name, kind, args, tf, flip, loop, does)		\
	case code:							\
		code##_undo(w, arg);					\
		break;
	switch (op->code) {
	PATTERN_OPS(SIM_UNDO)
	default:
		break;
	}
#undef SIM_UNDO
}
