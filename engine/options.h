/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's options: its own (model, mapping, backend, flagcheck_stats)
 * and every model's, each model option name one fio option, made at load
 * from the models' option tables (model.h, model_options.c). Parsed with
 * one-line errors naming the option, the bad value and what is allowed.
 */
#ifndef FLAGCHECK_OPTIONS_H
#define FLAGCHECK_OPTIONS_H

#include <limits.h>

#include "fio.h"

#include "backend.h"
#include "model.h"

/* Model options of every model, one slot per distinct name. */
#define FC_MAX_MODEL_OPTS	24
/* ... of which strings (their values live in the job's options) */
#define FC_MAX_MODEL_STRS	4
/* The bytes of one model's params (checked at load) */
#define FC_MAX_PARAMS		256

enum { FC_MAPPING_SHARED = 0, FC_MAPPING_PRIVATE };

extern const char *const fc_mapping_names[];

/* fio's option_struct: fio copies it whole to every job (td->eo). */
struct flagcheck_options {
	void *td;	/* fio's: offset 0 means "no option"; td while parsing */
	unsigned int model;
	unsigned int mapping;
	unsigned int backend;
	char stats[PATH_MAX];	/* "": no counters file */
	unsigned int vals[FC_MAX_MODEL_OPTS];	/* model options, by slot */
	char strs[FC_MAX_MODEL_STRS][FC_MODEL_STR_LEN];	/* string options */
	/* a model's cross-option check failed: the job is dropped already,
	 * the options parsed after it need not say so again */
	unsigned int check_failed;
	unsigned int model_set;		/* model= was given */
	/* variant= as given, checked against the job's model by
	 * fc_variant_check(); variant_given 0: not given (the model's
	 * default) */
	unsigned int variant_given;
	char variant[32];
	/* io_submit_mode=offload: the job's data, set at the job's init, for
	 * the copies fio makes of these options for its submit workers */
	void *offload_job;
};

/* The table for the ops table's .options: complete once fc_options_load()
 * has run. The engine's own options first, by these places; the models'
 * follow (model_options.c). */
extern struct fio_option fc_options[];
enum { FC_OPT_MODEL, FC_OPT_MAPPING, FC_OPT_BACKEND, FC_OPT_STATS,
       FC_GLUE_OPTS };

/* model_options.c, for the engine's own options too: "a, b, c" of @names
 * in @buf; @val among @allowed or a whole number in [min, max] into *out,
 * else 1 after one log_err() line naming @opt, @val and what is allowed. */
void fc_list(char *buf, size_t len, const char *const *names);
int fc_parse_choice(const char *opt, const char *val,
		    const char *const *allowed, unsigned int *out);
int fc_parse_number(const char *opt, const char *val, unsigned int min,
		    unsigned int max, unsigned int *out);

/* model_options.c: the models' options become fio options from @fo on, at
 * most FC_MAX_MODEL_OPTS (at load, once the models are checked): 0, or 1
 * after a log_err() saying why not */
int fc_add_model_options(struct fio_option *fo);

/*
 * At load, before fio parses a job: check the models against the tables'
 * limits and against each other, then add their options. 0, or 1 after a
 * log_err() saying why the engine cannot be loaded.
 */
int fc_options_load(void);

/*
 * The variant given for the job is one its model takes: 0, or -1 with the
 * message (naming the option, the value, what the job's model takes).
 */
int fc_variant_check(const struct flagcheck_options *o, char *msg,
		     size_t len);

/* The model's params from the parsed option values. */
void fc_model_params(const struct fc_model *m,
		     const struct flagcheck_options *o, void *params);

#endif
