// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck: a fio ioengine that runs a model of a kernel hot path on a
 * flags word shared by every job before each I/O, in the kernel's old
 * "always RMW" form or its "test first" form, and then does the I/O through
 * a backend.
 *
 *   fio --ioengine=external:fio-flagcheck.so --flag_check=always ...
 *
 * Data flows one way: fio hook -> model (model.h) -> backend (backend.h) ->
 * completion. This file is the fio glue: options, hooks, the ops table.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

#include "fio.h"
#include "optgroup.h"

#include "backend.h"
#include "model.h"
#include "shm.h"
#include "stats.h"

#ifndef FLAGCHECK_FIO_VERSION
#error "FLAGCHECK_FIO_VERSION (the version of the fio headers) must be defined"
#endif

#define FC_EXPORT __attribute__((visibility("default")))

enum { FC_MAPPING_SHARED = 0, FC_MAPPING_PRIVATE };

static const char *const mapping_names[] = {
	[FC_MAPPING_SHARED] = "shared", [FC_MAPPING_PRIVATE] = "private", NULL };

/* Indexed by the backend option's value. */
static const struct fc_backend *const backends[] = {
	&fc_backend_null, &fc_backend_psync, &fc_backend_libaio,
	&fc_backend_io_uring,
};
static const char *const backend_names[] = {
	"null", "psync", "libaio", "io_uring", NULL };

/* Model options of every model, one slot per distinct name. */
#define FC_MAX_MODEL_OPTS	24
/* ... of which strings (their values live in the job's options) */
#define FC_MAX_MODEL_STRS	2
/* Models, and the bytes of one model's params (checked at load) */
#define FC_MAX_MODELS		16
#define FC_MAX_PARAMS		256

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
};

/*
 * Per file of a job: the model's state, shared or this job's own. Every one
 * a job makes is on its job's list and freed when the job ends: fio frees a
 * job's files before it calls the engine's cleanup, so they cannot be found
 * through the files then. A file closed and opened again keeps its state,
 * as an inode keeps its page cache across close().
 */
struct flagcheck_file {
	void *state;
	int private_state;
	struct flagcheck_file *next;
};

struct flagcheck_data {
	const struct fc_model *model;
	const struct fc_backend *backend;
	void *backend_data;
	void *params;		/* the model's, built from the options */
	void *job;		/* the model's memory of this job (job_size) */
	struct flagcheck_file *files;	/* every file state made by this job */
	bool ready;		/* init completed: the job has counters to report */
	uint64_t clock_ns;	/* what two back-to-back clock reads cost */
	struct fc_counters c;
};

/*
 * The slot table is made once, at load, from the models' option tables,
 * before fio parses a job or forks one: read-only afterwards, the same in
 * every job process and thread.
 */
static const struct fc_model_option *slot_opt[FC_MAX_MODEL_OPTS];
static unsigned int nr_slots, nr_strs;
static unsigned int str_index[FC_MAX_MODEL_OPTS];	/* a string slot's strs[] */

static int slot_of(const char *name)
{
	unsigned int i;

	for (i = 0; i < nr_slots; i++)
		if (!strcmp(slot_opt[i]->name, name))
			return i;
	return -1;
}

/* The model's params from the parsed option values. */
static void fc_model_params(const struct fc_model *m,
			    const struct flagcheck_options *o, void *params)
{
	const struct fc_model_option *mo;

	for (mo = m->options; mo && mo->name; mo++) {
		int slot = slot_of(mo->name);

		if (mo->is_string)
			*(const char **)((char *)params + mo->offset) =
				o->strs[str_index[slot]];
		else
			*(unsigned int *)((char *)params + mo->offset) =
				o->vals[slot];
	}
}

static void fc_list(char *buf, size_t len, const char *const *names)
{
	int i;

	buf[0] = '\0';
	for (i = 0; names[i]; i++) {
		if (i)
			strncat(buf, ", ", len - strlen(buf) - 1);
		strncat(buf, names[i], len - strlen(buf) - 1);
	}
}

/*
 * The string options are parsed here rather than by fio's posval table,
 * whose error in a job file names neither the bad value nor the option's
 * allowed values in one line.
 */
