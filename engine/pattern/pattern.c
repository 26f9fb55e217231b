// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern
 *
 * A kernel path of the family "avoid dirtying a shared cache line" given
 * in the job file rather than in C (docs/pattern.md): named words on the
 * lines of a 64-line arena, and per I/O a sequence of the kernel's own
 * operations on them (bitops.h, atomic.h) with their test-first forms,
 * thresholds, rate limits and repeats. The options are parsed once, at job
 * start, into an array of operations (pattern_parse.c); per I/O the model
 * walks that array and does no string work.
 *
 *   always      the sequence of pattern= as written (the code before the
 *               patch)
 *   test_first  pattern_fixed= as written (the code after it), or without
 *               it pattern= with each operation in its test-first form
 *
 * Where each word lives: `all` words in the file's state (one per file for
 * the whole run with mapping=shared), `job` words in the job's own memory,
 * `node` words in one copy per NUMA node of the file's state, the node the
 * job's CPU is on at job start, `slot` words at the job's own place in the
 * file's state, `pair` words at the place of the job's pair (jobs 2k + 1
 * and 2k + 2), 128 bytes x k past the word. The state starts zeroed; the
 * first job to run an I/O on it writes the words' initial values, once.
 *
 * Counted per operation (one path each, "2:test_and_clear_bit(flags,1)"):
 * the RMWs it ran, the plain stores it ran, and those a test or guard
 * skipped. Jobs past pattern_writers only READ_ONCE each word the sequence
 * touches, counted in the model's stats (reader_calls, reader_loads).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "atomic.h"
#include "bitops.h"
#include "pattern_copies.h"
#include "pattern_fns.h"
#include "pattern_run.h"


/* ----- the state, the job ----- */

static void pattern_init_words(const struct pattern_prog *p,
			       enum pattern_sharing sharing,
			       unsigned char *arena)
{
	unsigned int i;

	for (i = 0; i < p->nr_words; i++)
		if (p->word[i].sharing == sharing)
			write_once((unsigned long *)(arena + p->word[i].offset),
				   p->word[i].init);
}

/* Each step's word, in the state attached last */
static void pattern_place_steps(struct pattern_job *j)
{
	struct pattern_step *s;

	for (s = j->step; s < j->step + j->nr_steps; s++)
		if (s->fn)	/* not an alternative's end */
			s->w = (unsigned long *)(j->base[s->op->sharing] +
						 s->op->offset);
}

/* The job's own slots of the slot words: their initial values */
static void pattern_init_slots(struct pattern_job *j, unsigned char *arena)
{
	const struct pattern_word *w;

	for (w = j->prog.word; w < j->prog.word + j->prog.nr_words; w++)
		if (w->sharing == PATTERN_SLOT)
			write_once((unsigned long *)(arena + w->offset +
						     w->stride * j->slot),
				   w->init);
}

/*
 * Every pair's copy of the pair words that is in the arena, pair 0's
 * last: a copy no job uses may be where a lower pair's is (the layout is
 * refused where both are used), and the arena words come after
 */
static void pattern_init_pairs(const struct pattern_prog *p,
			       unsigned char *arena)
{
	const struct pattern_word *w;
	unsigned int k = PATTERN_MAX_PAIRS, at;

	while (k--)
		for (w = p->word; w < p->word + p->nr_words; w++) {
			at = w->offset + PATTERN_PAIR_STRIDE * k;
			if (w->sharing == PATTERN_PAIR && at < PATTERN_ARENA)
				write_once((unsigned long *)(arena + at),
					   w->init);
		}
}

/*
 * A file's state, first seen by this job: the first job of all writes the
 * initial values, once, the others wait for that.
 */
