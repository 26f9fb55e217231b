// SPDX-License-Identifier: GPL-2.0
/* The one registry (registry.h), through the models' list: numbered
 * entries by number, then the others by name, whatever the order they
 * register in; past its size an entry is counted and left out. */
#include <string.h>

#include "model.h"
#include "unit.h"

static unsigned int nr_listed(void)
{
	unsigned int n = 0;

	while (fc_models[n])
		n++;
	return n;
}

static void the_engines_models_in_listing_order(void)
{
	unsigned int i, n = nr_listed();

	CHECK_EQ(fc_models_refused(), 0);
	CHECK(n > 1);
	for (i = 1; i < n; i++)
		CHECK(fc_listed_before(fc_models[i - 1]->order,
				       fc_models[i - 1]->name,
				       fc_models[i]->order, fc_models[i]->name));
	/* the published scenarios' models first, by number */
	CHECK(!strcmp(fc_models[0]->name, "filemap_check_errors"));
	CHECK_EQ(fc_models[0]->order, 1);
}

static const struct fc_model late_b = { .name = "zz_b" };
static const struct fc_model late_a = { .name = "zz_a" };
static const struct fc_model first = { .name = "zz_first", .order = 1 };

/* Registered after the engine's own: each goes to its place all the same */
static void late_entries_go_to_their_place(void)
{
	unsigned int n = nr_listed();

	fc_register_model(&late_b);
	fc_register_model(&first);
	fc_register_model(&late_a);
	CHECK_EQ(nr_listed(), n + 3);
	/* order 1 as filemap_check_errors: after it by name */
	CHECK(fc_models[1] == &first);
	CHECK(fc_models[n + 1] == &late_a && fc_models[n + 2] == &late_b);
	CHECK_EQ(fc_models_refused(), 0);
}

static struct fc_model fill[FC_MAX_MODELS + 2];
static char fill_names[FC_MAX_MODELS + 2][16];

static void past_its_size_counted_and_left_out(void)
{
	unsigned int i, n = nr_listed();

	for (i = 0; n + i < FC_MAX_MODELS + 2; i++) {
		snprintf(fill_names[i], sizeof(fill_names[i]), "zzz_%02u", i);
		fill[i].name = fill_names[i];
		fc_register_model(&fill[i]);
	}
	CHECK_EQ(nr_listed(), FC_MAX_MODELS);
	CHECK_EQ(fc_models_refused(), 2);
	CHECK(fc_models[FC_MAX_MODELS] == NULL);
	CHECK(fc_models[FC_MAX_MODELS - 1] == &fill[FC_MAX_MODELS - n - 1]);
}

int main(void)
{
	RUN(the_engines_models_in_listing_order);
	RUN(late_entries_go_to_their_place);
	RUN(past_its_size_counted_and_left_out);
	UNIT_EXIT();
}
