// SPDX-License-Identifier: GPL-2.0
/*
 * The calibration as one JSON document (calibrate.h), which
 * analysis/flagcheck_analysis/calibrate reads.
 */
#include "calibrate.h"

static void print_ints(FILE *f, const int *v, int n)
{
	int i;

	fputc('[', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%d", i ? ", " : "", v[i]);
	fputc(']', f);
}

static void print_matrix(FILE *f, const struct calibration *c)
{
	int i, j;

	for (i = 0; i < c->ncpu; i++) {
		fprintf(f, "%s\n  [", i ? "," : "");
		for (j = 0; j < c->ncpu; j++) {
			if (i == j)
				fprintf(f, "%snull", j ? ", " : "");
			else
				fprintf(f, "%s%.3f", j ? ", " : "",
					c->matrix[i * c->ncpu + j]);
		}
		fputc(']', f);
	}
}

static void print_point(FILE *f, const struct calibration *c,
			const struct point *pt, int threads)
{
	fprintf(f, "%s\n   {\"threads\": %d, \"cpus\": ",
		threads > 1 ? "," : "", threads);
	print_ints(f, c->cpus, threads);
	fprintf(f, ", \"ns_per_op\": %.4f, \"ns_per_op_min\": %.4f, "
		"\"ns_per_op_max\": %.4f, \"ops_per_s\": %.1f, \"ops\": %llu, "
		"\"rmw\": %llu, \"seconds\": %.9g, \"migrated\": %d}",
		pt->ns_per_op, pt->ns_min, pt->ns_max, pt->ops_per_s,
		(unsigned long long)pt->ops, (unsigned long long)pt->rmw,
		pt->seconds, pt->migrated);
}

/* The calibration's JSON (analysis/flagcheck_analysis/calibrate reads it) */
void print_calibration(FILE *f, const struct opts *o,
		       const struct calibration *c)
{
	int i, p;

	fprintf(f, "{\"flagcheck_calibrate\": 1, \"seconds\": %g, "
		"\"batch\": %u, \"clock\": \"CLOCK_MONOTONIC\",\n \"cpus\": ",
		o->seconds, o->batch);
	print_ints(f, c->cpus, c->ncpu);
	fprintf(f, ",\n \"pair_budget_ns\": %llu, \"pair_samples_min\": %zu, "
		"\"pairs_migrated\": %d,\n \"transfer_ns\": [",
		(unsigned long long)c->pair_ns, c->min_samples, c->migrated);
	print_matrix(f, c);
	fprintf(f, "],\n \"point_budget_ns\": %llu,\n \"patterns\": {",
		(unsigned long long)c->point_ns);
	for (p = 0; p < NR_PATTERNS; p++) {
		fprintf(f, "%s\n  \"%s\": [", p ? "," : "", pattern_name[p]);
		for (i = 0; i < c->nthreads; i++)
			print_point(f, c, &c->pts[p][i], i + 1);
		fputs("]", f);
	}
	fputs("}}\n", f);
}
