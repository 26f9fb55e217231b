/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flagcheck-sim: a model=pattern job's per-I/O program run on N simulated
 * CPUs of a machine profile (docs/predict.md). The program is the engine's
 * own: pattern_compile() (engine/pattern/pattern_parse.c) turns the job's
 * pattern_words, pattern and pattern_fixed into the same struct
 * pattern_prog the engine runs; this simulator walks its operations with
 * the engine's semantics (engine/pattern/pattern.c) on simulated lines.
 *
 * Each coherence unit (a 64-byte line, or the 128-byte pair where the
 * profile's physics.line_pair says the adjacent-line prefetcher couples
 * lines 2N and 2N+1) has holders: one CPU holding it modified, or a set of
 * CPUs sharing it clean. A unit serves one request at a time; requests
 * that find it busy wait, handed the unit in arrival order (fifo) or the
 * nearest first (nearest). A load by a CPU without a copy costs the
 * one-way transfer from the holder; a store or RMW by a CPU that is not
 * the only holder costs the transfer from the farthest other holder and
 * leaves it the only one. Anything else is a hit at the profile's local
 * cost; a load of a copy the CPU holds does not wait for the unit. Time is
 * simulated, in nanoseconds.
 */
#ifndef FLAGCHECK_SIM_H
#define FLAGCHECK_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pattern.h"

#define SIM_MAX_CPUS	1024
/* the arena's units (all, then each node's); :obj units follow them */
#define SIM_UNITS	((1 + PATTERN_MAX_NODES) * PATTERN_LINES)

/* the values of a CHOICE setting of physics.def, in its order */
enum sim_handover { SIM_FIFO = 0, SIM_NEAREST };
enum sim_shared_readers { SIM_PARALLEL = 0, SIM_SERIAL };
enum sim_atomics { SIM_NEAR = 0, SIM_FAR, SIM_HOME };
enum sim_access { SIM_LOAD = 0, SIM_STORE, SIM_RMW };

/* The machine and the run, as flagcheck predict passes them */
struct sim_conf {
	unsigned int cpus;
	double *cost;			/* cpus x cpus one-way ns, [from][to] */
	int *node;			/* each CPU's NUMA node */
	double rest_ns;			/* local time per I/O besides work() */
	double atomic_local_ns;		/* an RMW on a line held M/E */
	double atomic_far_ns;		/* an uncontended RMW executed far */
	double atomic_home_ns;		/* a contended RMW at the home (home) */
	double load_hit_ns;		/* a load (or store) hitting L1 */
	uint64_t cache_lines;		/* lines a CPU's cache holds, 0: all */
	/* one field per row of physics.def, named as the row */
#define PHYSICS_CHOICE	int
#define PHYSICS_BOOL	bool
#define PHYSICS_NUMBER	double
#define PHYSICS(name, kind, values, dflt, what) PHYSICS_##kind name;
#include "physics.def"
#undef PHYSICS
	uint64_t seed;
	uint64_t warmup, ios;		/* I/Os per CPU: skipped, measured */
	unsigned int writers;		/* pattern_writers; 0: all */
	uint64_t max_events;		/* the work budget (sim.c) */
};

/* A unit's figures over the measured window */
struct sim_unit_stats {
	uint64_t transfers, accesses, writes;
	uint64_t fills;			/* of a line no core held */
	double busy_ns;
};

struct sim_result {
	double seconds;			/* simulated time of the window */
	uint64_t ios;			/* I/Os completed in it */
	double iops;
	uint64_t events;
	uint64_t rmw, stores;		/* the engine's counters, flips not */
	uint64_t retries;		/* a CAS loop's failed attempts */
	unsigned int nr_units;		/* SIM_UNITS + the objects' */
	unsigned int objects, obj_lines;	/* :obj: N, lines of each */
	bool *used;
	struct sim_unit_stats *unit;
};

/*
 * sim.c: run @prog (compiled for one variant) on @conf; 0, or -ENOMEM, or
 * -ERANGE (a :slot or :pair word past the arena at this many CPUs, or a
 * :pair copy on another's line: pattern_pair_fit()), or -E2BIG (the
 * run needs more than conf->max_events events). sim_result_free
 * frees what a run's result holds.
 */
int sim_run(const struct pattern_prog *prog, const struct sim_conf *conf,
	    struct sim_result *res);
void sim_result_free(struct sim_result *res);
/*
 * physics.c: every setting of physics.def at its default; one --NAME VALUE
 * option: 0, -1 for a bad value (one line on stderr), 1 if @opt is none
 */
void sim_physics_defaults(struct sim_conf *c);
int sim_physics_option(struct sim_conf *c, const char *opt, const char *val);
/* an uncontended RMW: atomic_local, or atomic_far where atomics is far */
double sim_rmw_hit_ns(const struct sim_conf *c);

#endif