static int fc_parse_choice(const char *opt, const char *val,
			   const char *const *allowed, unsigned int *out)
{
	char list[256];
	int i;

	for (i = 0; allowed[i]; i++) {
		if (val && !strcmp(val, allowed[i])) {
			*out = i;
			return 0;
		}
	}
	fc_list(list, sizeof(list), allowed);
	log_err("flagcheck: %s=%s is not valid: allowed values are %s\n",
		opt, val ? val : "", list);
	return 1;
}

static int fc_parse_number(const char *opt, const char *val, unsigned int min,
			   unsigned int max, unsigned int *out)
{
	unsigned long long v = 0;
	char *end = NULL;

	errno = 0;
	if (val && *val >= '0' && *val <= '9')
		v = strtoull(val, &end, 10);
	if (!end || errno || *end || v < min || v > max) {
		log_err("flagcheck: %s=%s is not valid: a whole number from %u "
			"to %u is allowed\n", opt, val ? val : "", min, max);
		return 1;
	}
	*out = v;
	return 0;
}

static int str_model_cb(void *data, const char *str)
{
	struct flagcheck_options *o = data;
	const char *names[FC_MAX_MODELS + 1];
	int i;

	for (i = 0; fc_models[i] && i < FC_MAX_MODELS; i++)
		names[i] = fc_models[i]->name;
	names[i] = NULL;
	return fc_parse_choice("model", str, names, &o->model);
}

static int str_mapping_cb(void *data, const char *str)
{
	struct flagcheck_options *o = data;

	return fc_parse_choice("mapping", str, mapping_names, &o->mapping);
}

static int str_backend_cb(void *data, const char *str)
{
	struct flagcheck_options *o = data;
	struct thread_data *td = o->td;

	if (fc_parse_choice("backend", str, backend_names, &o->backend))
		return 1;
	/*
	 * fio decides whether to lay out files from the engine flags before
	 * any engine hook runs, so a job's flags must follow its backend now.
	 */
	if (td)
		fc_td_engine_flags(td, backends[o->backend]->fio_flags,
				   FC_BACKEND_FIO_FLAGS);
	return 0;
}

/*
 * Kept in the options, which fio copies whole to every job. Checked while
 * parsing, before any job starts, rather than at job end. An empty value
 * (a job file's ${FLAGCHECK_STATS} left unset) means no counters file.
 */
static int str_stats_cb(void *data, const char *str)
{
	struct flagcheck_options *o = data;
	char *copy, *slash;
	const char *dir = ".";
	struct stat st;
	int ret = 0;

	if (!str || !*str) {
		o->stats[0] = '\0';
		return 0;
	}
	if (strlen(str) >= sizeof(o->stats)) {
		log_err("flagcheck: flagcheck_stats=%.64s...: the path is longer "
			"than %zu bytes\n", str, sizeof(o->stats) - 1);
		return 1;
	}
	copy = strdup(str);
	if (!copy)
		return 1;
	slash = strrchr(copy, '/');
	if (slash) {
		*slash = '\0';
		dir = slash == copy ? "/" : copy;
	}
	if (!stat(str, &st) && S_ISDIR(st.st_mode)) {
		log_err("flagcheck: flagcheck_stats=%s is a directory: a file "
			"path is allowed (one JSON line per job)\n", str);
		ret = 1;
	} else if (access(dir, W_OK | X_OK)) {
		log_err("flagcheck: flagcheck_stats=%s: cannot create files in "
			"%s: %s\n", str, dir, strerror(errno));
		ret = 1;
	} else {
		strcpy(o->stats, str);
	}
	free(copy);
	return ret;
}

/*
 * A model option: parse it, then let every model that has it check it
 * against its other options (inject_every=0 with inject=eio, say), in
 * whichever order they come.
 */
