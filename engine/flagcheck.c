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

struct flagcheck_options {
	void *pad;	/* fio: offset 0 means "no option"; holds td while parsing */
	unsigned int model;
	unsigned int mapping;
	unsigned int backend;
	char *stats;
	unsigned int vals[FC_MAX_MODEL_OPTS];	/* model options, by slot */
	char strs[FC_MAX_MODEL_STRS][FC_MODEL_STR_LEN];	/* string options */
};

/* Per file of a job: the model's state, shared or this job's own. */
struct flagcheck_file {
	void *state;
	int private_state;
};

struct flagcheck_data {
	const struct fc_model *model;
	const struct fc_backend *backend;
	void *backend_data;
	void *params;		/* the model's, built from the options */
	void *job;		/* the model's memory of this job (job_size) */
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
	const char *names[16];
	int i;

	for (i = 0; fc_models[i] && i < 15; i++)
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
	struct thread_data *td = o->pad;

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

/* Caught while parsing, before any job starts, rather than at job end. */
static int str_stats_cb(void fio_unused *data, const char *str)
{
	char *copy = strdup(str), *slash;
	const char *dir = ".";
	struct stat st;
	int ret = 0;

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
	unsigned char params[256] __attribute__((aligned(16)));
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
	if (err)
		return err;

	for (i = 0; fc_models[i]; i++) {
		const struct fc_model *m = fc_models[i];

		if (!m->check || m->params_size > sizeof(params))
			continue;
		fc_model_params(m, o, params);
		if (m->check(params, msg, sizeof(msg))) {
			log_err("flagcheck: %s\n", msg);
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
		.type	= FIO_OPT_STR_STORE,
		.off1	= offsetof(struct flagcheck_options, stats),
		.cb	= str_stats_cb,
		.help	= "Write each job's counters as one JSON line to this file",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
};

/* The models' options become fio options, one per distinct name. */
static void fc_add_model_options(void)
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
				log_err("flagcheck: more than %d model options\n",
					FC_MAX_MODEL_OPTS);
				return;
			}
			if (mo->is_string && nr_strs == FC_MAX_MODEL_STRS) {
				log_err("flagcheck: more than %d string model "
					"options\n", FC_MAX_MODEL_STRS);
				return;
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
}

FC_EXPORT struct ioengine_ops ioengine;

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

	fc_add_model_options();
	if (!strcmp(running, FLAGCHECK_FIO_VERSION))
		return;
	log_err("flagcheck: built against the headers of %s but loaded by %s; "
		"rebuild the engine against this fio's source "
		"(make FIO_SRC=/path/to/its/source)\n",
		FLAGCHECK_FIO_VERSION, running);
	ioengine.version = -1;
}

/* The model's options as a JSON object, for the stats file */
static void fc_options_json(const struct fc_model *m,
			    const struct flagcheck_options *o, char *buf,
			    size_t len)
{
	const struct fc_model_option *mo;
	size_t pos = 0;

	pos += snprintf(buf, len, "{");
	for (mo = m->options; mo && mo->name && pos < len; mo++) {
		int slot = slot_of(mo->name);
		unsigned int v = o->vals[slot];

		if (mo->is_string) {
			char str[2 * FC_MODEL_STR_LEN];

			fc_json_str(str, sizeof(str), o->strs[str_index[slot]]);
			pos += snprintf(buf + pos, len - pos, "%s\"%s\": %s",
					mo == m->options ? "" : ", ", mo->name,
					str);
		} else if (mo->choices)
			pos += snprintf(buf + pos, len - pos, "%s\"%s\": \"%s\"",
					mo == m->options ? "" : ", ", mo->name,
					mo->choices[v]);
		else
			pos += snprintf(buf + pos, len - pos, "%s\"%s\": %u",
					mo == m->options ? "" : ", ", mo->name, v);
	}
	if (pos < len)
		snprintf(buf + pos, len - pos, "}");
}

static void fc_stats_job_of(struct thread_data *td, struct flagcheck_options *o,
			    const struct flagcheck_data *fd,
			    struct fc_stats_job *j, char *opts, size_t len)
{
	const struct fc_model_option *mo;

