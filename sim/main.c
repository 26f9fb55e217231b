// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-sim: the command flagcheck predict runs (docs/predict.md).
 *
 *   flagcheck-sim --words W --pattern P [--fixed F] [--writers N]
 *       --variant always|test_first [--rest NS] [--atomic_local NS]
 *       [--atomic_far NS] [--atomic_home NS] [--load_hit NS]
 *       [--cache_lines N] [--NAME VALUE ...] [--seed N]
 *       [--ios N] [--warmup N] [--max_events N]  < MATRIX
 *
 * Each option is spelled as fio spells its own, words joined by '_'.
 * --NAME VALUE: a physics setting of sim/physics.def (--handover nearest,
 * --shared_readers serial, --line_pair true, --jitter 0.1 ...), each at
 * its row's default when not given. --cache_lines N: each CPU's cache
 * holds N lines (0, the default: every line it gets), a line evicted is
 * a fill at its next access, not a transfer (cache.c).
 *
 * MATRIX: the number of CPUs N (1 to 1024), then N x N one-way transfer
 * costs in ns (0 to 1e6; row: the CPU that holds the line, column: the one
 * that wants it), then N NUMA node numbers (0 to 7). Prints one JSON
 * object. --max_events (default 50,000,000) bounds the work: a run that
 * needs more simulated events is refused, exit status 3 (sim.c). The
 * program is compiled by the engine's own pattern_compile(), so the
 * grammar and its refusals are the engine's.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define SIM_MAX_COST_NS	1e6
#define SIM_MAX_EVENTS	50000000ULL

struct args {
	struct pattern_params pp;
	struct sim_conf conf;
};

static int bad(const char *opt, const char *val, const char *allowed)
{
	fprintf(stderr, "flagcheck-sim: %s %.40s: %s\n", opt, val ? val : "",
		allowed);
	return -1;
}

/* A number from @lo to @hi (a whole one where @whole says) */
static int number(const char *opt, const char *val, double lo, double hi,
		  bool whole, double *out)
{
	char *e;
	double v = val ? strtod(val, &e) : 0;

	if (!val || e == val || *e || !(v >= lo && v <= hi) ||
	    (whole && v != (double)(long long)v)) {
		char allowed[96];

		snprintf(allowed, sizeof(allowed), "a %snumber from %g to %g",
			 whole ? "whole " : "", lo, hi);
		return bad(opt, val, allowed);
	}
	*out = v;
	return 0;
}

static int num(const char *opt, const char *val, double lo, double hi,
	       double *out)
{
	return number(opt, val, lo, hi, false, out);
}

static int whole(const char *opt, const char *val, double lo, double hi,
		 double *out)
{
	return number(opt, val, lo, hi, true, out);
}

static int choice(const char *opt, const char *val, const char *a,
		  const char *b, int *out)
{
	if (val && !strcmp(val, a))
		*out = 0;
	else if (val && !strcmp(val, b))
		*out = 1;
	else {
		char allowed[96];

		snprintf(allowed, sizeof(allowed), "one of %s, %s", a, b);
		return bad(opt, val, allowed);
	}
	return 0;
}

/* One option and its value */
static int option(struct args *a, const char *o, const char *v)
{
	struct sim_conf *c = &a->conf;
	double d;
	int i, r = sim_physics_option(c, o, v);

	if (r <= 0)
		return r;
	r = 0;
	if (!strcmp(o, "--words"))
		a->pp.words = v ? v : "";
	else if (!strcmp(o, "--pattern"))
		a->pp.pattern = v ? v : "";
	else if (!strcmp(o, "--fixed"))
		a->pp.fixed = v ? v : "";
	else if (!strcmp(o, "--variant"))
		r = choice(o, v, "always", "test_first", &i) ?:
		    (a->pp.variant = i ? FC_TEST_FIRST : FC_ALWAYS, 0);
	else if (!strcmp(o, "--writers"))
		r = whole(o, v, 0, SIM_MAX_CPUS, &d) ?: (a->pp.writers = d, 0);
	else if (!strcmp(o, "--rest"))
		r = num(o, v, 0, 1e9, &c->rest_ns);
	else if (!strcmp(o, "--atomic_local"))
		r = num(o, v, 0, 1e6, &c->atomic_local_ns);
	else if (!strcmp(o, "--atomic_far"))
		r = num(o, v, 0, 1e6, &c->atomic_far_ns);
	else if (!strcmp(o, "--atomic_home"))
		r = num(o, v, 0, 1e6, &c->atomic_home_ns);
	else if (!strcmp(o, "--cache_lines"))
		r = whole(o, v, 0, 1 << 30, &d) ?: (c->cache_lines = d, 0);
	else if (!strcmp(o, "--load_hit"))
		r = num(o, v, 0, 1e6, &c->load_hit_ns);
	else if (!strcmp(o, "--seed"))
		r = whole(o, v, 0, 1e15, &d) ?: (c->seed = d, 0);
	else if (!strcmp(o, "--ios"))
		r = whole(o, v, 1, 1e9, &d) ?: (c->ios = d, 0);
	else if (!strcmp(o, "--warmup"))
		r = whole(o, v, 0, 1e9, &d) ?: (c->warmup = d, 0);
	else if (!strcmp(o, "--max_events"))
		r = whole(o, v, 1, 1e12, &d) ?: (c->max_events = d, 0);
	else
		r = bad(o, NULL, "unknown option (see sim/main.c's head)");
	return r;
}