static int fc_model_option_cb(unsigned int slot, void *data, const char *str)
{
	struct flagcheck_options *o = data;
	const struct fc_model_option *mo = slot_opt[slot];
	unsigned char params[FC_MAX_PARAMS] __attribute__((aligned(16)));
	char msg[512];
	int i, err;

	if (mo->is_string) {
		/* kept in the options, which fio copies whole to every job */
		err = strlen(str ? str : "") >= FC_MODEL_STR_LEN;
		if (err)
			log_err("flagcheck: %s is longer than %d bytes\n",
				mo->name, FC_MODEL_STR_LEN - 1);
		else
			strcpy(o->strs[str_index[slot]], str ? str : "");
	} else if (mo->choices)
		err = fc_parse_choice(mo->name, str, mo->choices, &o->vals[slot]);
	else
		err = fc_parse_number(mo->name, str, mo->min, mo->max,
				      &o->vals[slot]);
	if (err || o->check_failed)
		return err;

	for (i = 0; fc_models[i]; i++) {
		const struct fc_model *m = fc_models[i];

		if (!m->check)	/* params_size checked at load */
			continue;
		fc_model_params(m, o, params);
		if (m->check(params, msg, sizeof(msg))) {
			log_err("flagcheck: %s\n", msg);
			o->check_failed = 1;
			return 1;
		}
	}
	return 0;
}

/* fio's option callbacks get no option: one small trampoline per slot */
#define FC_SLOT_CB(n)							\
static int fc_slot_cb_##n(void *data, const char *str)			\
{									\
	return fc_model_option_cb(n, data, str);			\
}
FC_SLOT_CB(0) FC_SLOT_CB(1) FC_SLOT_CB(2) FC_SLOT_CB(3)
FC_SLOT_CB(4) FC_SLOT_CB(5) FC_SLOT_CB(6) FC_SLOT_CB(7)
FC_SLOT_CB(8) FC_SLOT_CB(9) FC_SLOT_CB(10) FC_SLOT_CB(11)
FC_SLOT_CB(12) FC_SLOT_CB(13) FC_SLOT_CB(14) FC_SLOT_CB(15)
FC_SLOT_CB(16) FC_SLOT_CB(17) FC_SLOT_CB(18) FC_SLOT_CB(19)
FC_SLOT_CB(20) FC_SLOT_CB(21) FC_SLOT_CB(22) FC_SLOT_CB(23)

static int (*const slot_cb[FC_MAX_MODEL_OPTS])(void *, const char *) = {
	fc_slot_cb_0, fc_slot_cb_1, fc_slot_cb_2, fc_slot_cb_3,
	fc_slot_cb_4, fc_slot_cb_5, fc_slot_cb_6, fc_slot_cb_7,
	fc_slot_cb_8, fc_slot_cb_9, fc_slot_cb_10, fc_slot_cb_11,
	fc_slot_cb_12, fc_slot_cb_13, fc_slot_cb_14, fc_slot_cb_15,
	fc_slot_cb_16, fc_slot_cb_17, fc_slot_cb_18, fc_slot_cb_19,
	fc_slot_cb_20, fc_slot_cb_21, fc_slot_cb_22, fc_slot_cb_23,
};

#define FC_GLUE_OPTS	4

