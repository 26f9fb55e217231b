// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-sim: one CPU's walk of the per-I/O program, with the engine's
 * semantics (engine/pattern/pattern.c: pattern_io(), pattern_guarded(),
 * pattern_read(); what each operation does is its row's, ops.c).
 *
 * /every=N and /flip_every=N run on one I/O in N of the job, as in the
 * engine, from a random phase per CPU: over a window shorter than N
 * (/every=65534) the CPUs run the operation at its expected rate, 1/N per
 * I/O, rather than all on their first I/O. /every_ns=T likewise starts
 * each CPU at a random point of its period; the clock is the CPU's own
 * simulated time.
 *
 * A|B|C: each CPU takes the alternatives in turn from A, as a job does
 * (pattern_alt()). A value written as cpu or job is the simulated CPU's
 * own: CPU i is job i + 1 on CPU i. /if_test=V runs the operation only
 * when the CPU's last test of a bit (test_bit(), test_and_set_bit(),
 * test_and_clear_bit(), as pattern_ops.c keeps it) ran and gave V: a test
 * a guard skipped leaves UNTESTED (pattern.h), as in the engine. A CAS loop
 * (the table's loop column: atomic_inc_not_zero(), atomic_add_unless())
 * loads the word, then tries a cmpxchg from the value it saw: an RMW that
 * takes the line, which fails when another CPU wrote the word since, and
 * then tries again from the value it found (a retry), as pattern_cas() of
 * pattern_ops.c does. A spin (spin_lock()) tries its first cmpxchg from 0
 * with no load, and while its test refuses the value it found (the lock
 * held) loads the word again until it allows it, as pattern_spin() does.
 */
#include <string.h>

#include "sim_int.h"

/* The unit a word of @sharing at @offset is in, for @node */
static unsigned int sim_unit_of(unsigned int sharing, unsigned int offset,
				unsigned int node, bool line_pair)
{
	unsigned int line = offset / PATTERN_LINE;

	if (line_pair)
		line &= ~1U;
	return (sharing == PATTERN_NODE ? 1 + node : 0) * PATTERN_LINES + line;
}

/*
 * The unit of @op's word for CPU @cpu (job @cpu + 1) on object @obj, -1
 * for its own :job word. A :slot(STRIDE) word is job N's 8 bytes at the
 * word's place + STRIDE x (N - 1) in the shared arena; an :obj word is a field of
 * object @obj, the objects after the arena, obj_stride bytes each
 * (pattern_attach(), pattern_pick_object()); a :pair word is the copy of
 * CPUs 2k and 2k + 1 (jobs 2k + 1, 2k + 2), 128 bytes x k past the word
 * in the arena (pattern_pairs()).
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
	case PATTERN_SLOT:
		return sim_unit_of(PATTERN_ALL, op->offset +
				   s->prog->word[op->word].stride * cpu, 0,
				   pair);
	case PATTERN_PAIR:
		return sim_unit_of(PATTERN_ALL, op->offset +
				   PATTERN_PAIR_STRIDE * (cpu / 2), 0, pair);
	case PATTERN_OBJ: {
		unsigned int line = obj * s->obj_lines +
				    op->offset / PATTERN_LINE;

		return SIM_UNITS + (pair ? line & ~1U : line);
	}
	default:
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
	case PATTERN_SLOT:
		return &c->job[op->word];
	case PATTERN_NODE:
		return &s->node[c->node][op->word];
	case PATTERN_PAIR:
		return &s->pair[(c - s->cpu) / 2][op->word];
	case PATTERN_OBJ:
		return &s->obj[(size_t)c->obj * PATTERN_MAX_WORDS + op->word];
	default:
		return &s->all[op->word];
	}
}

/* An operation's value: its constant, or this job's CPU or number */
static unsigned long sim_value(const struct sim *s, const struct sim_cpu *c,
			       const struct pattern_op *op)
{
	unsigned int cpu = c - s->cpu;

	switch (op->value_of) {
	case PATTERN_VALUE_CPU:
		return cpu;
	case PATTERN_VALUE_JOB:
		return cpu + 1;
	default:
		return op->arg;
	}
}

#define SIM_LOOP(code, name, kind, args, tf, flip, loop) [code] = loop,
static const unsigned char sim_cas_loop[PATTERN_NR_OPCODES] = {
	PATTERN_OPS(SIM_LOOP)
};
#undef SIM_LOOP

static double sim_hit_ns(const struct sim *s, enum sim_access acc)
{
	return acc == SIM_RMW ? sim_rmw_hit_ns(s->conf) :
				s->conf->load_hit_ns;
}

/*
 * An access of @op's word: true with the REQ set up for a shared unit;
 * false after doing it at once on the CPU's own :job word (a hit).
 */
static bool sim_word_access(struct sim *s, struct sim_cpu *c,
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

static enum sim_access sim_access_of(const struct pattern_op *op)
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

/* A guard skipped @op: a test's leaves the operations it guards out */
static void sim_skipped(struct sim_cpu *c, const struct pattern_op *op)
{
	if (op->tests)
		c->tested = UNTESTED;
}

static void sim_next_rep(struct sim *s, struct sim_cpu *c)
{
	if (++c->rep < s->prog->op[c->op].repeat)
		c->stage = ST_BELOW;
	else
		sim_next_op(c);
}

static bool sim_guards_pass(struct sim_cpu *c, const struct pattern_op *op);

/* smp_mb(), smp_mb__before_atomic() (x86: a compiler barrier), work(ns) */
static void sim_no_word(struct sim *s, struct sim_cpu *c,
			const struct pattern_op *op)
{
	if (!sim_guards_pass(c, op)) {
		sim_next_op(c);
		return;
	}
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
		if (sim_word_access(s, c, &s->prog->op[s->read_op[c->op]],
			       SIM_LOAD, ACT_READ))
			return true;
	}
	return false;
}

/* One stage of @op: true with a REQ set up for a shared unit */
static bool sim_do_stage(struct sim *s, struct sim_cpu *c,
			 const struct pattern_op *op)
{
	switch (c->stage) {
	case ST_GUARD:
		c->stage = ST_EVERY;
		return op->flip_every && (c->calls + c->flip_phase[c->op]) %
		       op->flip_every == 0 &&
		       sim_word_access(s, c, op, SIM_RMW, ACT_FLIP);
	case ST_EVERY:
		if (sim_guards_pass(c, op)) {
			c->stage = ST_BELOW;
		} else {
			sim_skipped(c, op);
			sim_next_op(c);
		}
		return false;
	case ST_BELOW:
		c->stage = ST_TEST;
		return op->below &&
		       sim_word_access(s, c, op, SIM_LOAD, ACT_BELOW);
	case ST_TEST:
		c->stage = ST_MAIN;
		return op->test_first &&
		       sim_word_access(s, c, op, SIM_LOAD, ACT_TEST);
	case ST_MAIN:
		if (sim_cas_loop[op->code] == PATTERN_SPIN) {
			c->old = 0;	/* the lock free, not loaded */
			return sim_word_access(s, c, op, SIM_RMW, ACT_CAS);
		}
		return sim_cas_loop[op->code] ?
		       sim_word_access(s, c, op, SIM_LOAD, ACT_CAS_LOAD) :
		       sim_word_access(s, c, op, sim_access_of(op), ACT_MAIN);
	case ST_SPIN:	/* the lock held: load it again */
		return sim_word_access(s, c, op, SIM_LOAD, ACT_CAS_LOAD);
	default:	/* ST_CAS: one more cmpxchg */
		return sim_word_access(s, c, op, SIM_RMW, ACT_CAS);
	}
}

/* Walk @c's program up to its next shared access (true) or its I/O's end */
bool sim_advance(struct sim *s, struct sim_cpu *c)
{
	const struct pattern_op *op;

	if (!c->writer)
		return sim_reader(s, c);
	while (c->op < c->op_end) {
		op = &s->prog->op[c->op];
		if (c->stage == ST_GUARD && op->if_test &&
		    c->tested != op->if_test - 1) {
			sim_skipped(c, op);	/* /if_test: the bit is not V */
			sim_next_op(c);
		}
		else if (!op->has_word)
			sim_no_word(s, c, op);
		else if (sim_do_stage(s, c, op))
			return true;
	}
	return false;
}

/*
 * A CAS loop saw c->old: a cmpxchg if its test allows it, else done (a
 * spin: it loads the word again)
 */
static void sim_cas_next(struct sim *s, struct sim_cpu *c,
			 const struct pattern_op *op)
{
	if (sim_cas_tries(op, sim_value(s, c, op), c->old))
		c->stage = ST_CAS;
	else if (sim_cas_loop[op->code] == PATTERN_SPIN)
		c->stage = ST_SPIN;
	else
		sim_next_rep(s, c);
}

/* One cmpxchg attempt: an RMW; failed (the word moved on), a retry */
static void sim_cas(struct sim *s, struct sim_cpu *c,
		    const struct pattern_op *op)
{
	bool ok = *c->w == c->old;

	if (s->measuring) {
		s->rmw++;
		s->retries += !ok;
	}
	if (ok) {
		*c->w = sim_cas_new(op, sim_value(s, c, op), c->old);
		sim_next_rep(s, c);
		return;
	}
	c->old = *c->w;
	sim_cas_next(s, c, op);
}

static void sim_main(struct sim *s, struct sim_cpu *c,
		     const struct pattern_op *op)
{
	if (s->measuring) {
		s->rmw += c->acc == SIM_RMW;
		s->stores += c->acc == SIM_STORE;
	}
	unsigned long r = sim_effect(op, sim_value(s, c, op), c->w);

	if (sim_op_result(op) != SUM)
		c->tested = r != 0;	/* a test of the bit, for /if_test */
	sim_next_rep(s, c);
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
		sim_flip(op, sim_value(s, c, op), c->w);
		break;
	case ACT_BELOW:
		if (*c->w >= op->below) {
			sim_skipped(c, op);
			sim_next_rep(s, c);
		}
		break;
	case ACT_TEST:
		if (!sim_test_runs(op, sim_value(s, c, op), c->w)) {
			if (sim_op_result(op) != SUM)	/* as it leaves it */
				c->tested = sim_op_result(op);
			sim_next_rep(s, c);
		}
		break;
	case ACT_CAS_LOAD:
		c->old = *c->w;
		sim_cas_next(s, c, op);
		break;
	case ACT_CAS:
		sim_cas(s, c, op);
		break;
	default:
		sim_main(s, c, op);
		break;
	}
}

