// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern: where a job's copies of the node, slot and pair words are
 * (pattern.c's header says where each sharing lives), checked once at job
 * start: a copy past the arena or on another word's place is refused in one
 * line, else the job's operations on those words are moved to its copy.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "pattern_copies.h"

/* The NUMA node of the CPU this job runs on now (fio pinned it already) */
int pattern_node(struct pattern_job *j, char *msg, size_t len)
{
	unsigned int cpu, node;
	int err;

	if (!j->prog.uses_node)
		return 0;
	if (getcpu(&cpu, &node)) {
		err = errno;
		snprintf(msg, len, "pattern_words: a node word: getcpu() "
			 "failed: %s", strerror(err));
		return -err;
	}
	if (node >= PATTERN_MAX_NODES) {
		snprintf(msg, len, "pattern_words: a node word on NUMA node "
			 "%u: the engine holds nodes 0 to %d", node,
			 PATTERN_MAX_NODES - 1);
		return -ERANGE;
	}
	j->node = node;
	return 0;
}

/*
 * slot words: job N's copy, STRIDE x (N - 1) bytes past the word, must be
 * in the arena and on no other word (pattern_slot_fit()); the job's
 * operations on it then use that place in the shared arena
 */
int pattern_slots(struct pattern_job *j, char *msg, size_t len)
{
	struct pattern_prog *p = &j->prog;
	unsigned int i;

	if (pattern_slot_fit(p, j->slot + 1, msg, len))
		return -ERANGE;
	for (i = 0; i < p->nr_ops; i++)
		if (p->op[i].has_word && p->op[i].sharing == PATTERN_SLOT)
			p->op[i].offset += p->word[p->op[i].word].stride *
					   j->slot;
	return 0;
}

/*
 * pair words: the copy of the job's pair (jobs 2k + 1 and 2k + 2), 128
 * bytes x k past the word, must be in the arena, its line pair no other
 * pair's and no other word's (pattern_pair_fit(), for this job and every
 * one numbered below it); the job's operations on it then use that place
 */
int pattern_pairs(struct pattern_job *j, unsigned int job_number, char *msg,
		  size_t len)
{
	struct pattern_prog *p = &j->prog;
	unsigned int i, k = j->slot / 2;

	if (pattern_pair_fit(p, job_number ?: 1, msg, len))
		return -ERANGE;
	for (i = 0; i < p->nr_ops; i++)
		if (p->op[i].has_word && p->op[i].sharing == PATTERN_PAIR)
			p->op[i].offset += PATTERN_PAIR_STRIDE * k;
	return 0;
}
