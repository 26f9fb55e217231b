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

static void print_num(FILE *f, const char *name, double v, bool ok)
{
	if (ok)
		fprintf(f, ", \"%s\": %.4f", name, v);
	else
		fprintf(f, ", \"%s\": null", name);
}

/*
 * One visits point (visits.c): the counts, then the figures over the kept
 * stretches (null where none was kept; the visit figures at 2 threads on)
 */
static void print_visits(FILE *f, const struct calibration *c,
			 const struct visit_point *v, double alone_ns)
{
	bool some = v->kept && v->rmw && v->seconds > 0 && !v->refused[0];
	bool shared = some && v->threads > 1 && v->visits;
	double ns = some ? v->seconds * 1e9 : 0;

	fprintf(f, "%s\n   {\"threads\": %d, \"cpus\": ",
		v->threads > 1 ? "," : "", v->threads);
	print_ints(f, c->cpus, v->threads);
	fprintf(f, ", \"stretch_rmw\": %d, \"stretches\": %llu, "
		"\"stretches_alone\": %llu, \"stretches_kept\": %llu, "
		"\"rmw\": %llu, \"visits\": %llu, \"seconds\": %.9g",
		VISIT_STRETCH, (unsigned long long)v->stretches,
		(unsigned long long)v->alone, (unsigned long long)v->kept,
		(unsigned long long)v->rmw, (unsigned long long)v->visits,
		v->seconds);
	print_num(f, "rmw_per_s", some ? v->rmw / v->seconds : 0, some);
	print_num(f, "ns_per_rmw", some ? ns / v->rmw : 0, some);
	print_num(f, "rmw_per_visit", shared ? (double)v->rmw / v->visits : 0,
		  shared);
	print_num(f, "visit_ns", shared ? ns / v->visits : 0, shared);
	shared = shared && alone_ns > 0 && ns > v->rmw * alone_ns;
	print_num(f, "handover_ns", shared ?
		  (ns - v->rmw * alone_ns) / v->visits : 0, shared);
	if (v->tries) {
		print_num(f, "pair_ns_before", v->pair_before_ns, true);
		print_num(f, "pair_ns_after", v->pair_after_ns, true);
		fprintf(f, ", \"tries\": %d, \"refused\": ", v->tries);
		if (v->refused[0])
			fprintf(f, "\"%s\"", v->refused);
		else
			fputs("null", f);
	}
	fputc('}', f);
}

static void print_all_visits(FILE *f, const struct calibration *c)
{
	const struct visit_point *one = &c->visits[0];
	double alone = one->kept && one->rmw ?
		       one->seconds * 1e9 / one->rmw : 0;
	int i;

	fputs(",\n \"visits\": [", f);
	for (i = 0; i < c->nthreads; i++)
		print_visits(f, c, &c->visits[i], alone);
	fputs("]", f);
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
	fputs("}", f);
	print_all_visits(f, c);
	fputs("}\n", f);
}
