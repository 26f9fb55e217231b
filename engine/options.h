/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engine's options: its own (model, mapping, backend, flagcheck_stats)
 * and every model's, each model option name one fio option, made at load
 * from the models' option tables (model.h). Parsed here with one-line
 * errors naming the option, the bad value and what is allowed.
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
	/* the variant as given (variant= or an older name), checked against
	 * the job's model by fc_variant_check(); variant_by: its slot + 1,
	 * 0 when not given (the model's default) */
	unsigned int variant_by;
	char variant[32];
	/* io_submit_mode=offload: the job's data, set at the job's init, for
	 * the copies fio makes of these options for its submit workers */
	void *offload_job;
};

/* The table for the ops table's .options: complete once fc_options_load()
 * has run. */
extern struct fio_option fc_options[];

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

/* The model's options as a JSON object, for the stats file: malloc'd */
char *fc_options_json(const struct fc_model *m,
		      const struct flagcheck_options *o);

#endif
