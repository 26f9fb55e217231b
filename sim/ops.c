// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-sim: what each operation of the table (pattern_ops.h) does to
 * a simulated word, as its op_*() of engine/pattern/pattern_ops.c and
 * pattern_flip() do; @arg is its value as the job has it (a constant, or
 * the job's CPU or number). A CAS loop is cpu.c's sim_cas().
 */
#include <stdio.h>

#include "sim_int.h"

/* Whether the test-first form runs the operation on value @v */
bool sim_test_runs(const struct pattern_op *op, unsigned long arg,
		   unsigned long v)
{
	bool set = (v >> (arg & 63)) & 1;

	switch (op->code) {
	case OP___SET_BIT: case OP_SET_BIT: case OP_TEST_AND_SET_BIT:
		return !set;
	case OP___CLEAR_BIT: case OP_CLEAR_BIT: case OP_TEST_AND_CLEAR_BIT:
		return set;
	case OP_ATOMIC_CMPXCHG:
		return v == arg;
	case OP_WRITE_ONCE_MAX:
		return arg > v;
	default:		/* WRITE_ONCE, atomic_set, atomic_xchg */
		return v != arg;
	}
}

/* What the operation writes (op_*() of pattern_ops.c), @arg its value */
void sim_effect(const struct pattern_op *op, unsigned long arg,
		unsigned long *w)
{
	unsigned long bit = 1UL << (arg & 63);

	switch (op->code) {
	case OP_WRITE_ONCE: case OP_ATOMIC_SET: case OP_ATOMIC_XCHG:
	case OP_WRITE_ONCE_MAX:
		*w = arg;
		break;
	case OP___SET_BIT: case OP_SET_BIT: case OP_TEST_AND_SET_BIT:
		*w |= bit;
		break;
	case OP___CLEAR_BIT: case OP_CLEAR_BIT: case OP_TEST_AND_CLEAR_BIT:
		*w &= ~bit;
		break;
	case OP_CHANGE_BIT:
		*w ^= bit;
		break;
	case OP_ATOMIC_ADD:
		*w += arg;
		break;
	case OP_ATOMIC_INC:
		(*w)++;
		break;
	case OP_ATOMIC_DEC:
		(*w)--;
		break;
	case OP_ATOMIC_ADD_RETURN:
		*w += arg;
		break;
	case OP_ATOMIC_SUB_RETURN:
		*w -= arg;
		break;
	case OP_ATOMIC_CMPXCHG:
		if (*w == arg)
			*w = op->arg2;
		break;
	default:		/* the loads; a CAS loop is sim_cas() */
		break;
	}
}

/* /flip_every: the state the operation undoes (pattern_flip()) */
void sim_flip(const struct pattern_op *op, unsigned long arg,
	      unsigned long *w)
{
	unsigned long bit = 1UL << (arg & 63);

	switch (op->code) {
	case OP___SET_BIT: case OP_SET_BIT: case OP_TEST_AND_SET_BIT:
		*w &= ~bit;
		break;
	case OP___CLEAR_BIT: case OP_CLEAR_BIT: case OP_TEST_AND_CLEAR_BIT:
		*w |= bit;
		break;
	case OP_ATOMIC_CMPXCHG:
		*w = arg;
		break;
	default:
		*w = ~arg;
		break;
	}
}

/* Whether the simulator runs @code as the engine does: every row of the
 * table (pattern_ops.h) it knows; a row added later is refused until it
 * is modelled here */
static bool sim_models(enum pattern_opcode code)
{
	switch (code) {
	case OP_READ_ONCE: case OP_WRITE_ONCE: case OP_ATOMIC_READ:
	case OP_ATOMIC_SET: case OP___SET_BIT: case OP___CLEAR_BIT:
	case OP_SET_BIT: case OP_CLEAR_BIT: case OP_CHANGE_BIT:
	case OP_TEST_AND_SET_BIT: case OP_TEST_AND_CLEAR_BIT:
	case OP_ATOMIC_ADD: case OP_ATOMIC_INC: case OP_ATOMIC_DEC:
	case OP_ATOMIC_XCHG: case OP_ATOMIC_CMPXCHG: case OP_SMP_MB:
	case OP_SMP_MB__BEFORE_ATOMIC: case OP_WORK: case OP_TEST_BIT:
	case OP_ATOMIC_INC_NOT_ZERO: case OP_ATOMIC_ADD_UNLESS:
	case OP_ATOMIC_ADD_RETURN: case OP_ATOMIC_SUB_RETURN:
	case OP_WRITE_ONCE_MAX:
		return true;
	default:
		return false;
	}
}

int sim_check(const struct pattern_prog *prog, char *msg, size_t len)
{
	unsigned int i;

	for (i = 0; i < prog->nr_ops; i++)
		if (!sim_models(prog->op[i].code)) {
			snprintf(msg, len, "pattern: %s is not modelled by the "
				 "simulator yet (sim/cpu.c, sim_models()): the "
				 "prediction would be wrong", prog->op[i].path);
			return -1;
		}
	return 0;
}
