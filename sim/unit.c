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
 *   store, RMW   the only holder: a hit (load_hit; an RMW atomic_local,
 *          or atomic_far where the profile's atomics execute far). Else the
 *          one-way transfer from the farthest other holder (the last
 *          invalidation answered), after which it is the owner alone.
 * A transfer is counted per access that pays one; the unit is busy while
 * it moves. A load of a copy the CPU holds is an L1 hit served at once,
 * whatever waits (sim.c): a waiting writer's invalidation has not arrived
 * yet. Every other request goes through the unit, one at a time.
 */
#include <errno.h>
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

/* Unit @i gets its queue and holders; @cpu, the first to use it, owns it */
static int sim_unit_new(struct sim *s, unsigned int i, unsigned int cpu)
{
	unsigned int n = s->conf->cpus;
	struct sim_unit *u = &s->unit[i];

	if (u->q)
		return 0;
	u->q = calloc(n, sizeof(*u->q));
	u->holders = calloc((n + BITS - 1) / BITS, 8);
	if (!u->q || !u->holders)
		return -ENOMEM;
	u->owner = cpu;
	u->last = cpu;
	hold_only(s, u, cpu);
	return 0;
}

/* Whether @unit can hold @op's word: a :slot past the arena cannot (the
 * engine refuses it at job start too) */
static bool sim_fits(const struct pattern_op *op, int unit)
{
	return op->sharing != PATTERN_SLOT || unit < PATTERN_LINES;
}

/* The objects @op's word has a copy in: 1, or :obj(N)'s N */
static unsigned int sim_objs(const struct sim *s, const struct pattern_op *op)
{
	return op->sharing == PATTERN_OBJ ? s->objects : 1;
}

/* The units one operation's word is in, for every CPU (and object) */
static int sim_op_units(struct sim *s, const struct pattern_op *op)
{
	unsigned int k, o, objs = sim_objs(s, op);
	int unit, err;

	for (k = 0; k < s->conf->cpus; k++)
		for (o = 0; o < objs; o++) {
			unit = sim_word_unit(s, k, o, op);
			if (unit < 0)
				continue;
			if (!sim_fits(op, unit))
				return -ERANGE;
			err = sim_unit_new(s, unit, k);
			if (err)
				return err;
		}
	return 0;
}

/* The units the program uses get their queues */
static int sim_units(struct sim *s)
{
	const struct pattern_prog *p = s->prog;
	unsigned int i;
	int err;

	for (i = 0; i < p->nr_ops; i++) {
		if (!p->op[i].has_word)
			continue;
		err = sim_op_units(s, &p->op[i]);
		if (err)
			return err;
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
		for (k = 0; k < s->objects; k++)
			s->obj[(size_t)k * PATTERN_MAX_WORDS + i] =
				p->word[i].init;
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
		/* :obj: where job k + 1's rule starts (pattern_objects_start) */
		c->obj_next = s->objects ? k % s->objects : 0;
		c->obj_rnd = 0x9e3779b97f4a7c15ULL * (k + 2) +
			     cf->seed * 0xda942042e4dd58b5ULL;
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

/* The :obj objects of the program */
static void sim_objects(struct sim *s)
{
	s->objects = s->prog->nr_objects;
	s->obj_lines = s->prog->obj_stride / PATTERN_LINE;
	s->nr_units = SIM_UNITS + s->objects * s->obj_lines;
}

/* 0 with *@out the simulation, or -ENOMEM, -ERANGE (sim_run()) */
int sim_new(const struct pattern_prog *prog, const struct sim_conf *conf,
	    struct sim **out)
{
	struct sim *s = calloc(1, sizeof(*s));
	unsigned int n = conf->cpus;
	int err = -ENOMEM;

	if (!s)
		return -ENOMEM;
	s->prog = prog;
	s->conf = conf;
	sim_objects(s);
	s->unit = calloc(s->nr_units, sizeof(*s->unit));
	s->obj = calloc((size_t)s->objects * PATTERN_MAX_WORDS + 1,
			sizeof(*s->obj));
	s->cpu = calloc(n, sizeof(*s->cpu));
	s->ev = calloc(n + s->nr_units + 1, sizeof(*s->ev));
	s->batch = calloc(n, sizeof(*s->batch));
	s->bend = calloc(n, sizeof(*s->bend));
	if (!s->unit || !s->obj || !s->cpu || !s->ev || !s->batch || !s->bend)
		goto fail;
	sim_cpus(s);
	err = sim_units(s);
	if (err)
		goto fail;
	sim_words(s);
	*out = s;
	return 0;
fail:
	sim_free_all(s);
	return err;
}

void sim_free_all(struct sim *s)
{
	unsigned int i;

	for (i = 0; s->unit && i < s->nr_units; i++) {
		free(s->unit[i].q);
		free(s->unit[i].holders);
	}
	free(s->unit);
	free(s->obj);
	free(s->cpu);
	free(s->ev);
	free(s->batch);
	free(s->bend);
	free(s);
}
