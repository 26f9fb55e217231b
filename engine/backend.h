/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the engine does with an I/O once the model let it through. Each
 * backend is one file in backends/, named as its backend= value (null.c,
 * psync.c, ...), behind this table, that registers itself with
 * FC_REGISTER_BACKEND; the engine's hooks (job.h) call it from the
 * matching fio hook, with the backend's own per-job data.
 */
#ifndef FLAGCHECK_BACKEND_H
#define FLAGCHECK_BACKEND_H

#include "fio.h"

#include "counters.h"
#include "registry.h"

struct fc_backend {
	const char *name;
	/* where it is listed (backend='s help and allowed values): the first
	 * backends by this number; 0, a new one: after them, by name */
	unsigned int order;
	const char *help;	/* a few words for backend='s help */
	/* fio engine flags (FIO_DISKLESSIO, FIO_SYNCIO, ...) for jobs using it;
	 * FIO_NO_OFFLOAD: refused with io_submit_mode=offload, as fio refuses
	 * its own engines that set it */
	int fio_flags;
	/*
	 * 0 or a positive errno, after a log_err() saying why; *priv is the
	 * backend's per-job data. The backend counts in c->issued the I/Os it
	 * hands to the kernel (null: the I/Os it completes).
	 */
	int (*init)(struct thread_data *td, struct fc_counters *c, void **priv);
	void (*cleanup)(struct thread_data *td, void *priv);
	/*
	 * Optional: true while ->queue cannot take another I/O. The glue asks
	 * before it runs the model and answers FIO_Q_BUSY for the backend, so
	 * ->queue itself never answers FIO_Q_BUSY: fio would queue the I/O
	 * again and the model would run twice for it.
	 */
	bool (*busy)(void *priv);
	/* FIO_Q_COMPLETED or FIO_Q_QUEUED, never FIO_Q_BUSY (see ->busy) */
	enum fio_q_status (*queue)(struct thread_data *td, void *priv,
				   struct io_u *io_u);
	int (*commit)(struct thread_data *td, void *priv);
	int (*getevents)(struct thread_data *td, void *priv, unsigned int min,
			 unsigned int max, const struct timespec *t);
	struct io_u *(*event)(struct thread_data *td, void *priv, int ev);
	/*
	 * The file hooks run before init too (priv NULL): fio sizes and lays
	 * out a job's files in the parent before the job starts.
	 */
	int (*open_file)(struct thread_data *td, void *priv, struct fio_file *f);
	int (*close_file)(struct thread_data *td, void *priv, struct fio_file *f);
	/* NULL: the size fio derives from size= (diskless) */
	int (*get_file_size)(struct thread_data *td, void *priv,
			     struct fio_file *f);
};

/* Every engine flag some backend sets: a job's backend replaces them all. */
#define FC_BACKEND_FIO_FLAGS	(FIO_DISKLESSIO | FIO_FAKEIO | FIO_SYNCIO | \
				 FIO_ASYNCIO_SYNC_TRIM |		\
				 FIO_ASYNCIO_SETS_ISSUE_TIME | FIO_NO_OFFLOAD)

/* Engine flags of this job only: the ops table is shared by every job. */
static inline void fc_td_engine_flags(struct thread_data *td, int set, int clear)
{
	td->flags &= ~((unsigned long long)clear << TD_ENG_FLAG_SHIFT);
	td->flags |= (unsigned long long)set << TD_ENG_FLAG_SHIFT;
}

/* file_hooks.c: fio's own file hooks, for every backend with real files */
int fc_file_open(struct thread_data *td, void *priv, struct fio_file *f);
int fc_file_close(struct thread_data *td, void *priv, struct fio_file *f);
int fc_file_size(struct thread_data *td, void *priv, struct fio_file *f);

/*
 * @nr I/Os of @io_us went to the kernel now: stamp their issue time as
 * fio's async engines do in commit (the FIO_ASYNCIO_SETS_ISSUE_TIME flag).
 */
static inline void fc_stamp_issued(struct thread_data *td,
				   struct io_u **io_us, unsigned int nr)
{
	struct timespec now;
	unsigned int i;

	if (!fio_fill_issue_time(td))
		return;
	fio_gettime(&now, NULL);
	for (i = 0; i < nr; i++) {
		io_us[i]->issue_time = now;
		io_u_queued(td, io_us[i]);
	}
	if (td->o.read_iolog_file)
		td->last_issue = now;
}

/* Backends the registry holds; one more is refused at load (options.c) */
#define FC_MAX_BACKENDS	8

/*
 * backend.c: every registered backend in fc_backends[], in listing order,
 * indexed by the backend option's value; fc_register_backend(),
 * fc_backends_refused() (registry.h)
 */
FC_REGISTRY_DECLARE(backend, struct fc_backend, FC_MAX_BACKENDS)

/* In the backend's file, after its struct fc_backend */
#define FC_REGISTER_BACKEND(var)	FC_REGISTER(backend, var)

#endif
