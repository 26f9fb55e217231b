// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of a fill from memory (calibrate.h): one thread, pinned, follows
 * a chain of pointers through MEMORY_BYTES of lines in a random order, so
 * that each load misses every cache and waits for the one before; the ns
 * per load over the chain, after one untimed pass, is the figure, timed
 * on the thread's own CPU clock (a busy box that runs something else on
 * its CPU meanwhile does not lengthen it). The
 * buffer asks for huge pages (madvise(MADV_HUGEPAGE)): the figure is the
 * memory's, not a page walk's (the lines a pattern touches at random sit
 * a few to a page, one walk for them all).
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <time.h>

#include "calibrate.h"

struct chase {
	void **lines;
	size_t n;
	uint64_t budget_ns;
	double ns;
};

/* A random cycle through the n lines (Sattolo's shuffle), each line's
 * first word pointing at the next line */
static void chase_build(struct chase *ch)
{
	size_t per = CACHE_LINE / sizeof(void *), i, j, *order, t;
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	order = malloc(ch->n * sizeof(*order));
	if (!order)
		die("%s", "out of memory", ENOMEM);
	for (i = 0; i < ch->n; i++)
		order[i] = i;
	for (i = ch->n - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = x % i;
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < ch->n; i++)
		ch->lines[order[i] * per] = &ch->lines[order[(i + 1) % ch->n] *
						       per];
	free(order);
}

static uint64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void *chase_worker(void *arg)
{
	struct chase *ch = arg;
	void **p = ch->lines;
	uint64_t t0, loads = 0, deadline;
	size_t i;

	for (i = 0; i < ch->n; i++)	/* untimed: the pages mapped */
		p = *p;
	t0 = thread_ns();
	deadline = t0 + ch->budget_ns;
	do {
		for (i = 0; i < MEMORY_STEP; i++)
			p = *p;
		loads += MEMORY_STEP;
	} while (thread_ns() < deadline);
	ch->ns = (double)(thread_ns() - t0) / loads;
	/* keep the chain's end: the loads are the work */
	__atomic_store_n(&ch->lines[1], p, __ATOMIC_RELAXED);
	return NULL;
}

/* ns per load from memory on @cpu, within @budget_ns */
double memory_ns(int cpu, uint64_t budget_ns)
{
	struct chase ch = { .n = MEMORY_BYTES / CACHE_LINE,
			    .budget_ns = budget_ns };
	pthread_t tid;

	if (posix_memalign((void **)&ch.lines, MEMORY_HUGE, MEMORY_BYTES))
		die("%s", "out of memory", ENOMEM);
	madvise(ch.lines, MEMORY_BYTES, MADV_HUGEPAGE);	/* a hint only */
	chase_build(&ch);
	start_pinned(&tid, cpu, chase_worker, &ch);
	pthread_join(tid, NULL);
	free(ch.lines);
	return ch.ns;
}
