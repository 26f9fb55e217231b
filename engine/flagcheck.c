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

static const char *const variant_names[] = {
	[FC_ALWAYS] = "always", [FC_TEST_FIRST] = "test_first", NULL };
static const char *const mapping_names[] = {
	[FC_MAPPING_SHARED] = "shared", [FC_MAPPING_PRIVATE] = "private", NULL };
static const char *const inject_names[] = {
	[FC_INJECT_NONE] = "none", [FC_INJECT_EIO] = "eio",
	[FC_INJECT_ENOSPC] = "enospc", NULL };

/* Indexed by the backend option's value. */
static const struct fc_backend *const backends[] = {
	&fc_backend_null,
};
static const char *const backend_names[] = { "null", NULL };

struct flagcheck_options {
	void *pad;	/* fio: offset 0 means "no option"; holds td while parsing */
	unsigned int flag_check;
	unsigned int mapping;
	unsigned int backend;
	unsigned int inject;
	unsigned int inject_every;
	char *stats;
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
	struct fc_params params;
	struct fc_counters c;
};

/*
 * The string options are parsed here rather than by fio's posval table,
 * whose error in a job file names neither the bad value nor the option's
 * allowed values in one line.
 */
static int fc_parse_choice(const char *opt, const char *val,
			   const char *const *allowed, unsigned int *out)
{
	char list[256] = "";
	int i;

	for (i = 0; allowed[i]; i++) {
		if (val && !strcmp(val, allowed[i])) {
			*out = i;
			return 0;
		}
	}
	for (i = 0; allowed[i]; i++) {
		if (i)
			strncat(list, ", ", sizeof(list) - strlen(list) - 1);
		strncat(list, allowed[i], sizeof(list) - strlen(list) - 1);
	}
	log_err("flagcheck: %s=%s is not valid: allowed values are %s\n",
		opt, val ? val : "", list);
	return 1;
}

static int str_flag_check_cb(void *data, const char *str)
{
	struct flagcheck_options *o = data;

	return fc_parse_choice("flag_check", str, variant_names,
			       &o->flag_check);
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
				   FIO_DISKLESSIO | FIO_FAKEIO | FIO_SYNCIO);
	return 0;
}

/*
 * inject and inject_every are checked against each other whichever comes
 * first: inject_every defaults to a valid value, so the pair can only go
 * wrong in the option set last.
 */
static int inject_every_invalid(const struct flagcheck_options *o)
{
	if (o->inject == FC_INJECT_NONE || o->inject_every)
		return 0;
	log_err("flagcheck: inject_every=0 with inject=%s: inject_every must be "
		"a whole number from 1 to %u when inject is set\n",
		inject_names[o->inject], UINT_MAX);
	return 1;
}

static int str_inject_cb(void *data, const char *str)
{
	struct flagcheck_options *o = data;

	if (fc_parse_choice("inject", str, inject_names, &o->inject))
		return 1;
	return inject_every_invalid(o);
}

