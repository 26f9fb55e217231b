/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-job counters. They live in the job's own memory (never in the shared
 * arena): counting must not add coherence traffic of its own.
 */
#ifndef FLAGCHECK_COUNTERS_H
#define FLAGCHECK_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The kernel functions a model runs per I/O, counted apart: each model
 * names its paths (model.h), index 0 up; model=pattern has one per
 * operation of its sequence, so this is also its longest sequence. */
#define FC_MAX_PATHS	64
/* A model's own counters (hits, misses, ...), named by the model */
#define FC_MAX_STATS	24
/* log2 buckets of the timed calls' ns: the last from 2^30 ns (1.07 s) up */
#define FC_TIMED_BUCKETS	32

/* An I/O's direction, as fio's ddir */
enum fc_ddir {
	FC_READ = 0,
	FC_WRITE,
	FC_OTHER,		/* sync, trim */
};

struct fc_counters {
	/* I/Os fio issued to the engine, by direction (enum fc_ddir in
	 * model.h: read, write, other = sync and trim), each counted once */
	uint64_t ios[3];
	uint64_t checks;	/* times the modelled path ran */
	uint64_t rmw[FC_MAX_PATHS];	/* atomic RMWs executed */
	uint64_t skipped[FC_MAX_PATHS];	/* RMWs a plain test or a guard
					 * made unnecessary */
	uint64_t stores[FC_MAX_PATHS];	/* plain stores executed: not RMWs,
					 * but they take the line all the same */
	uint64_t stores_skipped[FC_MAX_PATHS];	/* plain stores a test or a
						 * guard made unnecessary */
	uint64_t retries[FC_MAX_PATHS];	/* failed attempts of a compare-and-
					 * swap loop, each also in rmw[] */
	uint64_t errors_set;	/* 0 -> 1 transitions of an error bit (injected) */
	uint64_t errors_reported; /* I/Os failed with the error the model returned */
	uint64_t issued;		/* I/Os the backend handed to the kernel */
	uint64_t stat[FC_MAX_STATS];	/* the model's own, as it names them */
	/* 1 call of the model in FC_TIMED_EVERY timed: calls and their ns */
	uint64_t timed_calls;
	uint64_t timed_ns;
	/*
	 * ... by log2 of each call's ns (fc_timed_bucket()): the calls and
	 * their ns, so that a reader can leave out the few calls a busy
	 * machine preempted between their two clock reads, which weigh as
	 * much as FC_TIMED_EVERY - 1 untimed calls each
	 */
	uint64_t timed_hist[FC_TIMED_BUCKETS];
	uint64_t timed_hist_ns[FC_TIMED_BUCKETS];
};

/* The bucket of a timed call of @ns: its bit length (0 for 0 ns, i for
 * [2^(i-1), 2^i) ns), the last one holding everything longer */
static inline unsigned int fc_timed_bucket(uint64_t ns)
{
	unsigned int b = ns ? 64 - __builtin_clzll(ns) : 0;

	return b < FC_TIMED_BUCKETS ? b : FC_TIMED_BUCKETS - 1;
}

/* One timed call of @ns, the clock's own cost already taken off */
static inline void fc_count_timed(struct fc_counters *c, uint64_t ns)
{
	unsigned int b = fc_timed_bucket(ns);

	c->timed_calls++;
	c->timed_ns += ns;
	c->timed_hist[b]++;
	c->timed_hist_ns[b] += ns;
}

/*
 * One model call in this many is timed (two clock reads, about 21 ns each
 * on the dev VM): 1 in 256 costs about 0.16 ns per I/O, and still times
 * some 35000 calls a second at 9M IOPS. In each counters line as
 * timed_every.
 */
#define FC_TIMED_EVERY	256

/* The clock of every timing: the model's calls, a model's own batches */
static inline uint64_t fc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline uint64_t fc_sum(const uint64_t *v, int n)
{
	uint64_t sum = 0;

	while (n--)
		sum += *v++;
	return sum;
}

static inline uint64_t fc_counters_rmw(const struct fc_counters *c)
{
	return fc_sum(c->rmw, FC_MAX_PATHS);
}

static inline uint64_t fc_counters_ios(const struct fc_counters *c)
{
	return fc_sum(c->ios, 3);
}

/*
 * The one way to count: an RMW the caller's @path ran, or one a plain test
 * made unnecessary. The kernel helpers (kernel/) return whether they ran
 * it; the path numbers are the model's own (its ->paths).
 */
static inline void fc_count_rmw(struct fc_counters *c, int path, bool ran)
{
	if (ran)
		c->rmw[path]++;
	else
		c->skipped[path]++;
}

/* @src's counts added to @dst's: every field is a count */
static inline void fc_counters_add(struct fc_counters *dst,
				   const struct fc_counters *src)
{
	uint64_t *d = (uint64_t *)dst;
	const uint64_t *s = (const uint64_t *)src;
	size_t i;

	_Static_assert(sizeof(*dst) % sizeof(uint64_t) == 0,
		       "struct fc_counters: uint64_t counts only");
	for (i = 0; i < sizeof(*dst) / sizeof(uint64_t); i++)
		d[i] += s[i];
}

/* A plain store the caller's @path ran, or one a plain test skipped */
static inline void fc_count_store(struct fc_counters *c, int path, bool ran)
{
	if (ran)
		c->stores[path]++;
	else
		c->stores_skipped[path]++;
}

/* A compare-and-swap attempt of @path that failed: its loop runs again */
static inline void fc_count_retry(struct fc_counters *c, int path)
{
	c->retries[path]++;
}

static inline uint64_t fc_counters_retries(const struct fc_counters *c)
{
	return fc_sum(c->retries, FC_MAX_PATHS);
}

static inline uint64_t fc_counters_stores(const struct fc_counters *c)
{
	return fc_sum(c->stores, FC_MAX_PATHS);
}

static inline uint64_t fc_counters_skipped(const struct fc_counters *c)
{
	return fc_sum(c->skipped, FC_MAX_PATHS);
}

static inline uint64_t fc_counters_stores_skipped(const struct fc_counters *c)
{
	return fc_sum(c->stores_skipped, FC_MAX_PATHS);
}

#endif