static void __attribute__((noinline))
pattern_attach(struct pattern_job *j, void *state)
{
	uint32_t *once = state, unset = ONCE_UNSET;
	unsigned char *arena = (unsigned char *)state + PATTERN_HEADER;
	unsigned int n;

	if (__atomic_load_n(once, __ATOMIC_ACQUIRE) == ONCE_DONE) {
		/* already written: no RMW on the shared header */
	} else if (__atomic_compare_exchange_n(once, &unset, ONCE_WRITING,
					       false, __ATOMIC_ACQUIRE,
					       __ATOMIC_RELAXED)) {
		pattern_init_pairs(&j->prog, arena);
		pattern_init_words(&j->prog, PATTERN_ALL, arena);
		for (n = 0; n < PATTERN_MAX_NODES; n++)
			pattern_init_words(&j->prog, PATTERN_NODE,
					   arena + (1 + n) * PATTERN_ARENA);
		for (n = 0; n < j->prog.nr_objects; n++)
			pattern_init_words(&j->prog, PATTERN_OBJ,
					   (unsigned char *)state + PATTERN_STATE +
					   (size_t)n * j->prog.obj_stride);
		__atomic_store_n(once, ONCE_DONE, __ATOMIC_RELEASE);
	} else {
		while (__atomic_load_n(once, __ATOMIC_ACQUIRE) != ONCE_DONE)
			sched_yield();
	}
	j->base[PATTERN_ALL] = arena;
	j->base[PATTERN_NODE] = arena + (1 + j->node) * PATTERN_ARENA;
	j->base[PATTERN_SLOT] = arena;
	j->base[PATTERN_PAIR] = arena;
	pattern_init_slots(j, arena);
	j->objects = (unsigned char *)state + PATTERN_STATE;
	j->base[PATTERN_OBJ] = j->objects;
	j->state = state;
	pattern_place_steps(j);
}

/* 64-bit xorshift: pick=random's generator, one per job */
static inline uint64_t pattern_rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * pattern_objects: the object of this I/O by the job's rule, and the
 * words of its obj steps in it (random scales 32 bits by N, no division;
 * offset(BYTES) shifts, and divides by N only for offsets past N objects)
 */
static void pattern_pick_object(struct pattern_job *j, unsigned long long offset)
{
	const struct pattern_prog *p = &j->prog;
	struct pattern_step *s;
	unsigned int k = j->obj_next, i;

	if (p->pick == PICK_TURN)
		j->obj_next = k + 1 == p->nr_objects ? 0 : k + 1;
	else if (p->pick == PICK_RANDOM)
		k = ((pattern_rnd(&j->rnd) >> 32) * p->nr_objects) >> 32;
	else if (p->pick == PICK_OFFSET)
		k = (offset >>= p->obj_shift) < p->nr_objects ? offset :
		    offset % p->nr_objects;
	j->base[PATTERN_OBJ] = j->objects + (size_t)k * p->obj_stride;
	for (i = 0; i < j->nr_obj_steps; i++) {
		s = &j->step[j->obj_step[i]];
		s->w = (unsigned long *)(j->base[PATTERN_OBJ] + s->op->offset);
	}
}

/* A reader: one READ_ONCE of each word the sequence touches */
static int pattern_read(struct pattern_job *j, struct fc_counters *c)
{
	unsigned int i;

	for (i = 0; i < j->nr_read; i++) {
		const struct pattern_op *op = &j->prog.op[j->read_op[i]];

		j->sink += read_once((unsigned long *)(j->base[op->sharing] +
						       op->offset));
	}
	c->stat[STAT_READER_CALLS]++;
	c->stat[STAT_READER_LOADS] += j->nr_read;
	return 0;
}

/* A|B|C: the first step of this I/O's alternative, taken in turn */
static unsigned int pattern_alt(struct pattern_job *j)
{
	unsigned int k = j->alt_next;

	j->alt_next = k + 1 == j->prog.nr_alts ? 0 : k + 1;
	return j->alt_first[k];
}

static int pattern_io(void *state, const void *params,
		      const struct fc_io *io, struct fc_counters *c)
{
	struct pattern_job *j = io->job;
	const struct pattern_step *s;

	(void)params;
	if (__builtin_expect(j->state != state, 0))
		pattern_attach(j, state);
	j->calls++;
	c->checks++;
	if (j->prog.nr_objects)
		pattern_pick_object(j, io->offset);
	if (__builtin_expect(!j->writer, 0))
		return pattern_read(j, c);
	s = j->step;
	if (j->prog.nr_alts > 1)
		s += pattern_alt(j);
	if (__builtin_expect(j->locks, 0))
		return pattern_io_locked(j, s, io, c);
	for (; s->fn; s++) {
		if (__builtin_expect(s->guarded, 0))
			pattern_guarded(j, s, c);
		else
			s->fn(j, s, c, s->repeat);
	}
	return 0;
}

