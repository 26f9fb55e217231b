// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-calibrate: what one shared cache line costs on this machine.
 *
 * On the CPUs this process may use (sched_getaffinity), one thread pinned
 * per CPU, it measures:
 *
 *  - the one-way transfer latency of a cache line between every pair of
 *    CPUs: two threads bounce one 64-byte-aligned line with
 *    compare-and-swap (each waits for the other's value, then writes its
 *    own); a sample is a batch of round trips timed together, the pair's
 *    figure is the median sample / round trips / 2;
 *  - the kernel's two patterns on one shared flags word, at 1..N threads
 *    (the first N usable CPUs): "always", two test_and_clear_bit() per
 *    iteration as filemap_check_errors() did before 7fcbbaf18392, and
 *    "test_first", test_bit() first and the RMW only when the bit is set
 *    (the fix). The bit operations are the engine's own (bitops.h), so the
 *    instructions are the ones the models run.
 *
 * It prints one JSON document (stdout or --output). The analysis
 * (analysis/flagcheck-calibrate) adds the CPU model and topology.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bitops.h"
#include "counters.h"	/* fc_now_ns(): the engine's own clock */

#define CACHE_LINE	64
/* include/linux/pagemap.h: the two error bits of mapping->flags */
enum mapping_flags {
	AS_EIO		= 0,
	AS_ENOSPC	= 1,
};

#define DEFAULT_SECONDS	10.0
#define DEFAULT_BATCH	64	/* round trips timed together */
#define MIN_SAMPLES	9	/* per pair, whatever the budget */
#define MAX_SAMPLES	20000	/* per pair: enough for a median */
#define INNER		64	/* pattern iterations between stop checks */
#define MIN_POINT_NS	1000000	/* per pattern and thread count */
#define STOP		ULONG_MAX

enum pattern { PAT_ALWAYS, PAT_TEST_FIRST, NR_PATTERNS };
static const char *const pattern_name[NR_PATTERNS] = {
	[PAT_ALWAYS]	 = "always",
	[PAT_TEST_FIRST] = "test_first",
};

struct line {
	unsigned long word;
} __attribute__((aligned(CACHE_LINE)));

struct opts {
	double seconds;
	unsigned int batch;
	int max_threads;
	const char *output;
	bool progress;
};

static void __attribute__((noreturn))
die(const char *fmt, const char *arg, int err)
{
	fprintf(stderr, "flagcheck-calibrate: ");
	fprintf(stderr, fmt, arg);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	exit(1);
}

/* The usable CPUs, ascending; *n set. Sized for any nr_cpu_ids. */
static int *usable_cpus(int *n)
{
	int ncpu = 1024, *cpus, i, k;
	cpu_set_t *set;
	size_t size;

	for (;;) {
		set = CPU_ALLOC(ncpu);
		size = CPU_ALLOC_SIZE(ncpu);
		if (!set)
			die("%s", "out of memory", ENOMEM);
		CPU_ZERO_S(size, set);
		if (!sched_getaffinity(0, size, set))
			break;
		CPU_FREE(set);
		if (errno != EINVAL || ncpu > (1 << 20))
			die("%s", "sched_getaffinity", errno);
		ncpu *= 2;
	}
	*n = CPU_COUNT_S(size, set);
	cpus = calloc(*n, sizeof(*cpus));
	if (!cpus)
		die("%s", "out of memory", ENOMEM);
	for (i = 0, k = 0; k < *n; i++)
		if (CPU_ISSET_S(i, size, set))
			cpus[k++] = i;
	CPU_FREE(set);
	return cpus;
}

