// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-sim: the simulation's set-up, before its first event (sim.c
 * runs it). The units the program's words are in get their holders, each
 * owned by the first CPU that uses it; every CPU its random stream, its
 * guards' phases and its first :obj object; every copy of a word its
 * initial value; a reader the words it loads. sim_delete() frees it all.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim_int.h"

/* Whether @unit can hold @op's word: a :slot or :pair past the arena
 * cannot (the engine refuses it at job start too) */
static bool sim_fits(const struct pattern_op *op, int unit)
{
	return (op->sharing != PATTERN_SLOT && op->sharing != PATTERN_PAIR) ||
	       unit < PATTERN_LINES;
}

/* The objects @op's word has a copy in: 1, or :obj(N)'s N */
static unsigned int sim_objs(const struct sim *s, const struct pattern_op *op)
{
	return op->sharing == PATTERN_OBJ ? s->objects : 1;
}

/*
 * The CPUs whose unit of @op's word can differ: every CPU for a :node,
 * :slot or :pair word; an arena or :obj word is in one unit (per object)
 * for all, which CPU 0, the first, sets up and owns, and the others would
 * find set up already
 */
static unsigned int sim_cpus_apart(const struct sim *s,
				   const struct pattern_op *op)
{
	return op->sharing == PATTERN_NODE || op->sharing == PATTERN_SLOT ||
	       op->sharing == PATTERN_PAIR ? s->conf->cpus : 1;
}

/* The units one operation's word is in, for every CPU (and object) */
static int sim_op_units(struct sim *s, const struct pattern_op *op)
{
	unsigned int k, o, objs = sim_objs(s, op);
	unsigned int cpus = sim_cpus_apart(s, op);
	int unit;

	for (k = 0; k < cpus; k++)
		for (o = 0; o < objs; o++) {
			unit = sim_word_unit(s, k, o, op);
			if (unit < 0)
				continue;
			if (!sim_fits(op, unit))
				return -ERANGE;
			sim_unit_init(s, unit, k);
		}
	return 0;
}

/* The units the program uses are set up; -ERANGE where the :pair words'
 * copies do not fit (main.c says why first) */
static int sim_units(struct sim *s)
{
	const struct pattern_prog *p = s->prog;
	unsigned int i;
	int err;

	if (pattern_pair_fit(p, s->conf->cpus, NULL, 0))
		return -ERANGE;
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
		for (k = 0; k < PATTERN_MAX_PAIRS; k++)
			s->pair[k][i] = p->word[i].init;
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

/* Each CPU's nearest other CPU's one-way cost (a fill from the home) */
static void sim_near(struct sim *s)
{
	const struct sim_conf *cf = s->conf;
	unsigned int k, j, n = cf->cpus;
	double v;

	for (k = 0; k < n; k++) {
		s->near[k] = n > 1 ? -1 : 0;
		for (j = 0; j < n; j++) {
			v = cf->cost[(size_t)j * n + k];
			if (j != k && (s->near[k] < 0 || v < s->near[k]))
				s->near[k] = v;
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
	/* each unit's holders, a bitmap of the CPUs: pages of units never
	 * used stay untouched */
	s->hold = calloc((size_t)s->nr_units * sim_hold_words(conf),
			 sizeof(*s->hold));
	s->obj = calloc((size_t)s->objects * PATTERN_MAX_WORDS + 1,
			sizeof(*s->obj));
	s->cpu = calloc(n, sizeof(*s->cpu));
	s->ev = calloc(n + s->nr_units + 1, sizeof(*s->ev));
	s->batch = calloc(n, sizeof(*s->batch));
	s->bend = calloc(n, sizeof(*s->bend));
	s->near = calloc(n, sizeof(*s->near));
	if (!s->unit || !s->hold || !s->obj || !s->cpu || !s->ev ||
	    !s->batch || !s->bend || !s->near)
		goto fail;
	sim_cpus(s);
	sim_near(s);
	err = sim_units(s) ?: sim_cache_new(s);
	if (err)
		goto fail;
	sim_words(s);
	*out = s;
	return 0;
fail:
	sim_delete(s);
	return err;
}

void sim_delete(struct sim *s)
{
	free(s->unit);
	free(s->hold);
	free(s->obj);
	free(s->cpu);
	free(s->ev);
	free(s->batch);
	free(s->bend);
	free(s->near);
	free(s->ring);
	free(s);
}
