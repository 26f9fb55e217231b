/* SPDX-License-Identifier: GPL-2.0 */
/* Model params the way the glue builds them: through the model's option
 * table, by name, so the tests need no private header of the model. */
#ifndef FLAGCHECK_MODEL_OPTS_H
#define FLAGCHECK_MODEL_OPTS_H

#include <stdlib.h>
#include <string.h>

#include "model.h"

static inline const struct fc_model_option *
model_opt(const struct fc_model *m, const char *name)
{
	const struct fc_model_option *o;

	for (o = m->options; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o;
	return NULL;
}

/* A choice by name, a number as decimal text, a string as is; abort() on
 * an unknown option or choice (a broken test, not a failed one). */
static inline void model_set(const struct fc_model *m, void *params,
		      const char *name, const char *value)
{
	const struct fc_model_option *o = model_opt(m, name);
	char *p = (char *)params;
	unsigned int i;

	if (!o)
		abort();
	if (o->is_string) {
		*(const char **)(p + o->offset) = value;
		return;
	}
	if (!o->choices) {
		*(unsigned int *)(p + o->offset) = strtoul(value, NULL, 10);
		return;
	}
	for (i = 0; o->choices[i]; i++)
		if (!strcmp(o->choices[i], value)) {
			*(unsigned int *)(p + o->offset) = i;
			return;
		}
	abort();
}

/* Params with every option at its default; the caller frees them. */
static inline void *model_params(const struct fc_model *m)
{
	const struct fc_model_option *o;
	void *params = calloc(1, m->params_size);

	if (!params)
		abort();
	for (o = m->options; o && o->name; o++)
		model_set(m, params, o->name, o->def ? o->def : "");
	return params;
}

/* The index of a model's stat or path by name; -1 if none. */
static inline int name_index(const char *const *names, const char *name)
{
	int i;

	for (i = 0; names && names[i]; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

#endif
