/* SPDX-License-Identifier: GPL-2.0 */
/* model=pattern's unit tests of several jobs on one state, driven as the
 * glue drives them (test_pattern_forms.c, test_pattern_copies.c). */
#ifndef FLAGCHECK_FORMS_RUN_H
#define FLAGCHECK_FORMS_RUN_H

#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_opts.h"
#include "pattern_job.h"

static const struct fc_model *m = &fc_model_pattern;

/* Jobs of the model on one state, as the glue drives them */
struct run {
	void *params;
	unsigned char *state;
	size_t size;
	void *job[4];
	struct fc_counters c[4];
	char msg[512];		/* the first job_init's reason for failing */
};

static inline int run_start_fixed(struct run *r, const char *variant,
			   const char *words, const char *pattern,
			   const char *fixed, unsigned int jobs)
{
	char scratch[sizeof(r->msg)];
	unsigned int i;
	int err = 0;

	memset(r, 0, sizeof(*r));
	r->params = model_params(m);
	model_set(m, r->params, "variant", variant);
	model_set(m, r->params, "pattern_words", words);
	model_set(m, r->params, "pattern", pattern);
	model_set(m, r->params, "pattern_fixed", fixed);
	model_set(m, r->params, "pattern_writers", "0");
	r->size = m->state_size(r->params, 0);
	r->state = aligned_alloc(128, (r->size + 127) & ~(size_t)127);
	if (!r->state)
		abort();
	memset(r->state, 0, r->size);
	for (i = 0; i < jobs; i++) {
		r->job[i] = calloc(1, m->job_size);
		if (!r->job[i])
			abort();
		if (m->job_init(r->job[i], r->params, i + 1,
				err ? scratch : r->msg, sizeof(scratch)))
			err = 1;
	}
	return err;
}

static inline int run_start(struct run *r, const char *variant, const char *words,
		     const char *pattern, unsigned int jobs)
{
	return run_start_fixed(r, variant, words, pattern, "", jobs);
}

static inline void run_ios(struct run *r, unsigned int job, unsigned int n)
{
	struct fc_io io = { .ddir = FC_READ, .len = 4096, .job = r->job[job] };

	while (n--) {
		r->c[job].ios[FC_READ]++;
		if (m->io(r->state, r->params, &io, &r->c[job]))
			abort();
	}
}

static inline void run_end(struct run *r)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		free(r->job[i]);
	free(r->params);
	free(r->state);
}

/* The shared arena's word at @off */
static inline unsigned long arena_word(struct run *r, unsigned int off)
{
	return *(unsigned long *)(r->state + PATTERN_HEADER + off);
}

#endif