/* The next number on stdin: 0, or -1 with one line naming @what */
static int matrix_num(const char *what, double lo, double hi, bool whole,
		      double *out)
{
	char tok[64], opt[64];

	if (scanf("%63s", tok) != 1) {
		snprintf(opt, sizeof(opt), "matrix: stdin: %s", what);
		return bad(opt, "missing", "the matrix ended early");
	}
	snprintf(opt, sizeof(opt), "matrix: stdin: %s", what);
	return number(opt, tok, lo, hi, whole, out);
}

static int read_matrix(struct sim_conf *c)
{
	unsigned int i, n;
	char what[48];
	double v;

	if (matrix_num("the CPU count", 1, SIM_MAX_CPUS, true, &v))
		return -1;
	c->cpus = n = v;
	c->cost = calloc((size_t)n * n, sizeof(*c->cost));
	c->node = calloc(n, sizeof(*c->node));
	if (!c->cost || !c->node)
		return bad("matrix", "", "out of memory");
	for (i = 0; i < n * n; i++) {
		snprintf(what, sizeof(what), "cost [%u][%u] ns", i / n, i % n);
		if (matrix_num(what, 0, SIM_MAX_COST_NS, false, &c->cost[i]))
			return -1;
	}
	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "CPU %u's node", i);
		if (matrix_num(what, 0, PATTERN_MAX_NODES - 1, true, &v))
			return -1;
		c->node[i] = v;
	}
	return 0;
}

/*
 * Whether word @w is on the unit at @line of @block (0: the arena's all
 * words, slots and pairs' copies, 1 + n: node n's copy, -1: the objects)
 */
static bool word_on(const struct pattern_prog *p, unsigned int w, int block,
		    unsigned int line, const struct args *a)
{
	const struct pattern_word *pw = &p->word[w];
	unsigned int first = pw->offset / PATTERN_LINE, last = first;
	int want;

	switch (pw->sharing) {
	case PATTERN_ALL:
		want = 0;
		break;
	case PATTERN_NODE:
		want = block >= 1 ? block : 1;
		break;
	case PATTERN_SLOT:
		want = 0;
		last = (pw->offset + 8 * (a->conf.cpus - 1)) / PATTERN_LINE;
		break;
	case PATTERN_PAIR:
		/* pair k's copy: lines first + 2k, a line pair apart */
		want = 0;
		last = (pw->offset + PATTERN_PAIR_STRIDE *
			((a->conf.cpus - 1) / 2)) / PATTERN_LINE;
		break;
	case PATTERN_OBJ:
		want = -1;
		break;
	default:
		return false;
	}
	if (a->conf.line_pair) {
		first &= ~1U;
		last &= ~1U;
	}
	if (pw->sharing == PATTERN_PAIR && (line - first) % 2)
		return false;
	return want == block && line >= first && line <= last;
}

/* One unit's (or one field line's over every object) figures */
static void print_unit(const struct sim_result *r,
		       const struct sim_unit_stats *u, unsigned int line,
		       int block, unsigned int objects,
		       const struct pattern_prog *p, const struct args *a,
		       bool *first)
{
	double ios = r->ios ? (double)r->ios : 1;
	unsigned int w;
	bool fw = true;

	printf("%s\n    {\"line\": %u, \"lines\": %u, \"node\": %d, "
	       "\"objects\": %u, \"words\": [", *first ? "" : ",", line,
	       a->conf.line_pair ? 2 : 1, block >= 1 ? block - 1 : -1,
	       objects);
	for (w = 0; w < p->nr_words; w++)
		if (word_on(p, w, block, line, a)) {
			printf("%s\"%s\"", fw ? "" : ", ", p->word[w].name);
			fw = false;
		}
	printf("], \"transfers_per_io\": %.17g, \"accesses_per_io\": %.17g, "
	       "\"writes_per_io\": %.17g, \"fills_per_io\": %.17g, "
	       "\"busy\": %.17g}",
	       u->transfers / ios, u->accesses / ios, u->writes / ios,
	       u->fills / ios,
	       r->seconds > 0 ? u->busy_ns * 1e-9 / r->seconds / objects : 0);
	*first = false;
}

/* The objects' units, one entry per field line: summed over the objects
 * (busy: the mean object's) */
