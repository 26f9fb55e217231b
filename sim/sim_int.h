/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flagcheck-sim's own structures, and what each file gives the others.
 * Who calls whom (no file calls back into one that calls it):
 *
 *   main.c -> sim.c, physics.c
 *   sim.c (the events) -> setup.c, unit.c, cpu.c, local.c
 *   setup.c (before the first event) -> unit.c, cpu.c, local.c, cache.c
 *   cpu.c (a CPU's walk) -> ops.c, physics.c, local.c
 *   unit.c (the coherence units) -> physics.c, cache.c
 *   cache.c (each CPU's cache) -> none
 *   ops.c, physics.c, local.c -> none
 */
#ifndef FLAGCHECK_SIM_INT_H
#define FLAGCHECK_SIM_INT_H

#include "sim.h"

/* A unit's holders: a bitmap of the CPUs, SIM_BITS to a word */
#define SIM_BITS	64

static inline size_t sim_hold_words(const struct sim_conf *c)
{
	return (c->cpus + SIM_BITS - 1) / SIM_BITS;
}

enum sim_ev_kind { EV_REQ = 0, EV_FREE, EV_DONE };

/* Where a unit no core holds is: at its home (after an RMW executed
 * there), or in memory (evicted: cache.c) */
enum sim_where { W_CORE = 0, W_HOME, W_MEMORY };

struct sim_ev {
	double t;
	uint64_t seq;
	enum sim_ev_kind kind;
	unsigned int id;		/* the CPU, or the unit of a FREE */
};

struct sim_waiter {
	unsigned int cpu;
	enum sim_access acc;
};

/* A coherence unit: a line, or a 128-byte pair; set up (holders) where
 * the program uses it */
struct sim_unit {
	int owner;			/* holding it modified, -1: clean */
	int last;			/* the CPU served last, -1: none */
	uint64_t *holders;		/* bitmap of CPUs with a copy */
	double free_at;			/* serving a request until then */
	double busy_end;		/* the end of its last counted busy */
	bool pending;			/* a FREE is queued */
	/*
	 * The visit (physics.def): the CPU a transfer takes the unit from,
	 * -1: none; until leave_end its accesses are hits (unit.c); arrived:
	 * when its owner got it (the hold counts from then)
	 */
	int leaver;
	double leave_end, arrived;
	enum sim_where where;
	/* waiting, in arrival order: first and last CPU, -1: none (sim.c) */
	int qhead, qtail;
	unsigned int qlen;
	struct sim_unit_stats stats;
};

/* Where a CPU is in its I/O: the operation's stage */
enum sim_stage { ST_GUARD = 0, ST_EVERY, ST_BELOW, ST_TEST, ST_MAIN, ST_CAS,
		 ST_SPIN };

/*
 * What a granted access does (a CAS loop: its load, then each cmpxchg; a
 * spin: each cmpxchg, and its loads while the lock is held)
 */
enum sim_act { ACT_FLIP = 0, ACT_BELOW, ACT_TEST, ACT_MAIN, ACT_READ,
	       ACT_CAS_LOAD, ACT_CAS };

struct sim_cpu {
	double t;			/* its clock */
	unsigned int op, rep;		/* operation (or reader's word), repeat */
	unsigned int op_end;		/* the end of this I/O's alternative */
	unsigned int alt_next;		/* A|B|C: the next I/O's, in turn */
	unsigned char tested;		/* /if_test's: 0, 1 or UNTESTED */
	unsigned long old;		/* a CAS loop: the value it expects */
	enum sim_stage stage;
	bool writer;
	unsigned int node;
	uint64_t rng;
	uint64_t calls;
	uint64_t op_calls[PATTERN_MAX_OPS];	/* /every, from a random phase */
	uint64_t flip_phase[PATTERN_MAX_OPS];
	double last_ns[PATTERN_MAX_OPS];	/* /every_ns */
	unsigned long job[PATTERN_MAX_WORDS];	/* its :job and :slot words */
	unsigned int obj, obj_next;		/* :obj: this I/O's object */
	uint64_t obj_rnd;
	/* the access it waits for */
	unsigned int unit;
	int qnext, qprev;		/* the unit's next, last waiter, -1: none */
	bool queued;			/* waiting in its unit's queue */
	enum sim_access acc;
	enum sim_act act;
	unsigned long *w;
	uint32_t ring_head, ring_len;	/* its cache's lines (cache.c) */
};

struct sim {
	const struct pattern_prog *prog;
	const struct sim_conf *conf;
	struct sim_cpu *cpu;
	struct sim_unit *unit;
	unsigned int nr_units;
	uint64_t *hold;			/* the units' holders, unit by unit */
	unsigned int objects, obj_lines;	/* :obj(N,RULE), 0: none */
	unsigned long *obj;		/* objects x words: their values */
	unsigned long all[PATTERN_MAX_WORDS];
	unsigned long node[PATTERN_MAX_NODES][PATTERN_MAX_WORDS];
	/* :pair words: pair k's (CPUs 2k, 2k + 1) */
	unsigned long pair[PATTERN_MAX_PAIRS][PATTERN_MAX_WORDS];
	unsigned int read_op[PATTERN_MAX_OPS], nr_read;	/* a reader's loads */
	struct sim_ev *ev;
	unsigned int nev;
	uint64_t seq, events, done;
	uint64_t rmw, stores, retries;	/* as the engine counts them */
	struct sim_waiter *batch;
	double *bend;
	bool measuring, finished, over;	/* over: past conf->max_events */
	bool moved;			/* the last access's cost moved a line */
	bool at_home;			/* the last RMW executed at the home */
	bool filled;			/* a load read a line no core holds */
	uint32_t *ring;			/* each CPU's cache, cache_lines each */
	double *near;			/* each CPU's nearest other one-way ns */
	double t_start, t_end;
};

/* local.c */
uint64_t sim_rand(uint64_t *x);
double sim_local(struct sim *s, struct sim_cpu *c, double ns);

/* cpu.c */
int sim_word_unit(const struct sim *s, unsigned int cpu, unsigned int obj,
		  const struct pattern_op *op);
bool sim_advance(struct sim *s, struct sim_cpu *c);
void sim_apply(struct sim *s, struct sim_cpu *c);
void sim_new_io(struct sim *s, struct sim_cpu *c);

/* ops.c: each operation's row of ops.tbl on a simulated word */
bool sim_test_runs(const struct pattern_op *op, unsigned long arg,
		   unsigned long *w);
unsigned long sim_effect(const struct pattern_op *op, unsigned long arg,
			 unsigned long *w);
int sim_op_result(const struct pattern_op *op);
bool sim_cas_tries(const struct pattern_op *op, unsigned long arg,
		   unsigned long old);
unsigned long sim_cas_new(const struct pattern_op *op, unsigned long arg,
			  unsigned long old);
void sim_flip(const struct pattern_op *op, unsigned long arg,
	      unsigned long *w);

/* cache.c: a CPU's cache of conf->cache_lines lines (none: unbounded) */
int sim_cache_new(struct sim *s);
void sim_cache_in(struct sim *s, unsigned int cpu, unsigned int unit);

/* setup.c: 0 with *@out the simulation, or -ENOMEM, -ERANGE (sim_run()) */
int sim_new(const struct pattern_prog *prog, const struct sim_conf *conf,
	    struct sim **out);
void sim_delete(struct sim *s);

/* unit.c */
void sim_unit_init(struct sim *s, unsigned int i, unsigned int cpu);
double sim_grant(struct sim *s, struct sim_unit *u, unsigned int cpu,
		 enum sim_access acc, double t);
double sim_load_cost(struct sim *s, struct sim_unit *u,
		     unsigned int cpu, bool count);
bool sim_holds(const struct sim_unit *u, unsigned int cpu);
void sim_hold(struct sim *s, struct sim_unit *u, unsigned int cpu,
	      enum sim_access acc);
void sim_leave(struct sim *s, struct sim_unit *u, unsigned int cpu,
	       double t, bool first);
double sim_transfer_start(const struct sim *s, const struct sim_unit *u,
			  unsigned int cpu, double t);
bool sim_leaver_hit(struct sim *s, struct sim_unit *u, unsigned int cpu,
		    enum sim_access acc, double t, double *end);

#endif