	j->job = td->o.name;
	j->thread_number = td->thread_number;
	j->pid = (int)getpid();
	j->model = fd->model->name;
	j->variant_option = NULL;
	j->variant = fc_variant_names[FC_ALWAYS];
	for (mo = fd->model->options; mo && mo->name; mo++)
		if (mo->is_variant) {	/* by the model's own names */
			j->variant_option = mo->name;
			j->variant = mo->choices[o->vals[slot_of(mo->name)]];
		}
	j->mapping = mapping_names[o->mapping];
	j->backend = fd->backend->name;
	fc_options_json(fd->model, o, opts, len);
	j->options = opts;
	j->paths = fd->model->paths;
	j->stats = fd->model->stats;
}

static int fio_flagcheck_init(struct thread_data *td)
{
	struct flagcheck_options *o = td->eo;
	struct flagcheck_data *fd;
	int err;

	/* our ops table as fio sees it: a cheap guard against a layout skew */
	if (td->io_ops != &ioengine) {
		log_err("flagcheck: fio's thread_data does not match the headers "
			"of %s this engine was built with\n",
			FLAGCHECK_FIO_VERSION);
		return 1;
	}
	if (o->mapping == FC_MAPPING_SHARED && fc_shm_error()) {
		log_err("flagcheck: mapping=shared needs the run's shared memory, "
			"which could not be made at load: %s\n",
			strerror(fc_shm_error()));
		td_verror(td, fc_shm_error(), "mmap");
		return 1;
	}

	fd = calloc(1, sizeof(*fd));
	if (!fd) {
		td_verror(td, ENOMEM, "calloc");
		return 1;
	}
	td->io_ops_data = fd;
	fd->model = fc_models[o->model];
	fd->backend = backends[o->backend];
	fd->params = calloc(1, fd->model->params_size ?: 1);
	if (!fd->params) {
		td_verror(td, ENOMEM, "calloc");
		return 1;
	}
	fc_model_params(fd->model, o, fd->params);
	if (fd->model->job_size) {
		fd->job = calloc(1, fd->model->job_size);
		if (!fd->job) {
			td_verror(td, ENOMEM, "calloc");
			return 1;
		}
		err = fd->model->job_init ?
			fd->model->job_init(fd->job, fd->params) : 0;
		if (err) {
			log_err("flagcheck: %s: %s\n", fd->model->name,
				strerror(-err));
			td_verror(td, -err, fd->model->name);
			free(fd->job);
			fd->job = NULL;
			return 1;
		}
	}

	if (o->stats) {
		bool first = false;
		char key[PATH_MAX + 16];

		/* the first job of the run to get here starts the file afresh */
		snprintf(key, sizeof(key), "stats:%s", o->stats);
		if (!fc_shm_error() && !fc_shm_get(key, 1, &first))
			first = false;
		err = fc_stats_prepare(o->stats, first);
		if (err) {
			log_err("flagcheck: flagcheck_stats=%s cannot be written: %s\n",
				o->stats, strerror(-err));
			td_verror(td, -err, "flagcheck_stats");
			return 1;
		}
	}

	fc_td_engine_flags(td, fd->backend->fio_flags, FC_BACKEND_FIO_FLAGS);
	err = fd->backend->init(td, &fd->c, &fd->backend_data);
	if (err) {
		td_verror(td, err, fd->backend->name);
		return 1;
	}
	return 0;
}

static void fio_flagcheck_cleanup(struct thread_data *td)
{
	struct flagcheck_options *o = td->eo;
	struct flagcheck_data *fd = td->io_ops_data;
	struct fc_stats_job j;
	char opts[1024], line[2048];
	struct fio_file *f;
	unsigned int i;

	if (!fd)
		return;

	if (fd->params) {
		fc_stats_job_of(td, o, fd, &j, opts, sizeof(opts));
		/* only beside fio's text output: never inside its JSON or terse */
		if (output_format & FIO_OUTPUT_NORMAL) {
			fc_stats_text(line, sizeof(line), &j, &fd->c);
			log_info("%s\n", line);
		}
		if (o->stats) {
			int err = fc_stats_append(o->stats, &j, &fd->c);

			if (err)
				log_err("flagcheck: writing %s: %s\n", o->stats,
					strerror(-err));
		}
	}

	for_each_file(td, f, i) {
		struct flagcheck_file *ff = FILE_ENG_DATA(f);

		if (!ff)
			continue;
		if (ff->private_state)
			free(ff->state);
		free(ff);
		FILE_SET_ENG_DATA(f, NULL);
	}
	if (fd->backend_data)
		fd->backend->cleanup(td, fd->backend_data);
	if (fd->job && fd->model->job_exit)
		fd->model->job_exit(fd->job, fd->params);
	free(fd->job);
	free(fd->params);
	free(fd);
	td->io_ops_data = NULL;
}

/*
 * The model's state for a file: one per file name for the whole run
 * (mapping=shared, as one inode has one address_space), or this job's own.
 */
static int fc_file_attach(struct thread_data *td, struct flagcheck_data *fd,
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
	size_t size = fd->model->state_size(fd->params, file_size);
	struct flagcheck_file *ff;

	if (FILE_ENG_DATA(f))
		return 0;
	ff = calloc(1, sizeof(*ff));
	if (!ff)
		return ENOMEM;

	if (o->mapping == FC_MAPPING_SHARED) {
		char key[PATH_MAX + 64];
		bool created;

		snprintf(key, sizeof(key), "%s:%s", fd->model->name,
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
			"first %llu bytes): %s%s\n", fd->model->name, size,
			ff->private_state ? "private" : "shared", f->file_name,
			file_size, strerror(err), err == EINVAL ?
			" (another job on this file made it for a smaller range: "
			"give every job on one file the same size and offset)" :
			err == ENOMEM ? " (give a smaller size= to address less of "
			"the file)" : "");
		free(ff);
		return err;
	}
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
	struct flagcheck_data *fd = td->io_ops_data;
	int err;

	if (!fd)
		return fc_backend_of(td)->open_file(td, NULL, f);
	err = fc_file_attach(td, fd, f);
	if (err) {
		td_verror(td, err, "flagcheck open_file");
		return 1;
	}
	return fd->backend->open_file(td, fd->backend_data, f);
}

static int fio_flagcheck_close_file(struct thread_data *td, struct fio_file *f)
{
	struct flagcheck_data *fd = td->io_ops_data;

	if (!fd)
		return fc_backend_of(td)->close_file(td, NULL, f);
	return fd->backend->close_file(td, fd->backend_data, f);
}

static int fio_flagcheck_get_file_size(struct thread_data *td,
				       struct fio_file *f)
{
	struct flagcheck_data *fd = td->io_ops_data;
	const struct fc_backend *b = fc_backend_of(td);