static void print_objects(const struct sim_result *r,
			  const struct pattern_prog *p, const struct args *a,
			  bool *first)
{
	unsigned int l, k, i, step = a->conf.line_pair ? 2 : 1;
	struct sim_unit_stats sum;
	bool used;

	for (l = 0; l < r->obj_lines; l += step) {
		memset(&sum, 0, sizeof(sum));
		used = false;
		for (k = 0; k < r->objects; k++) {
			i = SIM_UNITS + k * r->obj_lines + l;
			if (!r->used[i])
				continue;
			used = true;
			sum.transfers += r->unit[i].transfers;
			sum.accesses += r->unit[i].accesses;
			sum.writes += r->unit[i].writes;
			sum.fills += r->unit[i].fills;
			sum.busy_ns += r->unit[i].busy_ns;
		}
		if (used)
			print_unit(r, &sum, l, -1, r->objects, p, a, first);
	}
}

static void print_result(const struct sim_result *r,
			 const struct pattern_prog *p, const struct args *a)
{
	double ios = r->ios ? (double)r->ios : 1;
	unsigned int i;
	bool first = true;

	printf("{\"cpus\": %u, \"ios\": %llu, \"seconds\": %.17g, "
	       "\"iops\": %.17g, \"ns_per_io\": %.17g, \"events\": %llu, "
	       "\"rmw_per_io\": %.17g, \"stores_per_io\": %.17g, "
	       "\"retries_per_io\": %.17g, \"units\": [", a->conf.cpus,
	       (unsigned long long)r->ios, r->seconds, r->iops,
	       r->iops ? a->conf.cpus * 1e9 / r->iops : 0,
	       (unsigned long long)r->events, r->rmw / ios, r->stores / ios,
	       r->retries / ios);
	for (i = 0; i < SIM_UNITS; i++)
		if (r->used[i])
			print_unit(r, &r->unit[i], i % PATTERN_LINES,
				   i / PATTERN_LINES, 1, p, a, &first);
	print_objects(r, p, a, &first);
	printf("]}\n");
}

/*
 * CPU k is job k + 1, all on one file: their slot and pair copies and
 * their locks, checked together as the engine checks fio's jobs
 */
static int check_jobs(const struct pattern_prog *p, const struct sim_conf *c,
		      char *msg, size_t len)
{
	struct pattern_member *m = calloc(c->cpus, sizeof(*m));
	unsigned int k;
	int err;

	if (!m) {
		snprintf(msg, len, "out of memory");
		return -1;
	}
	for (k = 0; k < c->cpus; k++)
		m[k] = (struct pattern_member){ .prog = p, .job = k + 1,
			.writer = !c->writers || k < c->writers };
	err = pattern_check_jobs(m, c->cpus, msg, len);
	free(m);
	return err;
}

int main(int argc, char **argv)
{
	struct args a = {
		.pp = { .words = "", .pattern = "", .fixed = "" },
		.conf = { .ios = 1000, .warmup = 200,
			  .max_events = SIM_MAX_EVENTS },
	};
	static struct pattern_prog prog;
	static struct sim_result res;
	char msg[1024];
	int i;

	sim_physics_defaults(&a.conf);
	for (i = 1; i < argc; i += 2)
		if (option(&a, argv[i], i + 1 < argc ? argv[i + 1] : NULL))
			return 2;
	if (pattern_compile(&a.pp, true, &prog, msg, sizeof(msg))) {
		fprintf(stderr, "flagcheck-sim: %s\n", msg);
		return 2;
	}
	if (!prog.nr_ops) {
		fprintf(stderr, "flagcheck-sim: --pattern is empty: "
			"model=pattern needs a sequence of operations\n");
		return 2;
	}
	a.conf.writers = a.pp.writers;
	if (read_matrix(&a.conf)) {
		free(a.conf.cost);
		free(a.conf.node);
		return 2;
	}
	if (check_jobs(&prog, &a.conf, msg, sizeof(msg))) {
		fprintf(stderr, "flagcheck-sim: %s\n", msg);
		free(a.conf.cost);
		free(a.conf.node);
		return 1;
	}
	i = sim_run(&prog, &a.conf, &res);
	if (!i && !(isfinite(res.seconds) && isfinite(res.iops)))
		i = -EDOM;	/* JSON has no NaN: cannot happen in range */
	if (i == -E2BIG)
		fprintf(stderr, "flagcheck-sim: over the budget of %llu "
			"simulated events (CAS retries included): "
			"--max_events raises it, 1 to 1e12\n",
			(unsigned long long)a.conf.max_events);
	else if (i == -EDOM)
		fprintf(stderr, "flagcheck-sim: the simulated time is not a "
			"finite number\n");
	else if (i == -ERANGE)	/* check_jobs() refused it first */
		fprintf(stderr, "flagcheck-sim: a word's copy past the arena "
			"at %u CPUs\n", a.conf.cpus);
	else if (i)
		fprintf(stderr, "flagcheck-sim: out of memory\n");
	else
		print_result(&res, &prog, &a);
	sim_result_free(&res);
	free(a.conf.cost);
	free(a.conf.node);
	return i == -E2BIG ? 3 : i ? 1 : 0;
}
