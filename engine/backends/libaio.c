// SPDX-License-Identifier: GPL-2.0
/*
 * The libaio backend: io_submit(2)/io_getevents(2) through libaio, as fio's
 * own libaio engine does. ->queue prepares the iocb fio keeps in each io_u
 * and adds it to the batch, ->commit submits the batch, ->getevents reaps.
 *
 * Syncs (fsync=, fdatasync=, sync_file_range) and trims are done in
 * ->queue once every earlier I/O has completed, as with fio's libaio, so
 * that a sync covers them and its error reaches fio (fio's completion path
 * drops the error of a sync it reaps as an event). fio's libaio answers
 * FIO_Q_BUSY until its queue drains; here ->queue drains it itself, keeping
 * the reaped events for the next ->getevents, because a busy I/O comes
 * back to ->queue and the model would check it twice.
 *
 * An iocb the kernel refuses at io_submit() completes with that errno at
 * the next ->getevents, as if the kernel had failed it on completion.
 */
#include <libaio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"

struct libaio_data {
	struct fc_counters *c;
	io_context_t ctx;
	unsigned int entries;		/* the job's iodepth */

	/* the batch: iocbs[head..queued) are queued, not yet submitted */
	struct iocb **iocbs;
	struct io_u **io_us;
	unsigned int head;
	unsigned int queued;

	unsigned int inflight;		/* submitted, not yet reaped */

	struct io_event *events;	/* what ->getevents reaped */
	/* reaped by a drain or refused by io_submit: the next ->getevents' */
	struct io_event *done;
	unsigned int nr_done;
};

static const char *libaio_reason(int err)
{
	switch (err) {
	case EAGAIN:
		return "the run would exceed fs.aio-max-nr (raise it, or lower "
		       "iodepth)";
	case ENOSYS:
		return "the kernel has no native aio (CONFIG_AIO=n)";
	case EPERM:
		return "a seccomp filter denies io_setup";
	default:
		return "io_setup failed";
	}
}

static void libaio_free(struct libaio_data *ld)
{
	free(ld->iocbs);
	free(ld->io_us);
	free(ld->events);
	free(ld->done);
	free(ld);
}

static int libaio_init(struct thread_data *td, struct fc_counters *c,
		       void **priv)
{
	struct libaio_data *ld = calloc(1, sizeof(*ld));
	unsigned int n = td->o.iodepth;
	int err;

	if (!ld)
		return ENOMEM;
	ld->c = c;
	ld->entries = n;
	ld->iocbs = calloc(n, sizeof(*ld->iocbs));
	ld->io_us = calloc(n, sizeof(*ld->io_us));
	ld->events = calloc(n, sizeof(*ld->events));
	ld->done = calloc(n, sizeof(*ld->done));
	if (!ld->iocbs || !ld->io_us || !ld->events || !ld->done) {
		libaio_free(ld);
		return ENOMEM;
	}
	/* here, before fio allocates the job's buffers or opens a file */
	err = io_queue_init(n, &ld->ctx);
	if (err) {
		log_err("flagcheck: backend=libaio: the kernel refuses "
			"io_setup(%u): %s: %s\n", n, strerror(-err),
			libaio_reason(-err));
		libaio_free(ld);
		return -err;
	}
	*priv = ld;
	return 0;
}

static void libaio_cleanup(struct thread_data *td, void *priv)
{
	struct libaio_data *ld = priv;

	/* as fio's libaio: a child's context goes with its exit */
	if (!(td->flags & TD_F_CHILD))
		io_destroy(ld->ctx);
	libaio_free(ld);
}

static void libaio_drain(struct thread_data *td, struct libaio_data *ld);

/* the batch is full until commit submits it (fio keeps within iodepth) */
static bool libaio_busy(void *priv)
{
	struct libaio_data *ld = priv;

	return ld->queued == ld->entries;
}

static enum fio_q_status libaio_queue(struct thread_data *td, void *priv,
				      struct io_u *io_u)
{
	struct libaio_data *ld = priv;
	struct iocb *iocb = &io_u->iocb;
	int fd = io_u->file->fd;

	if (io_u->ddir == DDIR_READ) {
		io_prep_pread(iocb, fd, io_u->xfer_buf, io_u->xfer_buflen,
			      io_u->offset);
	} else if (io_u->ddir == DDIR_WRITE) {
		io_prep_pwrite(iocb, fd, io_u->xfer_buf, io_u->xfer_buflen,
			       io_u->offset);
	} else {
		libaio_drain(td, ld);
		ld->c->issued++;
		if (fio_fill_issue_time(td))
			fio_gettime(&io_u->issue_time, NULL);
		if (io_u->ddir == DDIR_TRIM)
			do_io_u_trim(td, io_u);
		else
			do_io_u_sync(td, io_u);	/* sets io_u->error */
		io_u_mark_submit(td, 1);
		io_u_mark_complete(td, 1);
		return FIO_Q_COMPLETED;
	}
	ld->iocbs[ld->queued] = iocb;
	ld->io_us[ld->queued++] = io_u;
	return FIO_Q_QUEUED;
}