/* Start fn(arg) on a thread pinned to cpu. */
static void start_pinned(pthread_t *tid, int cpu, void *(*fn)(void *),
			 void *arg)
{
	cpu_set_t *set = CPU_ALLOC(cpu + 1);
	size_t size = CPU_ALLOC_SIZE(cpu + 1);
	pthread_attr_t attr;
	char what[64];
	int err;

	if (!set)
		die("%s", "out of memory", ENOMEM);
	CPU_ZERO_S(size, set);
	CPU_SET_S(cpu, size, set);
	pthread_attr_init(&attr);
	err = pthread_attr_setaffinity_np(&attr, size, set);
	if (!err)
		err = pthread_create(tid, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	CPU_FREE(set);
	if (err) {
		snprintf(what, sizeof(what), "cannot start a thread on CPU %d",
			 cpu);
		die("%s", what, err);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- transfer latency: CAS ping-pong between two pinned threads ---- */

struct pingpong {
	struct line line;		/* the line that bounces */
	struct line ready;		/* the responder is spinning */
	uint64_t budget_ns;
	unsigned int batch;
	size_t nsamples;
	double *samples;		/* ns per one-way transfer */
	int cpu[2];
	int migrated;			/* a thread ran off its CPU */
};

/* Wait for the line to hold `want`, then write want + 1; false on STOP. */
static inline bool pass_on(unsigned long *word, unsigned long want)
{
	unsigned long seen;

	for (;;) {
		seen = want;
		if (__atomic_compare_exchange_n(word, &seen, want + 1, false,
						__ATOMIC_SEQ_CST,
						__ATOMIC_RELAXED))
			return true;
		if (seen == STOP)
			return false;
	}
}

static void *responder(void *arg)
{
	struct pingpong *pp = arg;
	unsigned long want = 1;

	__atomic_store_n(&pp->ready.word, 1, __ATOMIC_RELEASE);
	while (pass_on(&pp->line.word, want))
		want += 2;
	if (sched_getcpu() != pp->cpu[1])
		__atomic_store_n(&pp->migrated, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void *initiator(void *arg)
{
	struct pingpong *pp = arg;
	unsigned long want = 0;
	uint64_t deadline, t0;
	unsigned int r;

	while (!__atomic_load_n(&pp->ready.word, __ATOMIC_ACQUIRE))
		;
	/* one untimed batch: both caches warm, both threads running */
	for (r = 0; r < pp->batch; r++, want += 2)
		pass_on(&pp->line.word, want);
	deadline = fc_now_ns() + pp->budget_ns;
	while (pp->nsamples < MAX_SAMPLES &&
	       (pp->nsamples < MIN_SAMPLES || fc_now_ns() < deadline)) {
		t0 = fc_now_ns();
		for (r = 0; r < pp->batch; r++, want += 2)
			pass_on(&pp->line.word, want);
		pp->samples[pp->nsamples++] =
			(double)(fc_now_ns() - t0) / (2.0 * pp->batch);
	}
	/* the responder may still be answering the last round: STOP ends it */
	__atomic_store_n(&pp->line.word, STOP, __ATOMIC_SEQ_CST);
	if (sched_getcpu() != pp->cpu[0])
		__atomic_store_n(&pp->migrated, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* One-way transfer ns between cpu a and cpu b (median); *migrated set. */
static double transfer_ns(int a, int b, uint64_t budget_ns,
			  unsigned int batch, size_t *nsamples, int *migrated)
{
	struct pingpong *pp;
	pthread_t tid[2];
	double ns;

	if (posix_memalign((void **)&pp, CACHE_LINE, sizeof(*pp)))
		die("%s", "out of memory", ENOMEM);
	memset(pp, 0, sizeof(*pp));
	pp->samples = calloc(MAX_SAMPLES, sizeof(*pp->samples));
	if (!pp->samples)
		die("%s", "out of memory", ENOMEM);
	pp->budget_ns = budget_ns;
	pp->batch = batch;
	pp->cpu[0] = a;
	pp->cpu[1] = b;
	start_pinned(&tid[1], b, responder, pp);
	start_pinned(&tid[0], a, initiator, pp);
	pthread_join(tid[0], NULL);
	pthread_join(tid[1], NULL);
	ns = median(pp->samples, pp->nsamples);
	*nsamples = pp->nsamples;
	*migrated = pp->migrated;
	free(pp->samples);
	free(pp);
	return ns;
}

/* ---- the two patterns on one shared flags word, 1..N threads ---- */

struct worker {
	struct pattern_run *run;
	pthread_t tid;
	int cpu;
	int migrated;
	uint64_t iters;			/* iterations: two bit operations each */
	uint64_t rmw;			/* atomic RMWs executed */
	uint64_t t_start, t_end;
} __attribute__((aligned(CACHE_LINE)));

struct pattern_run {
	struct line flags;		/* mapping->flags: the shared word */
	struct line ready;		/* workers spinning on go */
	struct line go;			/* workers only read go and stop */
	struct line stop;
	enum pattern pattern;
};

static void *pattern_worker(void *arg)
{
	struct worker *w = arg;
	struct pattern_run *run = w->run;
	unsigned long *flags = &run->flags.word;
	enum pattern pattern = run->pattern;
	uint64_t iters = 0, rmw = 0;
	int i;

	__atomic_fetch_add(&run->ready.word, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&run->go.word, __ATOMIC_ACQUIRE))
		;
	w->t_start = fc_now_ns();
	/* at least one batch each, however late the thread gets a CPU */
	do {
		if (pattern == PAT_ALWAYS) {
			for (i = 0; i < INNER; i++) {
				test_and_clear_bit(AS_ENOSPC, flags);
				test_and_clear_bit(AS_EIO, flags);
			}
			rmw += 2 * INNER;
		} else {
			for (i = 0; i < INNER; i++) {
				if (test_bit(AS_ENOSPC, flags) &&
				    test_and_clear_bit(AS_ENOSPC, flags))
					rmw++;
				if (test_bit(AS_EIO, flags) &&
				    test_and_clear_bit(AS_EIO, flags))
					rmw++;
			}
		}
		iters += INNER;
	} while (!__atomic_load_n(&run->stop.word, __ATOMIC_RELAXED));
	w->t_end = fc_now_ns();
	w->iters = iters;
	w->rmw = rmw;
	w->migrated = sched_getcpu() != w->cpu;
	return NULL;
}

struct point {
	double ns_per_op, ns_min, ns_max, ops_per_s, seconds;
	uint64_t ops, rmw;
	int migrated;
};

static void run_pattern(enum pattern pat, const int *cpus, int n,
			uint64_t budget_ns, struct point *pt)
{
	struct pattern_run *run;
	struct worker *w;
	struct timespec ts;
	double sum = 0;
	int i;

	if (posix_memalign((void **)&run, CACHE_LINE, sizeof(*run)) ||
	    posix_memalign((void **)&w, CACHE_LINE, n * sizeof(*w)))
		die("%s", "out of memory", ENOMEM);
	memset(run, 0, sizeof(*run));
	memset(w, 0, n * sizeof(*w));
	run->pattern = pat;
	for (i = 0; i < n; i++) {
		w[i].run = run;
		w[i].cpu = cpus[i];
		start_pinned(&w[i].tid, cpus[i], pattern_worker, &w[i]);
	}
	while (__atomic_load_n(&run->ready.word, __ATOMIC_ACQUIRE) <
	       (unsigned long)n)
		;
	__atomic_store_n(&run->go.word, 1, __ATOMIC_RELEASE);
	ts.tv_sec = budget_ns / 1000000000ull;
	ts.tv_nsec = budget_ns % 1000000000ull;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	__atomic_store_n(&run->stop.word, 1, __ATOMIC_RELEASE);

	memset(pt, 0, sizeof(*pt));
	pt->ns_min = 1e300;
	for (i = 0; i < n; i++) {
		double secs, ns;
		uint64_t ops;

		pthread_join(w[i].tid, NULL);
		ops = 2 * w[i].iters;
		secs = (w[i].t_end - w[i].t_start) / 1e9;
		ns = secs * 1e9 / ops;
		sum += ns;
		if (ns < pt->ns_min)
			pt->ns_min = ns;
		if (ns > pt->ns_max)
			pt->ns_max = ns;
		pt->ops_per_s += ops / secs;
		pt->seconds += secs / n;
		pt->ops += ops;
		pt->rmw += w[i].rmw;
		pt->migrated += w[i].migrated;
	}
	pt->ns_per_op = sum / n;
	free(w);
	free(run);
}

/* ---- options and output ---- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: flagcheck-calibrate [--seconds S] [--batch N] [--max-threads N]\n"
"                           [--output FILE] [--progress]\n"
"\n"
"Measures, on the CPUs this process may use (taskset limits them), one\n"
"thread pinned per CPU: the one-way cache-line transfer latency of every\n"
"pair of CPUs (CAS ping-pong, median), and the cost of the always and\n"
"test_first bit patterns on one shared word at 1..N threads. Prints JSON.\n"
"\n"
"  -s, --seconds S      time budget: up to half for the pairs, the rest for\n"
"                       the patterns (default %g; 0.01 to 3600)\n"
"  -b, --batch N        round trips timed as one sample (default %d; 1 to\n"
"                       100000)\n"
"  -t, --max-threads N  run the patterns at 1..N threads only (default:\n"
"                       every usable CPU)\n"
"  -o, --output FILE    write the JSON to FILE instead of stdout\n"
"  -p, --progress       before each step, a line on stderr: \"progress K/N\n"
"                       what\" (the pairs first, then the patterns)\n"
"  -h, --help           this text\n", DEFAULT_SECONDS, DEFAULT_BATCH);
}

static void __attribute__((noreturn))
bad_value(const char *opt, const char *val, const char *allowed)
{
	fprintf(stderr, "flagcheck-calibrate: %s=%s is not valid: %s\n", opt,
		val, allowed);
	exit(2);
}

static long parse_long(const char *opt, const char *val, long lo, long hi,
		       const char *allowed)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(val, &end, 10);
	if (errno || end == val || *end || v < lo || v > hi)
		bad_value(opt, val, allowed);
	return v;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "seconds",	 required_argument, NULL, 's' },
		{ "batch",	 required_argument, NULL, 'b' },
		{ "max-threads", required_argument, NULL, 't' },
		{ "output",	 required_argument, NULL, 'o' },
		{ "progress",	 no_argument,	    NULL, 'p' },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	o->seconds = DEFAULT_SECONDS;
	o->batch = DEFAULT_BATCH;
	o->max_threads = INT_MAX;
	o->output = NULL;
	o->progress = false;
	while ((c = getopt_long(argc, argv, "s:b:t:o:ph", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			errno = 0;
			o->seconds = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(o->seconds >= 0.01 && o->seconds <= 3600))
				bad_value("--seconds", optarg,
					  "a number of seconds from 0.01 to 3600");
			break;
		case 'b':
			o->batch = parse_long("--batch", optarg, 1, 100000,
					      "a whole number from 1 to 100000");
			break;
		case 't':
			o->max_threads = parse_long("--max-threads", optarg, 1,
						    INT_MAX,
						    "a whole number of at least 1");
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'p':
			o->progress = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "flagcheck-calibrate: unexpected argument %s: "
			"the program takes options only (see --help)\n",
			argv[optind]);
		exit(2);
	}
}

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

static void print_ints(FILE *f, const int *v, int n)
{
	int i;

	fputc('[', f);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%d", i ? ", " : "", v[i]);
	fputc(']', f);
}

/* What one run measures, and on which CPUs */
struct calibration {
	int *cpus, ncpu, nthreads, npairs, step, migrated;
	double *matrix;			/* ncpu x ncpu transfer ns */
	size_t min_samples;		/* the fewest samples of a pair */
	uint64_t pair_ns, point_ns;	/* the budget of a pair, of a point */
	struct point *pts[NR_PATTERNS];	/* by pattern, then threads - 1 */
};

/* Every pair of CPUs, each within its budget (half of --seconds in all) */
static void measure_pairs(const struct opts *o, struct calibration *c)
{
	int i, j, n = c->ncpu, steps = c->npairs + NR_PATTERNS * c->nthreads;

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
	int i, p, steps = c->npairs + NR_PATTERNS * c->nthreads;
	uint64_t t = fc_now_ns();

	c->point_ns = t < deadline ?
		(deadline - t) / (NR_PATTERNS * c->nthreads) : 0;
	if (c->point_ns < MIN_POINT_NS)
		c->point_ns = MIN_POINT_NS;
	for (i = 1; i <= c->nthreads; i++)
		for (p = 0; p < NR_PATTERNS; p++) {
			progress(o, &c->step, steps, pattern_name[p], i, -1);
			run_pattern(p, c->cpus, i, c->point_ns,
				    &c->pts[p][i - 1]);
		}
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
static void print_calibration(FILE *f, const struct opts *o,
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

static void calibration_alloc(const struct opts *o, struct calibration *c)
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
	if (!c->matrix)
		die("%s", "out of memory", ENOMEM);
}

static void calibration_free(struct calibration *c)
{
	int p;

	for (p = 0; p < NR_PATTERNS; p++)
		free(c->pts[p]);
	free(c->matrix);
	free(c->cpus);
}

int main(int argc, char **argv)
{
	struct calibration c = { 0 };
	uint64_t deadline;
	struct opts o;
	FILE *f;

	parse_opts(argc, argv, &o);
	/* a bad --output fails now, not after the measurement */
	f = stdout;
	if (o.output && !(f = fopen(o.output, "w")))
		die("cannot write %s", o.output, errno);
	calibration_alloc(&o, &c);
	/*
	 * Half the budget to the pairs (none with one CPU), what is left to
	 * the points: a pair stops early once it has MAX_SAMPLES.
	 */
	c.pair_ns = c.npairs ? (uint64_t)(o.seconds * 0.5e9 / c.npairs) : 0;
	deadline = fc_now_ns() + (uint64_t)(o.seconds * 1e9);
	measure_pairs(&o, &c);
	measure_points(&o, &c, deadline);
	print_calibration(f, &o, &c);
	if (fflush(f) || (f != stdout && fclose(f)))
		die("cannot write %s", o.output ? o.output : "stdout", errno);
	calibration_free(&c);
	return 0;
}
