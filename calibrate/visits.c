// SPDX-License-Identifier: GPL-2.0
/*
 * The line's visits, at 1..N pinned threads (calibrate.h): each thread runs
 * lock xadd (an atomic fetch-add of 1) on one shared word, and keeps what
 * each returned. The values number the RMWs in the order the line served
 * them, so after the run every RMW has its thread: a visit is a run of
 * consecutive numbers from one thread (the line stayed in that CPU), and a
 * change of thread is a hand-over of the line.
 *
 * A thread times its RMWs in stretches of VISIT_STRETCH, reading its context
 * switches (getrusage(RUSAGE_THREAD)) between stretches. A stretch counts
 * only where every thread ran through it: it is dropped when its thread, or
 * any other thread in a stretch that overlaps it in time, was switched out,
 * or when some thread served no RMW in one of the VISIT_PARTS parts of the
 * RMWs the line served during it (a thread that stalled with no switch the
 * guest sees: a host that ran something else on its vCPU). Over the stretches kept, with T
 * their time, A the RMWs the line served in them (every thread's), V its
 * visits and r1 the ns of one RMW alone (1 thread):
 *
 *   RMWs per visit   A / V
 *   hand-over ns     (T - A x r1) / V    (the line's time between visits)
 *   line RMW/s       A / T               (all threads running)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "calibrate.h"
#include "counters.h"	/* fc_now_ns(): the engine's own clock */

struct stretch {
	uint64_t t0, t1;		/* its first and last RMW's clock */
	uint64_t prev_t1;		/* the end of the one before (or t0) */
	uint32_t first;			/* its first RMW in the thread's vals */
	bool switched;			/* its thread was switched out */
};

struct visitor {
	struct visit_run *run;
	pthread_t tid;
	int cpu, n;			/* n: the threads of the run */
	uint32_t nvals, nstretch;
	uint64_t alone;			/* stretches no other thread entered */
	uint64_t last_t1;		/* the end of its last stretch */
	uint64_t *vals;			/* each RMW's returned value */
	struct stretch *st;
} __attribute__((aligned(CACHE_LINE)));

struct visit_run {
	struct line word;		/* the line the threads share */
	struct line ready, go, stop;
	uint32_t max_vals;		/* per thread */
};

static long switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/*
 * One stretch of VISIT_STRETCH RMWs into w->vals, timed. With other threads,
 * a stretch whose values are consecutive (no other thread's RMW came in
 * between: the thread was alone on the line) is counted and not kept, so
 * that the room goes to the stretches that can be co-running ones.
 */
static void visit_stretch(struct visitor *w, long *csw)
{
	unsigned long *word = &w->run->word.word;
	struct stretch *s = &w->st[w->nstretch];
	uint64_t *v = w->vals + w->nvals;
	long now;
	int i;

	s->first = w->nvals;
	s->t0 = fc_now_ns();
	for (i = 0; i < VISIT_STRETCH; i++)
		v[i] = __atomic_fetch_add(word, 1, __ATOMIC_SEQ_CST);
	s->t1 = fc_now_ns();
	s->prev_t1 = w->last_t1 ? w->last_t1 : s->t0;
	w->last_t1 = s->t1;
	now = switches();
	s->switched = now < 0 || now != *csw;
	*csw = now;
	if (w->n > 1 && v[VISIT_STRETCH - 1] - v[0] == VISIT_STRETCH - 1) {
		w->alone++;
		return;
	}
	w->nvals += VISIT_STRETCH;
	w->nstretch++;
}

static void *visit_worker(void *arg)
{
	struct visitor *w = arg;
	struct visit_run *run = w->run;
	long csw;

	__atomic_fetch_add(&run->ready.word, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&run->go.word, __ATOMIC_ACQUIRE))
		;
	csw = switches();
	while (w->nvals + VISIT_STRETCH <= run->max_vals &&
	       !__atomic_load_n(&run->stop.word, __ATOMIC_RELAXED))
		visit_stretch(w, &csw);
	return NULL;
}

/*
 * Whether thread @u was not running RMWs at some time in [t0, t1]: switched
 * out in a stretch that overlaps it (from the end of the stretch before),
 * or not started yet, or done
 */
static bool switched_in(const struct visitor *u, uint64_t t0, uint64_t t1)
{
	uint32_t k;

	if (!u->nstretch || u->st[0].t0 > t0 ||
	    u->st[u->nstretch - 1].t1 < t1)
		return true;
	for (k = 0; k < u->nstretch; k++)
		if (u->st[k].switched && u->st[k].prev_t1 <= t1 &&
		    u->st[k].t1 >= t0)
			return true;
	return false;
}