/* The glue's own options; the models' follow, added at load. */
static struct fio_option options[FC_GLUE_OPTS + FC_MAX_MODEL_OPTS + 1] = {
	{
		.name	= "model",
		.lname	= "Modelled kernel path",
		.type	= FIO_OPT_STR,
		.cb	= str_model_cb,
		.help	= "The kernel hot path run before each I/O (the list is "
			  "filled in at load)",
		.def	= "filemap_check_errors",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
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
	{
		.name	= "backend",
		.lname	= "I/O backend",
		.type	= FIO_OPT_STR,
		.cb	= str_backend_cb,
		.help	= "What does the I/O after the modelled check: null (no "
			  "data transfer, like fio's null engine), psync "
			  "(pread/pwrite), libaio (io_submit), io_uring "
			  "(liburing); all but null on real files or devices",
		.def	= "null",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
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

/* The models' options become fio options, one per distinct name. */
static int fc_add_model_options(void)
{
	static char model_help[512] = "The kernel hot path run before each I/O:";
	int i;

	for (i = 0; fc_models[i]; i++)
		snprintf(model_help + strlen(model_help),
			 sizeof(model_help) - strlen(model_help), "%s %s",
			 i ? "," : "", fc_models[i]->name);
	options[0].help = model_help;

	for (i = 0; fc_models[i]; i++) {
		const struct fc_model_option *mo;

		for (mo = fc_models[i]->options; mo && mo->name; mo++) {
			struct fio_option *fo;

			if (slot_of(mo->name) >= 0)
				continue;
			if (nr_slots == FC_MAX_MODEL_OPTS) {
				log_err("flagcheck: the models have more than %d "
					"options (FC_MAX_MODEL_OPTS): the engine "
					"cannot be loaded\n", FC_MAX_MODEL_OPTS);
				return 1;
			}
			if (mo->is_string && nr_strs == FC_MAX_MODEL_STRS) {
				log_err("flagcheck: the models have more than %d "
					"string options (FC_MAX_MODEL_STRS): the "
					"engine cannot be loaded\n",
					FC_MAX_MODEL_STRS);
				return 1;
			}
			fo = &options[FC_GLUE_OPTS + nr_slots];
			fo->name = mo->name;
			fo->lname = mo->name;
			fo->type = FIO_OPT_STR;
			fo->cb = slot_cb[nr_slots];
			fo->help = mo->help;
			fo->def = mo->def;
			fo->category = FIO_OPT_C_ENGINE;
			fo->group = FIO_OPT_G_INVALID;
			if (mo->is_string) {	/* not given: "" */
				fo->def = NULL;
				str_index[nr_slots] = nr_strs++;
			}
			slot_opt[nr_slots++] = mo;
		}
	}
	return 0;
}

/* No silent limits: a model the glue's tables cannot hold stops the load. */
static int fc_check_models(void)
{
	int i;

	for (i = 0; fc_models[i]; i++) {
		if (i == FC_MAX_MODELS) {
			log_err("flagcheck: more than %d models "
				"(FC_MAX_MODELS): the engine cannot be "
				"loaded\n", FC_MAX_MODELS);
			return 1;
		}
		if (fc_models[i]->params_size > FC_MAX_PARAMS) {
			log_err("flagcheck: model %s has %zu bytes of params, "
				"more than FC_MAX_PARAMS (%d): the engine "
				"cannot be loaded\n", fc_models[i]->name,
				fc_models[i]->params_size, FC_MAX_PARAMS);
			return 1;
		}
	}
	return 0;
}

FC_EXPORT struct ioengine_ops ioengine;

/*
 * The run's fio process, recorded at load (fio loads the engine while it
 * parses, before it forks a job): set once, the same in every job.
 */
static pid_t fc_run_pid;

/* fio exports this (it links with -rdynamic); weak so an fio without it
 * gets our message rather than a dlopen failure. */
extern const char fio_version_string[] __attribute__((weak));

/*
 * fio's structs change with its version and configuration, and
 * FIO_IOOPS_VERSION does not catch all of it: refuse to run under another
 * fio than the one whose headers we were built with. fio then rejects the
 * engine ("bad ioops version") before any job starts.
 */
__attribute__((constructor))
static void fio_flagcheck_load(void)
{
	const char *running = fio_version_string ? fio_version_string :
			      "an fio that does not export fio_version_string";

	fc_run_pid = getpid();
	if (fc_check_models() || fc_add_model_options()) {
		ioengine.version = -1;	/* fio refuses the engine */
		return;
	}
	if (!strcmp(running, FLAGCHECK_FIO_VERSION))
		return;
	log_err("flagcheck: built against the headers of %s but loaded by %s; "
		"rebuild the engine against this fio's source "
		"(make FIO_SRC=/path/to/its/source)\n",
		FLAGCHECK_FIO_VERSION, running);
	ioengine.version = -1;
}

/* The model's options as a JSON object, for the stats file: malloc'd */
static char *fc_options_json(const struct fc_model *m,
			     const struct flagcheck_options *o)
{
	const struct fc_model_option *mo;
	char *buf = NULL, *str;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	fputc('{', out);
	for (mo = m->options; mo && mo->name; mo++) {
		int slot = slot_of(mo->name);
		unsigned int v = o->vals[slot];

		fprintf(out, "%s\"%s\": ", mo == m->options ? "" : ", ",
			mo->name);
		if (mo->is_string) {
			str = fc_json_str(o->strs[str_index[slot]]);
			fputs(str ? str : "\"\"", out);
			free(str);
		} else if (mo->choices)
			fprintf(out, "\"%s\"", mo->choices[v]);
		else
			fprintf(out, "%u", v);
	}
	fputc('}', out);
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void fc_stats_job_of(struct thread_data *td, struct flagcheck_options *o,
			    const struct flagcheck_data *jd,
			    struct fc_stats_job *j, const char *opts)
{
	const struct fc_model_option *mo;

	j->job = td->o.name;
	j->thread_number = td->thread_number;
	j->pid = (int)getpid();
	j->model = jd->model->name;
	j->variant_option = NULL;
	j->variant = fc_variant_names[FC_ALWAYS];
	for (mo = jd->model->options; mo && mo->name; mo++)
		if (mo->is_variant) {	/* by the model's own names */
			j->variant_option = mo->name;
			j->variant = mo->choices[o->vals[slot_of(mo->name)]];
		}
	j->mapping = mapping_names[o->mapping];
	j->backend = jd->backend->name;
	j->options = opts;
	j->paths = jd->model->paths;
	j->stats = jd->model->stats;
}

static int fc_file_attach(struct thread_data *td, struct flagcheck_data *jd,
			  struct fio_file *f);

/*
 * The key of a counters file in the run's arena: its real path, so that two
 * spellings of one file (s.jsonl, ./s.jsonl) are one file whose first job
 * alone starts it afresh. The file exists by now (created, not truncated).
 */
static int fc_stats_key(const char *path, char *key, size_t len)
{
	char *real = realpath(path, NULL);

	if (!real)
		return -errno;
	snprintf(key, len, "stats:%s", real);
	free(real);
	return 0;
}

static inline uint64_t fc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The least of many back-to-back clock read pairs: the timing's own cost */
static uint64_t fc_clock_cost_ns(void)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 1000; i++) {
		uint64_t t0 = fc_now_ns(), dt = fc_now_ns() - t0;

		if (dt < best)
			best = dt;
	}
	return best;
}

static int fio_flagcheck_init(struct thread_data *td)
{
	struct flagcheck_options *o = td->eo;
	struct flagcheck_data *jd;
	struct fio_file *f;
	unsigned int i;
	int err;

	/* our ops table as fio sees it: a cheap guard against a layout skew */
	if (td->io_ops != &ioengine) {
		log_err("flagcheck: fio's thread_data does not match the headers "
			"of %s this engine was built with\n",
			FLAGCHECK_FIO_VERSION);
		return 1;
	}
	/*
	 * Offload: fio's submit workers each load the engine again, with a
	 * thread_data of their own, so the model's per-job memory and counters
	 * would be split over workers that report nothing of their own.
	 */
	if (td->o.io_submit_mode == IO_MODE_OFFLOAD) {
		log_err("flagcheck: io_submit_mode=offload is not supported: fio's "
			"offload workers each load their own copy of the engine, "
			"which would split the job's model memory and counters; "
			"allowed: io_submit_mode=inline (the default)\n");
		td_verror(td, EINVAL, "io_submit_mode");
		return 1;
	}
	if (o->mapping == FC_MAPPING_SHARED && fc_shm_error()) {
		log_err("flagcheck: mapping=shared needs the run's shared memory, "
			"which could not be made at load: %s\n",
			strerror(fc_shm_error()));
		td_verror(td, fc_shm_error(), "mmap");
		return 1;
	}

	jd = calloc(1, sizeof(*jd));
	if (!jd) {
		td_verror(td, ENOMEM, "calloc");
		return 1;
	}
	td->io_ops_data = jd;
	jd->model = fc_models[o->model];
	jd->backend = backends[o->backend];
	jd->params = calloc(1, jd->model->params_size ?: 1);
	if (!jd->params) {
		td_verror(td, ENOMEM, "calloc");
		return 1;
	}
	fc_model_params(jd->model, o, jd->params);
	if (jd->model->job_size) {
		jd->job = calloc(1, jd->model->job_size);
		if (!jd->job) {
			td_verror(td, ENOMEM, "calloc");
			return 1;
		}
		err = jd->model->job_init ?
			jd->model->job_init(jd->job, jd->params) : 0;
		if (err) {
			log_err("flagcheck: %s: %s\n", jd->model->name,
				strerror(-err));
			td_verror(td, -err, jd->model->name);
			free(jd->job);
			jd->job = NULL;
			return 1;
		}
	}

	/*
	 * Every file's model state now, before any I/O: a file the arena or
	 * memory cannot hold fails the job here, with one message, rather
	 * than an open in the middle of the run. Files fio has not sized yet
	 * (create_serialize=0 sizes them after init) get theirs when opened.
	 */
	for_each_file(td, f, i) {
		if (f->real_file_size == -1ULL && !f->io_size)
			continue;
		err = fc_file_attach(td, jd, f);
		if (err) {
			td_verror(td, err, "flagcheck model state");
			return 1;
		}
	}

	if (o->stats[0]) {
		bool first = false;
		char key[PATH_MAX + 16];

		err = fc_stats_prepare(o->stats, 0);
		if (!err)
			err = fc_stats_key(o->stats, key, sizeof(key));
		/* the first job of the run to get here starts the file afresh */
		if (!err && !fc_shm_error() && fc_shm_get(key, 1, &first) &&
		    first)
			err = fc_stats_prepare(o->stats, 1);
		if (err) {
			log_err("flagcheck: flagcheck_stats=%s cannot be written: %s\n",
				o->stats, strerror(-err));
			td_verror(td, -err, "flagcheck_stats");
			return 1;
		}
	}

	fc_td_engine_flags(td, jd->backend->fio_flags, FC_BACKEND_FIO_FLAGS);
	err = jd->backend->init(td, &jd->c, &jd->backend_data);
	if (err) {
		td_verror(td, err, jd->backend->name);
		return 1;
	}
	jd->clock_ns = fc_clock_cost_ns();
	jd->ready = true;
	return 0;
}

/* A job process whose fio has gone (killed): its run has no result. */
static bool fc_run_is_gone(void)
{
	return getpid() != fc_run_pid && getppid() != fc_run_pid;
}

static void fc_report(struct thread_data *td, struct flagcheck_options *o,
		      struct flagcheck_data *jd)
{
	struct fc_stats_job j;
	char *opts, *line;
	int err;

