// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's two patterns on one shared flags word (mapping->flags), on
 * 1..N pinned threads at once (calibrate.h): "always" as
 * filemap_check_errors() before 7fcbbaf18392, "test_first" as after it.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bitops.h"
#include "calibrate.h"
#include "counters.h"	/* fc_now_ns(): the engine's own clock */

/* include/linux/pagemap.h: the two error bits of mapping->flags */
enum mapping_flags {
	AS_EIO		= 0,
	AS_ENOSPC	= 1,
};

const char *const pattern_name[NR_PATTERNS] = {
	[PAT_ALWAYS]	 = "always",
	[PAT_TEST_FIRST] = "test_first",
};

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

/* INNER iterations of "always": the RMWs it ran */
static inline uint64_t always_batch(unsigned long *flags)
{
	int i;

	for (i = 0; i < INNER; i++) {
		test_and_clear_bit(AS_ENOSPC, flags);
		test_and_clear_bit(AS_EIO, flags);
	}
	return 2 * INNER;
}

/* INNER iterations of "test_first": the RMWs it ran */
static inline uint64_t test_first_batch(unsigned long *flags)
{
	uint64_t rmw = 0;
	int i;

	for (i = 0; i < INNER; i++) {
		if (test_bit(AS_ENOSPC, flags) &&
		    test_and_clear_bit(AS_ENOSPC, flags))
			rmw++;
		if (test_bit(AS_EIO, flags) &&
		    test_and_clear_bit(AS_EIO, flags))
			rmw++;
	}
	return rmw;
}

static void *pattern_worker(void *arg)
{
	struct worker *w = arg;
	struct pattern_run *run = w->run;
	unsigned long *flags = &run->flags.word;
	enum pattern pattern = run->pattern;
	uint64_t iters = 0, rmw = 0;

	__atomic_fetch_add(&run->ready.word, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&run->go.word, __ATOMIC_ACQUIRE))
		;
	w->t_start = fc_now_ns();
	/* at least one batch each, however late the thread gets a CPU */
	do {
		if (pattern == PAT_ALWAYS)
			rmw += always_batch(flags);
		else
			rmw += test_first_batch(flags);
		iters += INNER;
	} while (!__atomic_load_n(&run->stop.word, __ATOMIC_RELAXED));
	w->t_end = fc_now_ns();
	w->iters = iters;
	w->rmw = rmw;
	w->migrated = sched_getcpu() != w->cpu;
	return NULL;
}

/* Once all n workers spin: go, budget_ns of sleep, stop */
static void run_for(struct pattern_run *run, int n, uint64_t budget_ns)
{
	struct timespec ts;

	while (__atomic_load_n(&run->ready.word, __ATOMIC_ACQUIRE) <
	       (unsigned long)n)
		;
	__atomic_store_n(&run->go.word, 1, __ATOMIC_RELEASE);
	ts.tv_sec = budget_ns / 1000000000ull;
	ts.tv_nsec = budget_ns % 1000000000ull;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	__atomic_store_n(&run->stop.word, 1, __ATOMIC_RELEASE);
}

/* The n workers joined, their counts summed into *pt */
static void collect(struct worker *w, int n, struct point *pt)
{
	double sum = 0;
	int i;

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
}

void run_pattern(enum pattern pat, const int *cpus, int n,
		 uint64_t budget_ns, struct point *pt)
{
	struct pattern_run *run;
	struct worker *w;
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
	run_for(run, n, budget_ns);
	collect(w, n, pt);
	free(w);
	free(run);
}
