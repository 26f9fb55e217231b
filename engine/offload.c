// SPDX-License-Identifier: GPL-2.0
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
#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include "fio.h"

#include "job.h"
#include "options.h"

bool fc_is_offload_worker(struct thread_data *td)
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
void fc_offload_worker_wait_started(struct thread_data *td,
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
int fc_refuse_offload(struct thread_data *td)
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
