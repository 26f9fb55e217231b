// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-sim: the coherence units (sim.h).
 *
 * A unit is held modified by one CPU (owner) or clean by a set of CPUs
 * (holders); at the start CPU 0 holds every unit modified (pattern_attach():
 * the first job writes the initial values). What an access costs:
 *   load   a holder: a hit (load_hit). Else the one-way transfer from the
 *          owner, after which both share it clean; from a clean unit, the
 *          transfer from its nearest holder.
 *   store, RMW   the only holder: a hit (load_hit; an RMW atomic_local,
 *          or atomic_far where the profile's atomics execute far). Else the
 *          one-way transfer from the farthest other holder (the last
 *          invalidation answered), after which it is the owner alone.
 *          With atomics at the home, an RMW by a CPU that does not hold
 *          the line modified alone executes there instead: atomic_home,
 *          nothing moves, and no core keeps a copy.
 *   no core holds it   a fill: from memory (the caches evicted it,
 *          cache.c) at the access's own hit cost, the fill's time being the
 *          same at one CPU and N, in the rest that the one-CPU run or the
 *          published rate gives; or from its home, as far as the nearest
 *          other CPU. A load's fill keeps the unit no longer than its
 *          request. Each counts as a fill, not a transfer.
 * A transfer is counted per access that pays one; the unit is busy while
 * it moves. A load of a copy the CPU holds is an L1 hit served at once,
 * whatever waits (sim.c): a waiting writer's invalidation has not arrived
 * yet. Every other request goes through the unit, one at a time.
 *
 * The visit (physics.def's visit, a fraction f of 0 to 1, and hold, H
 * ns): a transfer of a unit held modified, from its owner to another CPU
 * over the pair's one-way cost L, begins at once, or H after the owner
 * got the line, with the request on its way to the owner. For the longer
 * of f x L and one atomic's time (the floor: the holder's back-to-back
 * access is served before the request that takes the line) the owner
 * still has the line: its own accesses that end by then are hits, served
 * ahead of the unit's queue, their effects after the transfer's access in
 * the simulated values (an order the hardware allows: both happen within
 * the transfer). The transfer's own cost stays L. So where a CPU runs
 * RMWs back to back (each a ns, nothing between) on a line another CPU
 * also wants, a visit of the line serves 1 + floor((H + max(f x L, a)) /
 * a) of them, one visit per H + L.
 */
#include <string.h>

#include "sim_int.h"

bool sim_holds(const struct sim_unit *u, unsigned int cpu)
{
	return (u->holders[cpu / SIM_BITS] >> (cpu % SIM_BITS)) & 1;
}

/* No core holds @u */
static void hold_none(struct sim *s, struct sim_unit *u)
{
	memset(u->holders, 0, sim_hold_words(s->conf) * sizeof(*u->holders));
}

static void hold_only(struct sim *s, struct sim_unit *u, unsigned int cpu)
{
	hold_none(s, u);
	u->holders[cpu / SIM_BITS] |= 1ULL << (cpu % SIM_BITS);
}

/*
 * An access by @cpu to @u that no core holds: from memory (the caches
 * evicted it, cache.c) at its own hit cost @hit (the fill's time is in the
 * rest), or from its home (an RMW executed there) as far as the nearest
 * other CPU (the profile has no home-to-core figure); counted a fill
 */
static double sim_fill_ns(struct sim *s, struct sim_unit *u,
			  unsigned int cpu, double hit)
{
	if (s->measuring)
		u->stats.fills++;
	return u->where == W_MEMORY ? hit : s->near[cpu];
}

/* The cost of a load by @cpu; @count: a transfer is counted */
double sim_load_cost(struct sim *s, struct sim_unit *u,
		     unsigned int cpu, bool count)
{
	const double *to = s->conf->cost;
	unsigned int n = s->conf->cpus, w, h;
	double best = -1;
	uint64_t m;

	if (sim_holds(u, cpu))
		return s->conf->load_hit_ns;
	if (u->owner >= 0) {
		best = to[u->owner * n + cpu];
	} else {
		for (w = 0; w < sim_hold_words(s->conf); w++)
			for (m = u->holders[w]; m; m &= m - 1) {
				h = w * SIM_BITS + __builtin_ctzll(m);
				if (best < 0 || to[h * n + cpu] < best)
					best = to[h * n + cpu];
			}
	}
	if (best < 0) {		/* no core holds it: a read, not a hold */
		s->filled = true;
		return sim_fill_ns(s, u, cpu, s->conf->load_hit_ns);
	}
	s->moved = true;
	if (count && s->measuring)
		u->stats.transfers++;
	return best;
}

/*
 * The cost of a store or RMW by @cpu: the farthest other holder answers;
 * with atomics at the home, an RMW on a line this CPU does not hold
 * modified alone executes there (s->at_home), moving nothing
 */
