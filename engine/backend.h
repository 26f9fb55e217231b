/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the engine does with an I/O once the model let it through. Each
 * backend is one file (backend_null.c, ...) behind this table; flagcheck.c
 * calls it from the matching fio hook, with the backend's own per-job data.
 */
#ifndef FLAGCHECK_BACKEND_H
#define FLAGCHECK_BACKEND_H

#include "fio.h"

struct fc_backend {
	const char *name;
	/* fio engine flags (FIO_DISKLESSIO, FIO_SYNCIO, ...) for jobs using it */
	int fio_flags;
	/* 0 or a positive errno; *priv is the backend's per-job data */
	int (*init)(struct thread_data *td, void **priv);
	void (*cleanup)(struct thread_data *td, void *priv);
	enum fio_q_status (*queue)(struct thread_data *td, void *priv,
				   struct io_u *io_u);
	int (*commit)(struct thread_data *td, void *priv);
	int (*getevents)(struct thread_data *td, void *priv, unsigned int min,
			 unsigned int max, const struct timespec *t);
	struct io_u *(*event)(struct thread_data *td, void *priv, int ev);
	int (*open_file)(struct thread_data *td, void *priv, struct fio_file *f);
	int (*close_file)(struct thread_data *td, void *priv, struct fio_file *f);
};

/* Engine flags of this job only: the ops table is shared by every job. */
static inline void fc_td_engine_flags(struct thread_data *td, int set, int clear)
{
	td->flags &= ~((unsigned long long)clear << TD_ENG_FLAG_SHIFT);
	td->flags |= (unsigned long long)set << TD_ENG_FLAG_SHIFT;
}

extern const struct fc_backend fc_backend_null;

#endif
