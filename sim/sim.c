// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-sim: the event loop (sim.h). Three events, in simulated time
 * order (ties in the order they were queued): a CPU asks a unit for an
 * access (REQ), a unit is free again and hands itself to its next waiter
 * (FREE), a CPU ends an I/O (DONE). A CPU's operations on its :job words,
 * its work(ns), barriers and the rest of its I/O are local time that moves
 * its own clock only; each access to a shared unit is one REQ.
 *
 * The operations run as engine/pattern/pattern.c runs them: per I/O the
 * guards first (/flip_every's RMW, /every, /every_ns), then per repeat
 * /below's load, the test-first load, and the operation itself when its
 * test says so; the values are simulated, so a test sees what the other
 * CPUs wrote. A job past pattern_writers loads each word the sequence
 * touches, once per I/O (pattern_read()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

/* ----- the event queue: a binary heap on (time, sequence) ----- */

static bool ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void sim_push(struct sim *s, double t, enum sim_ev_kind kind,
		     unsigned int id)
{
	struct sim_ev e = { .t = t, .seq = s->seq++, .kind = kind, .id = id };
	unsigned int i = s->nev++, up;

	while (i && ev_before(&e, &s->ev[up = (i - 1) / 2])) {
		s->ev[i] = s->ev[up];
		i = up;
	}
	s->ev[i] = e;
}

static struct sim_ev sim_pop(struct sim *s)
{
	struct sim_ev top = s->ev[0], last = s->ev[--s->nev];
	unsigned int i = 0, c;

	while ((c = 2 * i + 1) < s->nev) {
		if (c + 1 < s->nev && ev_before(&s->ev[c + 1], &s->ev[c]))
			c++;
		if (!ev_before(&s->ev[c], &last))
			break;
		s->ev[i] = s->ev[c];
		i = c;
	}
	s->ev[i] = last;
	return top;
}

/* ----- one CPU: its next access, the end of its I/O ----- */

/* Where @c is next: a REQ for its access, or DONE at the end of its I/O */
static void sim_continue(struct sim *s, struct sim_cpu *c)
{
	if (sim_advance(s, c)) {
		sim_push(s, c->t, EV_REQ, c - s->cpu);
		return;
	}
	c->t += sim_local(s, c, s->conf->rest_ns);
	sim_push(s, c->t, EV_DONE, c - s->cpu);
}

/* A granted access ends at @end: its effect, then what @c does next */
static void sim_granted(struct sim *s, struct sim_cpu *c, double end)
{
	c->t = end;
	sim_apply(s, c);
	sim_continue(s, c);
}

static void sim_done(struct sim *s, struct sim_cpu *c, double t)
{
	uint64_t n = s->conf->cpus;

	s->done++;
	if (s->done == n * s->conf->warmup) {
		s->measuring = true;
		s->t_start = t;
	}
	if (s->done == n * (s->conf->warmup + s->conf->ios)) {
		s->measuring = false;
		s->t_end = t;
		s->finished = true;
		return;
	}
	sim_new_io(s, c);
	sim_continue(s, c);
}

/*
 * ----- a unit's queue: a CPU waits for one access at a time, so the
 * waiting CPUs are linked in arrival order through their own qnext and
 * qprev (a waiter leaves it in one step, wherever it is) -----
 */

static void sim_enqueue(struct sim *s, struct sim_unit *u, unsigned int cpu)
{
	s->cpu[cpu].qnext = -1;
	s->cpu[cpu].qprev = u->qtail;
	s->cpu[cpu].queued = true;
	if (u->qtail < 0)
		u->qhead = cpu;
	else
		s->cpu[u->qtail].qnext = cpu;
	u->qtail = cpu;
	u->qlen++;
}

/* @cpu leaves @u's queue; @prev is the waiter before it, -1: none */
static void sim_dequeue(struct sim *s, struct sim_unit *u, int prev, int cpu)
{
	int next = s->cpu[cpu].qnext;

	if (prev < 0)
		u->qhead = next;
	else
		s->cpu[prev].qnext = next;
	if (next >= 0)
		s->cpu[next].qprev = prev;
	if (u->qtail == cpu)
		u->qtail = prev;
	s->cpu[cpu].queued = false;
	u->qlen--;
}

/*
 * The waiter the unit goes to: the first, or the nearest to its last user
 * (the first of the nearest); *@prev, the waiter before it
 */
static int sim_next_waiter(struct sim *s, const struct sim_unit *u,
			   int *prev)
{
	const double *from;
	int k, p, best = u->qhead;

	*prev = -1;
	if (s->conf->handover == SIM_FIFO || u->last < 0)
		return best;
	from = s->conf->cost + (size_t)u->last * s->conf->cpus;
	for (p = best, k = s->cpu[best].qnext; k >= 0;
	     p = k, k = s->cpu[k].qnext)
		if (from[k] < from[best]) {
			best = k;
			*prev = p;
		}
	return best;
}

/* Every waiting load joins the batch of @nb, in arrival order */
static unsigned int sim_take_loads(struct sim *s, struct sim_unit *u,
				   unsigned int nb)
{
	int p = -1, k, next;

	for (k = u->qhead; k >= 0; k = next) {
		next = s->cpu[k].qnext;
		if (s->cpu[k].acc != SIM_LOAD) {
			p = k;
			continue;
		}
		s->batch[nb].cpu = k;
		s->batch[nb++].acc = SIM_LOAD;
		sim_dequeue(s, u, p, k);
	}
	return nb;
}

/* ----- the units ----- */

static void sim_request(struct sim *s, struct sim_cpu *c, double t)
{
	struct sim_unit *u = &s->unit[c->unit];
	double end;

	if (c->acc == SIM_LOAD && sim_holds(u, c - s->cpu)) {
		/* a load of its own copy: an L1 hit, whoever waits */
		sim_hold(s, u, c - s->cpu, SIM_LOAD);
		sim_granted(s, c, t + s->conf->load_hit_ns);
		return;
	}
	if (sim_leaver_hit(s, u, c - s->cpu, c->acc, t, &end)) {
		/* the visit: the request taking the line is on its way */
		sim_granted(s, c, end);
		return;
	}
	if (!u->qlen && u->free_at <= t) {
		sim_granted(s, c, sim_grant(s, u, c - s->cpu, c->acc, t));
		return;
	}
	sim_enqueue(s, u, c - s->cpu);
	if (!u->pending) {
		u->pending = true;
		sim_push(s, u->free_at > t ? u->free_at : t, EV_FREE,
			 c->unit);
	}
}

/* The readers of one batch: costs from the holders before any is served */
static void sim_grant_loads(struct sim *s, struct sim_unit *u,
			    const struct sim_waiter *b, unsigned int nb,
			    double t)
{
	unsigned int k;
	double end;

	t = sim_transfer_start(s, u, b[0].cpu, t);
	end = t;
	s->filled = false;
	for (k = 0; k < nb; k++) {
		sim_leave(s, u, b[k].cpu, t, !k);
		s->bend[k] = t + sim_load_cost(s, u, b[k].cpu, true);
	}
	for (k = 0; k < nb; k++) {
		sim_hold(s, u, b[k].cpu, SIM_LOAD);
		if (s->bend[k] > end && !s->filled)
			end = s->bend[k];
	}
	u->free_at = end;	/* reads of a line no core held: side by side */
	if (s->measuring) {
		u->stats.busy_ns += end - t;
		u->busy_end = end;
	}
	for (k = 0; k < nb; k++)
		sim_granted(s, &s->cpu[b[k].cpu], s->bend[k]);
}

/*
 * The visit: the CPU a transfer begun at @t takes the unit from may wait
 * in its queue already (it asked while the unit was busy); it has its
 * store or RMW as a hit now, if that ends within its window (unit.c)
 */
static void sim_serve_leaver(struct sim *s, struct sim_unit *u, double t)
{
	int k = u->leaver;
	double end;

	if (k < 0 || !s->cpu[k].queued || &s->unit[s->cpu[k].unit] != u ||
	    !sim_leaver_hit(s, u, k, s->cpu[k].acc, t, &end))
		return;
	sim_dequeue(s, u, s->cpu[k].qprev, k);
	sim_granted(s, &s->cpu[k], end);
}

/*
 * The unit is free at @t: its next waiter gets it; with parallel readers
 * a load takes every waiting load along, each paying its own transfer
 * from the holders as they were, the unit busy until the last is served.
 */
static void sim_on_free(struct sim *s, struct sim_unit *u, double t)
{
	struct sim_waiter first;
	unsigned int nb = 0;
	int prev;
	double end;

	u->pending = false;
	if (!u->qlen)		/* cannot happen: a FREE is queued for waiters */
		return;
	first.cpu = sim_next_waiter(s, u, &prev);
	first.acc = s->cpu[first.cpu].acc;
	sim_dequeue(s, u, prev, first.cpu);
	s->batch[nb++] = first;
	if (first.acc == SIM_LOAD && s->conf->shared_readers == SIM_PARALLEL)
		nb = sim_take_loads(s, u, nb);
	if (nb == 1) {
		end = sim_grant(s, u, first.cpu, first.acc, t);
		sim_granted(s, &s->cpu[first.cpu], end);
	} else {
		sim_grant_loads(s, u, s->batch, nb, t);
	}
	sim_serve_leaver(s, u, t);
	if (u->qlen) {
		u->pending = true;
		sim_push(s, u->free_at, EV_FREE, u - s->unit);
	}
}

/* ----- the run ----- */

/*
 * The work budget: every event counts, so each access (each cmpxchg of a
 * CAS loop, its retries included) is one REQ, a contended one a FREE too
 */
static void sim_event_loop(struct sim *s)
{
	struct sim_ev e;

	while (!s->finished && s->nev) {
		if (s->events == s->conf->max_events) {
			s->over = true;
			return;
		}
		e = sim_pop(s);
		s->events++;
		switch (e.kind) {
		case EV_REQ:
			sim_request(s, &s->cpu[e.id], e.t);
			break;
		case EV_FREE:
			sim_on_free(s, &s->unit[e.id], e.t);
			break;
		case EV_DONE:
			sim_done(s, &s->cpu[e.id], e.t);
			break;
		}
	}
}

static int sim_fill_result(const struct sim *s, struct sim_result *res)
{
	unsigned int i;

	memset(res, 0, sizeof(*res));
	res->nr_units = s->nr_units;
	res->objects = s->objects;
	res->obj_lines = s->obj_lines;
	res->used = calloc(s->nr_units, sizeof(*res->used));
	res->unit = calloc(s->nr_units, sizeof(*res->unit));
	if (!res->used || !res->unit) {
		sim_result_free(res);
		return -ENOMEM;
	}
	res->seconds = (s->t_end - s->t_start) * 1e-9;
	res->ios = (uint64_t)s->conf->cpus * s->conf->ios;
	res->iops = res->seconds > 0 ? res->ios / res->seconds : 0;
	res->events = s->events;
	res->rmw = s->rmw;
	res->stores = s->stores;
	res->retries = s->retries;
	for (i = 0; i < s->nr_units; i++) {
		res->used[i] = s->unit[i].holders != NULL;
		res->unit[i] = s->unit[i].stats;
		/* a transfer begun in the window counts up to its end only */
		if (s->unit[i].busy_end > s->t_end)
			res->unit[i].busy_ns -= s->unit[i].busy_end - s->t_end;
	}
	return 0;
}

void sim_result_free(struct sim_result *res)
{
	free(res->used);
	free(res->unit);
	res->used = NULL;
	res->unit = NULL;
}

int sim_run(const struct pattern_prog *prog, const struct sim_conf *conf,
	    struct sim_result *res)
{
	struct sim *s;
	unsigned int i;
	int err = sim_new(prog, conf, &s);

	if (err)
		return err;
	s->measuring = !conf->warmup;	/* no warm-up: the window is all */
	for (i = 0; i < conf->cpus; i++) {
		sim_new_io(s, &s->cpu[i]);
		sim_continue(s, &s->cpu[i]);
	}
	sim_event_loop(s);
	err = s->over ? -E2BIG : sim_fill_result(s, res);
	sim_delete(s);
	return err;
}
