/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model=pattern: what pattern_copies.c gives pattern.c, a job's copies of
 * its node, slot and pair words.
 */
#ifndef FLAGCHECK_PATTERN_COPIES_H
#define FLAGCHECK_PATTERN_COPIES_H

#include "pattern_job.h"

/* pattern_copies.c: the job's copies of node, slot and pair words */
int pattern_node(struct pattern_job *j, char *msg, size_t len);
int pattern_slots(struct pattern_job *j, char *msg, size_t len);
int pattern_pairs(struct pattern_job *j, unsigned int job_number, char *msg,
		  size_t len);

#endif
