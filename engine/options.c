// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's fio option table (options.h): its own options and their
 * parsing (model, mapping, backend, flagcheck_stats), then the models'
 * options, added at load by model_options.c, which parses values for both.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fio.h"
#include "optgroup.h"

#include "options.h"
#include "stats.h"

const char *const fc_mapping_names[] = {
	[FC_MAPPING_SHARED] = "shared", [FC_MAPPING_PRIVATE] = "private", NULL };

static int str_model_cb(void *data, const char *str)
{
	struct flagcheck_options *o = data;
	const char *names[FC_MAX_MODELS + 1];
	int i;

	for (i = 0; fc_models[i]; i++)
		names[i] = fc_models[i]->name;
	names[i] = NULL;
	if (fc_parse_choice("model", str, names, &o->model))
		return 1;
	/* a variant given before is checked against the model at setup */
	o->model_set = 1;
	return 0;
}

static int str_mapping_cb(void *data, const char *str)
{
	struct flagcheck_options *o = data;

	return fc_parse_choice("mapping", str, fc_mapping_names, &o->mapping);
}

static int str_backend_cb(void *data, const char *str)
{
	struct flagcheck_options *o = data;
	struct thread_data *td = o->td;
	const char *names[FC_MAX_BACKENDS + 1];
	int i;

	for (i = 0; fc_backends[i]; i++)
		names[i] = fc_backends[i]->name;
	names[i] = NULL;
	if (fc_parse_choice("backend", str, names, &o->backend))
		return 1;
	/*
	 * fio decides whether to lay out files from the engine flags before
	 * any engine hook runs, so a job's flags must follow its backend now.
	 */
	if (td)
		fc_td_engine_flags(td, fc_backends[o->backend]->fio_flags,
				   FC_BACKEND_FIO_FLAGS);
	return 0;
}

/* What a path that is not a regular file is, for the refusal */
static const char *fc_file_kind(mode_t mode)
{
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

/*
 * The counters file can be @path: not a link, not a directory, not a
 * device, FIFO or socket (only a regular file or a new one), in a
 * directory this job can create files in. 0, or 1 after saying why not.
 */
static int fc_stats_path_refused(const char *path)
{
	char *copy, *slash;
	const char *dir = ".";
	struct stat st;
	int ret = 0;

	copy = strdup(path);
	if (!copy)
		return 1;
	slash = strrchr(copy, '/');
	if (slash) {
		*slash = '\0';
		dir = slash == copy ? "/" : copy;
	}
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		log_err("flagcheck: flagcheck_stats=%s is a symbolic link: a "
			"regular file path is allowed (the counters file is never "
			"written through a link)\n", path);
		ret = 1;
	} else if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		log_err("flagcheck: flagcheck_stats=%s is a directory: a file "
			"path is allowed (one JSON line per job)\n", path);
		ret = 1;
	} else if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		log_err("flagcheck: flagcheck_stats=%s is %s: a regular file "
			"or a new one is allowed (a device would be "
			"overwritten)\n", path, fc_file_kind(st.st_mode));
		ret = 1;
	} else if (access(dir, W_OK | X_OK)) {
		log_err("flagcheck: flagcheck_stats=%s: cannot create files in "
			"%s: %s\n", path, dir, strerror(errno));
		ret = 1;
	}
	free(copy);
	return ret;
}

/*
 * Kept in the options, which fio copies whole to every job. Checked while
 * parsing, before any job starts, rather than at job end. An empty value
 * (a job file's ${FLAGCHECK_STATS} left unset) means no counters file.
 */
static int str_stats_cb(void *data, const char *str)
{
	struct flagcheck_options *o = data;

	if (!str || !*str) {
		o->stats[0] = '\0';
		return 0;
	}
	if (strlen(str) >= sizeof(o->stats)) {
		log_err("flagcheck: flagcheck_stats=%.64s...: the path is longer "
			"than %zu bytes\n", str, sizeof(o->stats) - 1);
		return 1;
	}
	if (fc_stats_path_refused(str))
		return 1;
	strcpy(o->stats, str);
	return 0;
}

