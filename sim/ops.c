// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-sim: what each operation of the table (ops.tbl) does to a
 * simulated word: its row's test, run, undo and result (pattern_does.h,
 * written from the table), the same functions the engine's pattern_ops.c
 * runs on the shared arena, here on a word that only the simulator's one
 * thread touches. @arg is the operation's value as the job has it (a constant,
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

/* Whether the test-first form runs the operation on the word @w */
bool sim_test_runs(const struct pattern_op *op, unsigned long arg,
		   unsigned long *w)
{
	return pattern_does[op->code].test(w, arg, op->arg2, 0);
}

/* The operation on @w, and its result */
unsigned long sim_effect(const struct pattern_op *op, unsigned long arg,
			 unsigned long *w)
{
	return pattern_does[op->code].run(w, arg, op->arg2, 0);
}

/* The result's use: SUM, or a test of a bit with its value if skipped */
int sim_op_result(const struct pattern_op *op)
{
	return pattern_does[op->code].result;
}

/* A CAS loop saw @old: whether to try (its test reads no word) */
bool sim_cas_tries(const struct pattern_op *op, unsigned long arg,
		   unsigned long old)
{
	return pattern_does[op->code].test(&old, arg, op->arg2, old);
}

/* ... and the value it would swap in for @old */
unsigned long sim_cas_new(const struct pattern_op *op, unsigned long arg,
			  unsigned long old)
{
	return pattern_does[op->code].run(&old, arg, op->arg2, old);
}

/* /flip_every: the state the operation undoes */
void sim_flip(const struct pattern_op *op, unsigned long arg,
	      unsigned long *w)
{
	pattern_does[op->code].undo(w, arg);
}
