/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model=pattern: the one table of the grammar's operations. The parser
 * (pattern_parse.c), the per-op dispatch (pattern.c), the listing
 * (build/flagcheck-pattern-ops, JSON) and through it the tests and
 * docs/pattern.md's table all read this table and nothing else.
 *
 * X(code, name, kind, args, test_first, flip, loop, fn):
 *   code        the opcode (enum pattern_opcode)
 *   name        the kernel's name, as written in a pattern
 *   kind        what one call counts: LOAD, STORE, RMW or OTHER (nothing)
 *   args        its arguments: "word", then "bit", "value", "old,new", "n";
 *               "ns" for work(); "" for a barrier
 *   test_first  its test-first form ('?') as C, or NULL if it has none
 *   flip        has a state that another path undoes (/flip_every)
 *   loop        a compare-and-swap loop: each attempt an RMW, each failed
 *               one also a retry
 *   fn          the function that runs it (pattern_ops.c); the parser
 *               ignores it
 * New rows go at the end: the opcodes of the others keep their values.
 */
#ifndef FLAGCHECK_PATTERN_OPS_H
#define FLAGCHECK_PATTERN_OPS_H

#define PATTERN_OPS(X)							\
X(OP_READ_ONCE, "READ_ONCE", LOAD, "word", NULL, 0, 0, op_read_once)	\
X(OP_WRITE_ONCE, "WRITE_ONCE", STORE, "word,value",			\
  "if (READ_ONCE(w) != v)", 1, 0, op_write_once)				\
X(OP_ATOMIC_READ, "atomic_read", LOAD, "word", NULL, 0, 0, op_read_once)	\
X(OP_ATOMIC_SET, "atomic_set", STORE, "word,value",			\
  "if (atomic_read(w) != v)", 1, 0, op_write_once)				\
X(OP___SET_BIT, "__set_bit", STORE, "word,bit",			\
  "if (!test_bit(b, w))", 1, 0, op___set_bit)				\
X(OP___CLEAR_BIT, "__clear_bit", STORE, "word,bit",			\
  "if (test_bit(b, w))", 1, 0, op___clear_bit)				\
X(OP_SET_BIT, "set_bit", RMW, "word,bit", "if (!test_bit(b, w))", 1, 0,	\
  op_set_bit)								\
X(OP_CLEAR_BIT, "clear_bit", RMW, "word,bit", "if (test_bit(b, w))", 1, 0,\
  op_clear_bit)								\
X(OP_CHANGE_BIT, "change_bit", RMW, "word,bit", NULL, 0, 0, op_change_bit)	\
X(OP_TEST_AND_SET_BIT, "test_and_set_bit", RMW, "word,bit",		\
  "test_bit(b, w) ||", 1, 0, op_test_and_set_bit)				\
X(OP_TEST_AND_CLEAR_BIT, "test_and_clear_bit", RMW, "word,bit",	\
  "test_bit(b, w) &&", 1, 0, op_test_and_clear_bit)			\
X(OP_ATOMIC_ADD, "atomic_add", RMW, "word,n", NULL, 0, 0, op_atomic_add)	\
X(OP_ATOMIC_INC, "atomic_inc", RMW, "word", NULL, 0, 0, op_atomic_inc)	\
X(OP_ATOMIC_DEC, "atomic_dec", RMW, "word", NULL, 0, 0, op_atomic_dec)	\
X(OP_ATOMIC_XCHG, "atomic_xchg", RMW, "word,value",			\
  "if (atomic_read(w) != v)", 1, 0, op_atomic_xchg)			\
X(OP_ATOMIC_CMPXCHG, "atomic_cmpxchg", RMW, "word,old,new",		\
  "if (atomic_read(w) == old)", 1, 0, op_atomic_cmpxchg)			\
X(OP_SMP_MB, "smp_mb", OTHER, "", NULL, 0, 0, op_smp_mb)			\
X(OP_SMP_MB__BEFORE_ATOMIC, "smp_mb__before_atomic", OTHER, "", NULL, 0, 0,\
  op_smp_mb__before_atomic)						\
X(OP_WORK, "work", OTHER, "ns", NULL, 0, 0, op_work)				\
X(OP_TEST_BIT, "test_bit", LOAD, "word,bit", NULL, 0, 0, op_test_bit)	\
X(OP_ATOMIC_INC_NOT_ZERO, "atomic_inc_not_zero", RMW, "word", NULL, 0, 1,	\
  op_atomic_inc_not_zero)						\
X(OP_ATOMIC_ADD_UNLESS, "atomic_add_unless", RMW, "word,n,u", NULL, 0, 1,	\
  op_atomic_add_unless)							\
X(OP_ATOMIC_ADD_RETURN, "atomic_add_return", RMW, "word,n", NULL, 0, 0,	\
  op_atomic_add_return)							\
X(OP_ATOMIC_SUB_RETURN, "atomic_sub_return", RMW, "word,n", NULL, 0, 0,	\
  op_atomic_sub_return)							\
X(OP_WRITE_ONCE_MAX, "WRITE_ONCE_MAX", STORE, "word,value",		\
  "if (v > READ_ONCE(w))", 0, 0, op_write_once_max)

/* The guards an operation may carry, in the order the docs list them */
#define PATTERN_GUARDS(X)						\
X(GUARD_BELOW, "below")							\
X(GUARD_EVERY, "every")							\
X(GUARD_EVERY_NS, "every_ns")						\
X(GUARD_FLIP_EVERY, "flip_every")					\
X(GUARD_IF_TEST, "if_test")

#endif
