/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-job counters. They live in the job's own memory (never in the shared
 * arena): counting must not add coherence traffic of its own.
 */
#ifndef FLAGCHECK_COUNTERS_H
#define FLAGCHECK_COUNTERS_H

#include <stdint.h>

struct fc_counters {
	uint64_t ios;		/* I/Os the engine was handed */
	uint64_t checks;	/* times the modelled check ran */
	uint64_t rmw;		/* atomic read-modify-writes executed */
	uint64_t errors_set;	/* 0 -> 1 transitions of an error bit (injected) */
	uint64_t errors_reported; /* I/Os failed with the error the check returned */
};

#endif
