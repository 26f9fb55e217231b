/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model=pattern: a job's compiled sequence and the steps it runs, the
 * data pattern.c, pattern_ops.c and pattern_copies.c share; each of the
 * last two declares what it gives pattern.c in a header of its own
 * (pattern_fns.h, pattern_copies.h), so no header names all three.
 */
#ifndef FLAGCHECK_PATTERN_JOB_H
#define FLAGCHECK_PATTERN_JOB_H

#include "pattern.h"

/* The state: the once word on a line pair of its own, then the arenas */
#define PATTERN_HEADER		128
#define PATTERN_STATE		(PATTERN_HEADER + \
				 (1 + PATTERN_MAX_NODES) * PATTERN_ARENA)
enum { ONCE_UNSET = 0, ONCE_WRITING, ONCE_DONE };

/* The model's stats (pattern_stats[] names them) */
enum { STAT_READER_CALLS = 0, STAT_READER_LOADS, STAT_FLIPS, STAT_RETRIES };

struct pattern_job;

/*
 * One operation of the sequence, run @n times (its *N): its step holds what
 * it needs (word, argument, path). Chosen per operation at job start
 * (pattern_fns[]), so that an I/O costs one call per operation and no
 * decoding: between two operations on a contended line the model adds
 * little more than the kernel's straight-line code, and the other CPUs'
 * chances to take the line in between stay near the kernel's.
 */
struct pattern_step;
typedef void pattern_fn(struct pattern_job *j, const struct pattern_step *s,
			struct fc_counters *c, unsigned int n);

/* An operation as this job runs it, its word placed in the state */
struct pattern_step {
	pattern_fn *fn;
	unsigned long *w;		/* in the state attached last */
	unsigned long arg;		/* the operation's bit, value, old or n */
	unsigned int i;			/* its path, the operation's index */
	unsigned int repeat;
	bool test_first;
	bool guarded;			/* /flip_every, /every, /every_ns, /below */
	const struct pattern_op *op;	/* the rest: arg2, work's ns, guards */
};

struct pattern_job {
	struct pattern_prog prog;
	/* each alternative's steps, then one with fn NULL */
	struct pattern_step step[PATTERN_MAX_OPS + PATTERN_MAX_ALTS];
	unsigned int nr_steps;
	unsigned char alt_first[PATTERN_MAX_ALTS];	/* its first step */
	unsigned int alt_next;			/* the next I/O's */
	/* where each sharing's words are, for the state attached last */
	unsigned char *base[PATTERN_SHARINGS];
	void *state;
	unsigned int slot;			/* job number - 1 */
	unsigned char *objects;			/* obj(N,RULE)'s objects */
	unsigned int obj_next;			/* turn's next, cpu/job's one */
	uint64_t rnd;				/* random's generator */
	unsigned int nr_obj_steps;		/* steps on obj words ... */
	unsigned char obj_step[PATTERN_MAX_OPS];	/* ... their indexes */
	unsigned int node;
	bool writer;
	uint64_t calls;				/* this job's I/Os */
	uint64_t op_calls[PATTERN_MAX_OPS];	/* /every */
	uint64_t op_last_ns[PATTERN_MAX_OPS];	/* /every_ns */
	unsigned long sink;			/* what the loads read */
	unsigned char tested;			/* 0, 1 or UNTESTED (pattern.h) */
	unsigned int nr_read;			/* a reader's loads ... */
	unsigned int read_op[PATTERN_MAX_OPS];	/* ... one per word */
	const char *paths[PATTERN_MAX_OPS + 1];
	/* a sequence with a lock: a spin may give up (pattern_spin()) */
	bool locks;
	const struct fc_stop *stop;		/* this I/O's, to ask */
	const struct pattern_step *stuck;	/* the spin that gave up */
	char stuck_why[256];			/* ... and why, one line */
	/* the job words, at a 128-byte boundary inside */
	unsigned char arena[PATTERN_ARENA + PATTERN_HEADER];
};

#endif
