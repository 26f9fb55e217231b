/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model=pattern: what pattern_run.c gives pattern.c, the check of a run's
 * jobs together before any starts (the model's ->run_check).
 */
#ifndef FLAGCHECK_PATTERN_RUN_H
#define FLAGCHECK_PATTERN_RUN_H

#include "pattern_job.h"

int pattern_run_check(const struct fc_run_job *jobs, unsigned int n,
		      char *msg, size_t len);

#endif
