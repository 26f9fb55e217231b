/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counters of one job, reported at job end: a line through fio's
 * log_info (forwarded to the client in client/server mode, where stdout
 * goes nowhere), and one JSON object appended to the flagcheck_stats file.
 */
#ifndef FLAGCHECK_STATS_H
#define FLAGCHECK_STATS_H

#include <stddef.h>

#include "counters.h"
#include "model.h"

struct fc_stats_job {
	const char *job;
	unsigned int thread_number;
	int pid;
	const char *model;
	const char *variant;	/* always, test_first */
	const char *mapping;	/* shared, private */
	const char *backend;
	const char *options;	/* the model's options, a JSON object */
	const char *const *paths; /* the model's counted paths */
	const char *const *stats; /* the model's own counters (c->stat[]) */
	const char *corun;	/* when the job ran (corun.h), JSON, or NULL */
};

/* One JSON object, no newline: malloc'd, NULL without memory */
char *fc_stats_json(const struct fc_stats_job *j, const struct fc_counters *c);
/* The one-line text summary, no newline: malloc'd */
char *fc_stats_text(const struct fc_stats_job *j, const struct fc_counters *c);
/* Open (creating; truncating when @truncate) to check it can be written */
int fc_stats_prepare(const char *path, int truncate);
/* Append the job's object as one line, whole or not at all: 0 or -errno */
int fc_stats_append(const char *path, const struct fc_stats_job *j,
		    const struct fc_counters *c);
/* @s as a JSON string, quotes included: malloc'd, NULL without memory */
char *fc_json_str(const char *s);
/* The model's options as a JSON object, from its params: malloc'd, NULL
 * without memory */
char *fc_model_options_json(const struct fc_model *m, const void *params);

#endif
