/* SPDX-License-Identifier: GPL-2.0 */
/* model=pattern's unit tests: one job of the model on one state, driven
 * as the glue drives it (test_pattern.c, test_pattern_counts.c). */
#ifndef FLAGCHECK_PATTERN_RUN_H
#define FLAGCHECK_PATTERN_RUN_H

#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_opts.h"
#include "pattern.h"

static const struct fc_model *m = &fc_model_pattern;

/* One job of the model on one state, as the glue drives it */
struct run {
	void *params;
	void *job;
	unsigned char *state;
	struct fc_counters c;
	int err;		/* job_init's */
	char msg[512];		/* ... and its reason */
};

static inline void run_start(struct run *r, const char *variant,
			     const char *words, const char *pattern,
			     const char *fixed, const char *writers,
			     unsigned int job_number)
{
	size_t size;

	memset(r, 0, sizeof(*r));
	r->params = model_params(m);
	model_set(m, r->params, "variant", variant);
	model_set(m, r->params, "pattern_words", words);
	model_set(m, r->params, "pattern", pattern);
	model_set(m, r->params, "pattern_fixed", fixed);
	model_set(m, r->params, "pattern_writers", writers);
	size = m->state_size(r->params, 0);
	r->state = aligned_alloc(128, (size + 127) & ~(size_t)127);
	memset(r->state, 0, size);
	r->job = calloc(1, m->job_size);
	if (!r->state || !r->job)
		abort();
	r->err = m->job_init(r->job, r->params, job_number, r->msg,
			     sizeof(r->msg));
}

static inline void run_ios(struct run *r, void *state, unsigned int n)
{
	struct fc_io io = { .ddir = FC_READ, .len = 4096, .job = r->job };

	while (n--) {
		r->c.ios[FC_READ]++;
		if (m->io(state, r->params, &io, &r->c))
			abort();
	}
}

static inline void run_end(struct run *r)
{
	free(r->params);
	free(r->job);
	free(r->state);
}

/* The word at byte @off of the file's shared arena (after the header) */
static inline unsigned long shared_word(struct run *r, unsigned int off)
{
	return *(unsigned long *)(r->state + 128 + off);
}

#endif