static size_t pattern_state_size(const void *params,
				 unsigned long long file_size)
{
	struct pattern_prog prog;
	char msg[256];

	(void)file_size;
	/* a bad pattern is refused at job start: its size does not matter */
	if (pattern_compile(params, true, &prog, msg, sizeof(msg)))
		return PATTERN_STATE;
	return PATTERN_STATE + (size_t)prog.nr_objects * prog.obj_stride;
}

/* Values written as cpu or job: this job's CPU at its start, its number */
static void pattern_values(struct pattern_job *j, unsigned int job_number)
{
	unsigned int i, cpu = 0, node;
	struct pattern_op *op;

	for (i = 0; i < j->prog.nr_ops; i++) {
		op = &j->prog.op[i];
		if (op->value_of == PATTERN_VALUE_CPU && !getcpu(&cpu, &node))
			op->arg = cpu;
		else if (op->value_of == PATTERN_VALUE_JOB)
			op->arg = job_number;
	}
}

/* obj(N,RULE): where the job's rule starts (or stays) */
static void pattern_objects_start(struct pattern_job *j,
				  unsigned int job_number)
{
	unsigned int cpu = 0, node, n = j->prog.nr_objects ?: 1;

	j->obj_next = (job_number ? job_number - 1 : 0) % n;
	if (j->prog.pick == PICK_CPU && !getcpu(&cpu, &node))
		j->obj_next = cpu % n;
	j->rnd = 0x9e3779b97f4a7c15ULL * (job_number + 1);
}

/* One operation's step */
static void pattern_add_step(struct pattern_job *j, unsigned int i)
{
	const struct pattern_op *op = &j->prog.op[i];
	struct pattern_step *s;

	if (!pattern_fns[op->code])
		return;		/* a compiler barrier only */
	s = &j->step[j->nr_steps++];
	s->fn = pattern_fns[op->code];
	s->op = op;
	s->arg = op->arg;
	s->i = i;
	s->repeat = op->repeat;
	s->test_first = op->test_first;
	s->guarded = op->flip_every || op->every || op->every_ns ||
		     op->below || op->if_test;
	if (op->sharing == PATTERN_OBJ && op->has_word)
		j->obj_step[j->nr_obj_steps++] = j->nr_steps - 1;
}

/*
 * The operations this job runs, in order, with their functions: each
 * alternative's (A|B|C), each ended by a step with fn NULL
 */
static void pattern_steps(struct pattern_job *j)
{
	unsigned int i = 0, k;

	for (k = 0; k < j->prog.nr_alts; k++) {
		j->alt_first[k] = j->nr_steps;
		for (; i < j->prog.alt_end[k]; i++)
			pattern_add_step(j, i);
		j->step[j->nr_steps++].fn = NULL;	/* the end */
	}
}

/* The words a reader loads: each distinct one the sequence touches */
static void pattern_readers(struct pattern_job *j)
{
	const struct pattern_op *op = j->prog.op;
	unsigned int i, k;

	for (i = 0; i < j->prog.nr_ops; i++) {
		if (!op[i].has_word)
			continue;
		for (k = 0; k < j->nr_read; k++)
			if (op[j->read_op[k]].word == op[i].word)
				break;
		if (k == j->nr_read)
			j->read_op[j->nr_read++] = i;
	}
}

