// SPDX-License-Identifier: GPL-2.0
/*
 * A job's start and end in fio's hooks: what is refused before any I/O
 * (->setup, ->init; the run's jobs together: run_check.c), the job's
 * data (the model's params and memory, the backend's, the files' model
 * states), and at the end its report and everything freed (->cleanup).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"

#include "fio_compat.h"
#include "job.h"
#include "options.h"
#include "report.h"
#include "shm.h"

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
int fio_flagcheck_setup(struct thread_data *td)
{
	struct flagcheck_data *jd = td->io_ops_data;	/* create_serialize=0 */
	const struct fc_backend *b = fc_backend_of(td);
	struct fio_file *f;
	unsigned int i;

	/* jd: create_serialize=0, this job's own setup after its init */
	if (fc_refuse_variant(td) || fc_refuse_syncs(td) ||
	    fc_run_check(td, jd != NULL))
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
	    fc_refuse_offload(td) || fc_run_check(td, true))
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
	char msg[1024] = "";
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
					td->thread_number, msg, sizeof(msg)) : 0;
	if (err) {
		/* the model's reason; fio prints the errno */
		if (msg[0])
			log_err("flagcheck: %s\n", msg);
		td_verror(td, -err, m->name);
		free(jd->job);
		jd->job = NULL;
		return 1;
	}
	return 0;
}

/* The job's data, its model's with it, as td->io_ops_data: 0 or 1 */
static int fc_job_data(struct thread_data *td)
{
	struct flagcheck_options *o = td->eo;
	struct flagcheck_data *jd = calloc(1, sizeof(*jd));

	if (!jd) {
		td_verror(td, ENOMEM, "calloc");
		return 1;
	}
	td->io_ops_data = jd;
	jd->model = fc_models[o->model];
	jd->backend = fc_backends[o->backend];
	return fc_model_init(td, jd);
}

/* The backend's data and the job's record of its time on its CPU: 0 or 1 */
static int fc_backend_start(struct thread_data *td, struct flagcheck_data *jd)
{
	int err;

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
	return 0;
}

/*
 * A model that waits (a lock's spin) stops once fio has been ending the
 * job (a signal, exitall, another job's error), or once its runtime and
 * ramp_time are over, for FC_STOP_GRACE_US: longer than any wait on a
 * lock that is still taken and released (a critical section's work is at
 * most 1 ms), so only a lock that will never be free makes a job stop.
 */
#define FC_STOP_GRACE_US	1000000ULL

static const char *fc_job_stopping(const struct fc_stop *s)
{
	struct thread_data *td = s->arg;
	uint64_t limit = td->o.timeout;

	if (td->terminate &&
	    utime_since_now(&td->terminate_time) >= FC_STOP_GRACE_US)
		return "fio was ending the job";
	if (!limit)
		return NULL;
	/* the epoch moves to the ramp's end: before it, count the ramp */
	if (utime_since_now(&td->epoch) < limit + td->o.ramp_time +
	    FC_STOP_GRACE_US)
		return NULL;
	return "the job's runtime was over";
}

/* Ready for the first I/O: the timing, fio's ramp, the slow path's cases */
static void fc_job_ready(struct thread_data *td, struct flagcheck_data *jd)
{
	jd->stop.why = fc_job_stopping;
	jd->stop.arg = td;
	jd->clock_ns = fc_clock_cost_ns();
	jd->timed_left = 1;
	jd->ramp_pending = fc_fio_ramp_set(td);
	/* at iodepth 1 nothing can be pending: ->busy is never asked */
	jd->ask_busy = td->o.iodepth > 1 && jd->backend->busy;
	jd->slow = jd->ask_busy || jd->ramp_pending;
	jd->ready = true;
}

int fio_flagcheck_init(struct thread_data *td)
{
	struct flagcheck_options *o = td->eo;
	struct flagcheck_data *jd;
	bool worker;

	if (fc_init_refusals(td))
		return 1;
	worker = fc_is_offload_worker(td);
	if (fc_job_data(td))
		return 1;
	jd = td->io_ops_data;
	/* a worker's I/Os are on the job's files, with the job's states */
	jd->td = td;
	if (worker) {
		jd->offload_job = o->offload_job;
		fc_offload_worker_wait_started(td, jd->offload_job->td);
	} else if (fc_attach_files(td, jd) || fc_report_prepare(td, o))
		return 1;

	if (fc_backend_start(td, jd))
		return 1;
	fc_job_ready(td, jd);
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

void fio_flagcheck_cleanup(struct thread_data *td)
{
	struct flagcheck_data *jd = td->io_ops_data;

	if (!jd)
		return;

	/* a job whose init failed did nothing: it reports nothing */
	if (jd->ready)
		fc_job_end(td, jd);
	fc_free_files(td, jd);
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