/*
 * model='s and backend='s help: their lists are the registries', which are
 * complete at load (fc_options_load() appends them)
 */
static char model_help[512] = "The kernel hot path run before each I/O "
			      "(default: the first):";
static char backend_help[512] = "What does the I/O after the modelled check "
				"(default: the first; all but null on real "
				"files or devices):";

/* The glue's own options; the models' follow, added at load. */
struct fio_option fc_options[FC_GLUE_OPTS + FC_MAX_MODEL_OPTS + 1] = {
	[FC_OPT_MODEL] = {
		.name	= "model",
		.lname	= "Modelled kernel path",
		.type	= FIO_OPT_STR,
		.cb	= str_model_cb,
		.help	= model_help,
		/* no .def: not given, the first model (o->model 0); and
		 * parsed first in a section, before the model's options */
		.prio	= 1,
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	[FC_OPT_MAPPING] = {
		.name	= "mapping",
		.lname	= "Mapping sharing",
		.type	= FIO_OPT_STR,
		.cb	= str_mapping_cb,
		.help	= "shared: one model state (mapping) per file name for the "
			  "whole run; private: one per job and file (the "
			  "no-sharing control)",
		.def	= "shared",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	[FC_OPT_BACKEND] = {
		.name	= "backend",
		.lname	= "I/O backend",
		.type	= FIO_OPT_STR,
		.cb	= str_backend_cb,
		.help	= backend_help,
		.def	= "null",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	[FC_OPT_STATS] = {
		.name	= "flagcheck_stats",
		.lname	= "Counters file",
		.type	= FIO_OPT_STR,
		.cb	= str_stats_cb,
		.help	= "Write each job's counters as one JSON line to this file "
			  "(empty: none)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
};

/* backend='s help: each of fc_backends[] with its own */
static void fc_backend_help(char *help, size_t len)
{
	int i;

	for (i = 0; fc_backends[i]; i++)
		snprintf(help + strlen(help), len - strlen(help),
			 "%s %s: %s", i ? ";" : "", fc_backends[i]->name,
			 fc_backends[i]->help);
}

/* model='s help: the names of fc_models[] */
static void fc_model_help(char *help, size_t len)
{
	int i;

	for (i = 0; fc_models[i]; i++)
		snprintf(help + strlen(help), len - strlen(help),
			 "%s %s", i ? ";" : "", fc_models[i]->name);
}

/*
 * No silent limits: a model the glue's tables cannot hold stops the load;
 * so do two models that mean different things by one option name.
 */
static int fc_check_models(void)
{
	char msg[512];
	int i;

	if (fc_models_refused()) {
		log_err("flagcheck: more than %d models (FC_MAX_MODELS): the "
			"engine cannot be loaded\n", FC_MAX_MODELS);
		return 1;
	}
	for (i = 0; fc_models[i]; i++) {
		if (fc_models[i]->params_size > FC_MAX_PARAMS) {
			log_err("flagcheck: model %s has %zu bytes of params, "
				"more than FC_MAX_PARAMS (%d): the engine "
				"cannot be loaded\n", fc_models[i]->name,
				fc_models[i]->params_size, FC_MAX_PARAMS);
			return 1;
		}
	}
	if (fc_backends_refused()) {
		log_err("flagcheck: more than %d backends (FC_MAX_BACKENDS): "
			"the engine cannot be loaded\n", FC_MAX_BACKENDS);
		return 1;
	}
	if (fc_models_agree(fc_models, msg, sizeof(msg))) {
		log_err("flagcheck: %s: the engine cannot be loaded\n", msg);
		return 1;
	}
	return 0;
}

int fc_options_load(void)
{
	if (fc_check_models())
		return 1;
	fc_model_help(model_help, sizeof(model_help));
	fc_backend_help(backend_help, sizeof(backend_help));
	return fc_add_model_options(&fc_options[FC_GLUE_OPTS]);
}
