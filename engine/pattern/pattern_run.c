// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern's ->run_check (model.h): every job of the run, its
 * sequence compiled as its start would compile it (each distinct set of
 * options once), checked together by pattern_check_jobs() before any job
 * runs an I/O: the simulator runs the same check on its CPUs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern_run.h"

static bool same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static bool same_params(const struct pattern_params *a,
			const struct pattern_params *b)
{
	return a->variant == b->variant && same_str(a->words, b->words) &&
	       same_str(a->pattern, b->pattern) && same_str(a->fixed, b->fixed);
}

/* Each job of @jobs as a member @mb[i], on the sequence of the first job
 * with the same params, compiled once into @prog[] */
static int compile_jobs(const struct fc_run_job *jobs, unsigned int n,
			struct pattern_prog **prog, struct pattern_member *mb,
			char *msg, size_t len)
{
	const struct pattern_params *pp;
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		pp = jobs[i].params;
		for (k = 0; k < i && !same_params(jobs[k].params, pp); k++)
			;
		if (k == i) {
			prog[i] = malloc(sizeof(*prog[i]));
			if (!prog[i]) {
				snprintf(msg, len, "pattern: out of memory");
				return -1;
			}
			if (pattern_compile(pp, true, prog[i], msg, len))
				return -1;
		}
		mb[i] = (struct pattern_member){
			.prog = prog[k], .job = jobs[i].job_number,
			.state = jobs[i].state,
			.writer = !pp->writers ||
				  jobs[i].job_number <= pp->writers,
		};
	}
	return 0;
}

int pattern_run_check(const struct fc_run_job *jobs, unsigned int n,
		      char *msg, size_t len)
{
	struct pattern_prog **prog = calloc(n ?: 1, sizeof(*prog));
	struct pattern_member *mb = calloc(n ?: 1, sizeof(*mb));
	unsigned int i;
	int err = -1;

	if (!prog || !mb)
		snprintf(msg, len, "pattern: out of memory, %u jobs", n);
	else if (!compile_jobs(jobs, n, prog, mb, msg, len))
		err = pattern_check_jobs(mb, n, msg, len);
	for (i = 0; prog && i < n; i++)
		free(prog[i]);
	free(prog);
	free(mb);
	return err;
}