/*
 * :obj(N,RULE): this I/O's object by the job's rule (pattern_pick_object()). A
 * simulated I/O has no offset: offset(BYTES) takes the objects uniformly at
 * random, as fio's random I/O (norandommap) over a file of N x BYTES does.
 */
static void sim_pick_object(struct sim *s, struct sim_cpu *c)
{
	const struct pattern_prog *p = s->prog;
	unsigned int k = c->obj_next;

	if (!p->nr_objects)
		return;
	if (p->pick == PICK_TURN) {
		c->obj_next = k + 1 == p->nr_objects ? 0 : k + 1;
	} else if (p->pick == PICK_RANDOM || p->pick == PICK_OFFSET) {
		c->obj_rnd ^= c->obj_rnd << 13;
		c->obj_rnd ^= c->obj_rnd >> 7;
		c->obj_rnd ^= c->obj_rnd << 17;
		k = ((c->obj_rnd >> 32) * p->nr_objects) >> 32;
	}
	c->obj = k;
}

/* A|B|C: this I/O's alternative, taken in turn (pattern_alt()) */
static void sim_alt(struct sim *s, struct sim_cpu *c)
{
	const struct pattern_prog *p = s->prog;
	unsigned int k = c->alt_next;

	c->op = 0;
	c->op_end = p->nr_ops;
	if (!c->writer || p->nr_alts < 2)
		return;
	c->alt_next = k + 1 == p->nr_alts ? 0 : k + 1;
	c->op = k ? p->alt_end[k - 1] : 0;
	c->op_end = p->alt_end[k];
}

void sim_new_io(struct sim *s, struct sim_cpu *c)
{
	sim_pick_object(s, c);
	c->calls++;
	sim_alt(s, c);
	c->rep = 0;
	c->stage = ST_GUARD;
}