	if (!b->get_file_size)
		return 0;
	return b->get_file_size(td, fd ? fd->backend_data : NULL, f);
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
	struct flagcheck_data *fd = td->io_ops_data;	/* create_serialize=0 */
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
		    b->get_file_size(td, fd ? fd->backend_data : NULL, f)) {
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

static enum fio_q_status fio_flagcheck_queue(struct thread_data *td,
					     struct io_u *io_u)
{
	struct flagcheck_data *fd = td->io_ops_data;
	struct flagcheck_file *ff = FILE_ENG_DATA(io_u->file);
	struct fc_io io = {
		.ddir	= fc_ddir_of(io_u),
		.offset	= io_u->offset,
		.len	= io_u->xfer_buflen,
		.job	= fd->job,
	};
	int err;

	fio_ro_check(td, io_u);

	fd->c.ios++;
	err = fd->model->io(ff->state, fd->params, &io, &fd->c);
	if (err) {
		/* as the kernel returns before ->direct_IO: nothing is issued */
		fd->c.errors_reported++;
		io_u->error = -err;
		return FIO_Q_COMPLETED;
	}
	return fd->backend->queue(td, fd->backend_data, io_u);
}

static int fio_flagcheck_commit(struct thread_data *td)
{
	struct flagcheck_data *fd = td->io_ops_data;

	return fd->backend->commit(td, fd->backend_data);
}

static int fio_flagcheck_getevents(struct thread_data *td, unsigned int min,
				   unsigned int max, const struct timespec *t)
{
	struct flagcheck_data *fd = td->io_ops_data;

	return fd->backend->getevents(td, fd->backend_data, min, max, t);
}

static struct io_u *fio_flagcheck_event(struct thread_data *td, int ev)
{
	struct flagcheck_data *fd = td->io_ops_data;

	return fd->backend->event(td, fd->backend_data, ev);
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
