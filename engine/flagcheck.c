// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck: a fio ioengine that runs a model of a kernel hot path on a
 * flags word shared by every job before each I/O, in the kernel's old
 * "always RMW" form or its "test first" form, and then does the I/O through
 * a backend.
 *
 *   fio --ioengine=external:fio-flagcheck.so --variant=always ...
 *
 * Data flows one way: fio hook -> model (model.h) -> backend (backend.h) ->
 * completion. This file is the fio glue, laid out as fio's own engines
 * are: the job's data, the I/O hooks, setup and init, cleanup, the file
 * hooks, the ops table, and what runs at load. The options are in
 * options.c and model_options.c, the report at job end in report.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"

#include "backend.h"
#include "corun.h"
#include "fio_compat.h"
#include "model.h"
#include "options.h"
#include "report.h"
#include "shm.h"

#ifndef FLAGCHECK_FIO_VERSION
#error "FLAGCHECK_FIO_VERSION (the version of the fio headers) must be defined"
#endif

#define FC_EXPORT __attribute__((visibility("default")))

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

/* The job's data (td->io_ops_data), jd everywhere */
struct flagcheck_data {
	const struct fc_model *model;
	const struct fc_backend *backend;
	void *backend_data;
	void *params;		/* the model's, built from the options */
	void *job;		/* the model's memory of this job (job_size) */
	struct flagcheck_file *files;	/* every file state made by this job */
	/* an offload worker's job, which its counters go to at its end */
	struct flagcheck_data *offload_job;
	struct thread_data *td;	/* the job's: its workers find theirs in it */
	bool ready;		/* init completed: the job has counters to report */
	bool ramp_pending;	/* ramp_time set, counters not zeroed yet */
	bool ask_busy;		/* iodepth > 1 and the backend has ->busy */
	bool slow;		/* ask_busy or ramp_pending: fc_queue_slow() */
	bool uncounted;		/* a sync fio does not count is queued */
	uint64_t issued_before;	/* c.issued before that sync */
	unsigned int timed_left;	/* calls until the next timed one */
	uint64_t clock_ns;	/* what two back-to-back clock reads cost */
	struct fc_counters c;
	struct fc_corun corun;	/* when the job ran: corun.h */
};

FC_EXPORT struct ioengine_ops ioengine;

static enum fc_ddir fc_ddir_of(const struct io_u *io_u)
{
	/* by name: fio's values and count of directions change between versions */
	if (io_u->ddir == DDIR_READ)
		return FC_READ;
	if (io_u->ddir == DDIR_WRITE)
		return FC_WRITE;
	return FC_OTHER;
}

/*
 * fio zeroes its counts when the ramp period ends (reset_all_stats), between
 * two queue calls: so do we, before the first I/O it counts after. A job
 * whose last I/O completes as the ramp ends has none after: fio's counts
 * are 0 then, and ours are zeroed at cleanup, before the report.
 */
static void fc_ramp_check(struct thread_data *td, struct flagcheck_data *jd)
{
	if (!jd->ramp_pending || !fc_fio_ramp_over(td))
		return;
	memset(&jd->c, 0, sizeof(jd->c));
	jd->ramp_pending = false;
	jd->timed_left = 1;
	jd->slow = jd->ask_busy;
}

/*
 * fio counts in its total_ios every read, write and trim, and every sync
 * but the ones of its end (end_fsync=1, fsync_on_close=1: runstate
 * TD_FSYNCING, ioengines.c td_io_queue()); fdatasync= and
 * sync_file_range= are refused (fc_refuse_syncs()).
 */
static bool fc_fio_counts(struct thread_data *td, struct io_u *io_u)
{
	return io_u->ddir != DDIR_SYNC || td->runstate != TD_FSYNCING;
}

static void fc_uncounted_done(struct flagcheck_data *jd)
{
	jd->c.issued = jd->issued_before;
	jd->uncounted = false;
}

/*
 * A sync of the job's end: not counted, no model, but done by the backend.
 * fio issues it alone, every other I/O of the job complete, and waits for
 * it (backend.c fio_io_sync()): the backend's count of issued I/Os is put
 * back as it was once the sync has been issued, here or in ->commit, so
 * that issued + errors_reported == ios holds (before an offload worker's
 * counters are added to the job's).
 */
static enum fio_q_status __attribute__((noinline))
fc_queue_uncounted(struct thread_data *td, struct flagcheck_data *jd,
		   struct io_u *io_u)
{
	enum fio_q_status ret;

