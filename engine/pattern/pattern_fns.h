/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model=pattern: the functions pattern_ops.c gives pattern.c, one per row
 * of PATTERN_OPS, the guarded step and an I/O with a lock.
 */
#ifndef FLAGCHECK_PATTERN_FNS_H
#define FLAGCHECK_PATTERN_FNS_H

#include "pattern_job.h"

/* pattern_ops.c: each opcode's function (NULL: no call) */
extern pattern_fn *const pattern_fns[PATTERN_NR_OPCODES];
/* pattern_ops.c: a step with a guard (/every, /below, /if_test, ...) */
void pattern_guarded(struct pattern_job *j, const struct pattern_step *s,
		     struct fc_counters *c);
/* pattern_ops.c: an I/O of a sequence with a lock, from its alternative's
 * @first step: 0, or -EDEADLK where a spin gave up (j->stuck) */
int pattern_io_locked(struct pattern_job *j, const struct pattern_step *first,
		      const struct fc_io *io, struct fc_counters *c);

#endif
