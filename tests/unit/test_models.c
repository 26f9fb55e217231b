// SPDX-License-Identifier: GPL-2.0
/* The models list: options of one name in two models, which are one fio
 * option, must agree on choices (or range) and default, or the engine does
 * not load; the message names the option and both models. */
#include <string.h>

#include "model.h"
#include "unit.h"

static const char *const ab[] = { "a", "b", NULL };
static const char *const ab_copy[] = { "a", "b", NULL };
static const char *const abc[] = { "a", "b", "c", NULL };

#define CHOICE(n, c, d)	{ .name = n, .def = d, .choices = c }
#define NUMBER(n, lo, hi, d) { .name = n, .def = d, .min = lo, .max = hi }
#define STRING(n)	{ .name = n, .is_string = 1 }
#define END		{ .name = NULL }

/* Two models, one option each; 0 or -1 from fc_models_agree() */
static int agree(const struct fc_model_option *x,
		 const struct fc_model_option *y, char *msg, size_t len)
{
	const struct fc_model_option ox[] = { *x, END }, oy[] = { *y, END };
	const struct fc_model mx = { .name = "mx", .options = ox };
	const struct fc_model my = { .name = "my", .options = oy };
	const struct fc_model *const list[] = { &mx, &my, NULL };

	msg[0] = '\0';
	return fc_models_agree(list, msg, len);
}

static void the_engines_models_agree(void)
{
	char msg[512] = "";

	CHECK_EQ(fc_models_agree(fc_models, msg, sizeof(msg)), 0);
	CHECK_EQ(msg[0], '\0');
}

static void same_choices_and_default_agree(void)
{
	const struct fc_model_option x = CHOICE("mode", ab, "a");
	const struct fc_model_option y = CHOICE("mode", ab_copy, "a");
	const struct fc_model_option n = NUMBER("n", 1, 9, "3");
	char msg[512];

	CHECK_EQ(agree(&x, &y, msg, sizeof(msg)), 0);
	CHECK_EQ(agree(&n, &n, msg, sizeof(msg)), 0);
	/* other names never disagree */
	CHECK_EQ(agree(&x, &n, msg, sizeof(msg)), 0);
}

static void another_default_is_refused(void)
{
	const struct fc_model_option x = CHOICE("mode", ab, "a");
	const struct fc_model_option y = CHOICE("mode", ab, "b");
	char msg[512];

	CHECK_EQ(agree(&x, &y, msg, sizeof(msg)), (unsigned long long)-1);
	CHECK(!strcmp(msg, "option mode of model mx and of model my disagree "
		      "on its default: options of one name are one fio option"));
}

static void other_choices_are_refused(void)
{
	const struct fc_model_option x = CHOICE("mode", ab, "a");
	const struct fc_model_option y = CHOICE("mode", abc, "a");
	const struct fc_model_option n = NUMBER("mode", 0, 1, "a");
	const struct fc_model_option s = STRING("mode");
	char msg[512];

	CHECK_EQ(agree(&x, &y, msg, sizeof(msg)), (unsigned long long)-1);
	CHECK(strstr(msg, "disagree on its choices:") != NULL);
	CHECK_EQ(agree(&x, &n, msg, sizeof(msg)), (unsigned long long)-1);
	CHECK(strstr(msg, "disagree on its choices:") != NULL);
	CHECK_EQ(agree(&n, &s, msg, sizeof(msg)), (unsigned long long)-1);
	CHECK(strstr(msg, "disagree on its choices:") != NULL);
}

static void another_range_is_refused(void)
{
	const struct fc_model_option x = NUMBER("n", 1, 9, "3");
	const struct fc_model_option y = NUMBER("n", 1, 10, "3");
	char msg[512];

	CHECK_EQ(agree(&x, &y, msg, sizeof(msg)), (unsigned long long)-1);
	CHECK(strstr(msg, "option n of model mx and of model my disagree on "
		      "its range of numbers:") == msg);
}

/* Each model's variant has choices and a default of its own */
static void variants_differ_and_agree(void)
{
	const struct fc_model_option x = CHOICE(FC_VARIANT_OPTION, ab, "a");
	const struct fc_model_option y = CHOICE(FC_VARIANT_OPTION, abc, "c");
	char msg[512];

	CHECK_EQ(agree(&x, &y, msg, sizeof(msg)), 0);
}

static void a_variant_is_named_variant(void)
{
	struct fc_model_option x = CHOICE("mode", ab, "a");
	struct fc_model_option y = CHOICE(FC_VARIANT_OPTION, ab, "b");
	struct fc_model_option z = CHOICE(FC_VARIANT_OPTION, ab, "x");
	char msg[512];

	x.is_variant = 1;
	CHECK_EQ(agree(&x, &y, msg, sizeof(msg)), (unsigned long long)-1);
	CHECK(!strcmp(msg, "option mode of model mx: a model's variant is "
		      "named variant"));
	CHECK_EQ(agree(&z, &y, msg, sizeof(msg)), (unsigned long long)-1);
	CHECK(strstr(msg, "whose default is one of its choices") != NULL);
}

int main(void)
{
	RUN(variants_differ_and_agree);
	RUN(a_variant_is_named_variant);
	RUN(the_engines_models_agree);
	RUN(same_choices_and_default_agree);
	RUN(another_default_is_refused);
	RUN(other_choices_are_refused);
	RUN(another_range_is_refused);
	UNIT_EXIT();
}