	if (!jd->uncounted) {
		jd->uncounted = true;
		jd->issued_before = jd->c.issued;
	}
	ret = jd->backend->queue(td, jd->backend_data, io_u);
	if (ret == FIO_Q_COMPLETED)
		fc_uncounted_done(jd);
	return ret;
}

/*
 * What the per-I/O path checks only now and then, out of its way: ->busy
 * (iodepth > 1), the end of fio's ramp_time. Returns true for FIO_Q_BUSY.
 */
static bool __attribute__((noinline))
fc_queue_slow(struct thread_data *td, struct flagcheck_data *jd)
{
	if (jd->ask_busy && jd->backend->busy(jd->backend_data))
		return true;
	fc_ramp_check(td, jd);
	return false;
}

/* One call in FC_TIMED_EVERY: the model's call between two clock reads */
static int __attribute__((noinline))
fc_model_io_timed(struct flagcheck_data *jd, struct flagcheck_file *ff,
		  const struct fc_io *io)
{
	uint64_t t0, dt;
	int err;

	jd->timed_left = FC_TIMED_EVERY;
	t0 = fc_now_ns();
	err = jd->model->io(ff->state, jd->params, io, &jd->c);
	dt = fc_now_ns() - t0;
	/* the clock's own cost is not the model's */
	fc_count_timed(&jd->c, dt > jd->clock_ns ? dt - jd->clock_ns : 0);
	return err;
}

