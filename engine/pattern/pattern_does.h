/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model=pattern: what each operation does, from its row's `does' column
 * (pattern_ops.h), as four inline functions per opcode:
 *
 *   bool OP_X_test(w, a, b, old)           its test-first form runs it
 *   unsigned long OP_X_run(w, a, b, old)   the operation and its result
 *   void OP_X_undo(w, a)                   /flip_every's other path
 *   int OP_X_result                        SUM, or TESTED(v)'s v
 *
 * and pattern_does[], the four of each opcode, for a caller that has the
 * opcode only at run time (the simulator, /flip_every); the per-I/O path
 * calls OP_X_test and OP_X_run by name, inlined.
 *
 * The engine (pattern_ops.c) runs them on the shared arena with the
 * kernel's atomics; the simulator (sim/ops.c) on its simulated word, the
 * same functions on a word that one thread owns. An operation behaves the
 * same in both because it is written once. The includer provides the
 * kernel's API the rows use: bitops.h, atomic.h and work_ns().
 */
#ifndef FLAGCHECK_PATTERN_DOES_H
#define FLAGCHECK_PATTERN_DOES_H

#include <stdbool.h>

#include "pattern.h"

#define PD_UNUSED	__attribute__((unused))
#define PD_ARGS		unsigned long *w PD_UNUSED, unsigned long a PD_UNUSED, \
			unsigned long b PD_UNUSED, unsigned long old PD_UNUSED

#define PD_FNS(code, test, run, undo, result)				\
static inline bool code##_test(PD_ARGS)					\
{									\
	return test;							\
}									\
static inline unsigned long code##_run(PD_ARGS)				\
{									\
	return run;							\
}									\
static inline void code##_undo(unsigned long *w PD_UNUSED,		\
			       unsigned long a PD_UNUSED)		\
{									\
	(void)(undo);							\
}									\
enum { code##_result = result };

typedef bool pattern_test_fn(unsigned long *w, unsigned long a,
			     unsigned long b, unsigned long old);
typedef unsigned long pattern_run_fn(unsigned long *w, unsigned long a,
				     unsigned long b, unsigned long old);
typedef void pattern_undo_fn(unsigned long *w, unsigned long a);

#define PD_APPLY(m, ...)	m(__VA_ARGS__)
#define PD_UNGROUP(...)		__VA_ARGS__
#define PD_ROW(code, name, kind, args, tf, flip, loop, does)		\
	PD_APPLY(PD_FNS, code, PD_UNGROUP does)

PATTERN_OPS(PD_ROW)

#undef PD_ROW

struct pattern_does {
	pattern_test_fn *test;
	pattern_run_fn *run;
	pattern_undo_fn *undo;
	int result;
};

#define PD_TABLE(code, name, kind, args, tf, flip, loop, does)		\
	[code] = { code##_test, code##_run, code##_undo, code##_result },
static const struct pattern_does pattern_does[PATTERN_NR_OPCODES] = {
	PATTERN_OPS(PD_TABLE)
};
#undef PD_TABLE

#endif
