/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A job's counters at its end, the glue's side of stats.h: one line beside
 * fio's text output, one JSON line in the flagcheck_stats file.
 */
#ifndef FLAGCHECK_REPORT_H
#define FLAGCHECK_REPORT_H

#include "fio.h"

#include "corun.h"
#include "counters.h"
#include "model.h"
#include "options.h"

/* What a job reports: its model, the model's params and job memory, its
 * backend */
struct fc_report_job {
	const struct fc_model *model;
	const void *params;
	const void *job;
	const struct fc_backend *backend;
	const struct fc_counters *c;
	const struct fc_corun *corun;	/* when it ran, or NULL */
};

/* At load, in fio's own process: the run whose end the jobs report to */
void fc_report_load(void);

/*
 * At job init: the counters file can be written (the first job of the run
 * to get here starts it afresh). 0, or 1 after the job's error is set.
 */
int fc_report_prepare(struct thread_data *td,
		      const struct flagcheck_options *o);

/* At job end: the line and the file's line; a failed write fails the job */
void fc_report(struct thread_data *td, const struct flagcheck_options *o,
	       const struct fc_report_job *rj);

#endif
