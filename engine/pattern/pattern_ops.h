/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model=pattern: the one table of the grammar's operations. The parser
 * (pattern_parse.c), the engine (pattern_ops.c), the simulator
 * (sim/ops.c, sim/cpu.c), the listing (build/flagcheck-pattern-ops, JSON)
 * and through it the tests and docs/pattern.md's table all read this
 * table and nothing else.
 *
 * X(code, name, kind, args, test_first, flip, loop, does):
 *   code        the opcode (enum pattern_opcode)
 *   name        the kernel's name, as written in a pattern
 *   kind        what one call counts: LOAD, STORE, RMW or OTHER (nothing)
 *   args        its arguments: "word", then "bit", "value", "old,new", "n";
 *               "ns" for work(); "" for a barrier
 *   test_first  its test-first form ('?') as the kernel writes it, or NULL
 *               if it has none
 *   flip        has a state that another path undoes (/flip_every)
 *   loop        a compare-and-swap loop: each attempt an RMW, each failed
 *               one also a retry
 *   does        what it does, once for the engine and the simulator
 *               (pattern_does.h): (test, run, undo, result), C over the
 *               kernel's API (bitops.h, atomic.h) on the word w, with a
 *               its value (bit, value, old, n or ns) and b its second (new,
 *               u):
 *     test      when its test-first form runs it (1: it has none); a
 *               loop's: whether to try a cmpxchg from the value old seen
 *     run       the operation, its value the result (DO(): none); a
 *               loop's: the value it swaps in for old
 *     undo      what /flip_every's other path does to the word (an RMW)
 *     result    SUM (summed where no load waits for it) or TESTED(v): a
 *               test of the bit, kept for /if_test, v when the test-first
 *               form skips it (the bit as the operation leaves it)
 * New rows go at the end: the opcodes of the others keep their values.
 */
#ifndef FLAGCHECK_PATTERN_OPS_H
#define FLAGCHECK_PATTERN_OPS_H

/* does's words: run's value where the operation has none; a result
 * summed (-1), or a bit's test kept for /if_test */
#define DO(call)	((call), 0UL)
#define SUM		(-1)
#define TESTED(v)	(v)

#define PATTERN_OPS(X)							\
X(OP_READ_ONCE, "READ_ONCE", LOAD, "word", NULL, 0, 0,			\
  (1, read_once(w), 0, SUM))						\
X(OP_WRITE_ONCE, "WRITE_ONCE", STORE, "word,value",			\
  "if (READ_ONCE(w) != v)", 1, 0,					\
  (read_once(w) != a, DO(write_once(w, a)), atomic_long_xchg(w, ~a), SUM))\
X(OP_ATOMIC_READ, "atomic_read", LOAD, "word", NULL, 0, 0,		\
  (1, read_once(w), 0, SUM))						\
X(OP_ATOMIC_SET, "atomic_set", STORE, "word,value",			\
  "if (atomic_read(w) != v)", 1, 0,					\
  (read_once(w) != a, DO(write_once(w, a)), atomic_long_xchg(w, ~a), SUM))\
X(OP___SET_BIT, "__set_bit", STORE, "word,bit",			\
  "if (!test_bit(b, w))", 1, 0,						\
  (!test_bit(a, w), DO(__set_bit(a, w)), DO(clear_bit(a, w)), SUM))	\
X(OP___CLEAR_BIT, "__clear_bit", STORE, "word,bit",			\
  "if (test_bit(b, w))", 1, 0,						\
  (test_bit(a, w), DO(__clear_bit(a, w)), DO(set_bit(a, w)), SUM))	\
X(OP_SET_BIT, "set_bit", RMW, "word,bit", "if (!test_bit(b, w))", 1, 0,	\
  (!test_bit(a, w), DO(set_bit(a, w)), DO(clear_bit(a, w)), SUM))	\
X(OP_CLEAR_BIT, "clear_bit", RMW, "word,bit", "if (test_bit(b, w))", 1, 0,\
  (test_bit(a, w), DO(clear_bit(a, w)), DO(set_bit(a, w)), SUM))	\