/* The first of @u's values at or above @x (its values increase) */
static uint32_t lower(const struct visitor *u, uint64_t x)
{
	uint32_t lo = 0, hi = u->nvals, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (u->vals[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The threads of the RMWs numbered lo..hi into @own (hi - lo + 1 of room),
 * false where some number in it is no kept value of any thread (a thread
 * was alone on the line then, its stretch not kept)
 */
static bool range_owners(const struct visitor *w, int n, uint64_t lo,
			 uint64_t hi, uint16_t *own)
{
	uint64_t count = 0;
	uint32_t k, end;
	int u;

	for (u = 0; u < n; u++)
		count += lower(&w[u], hi + 1) - lower(&w[u], lo);
	if (count != hi - lo + 1)
		return false;
	for (u = 0; u < n; u++) {
		end = lower(&w[u], hi + 1);
		for (k = lower(&w[u], lo); k < end; k++)
			own[w[u].vals[k] - lo] = u;
	}
	return true;
}

/* Whether every thread served an RMW in own[0..len) (@seen: n bytes) */
static bool all_served(const uint16_t *own, uint64_t len, int n,
		       uint8_t *seen)
{
	int threads = 0;
	uint64_t i;

	memset(seen, 0, n);
	for (i = 0; i < len; i++) {
		threads += !seen[own[i]];
		seen[own[i]] = 1;
	}
	return threads == n;
}

struct visit_scratch {
	uint16_t *own;			/* a stretch's RMWs' threads */
	uint64_t room;
	uint8_t *seen;			/* n bytes */
};

/*
 * The stretch kept: every other thread ran all through it, and every
 * thread served RMWs in each VISIT_PARTS-th of the RMWs the line served
 * during it; x->own then holds their threads
 */
static bool kept(const struct visitor *w, int n, int t,
		 const struct stretch *s, struct visit_scratch *x)
{
	uint64_t lo = w[t].vals[s->first];
	uint64_t hi = w[t].vals[s->first + VISIT_STRETCH - 1];
	uint64_t len = hi - lo + 1, part = len / VISIT_PARTS, a;
	int u;

	if (s->switched)
		return false;
	for (u = 0; u < n; u++)
		if (u != t && switched_in(&w[u], s->prev_t1, s->t1))
			return false;
	if (len > x->room || !range_owners(w, n, lo, hi, x->own))
		return false;
	for (a = 0; a + part <= len; a += part)
		if (!all_served(x->own + a, part, n, x->seen))
			return false;
	return true;
}

/* The kept stretch's RMWs (every thread's) and the line's visits in it */
static void count_visits(const struct stretch *s, uint64_t len,
			 const uint16_t *own, struct visit_point *vp)
{
	uint64_t i;

	vp->rmw += len;
	vp->visits++;
	for (i = 1; i < len; i++)
		vp->visits += own[i] != own[i - 1];
	vp->seconds += (s->t1 - s->t0) / 1e9;
}

static void visit_figures(const struct visitor *w, int n,
			  struct visit_point *vp)
{
	struct visit_scratch x = { .room = (uint64_t)n * VISIT_STRETCH * 4 };
	const struct stretch *s;
	uint32_t k;
	int t;

	x.own = malloc(x.room * sizeof(*x.own));
	x.seen = malloc(n);
	if (!x.own || !x.seen)
		die("%s", "out of memory", ENOMEM);
	for (t = 0; t < n; t++) {
		vp->stretches += w[t].nstretch + w[t].alone;
		vp->alone += w[t].alone;
		for (k = 0; k < w[t].nstretch; k++) {
			s = &w[t].st[k];
			if (!kept(w, n, t, s, &x))
				continue;
			vp->kept++;
			count_visits(s, w[t].vals[s->first + VISIT_STRETCH - 1] -
				     w[t].vals[s->first] + 1, x.own, vp);
		}
	}
	free(x.own);
	free(x.seen);
}

static void visit_alloc(struct visitor *w, int n, struct visit_run *run)
{
	uint32_t per = VISIT_MAX_RMW / n;
	int i;

	per -= per % VISIT_STRETCH;
	if (per < VISIT_STRETCH)
		per = VISIT_STRETCH;
	run->max_vals = per;
	for (i = 0; i < n; i++) {
		w[i].run = run;
		w[i].n = n;
		w[i].vals = malloc(per * sizeof(*w[i].vals));
		w[i].st = calloc(per / VISIT_STRETCH, sizeof(*w[i].st));
		if (!w[i].vals || !w[i].st)
			die("%s", "out of memory", ENOMEM);
	}
}

/* Once all n threads spin: go, budget_ns of sleep, stop (as patterns.c) */
static void visit_for(struct visit_run *run, int n, uint64_t budget_ns)
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

void run_visits(const int *cpus, int n, uint64_t budget_ns,
		struct visit_point *vp)
{
	struct visit_run *run;
	struct visitor *w;
	int i;

	if (posix_memalign((void **)&run, CACHE_LINE, sizeof(*run)) ||
	    posix_memalign((void **)&w, CACHE_LINE, n * sizeof(*w)))
		die("%s", "out of memory", ENOMEM);
	memset(run, 0, sizeof(*run));
	memset(w, 0, n * sizeof(*w));
	memset(vp, 0, sizeof(*vp));
	vp->threads = n;
	visit_alloc(w, n, run);
	for (i = 0; i < n; i++) {
		w[i].cpu = cpus[i];
		start_pinned(&w[i].tid, cpus[i], visit_worker, &w[i]);
	}
	visit_for(run, n, budget_ns);
	for (i = 0; i < n; i++)
		pthread_join(w[i].tid, NULL);
	visit_figures(w, n, vp);
	for (i = 0; i < n; i++) {
		free(w[i].vals);
		free(w[i].st);
	}
	free(w);
	free(run);
}
