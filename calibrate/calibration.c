// SPDX-License-Identifier: GPL-2.0
/*
 * One calibration: every pair of CPUs, then each pattern at 1..N threads,
 * within the time budget of --seconds, each step announced first with
 * --progress (calibrate.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "calibrate.h"
#include "counters.h"	/* fc_now_ns(): the engine's own clock */

/* One step of the measurement, announced before it runs (--progress). */
static void progress(const struct opts *o, int *step, int steps,
		     const char *what, int a, int b)
{
	if (!o->progress)
		return;
	++*step;
	if (b < 0)
		fprintf(stderr, "progress %d/%d %s at %d thread%s\n", *step,
			steps, what, a, a == 1 ? "" : "s");
	else
		fprintf(stderr, "progress %d/%d %s CPU %d <-> CPU %d\n", *step,
			steps, what, a, b);
	fflush(stderr);
}

/* Every pair of CPUs, each within its budget (half of --seconds in all) */
static void measure_pairs(const struct opts *o, struct calibration *c)
{
	int i, j, n = c->ncpu;
	int steps = c->npairs + (NR_PATTERNS + 1) * c->nthreads;

	for (i = 0; i < n; i++) {
		for (j = i + 1; j < n; j++) {
			size_t samples;
			int moved;

			progress(o, &c->step, steps, "transfer latency",
				 c->cpus[i], c->cpus[j]);
			c->matrix[i * n + j] = c->matrix[j * n + i] =
				transfer_ns(c->cpus[i], c->cpus[j], c->pair_ns,
					    o->batch, &samples, &moved);
			if (!c->min_samples || samples < c->min_samples)
				c->min_samples = samples;
			c->migrated += moved;
		}
	}
}

/* Each pattern at 1..nthreads threads, sharing what is left of --seconds */
static void measure_points(const struct opts *o, struct calibration *c,
			   uint64_t deadline)
{
	int i, p, steps = c->npairs + (NR_PATTERNS + 1) * c->nthreads;
	uint64_t t = fc_now_ns();

	c->point_ns = t < deadline ?
		(deadline - t) / ((NR_PATTERNS + 1) * c->nthreads) : 0;
	if (c->point_ns < MIN_POINT_NS)
		c->point_ns = MIN_POINT_NS;
	for (i = 1; i <= c->nthreads; i++) {
		for (p = 0; p < NR_PATTERNS; p++) {
			progress(o, &c->step, steps, pattern_name[p], i, -1);
			run_pattern(p, c->cpus, i, c->point_ns,
				    &c->pts[p][i - 1]);
		}
		progress(o, &c->step, steps, "visits", i, -1);
		run_visits(c->cpus, i, c->point_ns, &c->visits[i - 1]);
	}
}

/*
 * Half the budget to the pairs (none with one CPU), what is left to the
 * points: a pair stops early once it has MAX_SAMPLES.
 */
void calibration_run(const struct opts *o, struct calibration *c)
{
	uint64_t deadline;

	c->pair_ns = c->npairs ? (uint64_t)(o->seconds * 0.5e9 / c->npairs) : 0;
	deadline = fc_now_ns() + (uint64_t)(o->seconds * 1e9);
	measure_pairs(o, c);
	measure_points(o, c, deadline);
}

void calibration_alloc(const struct opts *o, struct calibration *c)
{
	int p;

	c->cpus = usable_cpus(&c->ncpu);
	c->nthreads = c->ncpu < o->max_threads ? c->ncpu : o->max_threads;
	c->npairs = c->ncpu * (c->ncpu - 1) / 2;
	c->matrix = calloc((size_t)c->ncpu * c->ncpu, sizeof(*c->matrix));
	for (p = 0; p < NR_PATTERNS; p++) {
		c->pts[p] = calloc(c->nthreads, sizeof(*c->pts[p]));
		if (!c->pts[p])
			die("%s", "out of memory", ENOMEM);
	}
	c->visits = calloc(c->nthreads, sizeof(*c->visits));
	if (!c->matrix || !c->visits)
		die("%s", "out of memory", ENOMEM);
}

void calibration_free(struct calibration *c)
{
	int p;

	for (p = 0; p < NR_PATTERNS; p++)
		free(c->pts[p]);
	free(c->matrix);
	free(c->visits);
	free(c->cpus);
}