X(OP_CHANGE_BIT, "change_bit", RMW, "word,bit", NULL, 0, 0,		\
  (1, DO(change_bit(a, w)), 0, SUM))					\
X(OP_TEST_AND_SET_BIT, "test_and_set_bit", RMW, "word,bit",		\
  "test_bit(b, w) ||", 1, 0,						\
  (!test_bit(a, w), test_and_set_bit(a, w), DO(clear_bit(a, w)),	\
   TESTED(1)))								\
X(OP_TEST_AND_CLEAR_BIT, "test_and_clear_bit", RMW, "word,bit",	\
  "test_bit(b, w) &&", 1, 0,						\
  (test_bit(a, w), test_and_clear_bit(a, w), DO(set_bit(a, w)),		\
   TESTED(0)))								\
X(OP_ATOMIC_ADD, "atomic_add", RMW, "word,n", NULL, 0, 0,		\
  (1, DO(atomic_long_add(a, w)), 0, SUM))				\
X(OP_ATOMIC_INC, "atomic_inc", RMW, "word", NULL, 0, 0,			\
  (1, DO(atomic_long_add(1, w)), 0, SUM))				\
X(OP_ATOMIC_DEC, "atomic_dec", RMW, "word", NULL, 0, 0,			\
  (1, DO(atomic_long_add(-1UL, w)), 0, SUM))				\
X(OP_ATOMIC_XCHG, "atomic_xchg", RMW, "word,value",			\
  "if (atomic_read(w) != v)", 1, 0,					\
  (read_once(w) != a, atomic_long_xchg(w, a), atomic_long_xchg(w, ~a),	\
   SUM))								\
X(OP_ATOMIC_CMPXCHG, "atomic_cmpxchg", RMW, "word,old,new",		\
  "if (atomic_read(w) == old)", 1, 0,					\
  (read_once(w) == a, atomic_long_cmpxchg(w, a, b),			\
   atomic_long_xchg(w, a), SUM))					\
X(OP_SMP_MB, "smp_mb", OTHER, "", NULL, 0, 0, (1, DO(smp_mb()), 0, SUM)) \
X(OP_SMP_MB__BEFORE_ATOMIC, "smp_mb__before_atomic", OTHER, "", NULL, 0, 0,\
  (1, DO(smp_mb__before_atomic()), 0, SUM))				\
X(OP_WORK, "work", OTHER, "ns", NULL, 0, 0, (1, DO(work_ns(a)), 0, SUM)) \
X(OP_TEST_BIT, "test_bit", LOAD, "word,bit", NULL, 0, 0,		\
  (1, test_bit(a, w), 0, TESTED(0)))					\
X(OP_ATOMIC_INC_NOT_ZERO, "atomic_inc_not_zero", RMW, "word", NULL, 0, 1, \
  (old != 0, old + 1, 0, SUM))						\
X(OP_ATOMIC_ADD_UNLESS, "atomic_add_unless", RMW, "word,n,u", NULL, 0, 1, \
  (old != b, old + a, 0, SUM))						\
X(OP_ATOMIC_ADD_RETURN, "atomic_add_return", RMW, "word,n", NULL, 0, 0,	\
  (1, atomic_long_add_return(a, w), 0, SUM))				\
X(OP_ATOMIC_SUB_RETURN, "atomic_sub_return", RMW, "word,n", NULL, 0, 0,	\
  (1, atomic_long_add_return(-a, w), 0, SUM))				\
X(OP_WRITE_ONCE_MAX, "WRITE_ONCE_MAX", STORE, "word,value",		\
  "if (v > READ_ONCE(w))", 0, 0,					\
  (a > read_once(w), DO(write_once(w, a)), 0, SUM))

/* The guards an operation may carry, in the order the docs list them */
#define PATTERN_GUARDS(X)						\
X(GUARD_BELOW, "below")							\
X(GUARD_EVERY, "every")							\
X(GUARD_EVERY_NS, "every_ns")						\
X(GUARD_FLIP_EVERY, "flip_every")					\
X(GUARD_IF_TEST, "if_test")

#endif