static double sim_excl_cost(struct sim *s, struct sim_unit *u,
			    unsigned int cpu, enum sim_access acc)
{
	const double *to = s->conf->cost;
	unsigned int n = s->conf->cpus, w, h;
	double worst = -1;
	uint64_t m;

	if (acc == SIM_RMW && s->conf->atomics == SIM_HOME &&
	    u->owner != (int)cpu) {
		s->at_home = true;
		return s->conf->atomic_home_ns;
	}
	for (w = 0; w < sim_hold_words(s->conf); w++)
		for (m = u->holders[w]; m; m &= m - 1) {
			h = w * SIM_BITS + __builtin_ctzll(m);
			if (h != cpu && to[h * n + cpu] > worst)
				worst = to[h * n + cpu];
		}
	if (worst < 0 && !sim_holds(u, cpu))	/* no core holds it */
		return sim_fill_ns(s, u, cpu, acc == SIM_RMW ?
				   sim_rmw_hit_ns(s->conf) :
				   s->conf->load_hit_ns);
	if (worst < 0)
		return acc == SIM_RMW ? sim_rmw_hit_ns(s->conf) :
					s->conf->load_hit_ns;
	s->moved = true;
	if (s->measuring)
		u->stats.transfers++;
	return worst;
}

/* The holders after @cpu's access */
void sim_hold(struct sim *s, struct sim_unit *u, unsigned int cpu,
	      enum sim_access acc)
{
	bool had = sim_holds(u, cpu);

	if (s->measuring) {
		u->stats.accesses++;
		u->stats.writes += acc != SIM_LOAD;
	}
	u->last = cpu;
	if (s->at_home) {	/* executed at the home: every copy gone */
		s->at_home = false;
		hold_none(s, u);
		u->owner = -1;
		u->where = W_HOME;
		return;
	}
	u->where = W_CORE;
	if (acc != SIM_LOAD) {
		hold_only(s, u, cpu);
		u->owner = cpu;
	} else if (!had) {
		u->owner = -1;
		u->holders[cpu / SIM_BITS] |= 1ULL << (cpu % SIM_BITS);
	}
	if (!had)
		sim_cache_in(s, cpu, u - s->unit);
}

/*
 * When a transfer of @u to @cpu (an access, or a batch of loads: sim.c),
 * granted at @t, begins: at once, or where another CPU holds it modified,
 * not before that CPU has had it for the hold (physics.def)
 */
double sim_transfer_start(const struct sim *s, const struct sim_unit *u,
			  unsigned int cpu, double t)
{
	double h = u->arrived + s->conf->hold;

	if (u->owner < 0 || (unsigned int)u->owner == cpu || h <= t)
		return t;
	return h;
}

/*
 * A transfer to @cpu beginning at @t takes @u from its owner (if another
 * CPU holds it modified): the owner's window of the visit ends at @t +
 * the longer of f x the pair's one-way cost and one atomic (the floor: a
 * back-to-back access of the holder is served before the request that
 * takes the line). @first: a lone access, or the first of a batch of
 * loads (a later one keeps the earliest end: the first request there)
 */
void sim_leave(struct sim *s, struct sim_unit *u, unsigned int cpu,
	       double t, bool first)
{
	const struct sim_conf *c = s->conf;
	double end, w, a = sim_rmw_hit_ns(c);

	if (first)
		u->leaver = -1;
	if (u->owner < 0 || (unsigned int)u->owner == cpu)
		return;
	w = c->visit * c->cost[(size_t)u->owner * c->cpus + cpu];
	end = t + (w > a ? w : a);
	if (u->leaver < 0 || end < u->leave_end) {
		u->leaver = u->owner;
		u->leave_end = end;
	}
}

/*
 * An access by @cpu at @t that @u's leaving owner has as a hit (the
 * visit): true with *@end its end; the holders stay as the transfer left
 * them
 */
bool sim_leaver_hit(struct sim *s, struct sim_unit *u, unsigned int cpu,
		    enum sim_access acc, double t, double *end)
{
	double ns;

	if (u->leaver != (int)cpu)
		return false;
	ns = acc == SIM_RMW ? sim_rmw_hit_ns(s->conf) : s->conf->load_hit_ns;
	/* begun before the window's end (a hit of no time cannot repeat for
	 * ever) and ended by then */
	if (t >= u->leave_end || t + ns > u->leave_end)
		return false;
	if (s->measuring) {
		u->stats.accesses++;
		u->stats.writes += acc != SIM_LOAD;
	}
	*end = t + ns;
	return true;
}

/* @cpu gets @u at @t: the access's end */
double sim_grant(struct sim *s, struct sim_unit *u, unsigned int cpu,
		 enum sim_access acc, double t)
{
	double ns;

	t = sim_transfer_start(s, u, cpu, t);
	sim_leave(s, u, cpu, t, true);
	s->moved = false;
	s->filled = false;
	ns = acc == SIM_LOAD ? sim_load_cost(s, u, cpu, true) :
			       sim_excl_cost(s, u, cpu, acc);

	sim_hold(s, u, cpu, acc);
	/* a load of a line no core holds keeps the unit no longer than its
	 * request: the home or memory serves reads side by side */
	u->free_at = s->filled ? t : t + ns;
	if (s->moved) {
		u->arrived = t + ns;
		if (s->measuring) {	/* busy: moving the line */
			u->stats.busy_ns += ns;
			u->busy_end = t + ns;
		}
	}
	return t + ns;
}

/*
 * Unit @i gets its holders (its place in s->hold: an object's units side
 * by side) and an empty queue; @cpu, the first to use it, owns it
 */
void sim_unit_init(struct sim *s, unsigned int i, unsigned int cpu)
{
	size_t words = sim_hold_words(s->conf);
	struct sim_unit *u = &s->unit[i];

	if (u->holders)
		return;
	u->holders = &s->hold[(size_t)i * words];
	u->qhead = -1;
	u->qtail = -1;
	u->owner = cpu;
	u->last = cpu;
	u->leaver = -1;
	hold_only(s, u, cpu);
}
