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
 * A transfer is counted per access that pays one; the unit is busy while
 * it moves. A load of a copy the CPU holds is an L1 hit served at once,
 * whatever waits (sim.c): a waiting writer's invalidation has not arrived
 * yet. Every other request goes through the unit, one at a time.
 */
#include <string.h>

#include "sim_int.h"

#define BITS	64

bool sim_holds(const struct sim_unit *u, unsigned int cpu)
{
	return (u->holders[cpu / BITS] >> (cpu % BITS)) & 1;
}

static void hold_only(struct sim *s, struct sim_unit *u, unsigned int cpu)
{
	memset(u->holders, 0, (s->conf->cpus + BITS - 1) / BITS * 8);
	u->holders[cpu / BITS] |= 1ULL << (cpu % BITS);
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
		for (w = 0; w < (n + BITS - 1) / BITS; w++)
			for (m = u->holders[w]; m; m &= m - 1) {
				h = w * BITS + __builtin_ctzll(m);
				if (best < 0 || to[h * n + cpu] < best)
					best = to[h * n + cpu];
			}
	}
	if (best < 0)		/* no holder: from memory, as a hit */
		return s->conf->load_hit_ns;
	if (count && s->measuring)
		u->stats.transfers++;
	return best;
}

/* The cost of a store or RMW by @cpu: the farthest other holder answers */
static double sim_excl_cost(struct sim *s, struct sim_unit *u,
			    unsigned int cpu, enum sim_access acc)
{
	const double *to = s->conf->cost;
	unsigned int n = s->conf->cpus, w, h;
	double worst = -1;
	uint64_t m;

	for (w = 0; w < (n + BITS - 1) / BITS; w++)
		for (m = u->holders[w]; m; m &= m - 1) {
			h = w * BITS + __builtin_ctzll(m);
			if (h != cpu && to[h * n + cpu] > worst)
				worst = to[h * n + cpu];
		}
	if (worst < 0)
		return acc == SIM_RMW ? sim_rmw_hit_ns(s->conf) :
					s->conf->load_hit_ns;
	if (s->measuring)
		u->stats.transfers++;
	return worst;
}

/* The holders after @cpu's access */
void sim_hold(struct sim *s, struct sim_unit *u, unsigned int cpu,
	      enum sim_access acc)
{
	if (s->measuring) {
		u->stats.accesses++;
		u->stats.writes += acc != SIM_LOAD;
	}
	u->last = cpu;
	if (acc != SIM_LOAD) {
		hold_only(s, u, cpu);
		u->owner = cpu;
		return;
	}
	if (!sim_holds(u, cpu)) {
		u->owner = -1;
		u->holders[cpu / BITS] |= 1ULL << (cpu % BITS);
	}
}

/* @cpu gets @u at @t: the access's end */
double sim_grant(struct sim *s, struct sim_unit *u, unsigned int cpu,
		 enum sim_access acc, double t)
{
	uint64_t moved = u->stats.transfers;
	double ns = acc == SIM_LOAD ? sim_load_cost(s, u, cpu, true) :
				      sim_excl_cost(s, u, cpu, acc);

	sim_hold(s, u, cpu, acc);
	u->free_at = t + ns;
	if (u->stats.transfers != moved) {	/* busy: moving the line */
		u->stats.busy_ns += ns;
		u->busy_end = t + ns;
	}
	return t + ns;
}

/*
 * Unit @i gets its holders (its place in s->hold: an object's units side
 * by side) and an empty queue; @cpu, the first to use it, owns it
 */
void sim_unit_init(struct sim *s, unsigned int i, unsigned int cpu)
{
	size_t words = (s->conf->cpus + BITS - 1) / BITS;
	struct sim_unit *u = &s->unit[i];

	if (u->holders)
		return;
	u->holders = &s->hold[(size_t)i * words];
	u->qhead = -1;
	u->qtail = -1;
	u->owner = cpu;
	u->last = cpu;
	hold_only(s, u, cpu);
}