	opts = fc_options_json(jd->model, o);
	fc_stats_job_of(td, o, jd, &j, opts);
	/* only beside fio's text output: never inside its JSON or terse */
	if (output_format & FIO_OUTPUT_NORMAL) {
		line = fc_stats_text(&j, &jd->c);
		if (line)
			log_info("%s\n", line);
		free(line);
	}
	if (o->stats[0]) {
		if (fc_run_is_gone()) {
			log_err("flagcheck: fio (pid %d) is gone: job %s writes "
				"no counters to %s\n", (int)fc_run_pid,
				td->o.name, o->stats);
		} else {
			err = opts ? fc_stats_append(o->stats, &j, &jd->c) :
				     -ENOMEM;
			if (err) {
				/* the job fails: fio exits non-zero */
				log_err("flagcheck: writing the counters of job "
					"%s to flagcheck_stats=%s: %s (nothing "
					"of this job's line was kept)\n",
					td->o.name, o->stats, strerror(-err));
				td_verror(td, -err, "flagcheck_stats");
			}
		}
	}
	free(opts);
}

static void fio_flagcheck_cleanup(struct thread_data *td)
{
	struct flagcheck_options *o = td->eo;
	struct flagcheck_data *jd = td->io_ops_data;
	struct flagcheck_file *ff, *next;
	struct fio_file *f;
	unsigned int i;

	if (!jd)
		return;

	/* a job whose init failed did nothing: it reports nothing */
	if (jd->ready)
		fc_report(td, o, jd);

	/* files fio has not freed yet: forget our data before freeing it */
	for_each_file(td, f, i)
		FILE_SET_ENG_DATA(f, NULL);
	for (ff = jd->files; ff; ff = next) {
		next = ff->next;
		if (ff->private_state)
			free(ff->state);
		free(ff);
	}
	if (jd->backend_data)
		jd->backend->cleanup(td, jd->backend_data);
	if (jd->job && jd->model->job_exit)
		jd->model->job_exit(jd->job, jd->params);
	free(jd->job);
	free(jd->params);
	free(jd);
	td->io_ops_data = NULL;
}

/*
 * The model's state for a file: one per file name for the whole run
 * (mapping=shared, as one inode has one address_space), or this job's own.
 */
static int fc_file_attach(struct thread_data *td, struct flagcheck_data *jd,
			  struct fio_file *f)
{
	struct flagcheck_options *o = td->eo;
	/*
	 * The model's state covers the range the job addresses, not the whole
	 * device: a model with per-page state on a large device needs only
	 * what size= and offset= reach.
	 */
	unsigned long long file_size = f->io_size ?
		f->file_offset + f->io_size : f->real_file_size;
	size_t size = jd->model->state_size(jd->params, file_size);
	struct flagcheck_file *ff;

