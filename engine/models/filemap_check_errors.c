// SPDX-License-Identifier: GPL-2.0
/*
 * model=filemap_check_errors
 *
 * filemap_check_errors() (kernel/filemap.c) before and after commit
 * 7fcbbaf18392 ("mm/filemap.c: avoid always dirtying mapping->flags on
 * O_DIRECT", Jens Axboe, 2014): 1.7M -> 4.0M IOPS of O_DIRECT reads on a
 * 4-socket box. Each I/O is one O_DIRECT read of a file without cached
 * pages, with writeback errors injected on demand.
 */
#include <errno.h>
#include <stdio.h>

#include "filemap_check_errors.h"

static size_t filemap_state_size(const void *params,
				 unsigned long long file_size)
{
	(void)params;
	(void)file_size;
	return sizeof(struct address_space);
}

/*
 * One I/O: an injected writeback error first, then the check. Injecting
 * before this job's own check means every transition is followed by a check
 * that clears it (this job's, or an earlier one of another job sharing the
 * mapping), so transitions == errors reported, summed over the jobs.
 */
static int filemap_io(void *state, const void *params,
		      const struct fc_io *io, struct fc_counters *c)
{
	const struct filemap_params *p = params;
	struct address_space *mapping = state;

	(void)io;
	if (p->inject != FILEMAP_INJECT_NONE && fc_counters_ios(c) % p->inject_every == 0)
		mapping_set_error(mapping, p->inject == FILEMAP_INJECT_ENOSPC ?
				  -ENOSPC : -EIO, c);

	if (__atomic_load_n(&mapping->nrpages, __ATOMIC_RELAXED))
		return 0;
	c->checks++;
	if (p->variant == FC_ALWAYS)
		return filemap_check_errors_always(mapping, c,
						   PATH_FILEMAP_CHECK_ERRORS);
	return filemap_check_errors_test_first(mapping, c,
					       PATH_FILEMAP_CHECK_ERRORS);
}

static const char *const inject_names[] = { "none", "eio", "enospc", NULL };

/* inject_every=0 means "never": only allowed with inject=none */
static int filemap_check(const void *params, char *msg, size_t len)
{
	const struct filemap_params *p = params;

	if (p->inject == FILEMAP_INJECT_NONE || p->inject_every)
		return 0;
	snprintf(msg, len, "inject_every=0 with inject=%s: inject_every must be "
		 "a whole number from 1 to 4294967295 when inject is set",
		 inject_names[p->inject]);
	return -1;
}

static const char *const filemap_paths[] = {
	[PATH_FILEMAP_CHECK_ERRORS] = "filemap_check_errors",
	NULL,
};

static const struct fc_model_option filemap_options[] = {
	{
		.name	= "variant",
		.help	= "always: two test_and_clear_bit() on every I/O (before "
			  "7fcbbaf18392); test_first: test_bit() first (the fix)",
		.def	= "test_first",
		.choices = fc_variant_names,
		.offset	= offsetof(struct filemap_params, variant),
		.is_variant = 1,
	},
	{
		.name	= "inject",
		.help	= "none, eio (AS_EIO: a later check fails an I/O with EIO) "
			  "or enospc (AS_ENOSPC): set as writeback would every "
			  "inject_every I/Os of a job",
		.def	= "none",
		.choices = inject_names,
		.offset	= offsetof(struct filemap_params, inject),
	},
	{
		.name	= "inject_every",
		.help	= "Every N-th I/O of a job sets the error bit (N >= 1)",
		.def	= "1000",
		.min	= 0,
		.max	= 4294967295U,
		.offset	= offsetof(struct filemap_params, inject_every),
	},
	{ .name = NULL },
};

const struct fc_model fc_model_filemap_check_errors = {
	.name		= "filemap_check_errors",
	.order		= 1,
	.paths		= filemap_paths,
	.options	= filemap_options,
	.params_size	= sizeof(struct filemap_params),
	.check		= filemap_check,
	.state_size	= filemap_state_size,
	.io		= filemap_io,
};
FC_REGISTER_MODEL(fc_model_filemap_check_errors)
