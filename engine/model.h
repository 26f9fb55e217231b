/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A modelled kernel hot path. Each model is one file (filemap.c, ...) that
 * fills one struct fc_model; flagcheck.c runs the chosen model's ->io() for
 * every I/O before the backend issues it. Models know nothing of fio, so
 * the unit tests drive them directly.
 */
#ifndef FLAGCHECK_MODEL_H
#define FLAGCHECK_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "counters.h"

/* The two variants every model has: the atomic RMW on every call, or the
 * plain test first and the RMW only when it changes something. */
enum fc_variant {
	FC_ALWAYS = 0,
	FC_TEST_FIRST,
};

/* Writeback error to inject, as mapping_set_error() would record it. */
enum fc_inject {
	FC_INJECT_NONE = 0,
	FC_INJECT_EIO,
	FC_INJECT_ENOSPC,
};

struct fc_params {
	enum fc_variant variant;
	enum fc_inject inject;
	unsigned int inject_every;	/* every N-th I/O of a job injects */
};

enum fc_ddir {
	FC_READ = 0,
	FC_WRITE,
	FC_OTHER,		/* sync, trim */
};

struct fc_io {
	enum fc_ddir ddir;
	unsigned long long offset;
	unsigned long long len;
};

struct fc_model {
	const char *name;
	/* Bytes of state per file that every job of the run shares (zero-filled
	 * at creation: the zero state is the model's initial state). */
	size_t (*state_size)(const struct fc_params *p,
			     unsigned long long file_size);
	/*
	 * The modelled path for one I/O: 0, or a negative errno that fails the
	 * I/O before it is issued. c->ios already counts this I/O.
	 */
	int (*io)(void *state, const struct fc_params *p,
		  const struct fc_io *io, struct fc_counters *c);
	/* The most RMWs one ->io() runs in the always variant, for the
	 * "RMWs skipped by test_first" counter. */
	unsigned int rmw_per_check;
};

extern const struct fc_model fc_model_filemap;

#endif