	if (FILE_ENG_DATA(f))
		return 0;
	ff = calloc(1, sizeof(*ff));
	if (!ff)
		return ENOMEM;

	errno = 0;
	if (o->mapping == FC_MAPPING_SHARED) {
		char key[PATH_MAX + 64];
		bool created;

		snprintf(key, sizeof(key), "%s:%s", jd->model->name,
			 f->file_name);
		ff->state = fc_shm_get(key, size, &created);
	} else {
		size = (size + FC_SHM_ALIGN - 1) & ~(size_t)(FC_SHM_ALIGN - 1);
		ff->state = aligned_alloc(FC_SHM_ALIGN, size);
		if (ff->state)
			memset(ff->state, 0, size);
		ff->private_state = 1;
	}
	if (!ff->state) {
		int err = errno ? errno : ENOMEM;

		log_err("flagcheck: %s needs %zu bytes of %s state for %s (its "
			"first %llu bytes): %s%s\n", jd->model->name, size,
			ff->private_state ? "private" : "shared", f->file_name,
			file_size, strerror(err), err == EINVAL ?
			" (another job on this file made it for a smaller range: "
			"give every job on one file the same size and offset)" :
			err == ENOMEM ? " (give a smaller size= to address less of "
			"the file)" : err == ENOSPC ? " (the run's arena holds "
			"no more names: fewer files per run)" : "");
		free(ff);
		return err;
	}
	ff->next = jd->files;
	jd->files = ff;
	FILE_SET_ENG_DATA(f, ff);
	return 0;
}

/*
 * fio sizes and lays out a job's files in the parent, before the job's
 * init: then there is no job data yet, and the backend opens the file alone.
 */
static const struct fc_backend *fc_backend_of(struct thread_data *td)
{
	struct flagcheck_options *o = td->eo;

	return backends[o->backend];
}

static int fio_flagcheck_open_file(struct thread_data *td, struct fio_file *f)
{
	struct flagcheck_data *jd = td->io_ops_data;
	int err;

	if (!jd)
		return fc_backend_of(td)->open_file(td, NULL, f);
	err = fc_file_attach(td, jd, f);
	if (err) {
		td_verror(td, err, "flagcheck open_file");
		return 1;
	}
	return jd->backend->open_file(td, jd->backend_data, f);
}

static int fio_flagcheck_close_file(struct thread_data *td, struct fio_file *f)
{
	struct flagcheck_data *jd = td->io_ops_data;

	if (!jd)
		return fc_backend_of(td)->close_file(td, NULL, f);
	return jd->backend->close_file(td, jd->backend_data, f);
}

static int fio_flagcheck_get_file_size(struct thread_data *td,
				       struct fio_file *f)
{
	struct flagcheck_data *jd = td->io_ops_data;
	const struct fc_backend *b = fc_backend_of(td);

