/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model=pattern: a kernel path of the "avoid dirtying a shared line"
 * family written in the job file (docs/pattern.md), no C. The options are
 * parsed once (pattern_parse.c) into an array of operations on named words
 * of a 64-line arena; per I/O the model walks that array (pattern.c).
 *
 *   pattern_words=flags@0,pinned@1+8:all=0x1,mine@2:job
 *   pattern=test_and_clear_bit(flags,1),test_and_clear_bit(flags,2)
 *   pattern_fixed=?set_bit(flags,0)/flip_every=100*2
 *
 * Items are separated by ',' outside parentheses, not ';': fio's job-file
 * reader ends a line at its first ';' or '#'.
 */
#ifndef FLAGCHECK_PATTERN_H
#define FLAGCHECK_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "model.h"
#include "pattern_ops.h"	/* written from ops.tbl by make */

#define PATTERN_LINE		64	/* bytes of a cache line */
#define PATTERN_LINES		64	/* lines of the arena: 0..63 */
#define PATTERN_ARENA		(PATTERN_LINE * PATTERN_LINES)
#define PATTERN_MAX_OPS		FC_MAX_PATHS	/* one path each */
#define PATTERN_MAX_WORDS	64
#define PATTERN_MAX_NODES	8	/* NUMA nodes with a copy of their own */
#define PATTERN_NAME_LEN	32	/* a word's name, NUL included */
#define PATTERN_PATH_LEN	64	/* "2:test_and_clear_bit(flags,1)" */
#define PATTERN_MAX_REPEAT	65536	/* *N */
#define PATTERN_MAX_OBJECTS	65536	/* :obj(N,RULE) */
#define PATTERN_MIN_OBJ_SHIFT	9	/* offset(BYTES): 512 bytes ... */
#define PATTERN_MAX_OBJ_SHIFT	40	/* ... to 1 TiB, a power of two */
#define PATTERN_MAX_ALTS	16	/* A|B|...: sequences taken in turn */
#define PATTERN_MAX_WORK_NS	1000000	/* work(ns): 1 ms, fio cannot stop it */
/* :pair: pair k's copy 128 bytes x k past the word, a line pair each */
#define PATTERN_PAIR_STRIDE	128
#define PATTERN_MAX_PAIRS	(PATTERN_ARENA / PATTERN_PAIR_STRIDE)

/*
 * Who shares a word: the run, each job alone, the jobs of a NUMA node, the
 * jobs that picked the same one of N objects for this I/O (:obj(N,RULE)),
 * each job its own slot of an array in shared lines (slot(STRIDE)), or
 * each pair of jobs (2k + 1, 2k + 2) its own copy on lines of its own
 */
enum pattern_sharing {
	PATTERN_ALL = 0,
	PATTERN_JOB,
	PATTERN_NODE,
	PATTERN_OBJ,
	PATTERN_SLOT,		/* job N: the word + STRIDE x (N - 1) */
	PATTERN_PAIR,		/* jobs 2k + 1, 2k + 2: the word + 128k */
	PATTERN_SHARINGS,
};

/* :obj(N,RULE), how a job picks its object for an I/O */
enum pattern_pick {
	PICK_TURN = 0,		/* objects job-1, job, job+1, ... mod N */
	PICK_RANDOM,		/* uniform, a generator seeded by the job */
	PICK_CPU,		/* the job's CPU at job start, mod N */
	PICK_JOB,		/* the job's number - 1, mod N */
	PICK_OFFSET,		/* the I/O's offset / BYTES, mod N */
	PATTERN_PICKS,
};

struct pattern_word {
	char name[PATTERN_NAME_LEN];
	unsigned int offset;		/* bytes into the arena: line * 64 + off */
	enum pattern_sharing sharing;
	unsigned long init;
	unsigned int stride;		/* slot(STRIDE): job N at + STRIDE x (N-1) */
};

#define PATTERN_OPCODE(code, name, kind, args, tf, flip, loop) code,
enum pattern_opcode { PATTERN_OPS(PATTERN_OPCODE) PATTERN_NR_OPCODES };
#undef PATTERN_OPCODE

/* The guards an operation may carry, in the order the docs list them */
#define PATTERN_GUARDS(X)						\
X(GUARD_BELOW, "below")							\
X(GUARD_EVERY, "every")							\
X(GUARD_EVERY_NS, "every_ns")						\
X(GUARD_FLIP_EVERY, "flip_every")					\
X(GUARD_IF_TEST, "if_test")

/*
 * The kernel spells an operation on a long or a 64-bit counter
 * atomic_long_OP() or atomic64_OP(): on the pattern's 64-bit word each is
 * the row atomic_OP(), one table row for the three spellings.
 */
#define PATTERN_ALIASES(X)						\
X("atomic_long_")							\
X("atomic64_")

#define PATTERN_GUARD_CODE(code, name) code,
enum pattern_guard { PATTERN_GUARDS(PATTERN_GUARD_CODE) PATTERN_NR_GUARDS };
#undef PATTERN_GUARD_CODE

/* What an operation costs the line, as counted */
enum pattern_kind { KIND_LOAD, KIND_STORE, KIND_RMW, KIND_OTHER };

/* A row's result (pattern_does.h): summed where no load waits for it, or
 * else a test of a bit kept for /if_test, its value when skipped */
#define SUM	(-1)

/*
 * What /if_test=V reads, in the engine and the simulator alike: the last
 * call, this I/O, of the nearest test of a bit before it in its sequence
 * (test_bit(), test_and_set_bit(), test_and_clear_bit()): the bit it
 * found (0 or 1; its test-first form's skip found it too), or UNTESTED
 * where a guard (/every, /every_ns, /below, /if_test) skipped that call.
 * An operation guarded by a test that did not run this I/O does not run,
 * as a kernel block under an if () whose test was never reached.
 */
