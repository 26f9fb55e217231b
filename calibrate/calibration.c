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

/*
 * Why the pair's visits @vp are refused, or NULL: the one-way cost of the
 * pair moved around them (the threads did not stay on one pair of cores:
 * a VM's host moves its vCPUs), or a visit is shorter than that cost (no
 * hand-over is)
 */
static const char *visit_refused(struct visit_point *vp)
{
	double lo = vp->pair_before_ns, hi = vp->pair_after_ns, visit;

	if (lo > hi) {
		lo = vp->pair_after_ns;
		hi = vp->pair_before_ns;
	}
	if (!vp->kept || !vp->visits || !(lo > 0))
		return NULL;		/* no figures to refuse */
	visit = vp->seconds * 1e9 / vp->visits;
	if (hi > PAIR_AGREE * lo)
		snprintf(vp->refused, sizeof(vp->refused), "the pair's one-way "
			 "cost moved from %.1f to %.1f ns around the visits: "
			 "the threads did not stay on one pair of cores",
			 vp->pair_before_ns, vp->pair_after_ns);
	else if (visit < lo)
		snprintf(vp->refused, sizeof(vp->refused), "a visit of %.1f ns "
			 "is shorter than the pair's one-way cost (%.1f ns): no "
			 "hand-over is; the threads did not stay on one pair of "
			 "cores", visit, lo);
	else
		return NULL;
	return vp->refused;
}

/*
 * The visits at 2 threads between two measurements of the same pair's
 * one-way cost, in one stretch of the same two pinned CPUs; retaken while
 * refused (visit_refused()), VISIT_TRIES times at most
 */
static void measure_pair_visits(const struct opts *o, struct calibration *c)
{
	struct visit_point *vp = &c->visits[1];
	uint64_t pair = c->point_ns / 4;
	size_t samples;
	int moved, t;

	for (t = 1; t <= VISIT_TRIES; t++) {
		double before = transfer_ns(c->cpus[0], c->cpus[1], pair,
					    o->batch, &samples, &moved);

		run_visits(c->cpus, 2, c->point_ns, vp);
		vp->pair_before_ns = before;
		vp->pair_after_ns = transfer_ns(c->cpus[0], c->cpus[1], pair,
						o->batch, &samples, &moved);
		vp->tries = t;
		if (!visit_refused(vp))
			return;
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
		if (i == 2)
			measure_pair_visits(o, c);
		else
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