	if (!b->get_file_size)
		return 0;
	return b->get_file_size(td, jd ? jd->backend_data : NULL, f);
}

/*
 * A backend given in a job file's [global] section reaches each job in the
 * copied options, without str_backend_cb: fio has since set the job's
 * engine flags back to the ops table's (the null backend's) and marked its
 * files diskless. fio calls ->setup, in place of sizing the files itself,
 * before it decides which files to lay out: the flags and sizes are put
 * right here, and the files sized as fio's get_file_sizes() does.
 */
static int fio_flagcheck_setup(struct thread_data *td)
{
	struct flagcheck_data *jd = td->io_ops_data;	/* create_serialize=0 */
	const struct fc_backend *b = fc_backend_of(td);
	struct fio_file *f;
	unsigned int i;

	fc_td_engine_flags(td, b->fio_flags, FC_BACKEND_FIO_FLAGS);
	for_each_file(td, f, i) {
		/* -1: marked diskless when added, not sized yet */
		if (!(b->fio_flags & FIO_DISKLESSIO) &&
		    f->real_file_size == -1ULL)
			f->real_file_size = 0;
		if (b->get_file_size &&
		    b->get_file_size(td, jd ? jd->backend_data : NULL, f)) {
			if (td->error != ENOENT) {
				log_err("%s\n", td->verror);
				return 1;
			}
			td_clear_error(td);
		}
		if (f->real_file_size == -1ULL && td->o.size)
			f->real_file_size = td->o.size / td->o.nr_files;
	}
	return 0;
}

static enum fc_ddir fc_ddir_of(const struct io_u *io_u)
{
	if (io_u->ddir == DDIR_READ)
		return FC_READ;
	if (io_u->ddir == DDIR_WRITE)
		return FC_WRITE;
	return FC_OTHER;
}

/*
 * The model runs exactly once for each I/O fio counts (its total_ios), by
 * construction: a backend that cannot take the I/O now says so before the
 * model runs (->busy), and fio queues the same I/O again later, which is
 * then the one that runs the model. fio counts an I/O for every queue call
 * that does not answer FIO_Q_BUSY, a resubmitted short transfer too (the
 * kernel runs the path again for it as well): so do we. A backend's ->queue
 * never answers FIO_Q_BUSY once the model has run for the I/O.
 */
static enum fio_q_status fio_flagcheck_queue(struct thread_data *td,
					     struct io_u *io_u)
{
	struct flagcheck_data *jd = td->io_ops_data;
	struct flagcheck_file *ff = FILE_ENG_DATA(io_u->file);
	struct fc_io io = {
		.ddir	= fc_ddir_of(io_u),
		.offset	= io_u->offset,
		.len	= io_u->xfer_buflen,
		.job	= jd->job,
	};
	enum fio_q_status ret;
	uint64_t t0 = 0;
	bool timed;
	int err;

