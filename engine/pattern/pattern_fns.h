/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model=pattern: the functions pattern_ops.c gives pattern.c, one per row
 * of PATTERN_OPS, and the guarded step.
 */
#ifndef FLAGCHECK_PATTERN_FNS_H
#define FLAGCHECK_PATTERN_FNS_H

#include "pattern_job.h"

/* pattern_ops.c: each opcode's function (NULL: no call) */
extern pattern_fn *const pattern_fns[PATTERN_NR_OPCODES];
/* pattern_ops.c: a step with a guard (/every, /below, /if_test, ...) */
void pattern_guarded(struct pattern_job *j, const struct pattern_step *s,
		     struct fc_counters *c);

#endif