#define UNTESTED	2

/*
 * One operation, ready to run: its word resolved to (sharing, offset).
 * Guards are 0 when not given.
 */
struct pattern_op {
	enum pattern_opcode code;
	enum pattern_kind kind;
	bool test_first;		/* '?', or test_first without pattern_fixed */
	bool has_word;
	int word;			/* index into the words */
	enum pattern_sharing sharing;
	unsigned int offset;
	unsigned long arg;		/* bit number, value, old, n or ns */
	unsigned long arg2;		/* atomic_cmpxchg's new */
	uint64_t below, every, every_ns, flip_every;
	unsigned int repeat;
	char path[PATTERN_PATH_LEN];	/* "1:test_and_clear_bit(flags,1)" */
	uint64_t if_test;		/* /if_test=V: V + 1, 0 if not given */
	bool tests;			/* a test of a bit, read by /if_test */
	unsigned int value_of;		/* arg is the job's: PATTERN_VALUE_* */
};

/* A value argument written as cpu or job: the job's own, at job start */
enum { PATTERN_VALUE_CONST = 0, PATTERN_VALUE_CPU, PATTERN_VALUE_JOB };

struct pattern_prog {
	unsigned int nr_words, nr_ops;
	bool uses_node;
	struct pattern_word word[PATTERN_MAX_WORDS];
	struct pattern_op op[PATTERN_MAX_OPS];
	/* :obj(N,RULE) words: N objects (0: none) of obj_stride bytes */
	unsigned int nr_objects;
	enum pattern_pick pick;
	unsigned int obj_shift;		/* offset(BYTES): log2(BYTES) */
	unsigned int obj_stride;
	/* A|B|C: the I/Os take the sequences in turn; alternative k is the
	 * operations from alt_end[k - 1] (0 for k = 0) to alt_end[k] */
	unsigned int nr_alts;
	unsigned char alt_end[PATTERN_MAX_ALTS];
};

/* The model's params, as model_options.c builds them from the options */
struct pattern_params {
	unsigned int variant;		/* enum fc_variant */
	unsigned int writers;		/* 0: every job */
	const char *words;
	const char *pattern;
	const char *fixed;
};

/*
 * pattern_parse.c. Each returns 0, or -1 with one line in @msg naming the
 * option, the position or token, and what is allowed.
 *
 * pattern_parse_words: pattern_words into @p's words.
 * pattern_parse_seq: one sequence (@opt names its option) into @p's ops;
 * with @words_known false an unknown word is let through (pattern_words is
 * not parsed yet: fio parses options in an order of its own).
 * pattern_compile: the sequence a job of @pp runs: pattern, or in
 * test_first pattern_fixed if given, else pattern with every operation
 * that has one in its test-first form. @final: every option is parsed (at
 * job start), an unknown word is refused even without pattern_words, and
 * an empty sequence is refused naming the option it would come from.
 */
int pattern_parse_words(const char *s, struct pattern_prog *p, char *msg,
			size_t len);
int pattern_parse_seq(const char *opt, const char *s, struct pattern_prog *p,
		      bool words_known, char *msg, size_t len);
int pattern_compile(const struct pattern_params *pp, bool final,
		    struct pattern_prog *p, char *msg, size_t len);

/*
 * The jobs of a run, checked together before any of them runs an I/O
 * (pattern_jobs.c), by the engine (fio's jobs) and the simulator (its CPU
 * k as job k + 1) alike: a job as the check sees it, on one state (a job
 * on several files is one member for each).
 */
struct pattern_member {
	const struct pattern_prog *prog;	/* the sequence it runs */
	unsigned int job;			/* fio's number, 1 up */
	unsigned int state;			/* members of one share it */
	bool writer;				/* not past pattern_writers */
};

/*
 * pattern_jobs.c. pattern_check_jobs: @m[0..@n) fit together: 0, or -1
 * with one line in @msg. Each member's slot and pair copies fit for its
 * number (pattern_slot_fit(), pattern_pair_fit(), the lowest-numbered job
 * that does not named), and on each state no lock could stay held
 * (pattern_state_locks()).
 *
 * pattern_slot_fit: job @job's slot of each slot word (STRIDE x (job - 1)
 * bytes past the word) is in the arena, on no other word and no slot of
 * a job numbered below it. pattern_pair_fit: whether @jobs jobs (fio's
 * numbers 1 to @jobs) have room for the copies of @p's pair words. Pair k
 * (jobs 2k + 1, 2k + 2) has each pair word at its place +
 * PATTERN_PAIR_STRIDE x k in the shared arena, and that line pair (128
 * bytes) holds no copy of another pair and no arena or slot word: pairs
 * never share a line. Each: 0, or -1 with one line in @msg (may be NULL)
 * naming the word, the jobs and the jobs its place allows.
 */
int pattern_check_jobs(const struct pattern_member *m, unsigned int n,
		       char *msg, size_t len);
int pattern_slot_fit(const struct pattern_prog *p, unsigned int job,
		     char *msg, size_t len);
int pattern_pair_fit(const struct pattern_prog *p, unsigned int jobs,
		     char *msg, size_t len);

/*
 * pattern_locks.c: the members @m[0..@n), all on one state: no place
 * where a writer takes a lock is written by another operation of any
 * writer, by an initial value other than 0, or by a job's slot; the jobs
 * with an :obj lock declare the same objects; and no locks are taken in
 * both orders (a cycle: pattern_lock_order.c). 0, or -1 with one line.
 */
int pattern_state_locks(const struct pattern_member *m, unsigned int n,
			char *msg, size_t len);

extern const struct fc_model fc_model_pattern;

#endif
