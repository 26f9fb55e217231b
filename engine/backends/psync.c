// SPDX-License-Identifier: GPL-2.0
/*
 * The psync backend: pread(2)/pwrite(2) on the file fio opened, as fio's
 * own psync engine does. fio's io_u carries one buffer, so there is no
 * vector to hand to preadv(2). Syncs (fsync=, fdatasync=) go through fio's
 * do_io_u_sync(), trims through do_io_u_trim(), as in fio's psync.
 *
 * Its file hooks are fio's own generic ones (file_hooks.c), as libaio's and
 * io_uring's.
 */
#include <stdlib.h>
#include <unistd.h>

#include "backend.h"

struct psync_data {
	struct fc_counters *c;
};

static int psync_init(struct thread_data fio_unused *td, struct fc_counters *c,
		      void **priv)
{
	struct psync_data *pd = calloc(1, sizeof(*pd));

	if (!pd)
		return ENOMEM;
	pd->c = c;
	*priv = pd;
	return 0;
}

static void psync_cleanup(struct thread_data fio_unused *td, void *priv)
{
	free(priv);
}

static enum fio_q_status psync_queue(struct thread_data *td, void *priv,
				     struct io_u *io_u)
{
	struct psync_data *pd = priv;
	struct fio_file *f = io_u->file;
	ssize_t ret;

	pd->c->issued++;
	/* fio marks these itself only for engines without ->commit */
	io_u_mark_submit(td, 1);
	io_u_mark_complete(td, 1);

	if (io_u->ddir == DDIR_READ)
		ret = pread(f->fd, io_u->xfer_buf, io_u->xfer_buflen,
			    io_u->offset);
	else if (io_u->ddir == DDIR_WRITE)
		ret = pwrite(f->fd, io_u->xfer_buf, io_u->xfer_buflen,
			     io_u->offset);
	else if (io_u->ddir == DDIR_TRIM) {
		do_io_u_trim(td, io_u);
		return FIO_Q_COMPLETED;
	} else {
		/* sets io_u->error itself */
		do_io_u_sync(td, io_u);
		return FIO_Q_COMPLETED;
	}

	if (ret < 0)
		io_u->error = errno;
	else if ((unsigned long long)ret != io_u->xfer_buflen)
		io_u->resid = io_u->xfer_buflen - ret;
	return FIO_Q_COMPLETED;
}

/* A sync backend: every I/O completes in ->queue, nothing waits here. */
static int psync_commit(struct thread_data fio_unused *td,
			void fio_unused *priv)
{
	return 0;
}

static int psync_getevents(struct thread_data fio_unused *td,
			   void fio_unused *priv, unsigned int fio_unused min,
			   unsigned int fio_unused max,
			   const struct timespec fio_unused *t)
{
	return 0;
}

static struct io_u *psync_event(struct thread_data fio_unused *td,
				void fio_unused *priv, int fio_unused ev)
{
	return NULL;
}

const struct fc_backend fc_backend_psync = {
	.name		= "psync",
	.order		= 2,
	.help		= "pread/pwrite",
	.fio_flags	= FIO_SYNCIO,
	.init		= psync_init,
	.cleanup	= psync_cleanup,
	.queue		= psync_queue,
	.commit		= psync_commit,
	.getevents	= psync_getevents,
	.event		= psync_event,
	.open_file	= fc_file_open,
	.close_file	= fc_file_close,
	.get_file_size	= fc_file_size,
};
FC_REGISTER_BACKEND(fc_backend_psync)
