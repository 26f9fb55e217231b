// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-sim: one CPU's walk of the per-I/O program, with the engine's
 * semantics (engine/models/pattern.c: pattern_io(), pattern_guarded(),
 * the op_*() functions, pattern_flip(), pattern_read()).
 *
 * /every=N and /flip_every=N run on one I/O in N of the job, as in the
 * engine, from a random phase per CPU: over a window shorter than N
 * (/every=65534) the CPUs run the operation at its expected rate, 1/N per
 * I/O, rather than all on their first I/O. /every_ns=T likewise starts
 * each CPU at a random point of its period; the clock is the CPU's own
 * simulated time.
 */
#include <string.h>

#include "sim_int.h"

/*
 * The unit of @op's word for CPU @cpu (job @cpu + 1) on object @obj, -1
 * for its own :job word. A :slot(STRIDE) word is job N's 8 bytes at the
 * word's place + STRIDE x (N - 1) in the shared arena; an :obj word is a field of
 * object @obj, the objects after the arena, obj_stride bytes each
 * (pattern_attach(), pattern_pick()).
 */
int sim_word_unit(const struct sim *s, unsigned int cpu, unsigned int obj,
		  const struct pattern_op *op)
{
	bool pair = s->conf->line_pair;

	switch (op->sharing) {
	case PATTERN_JOB:
		return -1;
	case PATTERN_NODE:
		return sim_unit_of(PATTERN_NODE, op->offset, s->cpu[cpu].node,
				   pair);
#if SIM_HAS_OBJ
	case PATTERN_SLOT:
		return sim_unit_of(PATTERN_ALL, op->offset +
				   s->prog->word[op->word].stride * cpu, 0,
				   pair);
	case PATTERN_OBJ: {
		unsigned int line = obj * s->obj_lines +
				    op->offset / PATTERN_LINE;

		return SIM_UNITS + (pair ? line & ~1U : line);
	}
#endif
	default:
		(void)obj;
		return sim_unit_of(PATTERN_ALL, op->offset, 0, pair);
	}
}

/* Where @op's word is for @c: its value, and its unit (-1: its own) */
static unsigned long *sim_word(struct sim *s, struct sim_cpu *c,
			       const struct pattern_op *op, int *unit)
{
	*unit = sim_word_unit(s, c - s->cpu, c->obj, op);
	switch (op->sharing) {
	case PATTERN_JOB:
#if SIM_HAS_OBJ
	case PATTERN_SLOT:
#endif
		return &c->job[op->word];
	case PATTERN_NODE:
		return &s->node[c->node][op->word];
#if SIM_HAS_OBJ
	case PATTERN_OBJ:
		return &s->obj[(size_t)c->obj * PATTERN_MAX_WORDS + op->word];
#endif
	default:
		return &s->all[op->word];
	}
}

static double sim_hit_ns(const struct sim *s, enum sim_access acc)
{
	return acc == SIM_RMW ? s->conf->atomic_local_ns :
				s->conf->load_hit_ns;
}

/*
 * An access of @op's word: true with the REQ set up for a shared unit;
 * false after doing it at once on the CPU's own :job word (a hit).
 */
static bool sim_access(struct sim *s, struct sim_cpu *c,
		       const struct pattern_op *op, enum sim_access acc,
		       enum sim_act act)
{
	int unit;

	c->w = sim_word(s, c, op, &unit);
	c->acc = acc;
	c->act = act;
	if (unit >= 0) {
		c->unit = unit;
		return true;
	}
	c->t += sim_hit_ns(s, acc);
	sim_apply(s, c);
	return false;
}

static enum sim_access sim_kind(const struct pattern_op *op)
{
	return op->kind == KIND_RMW ? SIM_RMW :
	       op->kind == KIND_STORE ? SIM_STORE : SIM_LOAD;
}

static void sim_next_op(struct sim_cpu *c)
{
	c->op++;
	c->rep = 0;
	c->stage = ST_GUARD;
}

static void sim_next_rep(struct sim *s, struct sim_cpu *c)
{
	if (++c->rep < s->prog->op[c->op].repeat)
		c->stage = ST_BELOW;
	else
		sim_next_op(c);
}

/* smp_mb(), smp_mb__before_atomic() (x86: a compiler barrier), work(ns) */
static void sim_no_word(struct sim *s, struct sim_cpu *c,
			const struct pattern_op *op)
{
	if (op->code == OP_SMP_MB)
		c->t += op->repeat * s->conf->atomic_local_ns;
	else if (op->code == OP_WORK)
		c->t += sim_local(s, c, (double)op->arg * op->repeat);
	sim_next_op(c);
}

/* The per-I/O guards: false when /every or /every_ns skip the operation */
static bool sim_guards_pass(struct sim_cpu *c, const struct pattern_op *op)
{
	unsigned int i = c->op;

	if (op->every && c->op_calls[i]++ % op->every)
		return false;
	if (op->every_ns) {
		if (c->t - c->last_ns[i] < (double)op->every_ns)
			return false;
		c->last_ns[i] = c->t;
	}
	return true;
}

/* A job past pattern_writers: one load of each word the sequence touches */
static bool sim_reader(struct sim *s, struct sim_cpu *c)
{
	while (c->op < s->nr_read) {
		if (sim_access(s, c, &s->prog->op[s->read_op[c->op]],
			       SIM_LOAD, ACT_READ))
			return true;
	}
	return false;
}

