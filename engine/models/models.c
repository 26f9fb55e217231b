// SPDX-License-Identifier: GPL-2.0
/* The models' registry (registry.h): a new model is one file in models/
 * that ends with FC_REGISTER_MODEL (model.h), nothing here. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

const char *const fc_variant_names[] = {
	[FC_ALWAYS] = "always",
	[FC_TEST_FIRST] = "test_first",
	NULL,
};

FC_REGISTRY(model, struct fc_model, FC_MAX_MODELS)

static bool is_variant_name(const char *name)
{
	return !strcmp(name, FC_VARIANT_OPTION);
}

const struct fc_model_option *fc_model_variant_option(const struct fc_model *m)
{
	const struct fc_model_option *o;

	for (o = m->options; o && o->name; o++)
		if (is_variant_name(o->name))
			return o;
	return NULL;
}

int fc_option_choice(const struct fc_model_option *mo, const char *name)
{
	int i;

	for (i = 0; mo->choices && mo->choices[i]; i++)
		if (name && !strcmp(mo->choices[i], name))
			return i;
	return -1;
}

enum fc_variant fc_model_variant(const struct fc_model *m, const void *params)
{
	const struct fc_model_option *o = fc_model_variant_option(m);

	if (!o)
		return FC_ALWAYS;
	return *(const unsigned int *)((const char *)params + o->offset);
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
	/* each model's variant has its own choices and default */
	if (is_variant_name(a->name))
		return a->choices && b->choices ? NULL : "choices";
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

/*
 * The variant is the option named FC_VARIANT_OPTION, a choice with a
 * default among its choices: no other option says it is the variant.
 */
static int variant_is_named(const struct fc_model *m, char *msg, size_t len)
{
	const struct fc_model_option *a;

	for (a = m->options; a && a->name; a++) {
		bool variant = is_variant_name(a->name);

		if (a->is_variant && !variant) {
			snprintf(msg, len, "option %s of model %s: a model's "
				 "variant is named %s", a->name, m->name,
				 FC_VARIANT_OPTION);
			return -1;
		}
		if (variant && fc_option_choice(a, a->def) < 0) {
			snprintf(msg, len, "option %s of model %s: a variant is "
				 "a choice whose default is one of its choices",
				 a->name, m->name);
			return -1;
		}
	}
	return 0;
}

int fc_models_agree(const struct fc_model *const *models, char *msg,
		    size_t len)
{
	const struct fc_model *const *m, *const *n;

	for (m = models; *m; m++) {
		if (variant_is_named(*m, msg, len))
			return -1;
		for (n = m + 1; *n; n++)
			if (two_models_agree(*m, *n, msg, len))
				return -1;
	}
	return 0;
}
