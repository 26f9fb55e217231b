// SPDX-License-Identifier: GPL-2.0
/* The list of modelled kernel paths: a new model is one file and one line
 * here. */
#include "model.h"

/* one file each in models/, named as the model= value */
extern const struct fc_model fc_model_filemap_check_errors,
	fc_model_block_commit_write, fc_model_set_buffer_verified,
	fc_model_set_buffer_uptodate, fc_model_bh_lru;

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