static int str_inject_every_cb(void *data, const char *str)
{
	struct flagcheck_options *o = data;
	unsigned long long v;
	char *end;

	errno = 0;
	v = str ? strtoull(str, &end, 10) : 0;
	if (!str || !*str || *str == '-' || *str == '+' || errno || *end ||
	    v > UINT_MAX) {
		log_err("flagcheck: inject_every=%s is not valid: a whole number "
			"from 1 to %u is allowed (0 only with inject=none)\n",
			str ? str : "", UINT_MAX);
		return 1;
	}
	o->inject_every = v;
	return inject_every_invalid(o);
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

static struct fio_option options[] = {
	{
		.name	= "flag_check",
		.lname	= "Flag check variant",
		.type	= FIO_OPT_STR,
		.cb	= str_flag_check_cb,
		.help	= "always: atomic RMW on every call (the old kernel code); test_first: plain test, RMW only when the bit is set (the fix)",
		.def	= "test_first",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "mapping",
		.lname	= "Mapping sharing",
		.type	= FIO_OPT_STR,
		.cb	= str_mapping_cb,
		.help	= "shared: one mapping (one cache line) per file name for the whole run; private: one per job and file (the no-sharing control)",
		.def	= "shared",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "backend",
		.lname	= "I/O backend",
		.type	= FIO_OPT_STR,
		.cb	= str_backend_cb,
		.help	= "What does the I/O after the modelled check: null (no data transfer, like fio's null engine)",
		.def	= "null",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "inject",
		.lname	= "Inject writeback errors",
		.type	= FIO_OPT_STR,
		.cb	= str_inject_cb,
		.help	= "none, eio (AS_EIO: the check fails an I/O with EIO) or enospc (AS_ENOSPC): set as writeback would every inject_every I/Os of a job",
		.def	= "none",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "inject_every",
		.lname	= "Injection period",
		.type	= FIO_OPT_STR,
		.cb	= str_inject_every_cb,
		.help	= "Every N-th I/O of a job sets the error bit (N >= 1)",
		.def	= "1000",
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
	{
		.name	= NULL,
	},
};

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

	if (!strcmp(running, FLAGCHECK_FIO_VERSION))
		return;
	log_err("flagcheck: built against the headers of %s but loaded by %s; "
		"rebuild the engine against this fio's source "
		"(make FIO_SRC=/path/to/its/source)\n",
		FLAGCHECK_FIO_VERSION, running);
	ioengine.version = -1;
}

static void fc_stats_job_of(struct thread_data *td, struct flagcheck_options *o,
			    const struct flagcheck_data *fd,
			    struct fc_stats_job *j)
{
	j->job = td->o.name;
	j->thread_number = td->thread_number;
	j->pid = (int)getpid();
	j->model = fd->model->name;
	j->variant = variant_names[o->flag_check];
	j->mapping = mapping_names[o->mapping];
	j->backend = fd->backend->name;
	j->inject = inject_names[o->inject];
	j->inject_every = o->inject_every;
	j->rmw_per_check = fd->model->rmw_per_check;
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
	fd->model = &fc_model_filemap;
	fd->backend = backends[o->backend];
	fd->params.variant = o->flag_check;
	fd->params.inject = o->inject;
	fd->params.inject_every = o->inject_every;
	td->io_ops_data = fd;

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

	fc_td_engine_flags(td, fd->backend->fio_flags,
			   FIO_DISKLESSIO | FIO_FAKEIO | FIO_SYNCIO);
	err = fd->backend->init(td, &fd->backend_data);
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
	struct fio_file *f;
	unsigned int i;

	if (!fd)
		return;

	fc_stats_job_of(td, o, fd, &j);
	/* only beside fio's text output: never inside its JSON or terse */
	if (output_format & FIO_OUTPUT_NORMAL)
			log_info("flagcheck: %s (job %u): %s flag_check=%s mapping=%s: "
			 "ios=%llu checks=%llu rmw=%llu (%.2f/io) rmw_skipped=%llu "
			 "errors_set=%llu errors_reported=%llu\n", j.job,
			 j.thread_number, j.model, j.variant, j.mapping,
			 (unsigned long long)fd->c.ios,
			 (unsigned long long)fd->c.checks,
			 (unsigned long long)fd->c.rmw,
			 fd->c.ios ? (double)fd->c.rmw / fd->c.ios : 0.0,
			 fc_stats_rmw_skipped(&j, &fd->c),
			 (unsigned long long)fd->c.errors_set,
			 (unsigned long long)fd->c.errors_reported);
	if (o->stats) {
		int err = fc_stats_append(o->stats, &j, &fd->c);

		if (err)
			log_err("flagcheck: writing %s: %s\n", o->stats,
				strerror(-err));
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
	fd->backend->cleanup(td, fd->backend_data);
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
	size_t size = fd->model->state_size(&fd->params, f->real_file_size);
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

		free(ff);
		return err;
	}
	FILE_SET_ENG_DATA(f, ff);
	return 0;
}

static int fio_flagcheck_open_file(struct thread_data *td, struct fio_file *f)
{
	struct flagcheck_data *fd = td->io_ops_data;
	int err = fc_file_attach(td, fd, f);

	if (err) {
		log_err("flagcheck: no model state for %s: %s\n", f->file_name,
			strerror(err));
		td_verror(td, err, "flagcheck open_file");
		return 1;
	}
	return fd->backend->open_file(td, fd->backend_data, f);
}

static int fio_flagcheck_close_file(struct thread_data *td, struct fio_file *f)
{
	struct flagcheck_data *fd = td->io_ops_data;

	return fd->backend->close_file(td, fd->backend_data, f);
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
	};
	int err;

	fio_ro_check(td, io_u);

	fd->c.ios++;
	err = fd->model->io(ff->state, &fd->params, &io, &fd->c);
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
	.queue			= fio_flagcheck_queue,
	.commit			= fio_flagcheck_commit,
	.getevents		= fio_flagcheck_getevents,
	.event			= fio_flagcheck_event,
	.open_file		= fio_flagcheck_open_file,
	.close_file		= fio_flagcheck_close_file,
	.option_struct_size	= sizeof(struct flagcheck_options),
	.options		= options,
};
