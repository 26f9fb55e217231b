/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model=pattern: what the checks of the locks of the jobs on one file
 * share: where a lock is (pattern_locks.c) and in which order the jobs
 * take them (pattern_lock_order.c).
 */
#ifndef FLAGCHECK_PATTERN_LOCKS_H
#define FLAGCHECK_PATTERN_LOCKS_H

#include "pattern_lex.h"

/*
 * A word's place in a file's state, as every job sees it: a byte of the
 * arena (its words, the slots, the pairs' copies), of the NUMA nodes'
 * copies, or of the :obj objects (each node, each object alike: two jobs
 * may be on one node, may pick one object)
 */
enum { PLACE_ARENA, PLACE_NODE, PLACE_OBJ, PLACE_REGIONS };
#define PLACE_WORDS	(PATTERN_ARENA / 8)
#define PLACES		(PLACE_REGIONS * PLACE_WORDS)
#define NO_PLACE	(-1)

/* The jobs on one file and their locks: where each is, who takes it */
struct file_locks {
	const struct pattern_member *m;
	unsigned int n;
	int taker[PLACES];		/* the first member that takes it, -1 */
	unsigned char taker_op[PLACES];	/* ... by this operation */
	bool several[PLACES];		/* more than one member takes it */
	int node[PLACES];		/* its node in the order's graph, -1 */
	int place_of[PLACES];		/* a node's place */
	unsigned int nr;		/* the nodes */
	char *msg;
	size_t len;
};

static inline bool is_lock_op(const struct pattern_op *op)
{
	return op->code == OP_SPIN_LOCK || op->code == OP_SPIN_UNLOCK;
}

static inline const struct pattern_word *
op_word(const struct pattern_member *m, const struct pattern_op *op)
{
	return op->has_word && op->word >= 0 ? &m->prog->word[op->word] :
	       NULL;
}

/* pattern_locks.c: the place of @op's word for member @m (NO_PLACE: a
 * :job word, or none); "byte 8 of the arena"; "job 1's operation 2
 * 'spin_lock(l)'" */
int lock_op_place(const struct pattern_member *m, const struct pattern_op *op);
const char *lock_place_text(char *buf, size_t len, int at);
const char *lock_op_text(char *buf, size_t len, const struct pattern_member *m,
		    unsigned int i);

/* pattern_lock_order.c: 0, or -1 with the locks taken in both orders */
int pattern_locks_ordered(struct file_locks *fl);

#endif