	fio_ro_check(td, io_u);

	if (jd->backend->busy && jd->backend->busy(jd->backend_data))
		return FIO_Q_BUSY;

	timed = fc_counters_ios(&jd->c) % FC_TIMED_EVERY == 0;
	jd->c.ios[io.ddir]++;
	if (timed)
		t0 = fc_now_ns();
	err = jd->model->io(ff->state, jd->params, &io, &jd->c);
	if (timed) {
		uint64_t dt = fc_now_ns() - t0;

		/* the clock's own cost is not the model's */
		jd->c.timed_ns += dt > jd->clock_ns ? dt - jd->clock_ns : 0;
		jd->c.timed_calls++;
	}
	if (err) {
		/* as the kernel returns before ->direct_IO: nothing is issued */
		jd->c.errors_reported++;
		io_u->error = -err;
		return FIO_Q_COMPLETED;
	}
	ret = jd->backend->queue(td, jd->backend_data, io_u);
	if (ret == FIO_Q_BUSY) {
		/* a backend bug: requeued, the I/O would run the model twice */
		log_err("flagcheck: backend=%s refused an I/O after the model "
			"ran for it (its ->busy did not say so): failing the "
			"I/O rather than counting it twice\n",
			jd->backend->name);
		io_u->error = EIO;
		return FIO_Q_COMPLETED;
	}
	return ret;
}

static int fio_flagcheck_commit(struct thread_data *td)
{
	struct flagcheck_data *jd = td->io_ops_data;

	return jd->backend->commit(td, jd->backend_data);
}

static int fio_flagcheck_getevents(struct thread_data *td, unsigned int min,
				   unsigned int max, const struct timespec *t)
{
	struct flagcheck_data *jd = td->io_ops_data;

	return jd->backend->getevents(td, jd->backend_data, min, max, t);
}

static struct io_u *fio_flagcheck_event(struct thread_data *td, int ev)
{
	struct flagcheck_data *jd = td->io_ops_data;

	return jd->backend->event(td, jd->backend_data, ev);
}

struct ioengine_ops ioengine = {
	.name			= "flagcheck",
	.version		= FIO_IOOPS_VERSION,
	/* the default backend's (null); a job's own follow its backend */
	.flags			= FIO_DISKLESSIO | FIO_FAKEIO,
	.init			= fio_flagcheck_init,
	.cleanup		= fio_flagcheck_cleanup,
	.setup			= fio_flagcheck_setup,
	.queue			= fio_flagcheck_queue,
	.commit			= fio_flagcheck_commit,
	.getevents		= fio_flagcheck_getevents,
	.event			= fio_flagcheck_event,
	.open_file		= fio_flagcheck_open_file,
	.close_file		= fio_flagcheck_close_file,
	.get_file_size		= fio_flagcheck_get_file_size,
	.option_struct_size	= sizeof(struct flagcheck_options),
	.options		= options,
};