/* The next @nr of the batch went to the kernel. */
static void libaio_issued(struct thread_data *td, struct libaio_data *ld,
			  unsigned int nr)
{
	fc_stamp_issued(td, ld->io_us + ld->head, nr);
	io_u_mark_submit(td, nr);
	ld->c->issued += nr;
	ld->head += nr;
	ld->inflight += nr;
}

static int libaio_commit(struct thread_data *td, void *priv)
{
	struct libaio_data *ld = priv;
	int ret = 0;

	while (ld->head < ld->queued) {
		ret = io_submit(ld->ctx, ld->queued - ld->head,
				ld->iocbs + ld->head);
		if (ret > 0) {
			libaio_issued(td, ld, ret);
			ret = 0;
		} else if (!ret || ret == -EINTR) {
			continue;
		} else if (ret == -EAGAIN || ret == -ENOMEM) {
			/* short of kernel resources: ->getevents reaps and
			 * commits again, as with fio's libaio */
			ret = 0;
			break;
		} else {
			/* the first iocb is refused: it fails with that errno */
			struct io_event *ev = &ld->done[ld->nr_done++];

			memset(ev, 0, sizeof(*ev));
			ev->obj = ld->iocbs[ld->head];
			ev->res = (unsigned long)(long)ret;
			libaio_issued(td, ld, 1);
			ld->inflight--;
			ret = 0;
		}
	}
	if (ld->head == ld->queued) {
		ld->head = ld->queued = 0;
	} else if (ld->head) {
		ld->queued -= ld->head;
		memmove(ld->iocbs, ld->iocbs + ld->head,
			ld->queued * sizeof(*ld->iocbs));
		memmove(ld->io_us, ld->io_us + ld->head,
			ld->queued * sizeof(*ld->io_us));
		ld->head = 0;
	}
	return ret;
}

static int libaio_getevents(struct thread_data *td, void *priv,
			    unsigned int min, unsigned int max,
			    const struct timespec *t)
{
	struct libaio_data *ld = priv;
	unsigned int actual_min = td->o.iodepth_batch_complete_min ? min : 0;
	unsigned int events = 0;
	struct timespec lt, *ltp = NULL;
	int r = 0;

	if (max > ld->entries)
		max = ld->entries;
	if (ld->nr_done) {
		events = ld->nr_done < max ? ld->nr_done : max;
		memcpy(ld->events, ld->done, events * sizeof(*ld->events));
		ld->nr_done -= events;
		memmove(ld->done, ld->done + events,
			ld->nr_done * sizeof(*ld->done));
	}
	if (t) {
		lt = *t;
		ltp = &lt;
	}
	while (events < max) {
		r = io_getevents(ld->ctx,
				 actual_min > events ? actual_min - events : 0,
				 max - events, ld->events + events, ltp);
		if (r > 0) {
			events += r;
			ld->inflight -= r;
		} else if ((min && !r) || r == -EAGAIN) {
			libaio_commit(td, ld);
			if (actual_min)
				usleep(10);
		} else if (r == -EINTR) {
			r = 0;
		} else {
			break;
		}
		if (events >= min)
			break;
	}
	/* an error with events in hand comes back at the next call */
	return r < 0 && !events ? r : (int)events;
}

/*
 * Submit what is queued and reap every I/O in flight into ld->done: what
 * ->queue does before a sync, which must follow them.
 */
static void libaio_drain(struct thread_data *td, struct libaio_data *ld)
{
	int r;

	while (ld->inflight || ld->head < ld->queued) {
		if (libaio_commit(td, ld))
			return;
		if (!ld->inflight) {
			usleep(1);	/* io_submit short of resources */
			continue;
		}
		r = io_getevents(ld->ctx, 1, ld->inflight, ld->done + ld->nr_done,
				 NULL);
		if (r > 0) {
			ld->nr_done += r;
			ld->inflight -= r;
		} else if (r && r != -EINTR && r != -EAGAIN) {
			return;	/* the next ->getevents reports it */
		}
	}
}

static struct io_u *libaio_event(struct thread_data fio_unused *td,
				 void *priv, int ev)
{
	struct libaio_data *ld = priv;
	struct io_event *e = &ld->events[ev];
	struct io_u *io_u = container_of(e->obj, struct io_u, iocb);
	long res = (long)e->res;

	if (res < 0)
		io_u->error = -res;
	else if (ddir_rw(io_u->ddir) &&
		 (unsigned long long)res != io_u->xfer_buflen)
		io_u->resid = io_u->xfer_buflen - res;
	return io_u;
}

const struct fc_backend fc_backend_libaio = {
	.name		= "libaio",
	.order		= 3,
	.help		= "io_submit",
	.fio_flags	= FIO_ASYNCIO_SYNC_TRIM | FIO_ASYNCIO_SETS_ISSUE_TIME,
	.init		= libaio_init,
	.cleanup	= libaio_cleanup,
	.busy		= libaio_busy,
	.queue		= libaio_queue,
	.commit		= libaio_commit,
	.getevents	= libaio_getevents,
	.event		= libaio_event,
	.open_file	= fc_file_open,
	.close_file	= fc_file_close,
	.get_file_size	= fc_file_size,
};
FC_REGISTER_BACKEND(fc_backend_libaio)
