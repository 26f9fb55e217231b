/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flagcheck-calibrate: what one shared cache line costs on this machine.
 *
 * On the CPUs this process may use (sched_getaffinity), one thread pinned
 * per CPU, it measures:
 *
 *  - the one-way transfer latency of a cache line between every pair of
 *    CPUs (transfer.c): two threads bounce one 64-byte-aligned line with
 *    compare-and-swap (each waits for the other's value, then writes its
 *    own); a sample is a batch of round trips timed together, the pair's
 *    figure is the median sample / round trips / 2;
 *  - the line's visits at 1..N threads (visits.c): lock xadd on one word,
 *    the order of the returned values giving the RMWs per visit and the
 *    hand-over time, over the stretches where every thread ran; at 2
 *    threads between two ping-pongs of the same pair (calibration.c);
 *  - the kernel's two patterns on one shared flags word, at 1..N threads
 *    (the first N usable CPUs; patterns.c): "always", two
 *    test_and_clear_bit() per iteration as filemap_check_errors() did
 *    before 7fcbbaf18392, and "test_first", test_bit() first and the RMW
 *    only when the bit is set (the fix). The bit operations are the
 *    engine's own (bitops.h), so the instructions are the ones the models
 *    run.
 *
 * calibration.c runs them within the time budget, output.c prints one JSON
 * document (stdout or --output), flagcheck-calibrate.c is the command
 * line. The analysis (analysis/flagcheck-calibrate) adds the CPU model and
 * topology.
 */
#ifndef FLAGCHECK_CALIBRATE_H
#define FLAGCHECK_CALIBRATE_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CACHE_LINE	64

#define DEFAULT_SECONDS	10.0
#define DEFAULT_BATCH	64	/* round trips timed together */
#define MIN_SAMPLES	9	/* per pair, whatever the budget */
#define MAX_SAMPLES	20000	/* per pair: enough for a median */
#define INNER		64	/* pattern iterations between stop checks */
#define MIN_POINT_NS	1000000	/* per pattern and thread count */
#define STOP		ULONG_MAX
#define VISIT_STRETCH	1024	/* RMWs a thread times as one stretch */
#define VISIT_MAX_RMW	(1u << 22)	/* kept values, all threads' */
#define VISIT_PARTS	8	/* every thread served RMWs in each part */
#define VISIT_TRIES	3	/* the pair's visits, retaken at most so */
#define PAIR_AGREE	1.5	/* its one-way cost before and after, apart */

enum pattern { PAT_ALWAYS, PAT_TEST_FIRST, NR_PATTERNS };
extern const char *const pattern_name[NR_PATTERNS];

struct line {
	unsigned long word;
} __attribute__((aligned(CACHE_LINE)));

/* The command line (flagcheck-calibrate.c) */
struct opts {
	double seconds;
	unsigned int batch;
	int max_threads;
	const char *output;
	bool progress;
};

/* One pattern at one thread count */
struct point {
	double ns_per_op, ns_min, ns_max, ops_per_s, seconds;
	uint64_t ops, rmw;
	int migrated;
};

/* The line's visits at one thread count (visits.c) */
struct visit_point {
	int threads;
	uint64_t stretches, kept;	/* every thread's stretches, kept */
	uint64_t alone;			/* those no other thread entered */
	uint64_t rmw, visits;		/* in the kept: RMWs served, visits */
	double seconds;			/* the kept stretches' time, summed */
	/* at 2 threads: the pair's one-way cost just before and after */
	double pair_before_ns, pair_after_ns;
	int tries;			/* the visits taken, 1..VISIT_TRIES */
	char refused[200];		/* why its figures are refused, "" */
};

/* What one run measures, and on which CPUs */
struct calibration {
	int *cpus, ncpu, nthreads, npairs, step, migrated;
	double *matrix;			/* ncpu x ncpu transfer ns */
	size_t min_samples;		/* the fewest samples of a pair */
	uint64_t pair_ns, point_ns;	/* the budget of a pair, of a point */
	struct point *pts[NR_PATTERNS];	/* by pattern, then threads - 1 */
	struct visit_point *visits;	/* by threads - 1 */
};

/* cpus.c: the message and exit(1); the usable CPUs; a pinned thread */
void __attribute__((noreturn)) die(const char *fmt, const char *arg, int err);
int *usable_cpus(int *n);
void start_pinned(pthread_t *tid, int cpu, void *(*fn)(void *), void *arg);

/* transfer.c: one-way transfer ns between cpu a and cpu b (median) */
double transfer_ns(int a, int b, uint64_t budget_ns, unsigned int batch,
		   size_t *nsamples, int *migrated);

/* patterns.c: @pat on n threads (cpus[0..n-1]) for budget_ns, into *pt */
void run_pattern(enum pattern pat, const int *cpus, int n,
		 uint64_t budget_ns, struct point *pt);

/* visits.c: lock xadd on n threads for budget_ns, the visits into *vp */
void run_visits(const int *cpus, int n, uint64_t budget_ns,
		struct visit_point *vp);

/* calibration.c: the whole measurement, within o->seconds */
void calibration_alloc(const struct opts *o, struct calibration *c);
void calibration_run(const struct opts *o, struct calibration *c);
void calibration_free(struct calibration *c);

/* output.c: the calibration's JSON */
void print_calibration(FILE *f, const struct opts *o,
		       const struct calibration *c);

#endif
