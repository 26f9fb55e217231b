// SPDX-License-Identifier: GPL-2.0
/*
 * The one-way transfer latency of a cache line between two CPUs: two
 * pinned threads bounce one line with compare-and-swap, each waiting for
 * the other's value before it writes its own (calibrate.h).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "counters.h"	/* fc_now_ns(): the engine's own clock */

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

/* A zeroed pingpong, on a line of its own, with room for its samples */
static struct pingpong *pingpong_alloc(void)
{
	struct pingpong *pp;

	if (posix_memalign((void **)&pp, CACHE_LINE, sizeof(*pp)))
		die("%s", "out of memory", ENOMEM);
	memset(pp, 0, sizeof(*pp));
	pp->samples = calloc(MAX_SAMPLES, sizeof(*pp->samples));
	if (!pp->samples)
		die("%s", "out of memory", ENOMEM);
	return pp;
}

/* One-way transfer ns between cpu a and cpu b (median); *migrated set. */
double transfer_ns(int a, int b, uint64_t budget_ns, unsigned int batch,
		   size_t *nsamples, int *migrated)
{
	struct pingpong *pp = pingpong_alloc();
	pthread_t tid[2];
	double ns;

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
