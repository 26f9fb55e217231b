/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A job's data in the engine (td->io_ops_data) and its files' model
 * states, shared by the files of fio's hooks: flagcheck.c (the ops table
 * and what runs at load), queue.c (every I/O: the model, then the
 * backend), job.c (a job's setup, init and end), offload.c (fio's submit
 * workers), file_state.c (each file's model state and the file hooks).
 * Everything here is a job's own: nothing is shared between jobs but the
 * arena (shm.h), so fio's process and thread modes see the same.
 */
#ifndef FLAGCHECK_JOB_H
#define FLAGCHECK_JOB_H

#include "fio.h"

#include "backend.h"
#include "corun.h"
#include "counters.h"
#include "model.h"

#ifndef FLAGCHECK_FIO_VERSION
#error "FLAGCHECK_FIO_VERSION (the version of the fio headers) must be defined"
#endif

/*
 * The one symbol the engine exports. Declared so wherever it is named: a
 * reference with the default hidden visibility would hide it in the link.
 */
#define FC_EXPORT __attribute__((visibility("default")))

FC_EXPORT extern struct ioengine_ops ioengine;

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
	struct fc_stop stop;	/* a waiting model's question (job.c) */
	bool io_error_told;	/* the model said why an I/O failed */
	struct fc_counters c;
	struct fc_corun corun;	/* when the job ran: corun.h */
};

/* queue.c: every I/O, and the completions, through the job's backend */
enum fio_q_status fio_flagcheck_queue(struct thread_data *td,
				      struct io_u *io_u);
int fio_flagcheck_commit(struct thread_data *td);
int fio_flagcheck_getevents(struct thread_data *td, unsigned int min,
			    unsigned int max, const struct timespec *t);
struct io_u *fio_flagcheck_event(struct thread_data *td, int ev);
/* The counters zeroed once fio's ramp period is over (and fio's were) */
void fc_ramp_check(struct thread_data *td, struct flagcheck_data *jd);
/* An uncounted sync has been issued: c.issued as it was before it */
void fc_uncounted_done(struct flagcheck_data *jd);

/* job.c: a job's start and end */
int fio_flagcheck_setup(struct thread_data *td);
int fio_flagcheck_init(struct thread_data *td);
void fio_flagcheck_cleanup(struct thread_data *td);

/* run_check.c: the run's jobs checked together (model.h's ->run_check),
 * before any job's I/O: 0, or 1 with @td's error set; @in_job: asked in
 * the job (its ->init), not in fio's main process (->setup) */
int fc_run_check(struct thread_data *td, bool in_job);

/* offload.c: io_submit_mode=offload, fio's submit workers */
bool fc_is_offload_worker(struct thread_data *td);
void fc_offload_worker_wait_started(struct thread_data *td,
				    struct thread_data *job);
int fc_refuse_offload(struct thread_data *td);

/* file_state.c: each file's model state, and fio's file hooks */
const struct fc_backend *fc_backend_of(struct thread_data *td);
int fc_attach_files(struct thread_data *td, struct flagcheck_data *jd);
void fc_free_files(struct thread_data *td, struct flagcheck_data *jd);
int fio_flagcheck_open_file(struct thread_data *td, struct fio_file *f);
int fio_flagcheck_close_file(struct thread_data *td, struct fio_file *f);
int fio_flagcheck_get_file_size(struct thread_data *td, struct fio_file *f);

#endif
