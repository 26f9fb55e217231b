/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A modelled kernel hot path. Each model is one file in models/, named as
 * its model= value (models/filemap_check_errors.c, ...), that fills one
 * struct fc_model from the kernel's functions in kernel/ and registers it
 * with FC_REGISTER_MODEL (found by the Makefile's glob, listed by the
 * registry in models/models.c: no list to edit); queue.c runs the
 * chosen model's ->io() for every I/O before the backend issues it, and
 * model_options.c turns the model's option table into fio engine options.
 * Models know nothing of fio, so the unit tests drive them directly.
 */
#ifndef FLAGCHECK_MODEL_H
#define FLAGCHECK_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "registry.h"

/* The two variants every model has: the atomic RMW on every call, or the
 * plain test first and the RMW only when it changes something. */
enum fc_variant {
	FC_ALWAYS = 0,
	FC_TEST_FIRST,
};

extern const char *const fc_variant_names[];	/* "always", "test_first" */

/*
 * What a model that waits (a lock's spin) asks now and then: NULL while
 * the job goes on, else why it must stop waiting (fio is ending the job,
 * its runtime is over). The engine's, over fio's job.
 */
struct fc_stop {
	const char *(*why)(const struct fc_stop *s);
	void *arg;
};

struct fc_io {
	enum fc_ddir ddir;
	unsigned long long offset;
	unsigned long long len;
	void *job;		/* this job's own model memory (job_size), or NULL */
	const struct fc_stop *stop;	/* NULL: never asked to stop */
};

/*
 * One engine option of a model: a choice among names (stored as the index)
 * or a whole number in [min, max], stored as an unsigned int at @offset in
 * the model's params; or, with is_string, a string of fewer than
 * FC_MODEL_STR_LEN bytes, stored as a const char * (never NULL, "" when not
 * given) that lives as long as the job. Options of the same name in two
 * models are one fio option: they must agree on choices and default.
 *
 * The one exception is the model's variant, always named "variant"
 * (FC_VARIANT_OPTION): its choices and default are each model's own
 * (always and test_first, a model's extra variants, on and off), checked
 * against the job's model= once both are known.
 */
#define FC_VARIANT_OPTION	"variant"
#define FC_MODEL_STR_LEN	4096

struct fc_model_option {
	const char *name;
	const char *help;
	const char *def;
	const char *const *choices;	/* NULL-terminated; NULL: a number */
	unsigned int min, max;
	size_t offset;
	int is_variant;			/* the model's variant: always / test_first,
					 * or the model's own names */
	int is_string;
};

/* One job of the run, as a model's ->run_check sees it */
struct fc_run_job {
	const void *params;		/* its model's, from its options */
	unsigned int job_number;	/* fio's, 1 up */
	unsigned int state;		/* a file's state, or the job's own */
};

struct fc_model {
	const char *name;
	/*
	 * Where the model is listed (model='s help and allowed values; the
	 * first is the default): the models of the published scenarios by
	 * this number, in the order they came; 0, a new model: after them, by
	 * name.
	 */
	unsigned int order;
	/* paths counted apart (counters.h), at most FC_MAX_PATHS */
	const char *const *paths;
	/* the model's own counters (c->stat[]), NULL-terminated, at most
	 * FC_MAX_STATS; NULL: none */
	const char *const *stats;
	const struct fc_model_option *options;	/* ends with .name NULL */
	size_t params_size;
	/*
	 * Checked as options are parsed, whichever comes last: 0, or -1 with
	 * the message (naming option, value, what is allowed) in @msg.
	 */
	int (*check)(const void *params, char *msg, size_t len);
	/*
	 * Optional: every job of the run on this model, checked together
	 * before any of them runs an I/O, for what no one job's options show
	 * (a layout that does not fit a job's number, the locks of two jobs
	 * on one file): 0, or -1 with one line in @msg. A job on several
	 * files is one entry for each.
	 */
	int (*run_check)(const struct fc_run_job *jobs, unsigned int n,
			 char *msg, size_t len);
	/* Bytes of state per file that every job of the run shares (zero-filled
	 * at creation: the zero state is the model's initial state). */
	size_t (*state_size)(const void *params, unsigned long long file_size);
	/*
	 * The modelled path for one I/O: 0, or a negative errno that fails the
	 * I/O before it is issued. c->ios[] already counts this I/O.
	 */
	int (*io)(void *state, const void *params, const struct fc_io *io,
		  struct fc_counters *c);
	/*
	 * Memory of one job that no other job sees (a per-CPU cache, a
	 * directory of its own): job_size bytes, zero-filled, handed to ->io as
	 * io->job. job_init (optional) runs once before the first I/O, with
	 * fio's job number (1 up, as thread_number in the counters): 0, or a
	 * negative errno that fails the job with its reason in @msg (naming
	 * the option and value, as ->check's), which the engine prints
	 * through fio's log_err(); job_exit (optional) at job end.
	 */
	size_t job_size;
	int (*job_init)(void *job, const void *params, unsigned int job_number,
			char *msg, size_t len);
	void (*job_exit)(void *job, const void *params);
	/*
	 * Optional: the names of the paths this job counted, when they come
	 * from its options (model=pattern: one per operation) rather than
	 * from ->paths; NULL-terminated, in the job's memory.
	 */
	const char *const *(*job_paths)(const void *job);
	/*
	 * Optional: why the job's last ->io failed, one line naming the
	 * option and operation, or NULL; the engine prints the first.
	 */
	const char *(*io_error)(const void *job);
};

/* Models the registry holds; one more is refused at load (options.c) */
#define FC_MAX_MODELS		16

/*
 * models/models.c: every registered model in fc_models[], in listing
 * order (.order, then name); fc_register_model(), fc_models_refused()
 * (registry.h)
 */
FC_REGISTRY_DECLARE(model, struct fc_model, FC_MAX_MODELS)

/* In the model's file, after its struct fc_model */
#define FC_REGISTER_MODEL(var)		FC_REGISTER(model, var)

/*
 * Options of the same name in two of @models (NULL-terminated) are one fio
 * option: they must agree on choices (or range) and default. 0, or -1 with
 * a message naming the option and both models in @msg.
 */
int fc_models_agree(const struct fc_model *const *models, char *msg,
		    size_t len);

/* The model's variant option (named FC_VARIANT_OPTION), or NULL */
const struct fc_model_option *fc_model_variant_option(const struct fc_model *m);

/* The index of @name among the option's choices, or -1 */
int fc_option_choice(const struct fc_model_option *mo, const char *name);

/* The value of the model's variant option in @params (FC_ALWAYS if none). */
enum fc_variant fc_model_variant(const struct fc_model *m, const void *params);

#endif
