// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-sim: each CPU's cache holds conf->cache_lines units at most
 * (the profile's L2 of a core: docs/predict.md). A unit enters it when
 * the CPU gets a copy it did not have; once the cache is full, the unit
 * that entered longest ago leaves it (first in, first out: a unit hit many
 * times without a miss leaves all the same, and comes back at its next
 * access). A unit that leaves the last core holding it is in memory: the
 * next access to it is a fill (unit.c), whoever wrote it last, never a
 * transfer.
 *
 * Only where the program's units can outnumber the lines: with fewer
 * units than lines no unit ever leaves, and no cache is kept.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_int.h"

/* @cpu's copy of @u leaves its cache */
static void sim_evict(struct sim *s, struct sim_unit *u, unsigned int cpu)
{
	size_t w, words = sim_hold_words(s->conf);
	uint64_t bit = 1ULL << (cpu % SIM_BITS);

	if (!(u->holders[cpu / SIM_BITS] & bit))
		return;
	u->holders[cpu / SIM_BITS] &= ~bit;
	if (u->owner == (int)cpu)
		u->owner = -1;
	if (u->leaver == (int)cpu)
		u->leaver = -1;
	for (w = 0; w < words; w++)
		if (u->holders[w])
			return;
	u->where = W_MEMORY;
}

/* @cpu got a copy of unit @unit: it enters its cache */
void sim_cache_in(struct sim *s, unsigned int cpu, unsigned int unit)
{
	uint64_t cap = s->conf->cache_lines;
	struct sim_cpu *c = &s->cpu[cpu];
	uint32_t *ring, old;

	if (!s->ring)
		return;
	ring = s->ring + (size_t)cpu * cap;
	if (c->ring_len < cap) {
		ring[(c->ring_head + c->ring_len++) % cap] = unit;
		return;
	}
	old = ring[c->ring_head];
	ring[c->ring_head] = unit;
	c->ring_head = (c->ring_head + 1) % cap;
	if (old != unit)
		sim_evict(s, &s->unit[old], cpu);
}

/*
 * The caches, where the units the program uses outnumber a cache's lines;
 * each unit enters its first owner's (setup.c): 0 or -ENOMEM
 */
int sim_cache_new(struct sim *s)
{
	uint64_t cap = s->conf->cache_lines, used = 0;
	unsigned int i;

	for (i = 0; i < s->nr_units; i++)
		used += s->unit[i].holders != NULL;
	if (!cap || used <= cap)
		return 0;
	s->ring = malloc((size_t)s->conf->cpus * cap * sizeof(*s->ring));
	if (!s->ring)
		return -ENOMEM;
	for (i = 0; i < s->nr_units; i++)
		if (s->unit[i].holders)
			sim_cache_in(s, s->unit[i].owner, i);
	return 0;
}