static int pattern_job_init(void *job, const void *params,
			    unsigned int job_number, char *msg, size_t len)
{
	const struct pattern_params *pp = params;
	struct pattern_job *j = job;
	uintptr_t a = (uintptr_t)j->arena;
	unsigned int i;
	int err;

	if (pattern_compile(pp, true, &j->prog, msg, len))
		return -EINVAL;
	err = pattern_node(j, msg, len);
	if (err)
		return err;
	j->slot = job_number ? job_number - 1 : 0;
	err = pattern_slots(j, msg, len);
	if (!err)
		err = pattern_pairs(j, job_number, msg, len);
	if (err)
		return err;
	pattern_objects_start(j, job_number);
	j->writer = !pp->writers || job_number <= pp->writers;
	j->base[PATTERN_JOB] = (unsigned char *)((a + PATTERN_HEADER - 1) &
						 ~(uintptr_t)(PATTERN_HEADER - 1));
	pattern_init_words(&j->prog, PATTERN_JOB, j->base[PATTERN_JOB]);
	pattern_values(j, job_number);
	for (i = 0; i < j->prog.nr_ops; i++) {
		j->paths[i] = j->prog.op[i].path;
		j->locks |= j->prog.op[i].code == OP_SPIN_LOCK;
	}
	pattern_steps(j);
	pattern_readers(j);
	return 0;
}

static const char *const *pattern_job_paths(const void *job)
{
	const struct pattern_job *j = job;

	return j->paths;
}

/* Why the last I/O failed: a spin that gave up (pattern_spin()) */
static const char *pattern_io_error(const void *job)
{
	const struct pattern_job *j = job;

	return j->stuck ? j->stuck_why : NULL;
}

/* While fio parses: every option's refusal, one line */
static int pattern_check(const void *params, char *msg, size_t len)
{
	struct pattern_prog prog;

	return pattern_compile(params, false, &prog, msg, len);
}

static const char *const pattern_stats[] = {
	[STAT_READER_CALLS]	= "reader_calls",
	[STAT_READER_LOADS]	= "reader_loads",
	[STAT_FLIPS]		= "flips",
	[STAT_RETRIES]		= "retries",
	NULL,
};

static const struct fc_model_option pattern_options[] = {
	{
		.name	= "variant",
		.help	= "always: pattern as written (before the patch); "
			  "test_first: pattern_fixed, or pattern with each "
			  "operation in its test-first form (the patch)",
		.def	= "test_first",
		.choices = fc_variant_names,
		.offset	= offsetof(struct pattern_params, variant),
		.is_variant = 1,
	},
	{
		.name	= "pattern_words",
		.help	= "The shared words: NAME@LINE[+OFFSET][:all|job|node|slot|"
			  "pair|obj(N,RULE)][=INIT],... (docs/pattern.md)",
		.offset	= offsetof(struct pattern_params, words),
		.is_string = 1,
	},
	{
		.name	= "pattern",
		.help	= "Per I/O, the code before the patch: [?]OP(ARGS)"
			  "[/below=T][/every=N][/every_ns=T][/flip_every=N]"
			  "[/if_test=V][*N],... with the kernel's names; A|B: "
			  "the I/Os take A and B in turn (docs/pattern.md)",
		.offset	= offsetof(struct pattern_params, pattern),
		.is_string = 1,
	},
	{
		.name	= "pattern_fixed",
		.help	= "Per I/O, the code after the patch, run by "
			  "variant=test_first (empty: pattern in test-first "
			  "form)",
		.offset	= offsetof(struct pattern_params, fixed),
		.is_string = 1,
	},
	{
		.name	= "pattern_writers",
		.help	= "Only the first N jobs (fio's job numbers) run the "
			  "sequence; the others READ_ONCE its words (0: all "
			  "write)",
		.def	= "0",
		.min	= 0,
		.max	= 4294967295U,
		.offset	= offsetof(struct pattern_params, writers),
	},
	{ .name = NULL },
};

const struct fc_model fc_model_pattern = {
	.name		= "pattern",
	.order		= 6,
	.stats		= pattern_stats,
	.options	= pattern_options,
	.params_size	= sizeof(struct pattern_params),
	.check		= pattern_check,
	.run_check	= pattern_run_check,
	.state_size	= pattern_state_size,
	.io		= pattern_io,
	.job_size	= sizeof(struct pattern_job),
	.job_init	= pattern_job_init,
	.job_paths	= pattern_job_paths,
	.io_error	= pattern_io_error,
};
FC_REGISTER_MODEL(fc_model_pattern)