/*
 * The model runs exactly once for each I/O fio counts (its total_ios), by
 * construction: a backend that cannot take the I/O now says so before the
 * model runs (->busy), and fio queues the same I/O again later, which is
 * then the one that runs the model. fio counts an I/O for every queue call
 * that does not answer FIO_Q_BUSY, a resubmitted short transfer too (the
 * kernel runs the path again for it as well): so do we. A backend's ->queue
 * never answers FIO_Q_BUSY once the model has run for the I/O. This is
 * every I/O's path: what it needs only now and then is out of line.
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
	int err;

	fio_ro_check(td, io_u);

	if (fio_unlikely(jd->slow) && fc_queue_slow(td, jd))
		return FIO_Q_BUSY;
	if (fio_unlikely(io.ddir == FC_OTHER) && !fc_fio_counts(td, io_u))
		return fc_queue_uncounted(td, jd, io_u);

	jd->c.ios[io.ddir]++;
	fc_corun_io(&jd->corun);
	/* calls 1, 1 + FC_TIMED_EVERY, ... of the job are timed */
	if (fio_unlikely(--jd->timed_left == 0))
		err = fc_model_io_timed(jd, ff, &io);
	else
		err = jd->model->io(ff->state, jd->params, &io, &jd->c);
	if (fio_unlikely(err)) {
		/* as the kernel returns before ->direct_IO: nothing is issued */
		jd->c.errors_reported++;
		io_u->error = -err;
		return FIO_Q_COMPLETED;
	}
	ret = jd->backend->queue(td, jd->backend_data, io_u);
	if (fio_unlikely(ret == FIO_Q_BUSY)) {
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
	int ret = jd->backend->commit(td, jd->backend_data);

	if (fio_unlikely(jd->uncounted))
		fc_uncounted_done(jd);
	return ret;
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

/*
 * fio sizes and lays out a job's files in the parent, before the job's
 * init: then there is no job data yet, and the backend opens the file alone.
 */
static const struct fc_backend *fc_backend_of(struct thread_data *td)
{
	struct flagcheck_options *o = td->eo;

	return fc_backends[o->backend];
}

/*
 * A variant fio could not check against the job's model while parsing
 * (given before model=, as in a [global] section): refused before the
 * job's files are set up, with the job's error set.
 */
static int fc_refuse_variant(struct thread_data *td)
{
	char msg[512];

	if (!fc_variant_check(td->eo, msg, sizeof(msg)))
		return 0;
	log_err("flagcheck: %s\n", msg);
	td_verror(td, EINVAL, "variant");
	return 1;
}

/*
 * fio counts fdatasyncs and sync_file_range calls in none of the total_ios
 * it prints (3.33: ts->total_io_u[] holds read, write, trim and sync only),
 * so the engine's count of them could never be checked against fio's:
 * refused before any I/O. fsync=N is counted (sync total_ios).
 */
static int fc_refuse_syncs(struct thread_data *td)
{
	const char *opt = td->o.fdatasync_blocks ? "fdatasync" :
			  td->sync_file_range_nr ? "sync_file_range" : NULL;
	unsigned int every = td->o.fdatasync_blocks ?: td->sync_file_range_nr;

	if (!opt)
		return 0;
	log_err("flagcheck: %s (every %u writes) is not supported: fio counts "
		"it in none of its total_ios, so the engine's I/O count could "
		"not be checked against fio's; fsync=%u is counted\n", opt, every,
		every);
	td_verror(td, EINVAL, opt);
	return 1;
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

	if (fc_refuse_variant(td) || fc_refuse_syncs(td))
		return 1;
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

/*
 * io_submit_mode=offload: fio's submit workers each load the engine again
 * with a thread_data of their own (a copy of the job's options, files of
 * their own that no I/O uses) and queue the job's io_us, whose files are
 * the job's: the model runs on the job's file states, as in any mode. The
 * job's init leaves its data in its options for the workers' copies; a
 * worker's counters go to the job's at the worker's end (fio joins its
 * workers, one after the other, before the job's own cleanup), so the job
 * reports one record.
 */
static bool fc_is_offload_worker(struct thread_data *td)
{
	struct flagcheck_options *o = td->eo;

	return o->offload_job && o->offload_job != td->io_ops_data;
}

/* fio's workqueue.c, SW_F_IDLE: set by the thread that starts a worker */
#define FC_SW_F_IDLE	(1 << 0)

/*
 * fio before 3.42 starts a submit worker with pthread_create() and then
 * sets its flags to SW_F_IDLE, which clobbers the SW_F_RUNNING the worker
 * may have set already; workqueue_init() then waits for it forever (fixed
 * by fio's commit 736c2015, "workqueue: fix threads stall when running with
 * io_submit_mode offload"). A worker runs this init before it sets
 * SW_F_RUNNING: it waits here until its starter has set SW_F_IDLE.
 */
static void fc_offload_worker_wait_started(struct thread_data *td,
					   struct thread_data *job)
{
	struct workqueue *wq = &job->io_wq;
	unsigned int i, idle = 0;

	/* the workers before this one are set up: this one's priv is set */
	for (i = 0; i < wq->max_workers && wq->workers[i].priv != td; i++)
		;
	if (i == wq->max_workers)
		return;
	while (!idle) {
		pthread_mutex_lock(&wq->workers[i].lock);
		idle = wq->workers[i].flags & FC_SW_F_IDLE;
		pthread_mutex_unlock(&wq->workers[i].lock);
		if (!idle)
			usleep(100);
	}
}

/* What fio itself refuses, or what would split the job: 0, or 1 after
 * saying why (the job's error set) */
static int fc_refuse_offload(struct thread_data *td)
{
	struct flagcheck_options *o = td->eo;
	const struct fc_backend *b = fc_backends[o->backend];
	const struct fc_model *m = fc_models[o->model];

	if (td->o.io_submit_mode != IO_MODE_OFFLOAD)
		return 0;
	if (b->fio_flags & FIO_NO_OFFLOAD) {
		/* fio's own words for its engines with FIO_NO_OFFLOAD */
		log_err("flagcheck: backend=%s: can't be used with offloaded "
			"submit (io_submit_mode=offload), as fio's own %s "
			"engine; use backend=null, psync or libaio, or "
			"io_submit_mode=inline\n", b->name, b->name);
	} else if (m->job_size) {
		log_err("flagcheck: model=%s keeps memory of each job (a "
			"CPU's cache, a directory, a sequence's counts), which "
			"fio's offload workers would share unlocked: "
			"io_submit_mode=offload is not supported with it; "
			"allowed: io_submit_mode=inline\n", m->name);
	} else {
		return 0;
	}
	td_verror(td, EINVAL, "io_submit_mode");
	return 1;
}

/* Before any job data: 0, or 1 after saying why (the job's error set) */
static int fc_init_refusals(struct thread_data *td)
{
	struct flagcheck_options *o = td->eo;

	/* our ops table as fio sees it: a cheap guard against a layout skew */
	if (td->io_ops != &ioengine) {
		log_err("flagcheck: fio's thread_data does not match the headers "
			"of %s this engine was built with\n",
			FLAGCHECK_FIO_VERSION);
		return 1;
	}
	if (fc_refuse_variant(td) || fc_refuse_syncs(td) ||
	    fc_refuse_offload(td))
		return 1;
	if (o->mapping == FC_MAPPING_SHARED && fc_shm_error()) {
		log_err("flagcheck: mapping=shared needs the run's shared memory, "
			"which could not be made at load: %s\n",
			strerror(fc_shm_error()));
		td_verror(td, fc_shm_error(), "mmap");
		return 1;
	}
	return 0;
}

/* The model's params and this job's own memory: 0 or 1 (error set) */
static int fc_model_init(struct thread_data *td, struct flagcheck_data *jd)
{
	const struct fc_model *m = jd->model;
	int err;

	jd->params = calloc(1, m->params_size ?: 1);
	if (!jd->params) {
		td_verror(td, ENOMEM, "calloc");
		return 1;
	}
	fc_model_params(m, td->eo, jd->params);
	if (!m->job_size)
		return 0;
	jd->job = calloc(1, m->job_size);
	if (!jd->job) {
		td_verror(td, ENOMEM, "calloc");
		return 1;
	}
	err = m->job_init ? m->job_init(jd->job, jd->params,
					td->thread_number) : 0;
	if (err) {
		/* the model printed its reason; fio prints the errno */
		td_verror(td, -err, m->name);
		free(jd->job);
		jd->job = NULL;
		return 1;
	}
	return 0;
}

/*
 * Every file's model state now, before any I/O: a file the arena or memory
 * cannot hold fails the job here, with one message, rather than an open in
 * the middle of the run. Files fio has not sized yet (create_serialize=0
 * sizes them after init) get theirs when opened.
 */
static int fc_attach_files(struct thread_data *td, struct flagcheck_data *jd)
{
	struct fio_file *f;
	unsigned int i;
	int err;

	for_each_file(td, f, i) {
		if (f->real_file_size == -1ULL && !f->io_size)
			continue;
		err = fc_file_attach(td, jd, f);
		if (err) {
			td_verror(td, err, "flagcheck model state");
			return 1;
		}
	}
	return 0;
}

static int fio_flagcheck_init(struct thread_data *td)
{
	struct flagcheck_options *o = td->eo;
	struct flagcheck_data *jd;
	bool worker;
	int err;

	if (fc_init_refusals(td))
		return 1;
	worker = fc_is_offload_worker(td);
	jd = calloc(1, sizeof(*jd));
	if (!jd) {
		td_verror(td, ENOMEM, "calloc");
		return 1;
	}
	td->io_ops_data = jd;
	jd->model = fc_models[o->model];
	jd->backend = fc_backends[o->backend];
	if (fc_model_init(td, jd))
		return 1;
	/* a worker's I/Os are on the job's files, with the job's states */
	jd->td = td;
	if (worker) {
		jd->offload_job = o->offload_job;
		fc_offload_worker_wait_started(td, jd->offload_job->td);
	} else if (fc_attach_files(td, jd) || fc_report_prepare(td, o))
		return 1;

	fc_td_engine_flags(td, jd->backend->fio_flags, FC_BACKEND_FIO_FLAGS);
	err = jd->backend->init(td, &jd->c, &jd->backend_data);
	if (err) {
		td_verror(td, err, jd->backend->name);
		return 1;
	}
	if (fc_corun_init(&jd->corun)) {
		td_verror(td, ENOMEM, "calloc");
		return 1;
	}
	jd->clock_ns = fc_clock_cost_ns();
	jd->timed_left = 1;
	jd->ramp_pending = fc_fio_ramp_set(td);
	/* at iodepth 1 nothing can be pending: ->busy is never asked */
	jd->ask_busy = td->o.iodepth > 1 && jd->backend->busy;
	jd->slow = jd->ask_busy || jd->ramp_pending;
	jd->ready = true;
	if (td->o.io_submit_mode == IO_MODE_OFFLOAD && !worker)
		o->offload_job = jd;	/* for the workers' copies */
	return 0;
}

/* A job's end: its counters reported, or an offload worker's added to its
 * job's (fio joins the workers in the job's thread, one at a time). */
static void fc_job_end(struct thread_data *td, struct flagcheck_data *jd)
{
	struct fc_report_job rj = {
		.model		= jd->model,
		.params		= jd->params,
		.job		= jd->job,
		.backend	= jd->backend,
		.c		= &jd->c,
		.corun		= &jd->corun,
	};

	if (jd->uncounted)
		fc_uncounted_done(jd);
	fc_ramp_check(td, jd);
	fc_corun_end(&jd->corun);
	if (jd->offload_job)
		fc_counters_add(&jd->offload_job->c, &jd->c);
	else
		fc_report(td, td->eo, &rj);
}

static void fio_flagcheck_cleanup(struct thread_data *td)
{
	struct flagcheck_data *jd = td->io_ops_data;
	struct flagcheck_file *ff, *next;
	struct fio_file *f;
	unsigned int i;

	if (!jd)
		return;

	/* a job whose init failed did nothing: it reports nothing */
	if (jd->ready)
		fc_job_end(td, jd);

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
	fc_corun_free(&jd->corun);
	free(jd->job);
	free(jd->params);
	free(jd);
	td->io_ops_data = NULL;
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
	.options		= fc_options,
};

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

	fc_report_load();
	if (fc_options_load()) {
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
