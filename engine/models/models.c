// SPDX-License-Identifier: GPL-2.0
/* The list of modelled kernel paths: a new model is one file and one line
 * here. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

/* one file each in models/, named as the model= value */
extern const struct fc_model fc_model_filemap_check_errors,
	fc_model_block_commit_write, fc_model_set_buffer_verified,
	fc_model_set_buffer_uptodate, fc_model_bh_lru, fc_model_pattern;

const char *const fc_variant_names[] = {
	[FC_ALWAYS] = "always",
	[FC_TEST_FIRST] = "test_first",
	NULL,
};

const struct fc_model *const fc_models[] = {
	&fc_model_filemap_check_errors,
	&fc_model_block_commit_write,
	&fc_model_set_buffer_verified,
	&fc_model_set_buffer_uptodate,
	&fc_model_bh_lru,
	&fc_model_pattern,
	NULL,
};

enum fc_variant fc_model_variant(const struct fc_model *m, const void *params)
{
	const struct fc_model_option *o;

	for (o = m->options; o && o->name; o++)
		if (o->is_variant)
			return *(const unsigned int *)((const char *)params +
						       o->offset);
	return FC_ALWAYS;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_choices(const char *const *a, const char *const *b)
{
	if (!a || !b)
		return a == b;
	for (; *a && *b; a++, b++)
		if (strcmp(*a, *b))
			return false;
	return !*a && !*b;
}

/* What two options of one name disagree on, or NULL */
static const char *option_disagreement(const struct fc_model_option *a,
				       const struct fc_model_option *b)
{
	if (a->is_string != b->is_string ||
	    !same_choices(a->choices, b->choices))
		return "choices";
	if (!a->choices && !a->is_string &&
	    (a->min != b->min || a->max != b->max))
		return "range of numbers";
	if (!same_str(a->def, b->def))
		return "default";
	return NULL;
}

static int two_models_agree(const struct fc_model *m,
			    const struct fc_model *n, char *msg, size_t len)
{
	const struct fc_model_option *a, *b;
	const char *what;

	for (a = m->options; a && a->name; a++)
		for (b = n->options; b && b->name; b++) {
			if (strcmp(a->name, b->name))
				continue;
			what = option_disagreement(a, b);
			if (!what)
				continue;
			snprintf(msg, len, "option %s of model %s and of model %s "
				 "disagree on its %s: options of one name are one "
				 "fio option", a->name, m->name, n->name, what);
			return -1;
		}
	return 0;
}

int fc_models_agree(const struct fc_model *const *models, char *msg,
		    size_t len)
{
	const struct fc_model *const *m, *const *n;

	for (m = models; *m; m++)
		for (n = m + 1; *n; n++)
			if (two_models_agree(*m, *n, msg, len))
				return -1;
	return 0;
}