/* Walk @c's program up to its next shared access (true) or its I/O's end */
bool sim_advance(struct sim *s, struct sim_cpu *c)
{
	const struct pattern_op *op;

	if (!c->writer)
		return sim_reader(s, c);
	while (c->op < s->prog->nr_ops) {
		op = &s->prog->op[c->op];
		if (!op->has_word) {
			sim_no_word(s, c, op);
			continue;
		}
		switch (c->stage) {
		case ST_GUARD:
			c->stage = ST_EVERY;
			if (op->flip_every && (c->calls + c->flip_phase[c->op]) %
			    op->flip_every == 0 &&
			    sim_access(s, c, op, SIM_RMW, ACT_FLIP))
				return true;
			break;
		case ST_EVERY:
			if (sim_guards_pass(c, op))
				c->stage = ST_BELOW;
			else
				sim_next_op(c);
			break;
		case ST_BELOW:
			c->stage = ST_TEST;
			if (op->below && sim_access(s, c, op, SIM_LOAD, ACT_BELOW))
				return true;
			break;
		case ST_TEST:
			c->stage = ST_MAIN;
			if (op->test_first &&
			    sim_access(s, c, op, SIM_LOAD, ACT_TEST))
				return true;
			break;
		case ST_MAIN:
			if (sim_access(s, c, op, sim_kind(op), ACT_MAIN))
				return true;
			break;
		}
	}
	return false;
}

/* Whether the test-first form runs the operation on value @v */
static bool sim_test_runs(const struct pattern_op *op, unsigned long v)
{
	bool set = (v >> (op->arg & 63)) & 1;

	switch (op->code) {
	case OP___SET_BIT: case OP_SET_BIT: case OP_TEST_AND_SET_BIT:
		return !set;
	case OP___CLEAR_BIT: case OP_CLEAR_BIT: case OP_TEST_AND_CLEAR_BIT:
		return set;
	case OP_ATOMIC_CMPXCHG:
		return v == op->arg;
	default:		/* WRITE_ONCE, atomic_set, atomic_xchg */
		return v != op->arg;
	}
}

/* What the operation writes (op_*() of pattern.c) */
static void sim_effect(const struct pattern_op *op, unsigned long *w)
{
	unsigned long bit = 1UL << (op->arg & 63);

	switch (op->code) {
	case OP_WRITE_ONCE: case OP_ATOMIC_SET: case OP_ATOMIC_XCHG:
		*w = op->arg;
		break;
	case OP___SET_BIT: case OP_SET_BIT: case OP_TEST_AND_SET_BIT:
		*w |= bit;
		break;
	case OP___CLEAR_BIT: case OP_CLEAR_BIT: case OP_TEST_AND_CLEAR_BIT:
		*w &= ~bit;
		break;
	case OP_CHANGE_BIT:
		*w ^= bit;
		break;
	case OP_ATOMIC_ADD:
		*w += op->arg;
		break;
	case OP_ATOMIC_INC:
		(*w)++;
		break;
	case OP_ATOMIC_DEC:
		(*w)--;
		break;
	case OP_ATOMIC_CMPXCHG:
		if (*w == op->arg)
			*w = op->arg2;
		break;
	default:		/* the loads */
		break;
	}
}

/* /flip_every: the state the operation undoes (pattern_flip()) */
static void sim_flip(const struct pattern_op *op, unsigned long *w)
{
	unsigned long bit = 1UL << (op->arg & 63);

	switch (op->code) {
	case OP___SET_BIT: case OP_SET_BIT: case OP_TEST_AND_SET_BIT:
		*w &= ~bit;
		break;
	case OP___CLEAR_BIT: case OP_CLEAR_BIT: case OP_TEST_AND_CLEAR_BIT:
		*w |= bit;
		break;
	case OP_ATOMIC_CMPXCHG:
		*w = op->arg;
		break;
	default:
		*w = ~op->arg;
		break;
	}
}

/* The access @c waited for is done: its effect and its next stage */
void sim_apply(struct sim *s, struct sim_cpu *c)
{
	const struct pattern_op *op;

	if (c->act == ACT_READ) {
		c->op++;
		return;
	}
	op = &s->prog->op[c->op];
	switch (c->act) {
	case ACT_FLIP:
		sim_flip(op, c->w);
		break;
	case ACT_BELOW:
		if (*c->w >= op->below)
			sim_next_rep(s, c);
		break;
	case ACT_TEST:
		if (!sim_test_runs(op, *c->w))
			sim_next_rep(s, c);
		break;
	default:
		if (s->measuring) {
			s->rmw += c->acc == SIM_RMW;
			s->stores += c->acc == SIM_STORE;
		}
		sim_effect(op, c->w);
		sim_next_rep(s, c);
		break;
	}
}

/* :obj(N,RULE): this I/O's object by the job's rule (pattern_pick()) */
static void sim_pick(struct sim *s, struct sim_cpu *c)
{
#if SIM_HAS_OBJ
	const struct pattern_prog *p = s->prog;
	unsigned int k = c->obj_next;

	if (!p->nr_objects)
		return;
	if (p->pick == PICK_TURN) {
		c->obj_next = k + 1 == p->nr_objects ? 0 : k + 1;
	} else if (p->pick == PICK_RANDOM) {
		c->obj_rnd ^= c->obj_rnd << 13;
		c->obj_rnd ^= c->obj_rnd >> 7;
		c->obj_rnd ^= c->obj_rnd << 17;
		k = ((c->obj_rnd >> 32) * p->nr_objects) >> 32;
	}
	c->obj = k;
#else
	(void)s, (void)c;
#endif
}

void sim_new_io(struct sim *s, struct sim_cpu *c)
{
	sim_pick(s, c);
	c->calls++;
	c->op = 0;
	c->rep = 0;
	c->stage = ST_GUARD;
}
