// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-sim: the coherence units (sim.h) and the simulation's memory.
 *
 * A unit is held modified by one CPU (owner) or clean by a set of CPUs
 * (holders); at the start CPU 0 holds every unit modified (pattern_attach():
 * the first job writes the initial values). What an access costs:
 *   load   a holder: a hit (load_hit). Else the one-way transfer from the
 *          owner, after which both share it clean; from a clean unit, the
 *          transfer from its nearest holder.
 *   store, RMW   the only holder: a hit (load_hit, atomic_local). Else the
 *          one-way transfer from the farthest other holder (the last
 *          invalidation answered), after which it is the owner alone.
 * A transfer is counted per access that pays one; the unit is busy while
 * it moves. A load of a copy the CPU holds is an L1 hit served at once,
 * whatever waits (sim.c): a waiting writer's invalidation has not arrived
 * yet. Every other request goes through the unit, one at a time.
 */
#include <stdlib.h>
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
		return acc == SIM_RMW ? s->conf->atomic_local_ns :
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
	if (u->stats.transfers != moved)	/* busy: moving the line */
		u->stats.busy_ns += ns;
	return t + ns;
}

/* The units the program uses get their queues; CPU 0 owns each */
static int sim_units(struct sim *s)
{
	const struct pattern_prog *p = s->prog;
	unsigned int i, k, n = s->conf->cpus, words = (n + BITS - 1) / BITS;
	struct sim_unit *u;

	for (i = 0; i < p->nr_ops; i++) {
		if (!p->op[i].has_word || p->op[i].sharing == PATTERN_JOB)
			continue;
		for (k = 0; k < n; k++) {
			u = &s->unit[sim_unit_of(p->op[i].sharing,
						 p->op[i].offset,
						 s->cpu[k].node,
						 s->conf->line_pair)];
			if (u->q)
				continue;
			u->q = calloc(n, sizeof(*u->q));
			u->holders = calloc(words, 8);
			if (!u->q || !u->holders)
				return -1;
			u->owner = k;
			u->last = k;
			hold_only(s, u, k);
		}
	}
	return 0;
}

/* The words' initial values, the readers' loads */
static void sim_words(struct sim *s)
{
	const struct pattern_prog *p = s->prog;
	unsigned int i, k, nd;

	for (i = 0; i < p->nr_words; i++) {
		s->all[i] = p->word[i].init;
		for (nd = 0; nd < PATTERN_MAX_NODES; nd++)
			s->node[nd][i] = p->word[i].init;
		for (k = 0; k < s->conf->cpus; k++)
			s->cpu[k].job[i] = p->word[i].init;
	}
	for (i = 0; i < p->nr_ops; i++) {
		if (!p->op[i].has_word)
			continue;
		for (k = 0; k < s->nr_read; k++)
			if (p->op[s->read_op[k]].word == p->op[i].word)
				break;
		if (k == s->nr_read)
			s->read_op[s->nr_read++] = i;
	}
}

static void sim_cpus(struct sim *s)
{
	const struct sim_conf *cf = s->conf;
	const struct pattern_op *op;
	struct sim_cpu *c;
	unsigned int k, i;

	for (k = 0; k < cf->cpus; k++) {
		c = &s->cpu[k];
		c->rng = cf->seed * 0x100000001b3ULL + k + 1;
		c->node = cf->node[k] % PATTERN_MAX_NODES;
		c->writer = !cf->writers || k < cf->writers;
		for (i = 0; i < s->prog->nr_ops; i++) {
			op = &s->prog->op[i];
			if (op->every)
				c->op_calls[i] = sim_rand(&c->rng) % op->every;
			if (op->flip_every)
				c->flip_phase[i] = sim_rand(&c->rng) %
						   op->flip_every;
			if (op->every_ns)
				c->last_ns[i] = -(double)(sim_rand(&c->rng) %
							  op->every_ns);
		}
	}
}

struct sim *sim_new(const struct pattern_prog *prog,
		    const struct sim_conf *conf)
{
	struct sim *s = calloc(1, sizeof(*s));
	unsigned int n = conf->cpus;

	if (!s)
		return NULL;
	s->prog = prog;
	s->conf = conf;
	s->cpu = calloc(n, sizeof(*s->cpu));
	s->ev = calloc(n + SIM_UNITS + 1, sizeof(*s->ev));
	s->batch = calloc(n, sizeof(*s->batch));
	s->bend = calloc(n, sizeof(*s->bend));
	if (!s->cpu || !s->ev || !s->batch || !s->bend)
		goto fail;
	sim_cpus(s);
	if (sim_units(s))
		goto fail;
	sim_words(s);
	return s;
fail:
	sim_free_all(s);
	return NULL;
}

void sim_free_all(struct sim *s)
{
	unsigned int i;

	for (i = 0; i < SIM_UNITS; i++) {
		free(s->unit[i].q);
		free(s->unit[i].holders);
	}
	free(s->cpu);
	free(s->ev);
	free(s->batch);
	free(s->bend);
	free(s);
}
