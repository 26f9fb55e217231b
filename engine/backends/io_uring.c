// SPDX-License-Identifier: GPL-2.0
/*
 * The io_uring backend, through liburing. It drives the ring as fio's own
 * io_uring engine drives its raw one, so that iodepth, iodepth_batch_submit
 * and iodepth_batch_complete_min mean the same: ->queue fills an SQE,
 * ->commit submits every queued SQE in one io_uring_enter(2) that also runs
 * deferred completions, ->getevents reaps CQEs and waits only for
 * iodepth_batch_complete_min of them. The ring is set up with fio's flags
 * (CQ as deep as the SQ, COOP_TASKRUN, SINGLE_ISSUER, DEFER_TASKRUN), each
 * dropped where the kernel lacks it.
 *
 * An SQE is taken only once the model let the I/O through, so an I/O the
 * model fails in the middle of a batch leaves the ring untouched.
 */
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"

struct uring_data {
	struct fc_counters *c;
	struct io_uring ring;
	unsigned int depth;
	struct io_u **queued;	/* in SQE order, not yet submitted */
	unsigned int nr_queued;
	struct io_u **events;	/* what ->getevents reaped */
};

/* Why io_uring_setup failed, in the words of what the user can change. */
static const char *uring_reason(int err, char *buf, size_t len)
{
	FILE *f;
	int disabled = 0;

	switch (err) {
	case EPERM:
		f = fopen("/proc/sys/kernel/io_uring_disabled", "r");
		if (f) {
			if (fscanf(f, "%d", &disabled) != 1)
				disabled = 0;
			fclose(f);
		}
		if (disabled)
			snprintf(buf, len, "sysctl kernel.io_uring_disabled=%d "
				 "%s", disabled, disabled == 2 ?
				 "disables io_uring" :
				 "limits io_uring to kernel.io_uring_group");
		else
			snprintf(buf, len, "a seccomp filter or security "
				 "module denies io_uring_setup");
		break;
	case ENOSYS:
		snprintf(buf, len, "the kernel has no io_uring "
			 "(CONFIG_IO_URING=n), or a seccomp filter hides it");
		break;
	case ENOMEM:
		snprintf(buf, len, "no memory for the ring (RLIMIT_MEMLOCK on "
			 "kernels before 5.12)");
		break;
	default:
		snprintf(buf, len, "io_uring_setup failed");
	}
	return buf;
}

static int uring_setup(struct uring_data *ud)
{
	unsigned int flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN |
			     IORING_SETUP_SINGLE_ISSUER |
			     IORING_SETUP_DEFER_TASKRUN;
	/* what to drop, in fio's order, when the kernel says EINVAL */
	static const unsigned int fallback[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN,
		IORING_SETUP_CQSIZE,
	};
	struct io_uring_params p;
	unsigned int i = 0;
	int ret;

	for (;;) {
		memset(&p, 0, sizeof(p));
		p.flags = flags;
		p.cq_entries = ud->depth;
		ret = io_uring_queue_init_params(ud->depth, &ud->ring, &p);
		if (ret != -EINVAL || i == sizeof(fallback) / sizeof(fallback[0]))
			return ret;
		flags &= ~fallback[i++];
	}
}

static void uring_free(struct uring_data *ud)
{
	free(ud->queued);
	free(ud->events);
	free(ud);
}

static int uring_init(struct thread_data *td, struct fc_counters *c,
		      void **priv)
{
	struct uring_data *ud;
	char why[160];
	int ret;

	if (td->o.io_submit_mode == IO_MODE_OFFLOAD) {
		log_err("flagcheck: backend=io_uring cannot run with "
			"io_submit_mode=offload: its ring has a single "
			"issuer, as fio's io_uring engine\n");
		return EINVAL;
	}
	ud = calloc(1, sizeof(*ud));
	if (!ud)
		return ENOMEM;
	ud->c = c;
	ud->depth = td->o.iodepth;
	ud->queued = calloc(ud->depth, sizeof(*ud->queued));
	ud->events = calloc(ud->depth, sizeof(*ud->events));
	if (!ud->queued || !ud->events) {
		uring_free(ud);
		return ENOMEM;
	}
	ret = uring_setup(ud);
	if (ret < 0) {
		log_err("flagcheck: backend=io_uring: the kernel refuses "
			"io_uring_setup(%u): %s: %s\n", ud->depth,
			strerror(-ret), uring_reason(-ret, why, sizeof(why)));
		uring_free(ud);
		return -ret;
	}
	*priv = ud;
	return 0;
}

static void uring_cleanup(struct thread_data *td, void *priv)
{
	struct uring_data *ud = priv;

	if (!(td->flags & TD_F_CHILD))
		io_uring_queue_exit(&ud->ring);
	uring_free(ud);
}

/* the SQ is full until commit submits it (it is iodepth deep) */
static bool uring_busy(void *priv)
{
	struct uring_data *ud = priv;

	return !io_uring_sq_space_left(&ud->ring);
}

static enum fio_q_status uring_queue(struct thread_data *td, void *priv,
				     struct io_u *io_u)
{
	struct uring_data *ud = priv;
	struct fio_file *f = io_u->file;
	struct io_uring_sqe *sqe;

	if (io_u->ddir == DDIR_TRIM) {
		/* no trim opcode for files: done now, as fio's io_uring */
		ud->c->issued++;
		do_io_u_trim(td, io_u);
		io_u_mark_submit(td, 1);
		io_u_mark_complete(td, 1);
		return FIO_Q_COMPLETED;
	}
	sqe = io_uring_get_sqe(&ud->ring);
	if (!sqe) {	/* uring_busy said there was room: not seen */
		io_u->error = EBUSY;
		return FIO_Q_COMPLETED;
	}

	switch (io_u->ddir) {
	case DDIR_READ:
		io_uring_prep_read(sqe, f->fd, io_u->xfer_buf,
				   io_u->xfer_buflen, io_u->offset);
		sqe->ioprio = td->ioprio;
		break;
	case DDIR_WRITE:
		io_uring_prep_write(sqe, f->fd, io_u->xfer_buf,
				    io_u->xfer_buflen, io_u->offset);
		sqe->ioprio = td->ioprio;
		break;
	case DDIR_DATASYNC:
		io_uring_prep_fsync(sqe, f->fd, IORING_FSYNC_DATASYNC);
		break;
	case DDIR_SYNC_FILE_RANGE:
		io_uring_prep_sync_file_range(sqe, f->fd,
					      f->last_write - f->first_write,
					      f->first_write,
					      td->o.sync_file_range);
		break;
	default:
		io_uring_prep_fsync(sqe, f->fd, 0);
	}
	io_uring_sqe_set_data(sqe, io_u);
	ud->queued[ud->nr_queued++] = io_u;
	return FIO_Q_QUEUED;
}

/* The first @nr queued I/Os went to the kernel. */
static void uring_issued(struct thread_data *td, struct uring_data *ud,
			 unsigned int nr)
{
	fc_stamp_issued(td, ud->queued, nr);
	io_u_mark_submit(td, nr);
	ud->c->issued += nr;
	ud->nr_queued -= nr;
	if (ud->nr_queued)
		memmove(ud->queued, ud->queued + nr,
			ud->nr_queued * sizeof(*ud->queued));
}

static int uring_commit(struct thread_data *td, void *priv)
{
	struct uring_data *ud = priv;
	int ret;

	while (ud->nr_queued) {
		/* enter with GETEVENTS: it also runs deferred completions */
		ret = io_uring_submit_and_get_events(&ud->ring);
		if (ret > 0) {
			uring_issued(td, ud, ret);
		} else if (ret == -EAGAIN || ret == -EINTR) {
			usleep(1);
		} else if (ret < 0) {
			td_verror(td, -ret, "io_uring_enter submit");
			return ret;
		}
	}
	return 0;
}

/* Take the CQEs there are, up to @max reaped in all; how many. */
static unsigned int uring_reap(struct uring_data *ud, unsigned int events,
			       unsigned int max)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;

	io_uring_for_each_cqe(&ud->ring, head, cqe) {
		struct io_u *io_u = io_uring_cqe_get_data(cqe);

		if (events + n == max)
			break;
		if (cqe->res < 0)
			io_u->error = -cqe->res;
		else if (ddir_rw(io_u->ddir) &&
			 (unsigned long long)cqe->res != io_u->xfer_buflen)
			io_u->resid = io_u->xfer_buflen - cqe->res;
		ud->events[events + n++] = io_u;
	}
	io_uring_cq_advance(&ud->ring, n);
	return n;
}

static int uring_getevents(struct thread_data *td, void *priv,
			   unsigned int min, unsigned int max,
			   const struct timespec fio_unused *t)
{
	struct uring_data *ud = priv;
	unsigned int actual_min = td->o.iodepth_batch_complete_min ? min : 0;
	unsigned int events = 0, n;
	struct io_uring_cqe *cqe;
	int r;

	if (max > ud->depth)
		max = ud->depth;
	do {
		n = uring_reap(ud, events, max);
		if (n) {
			events += n;
			actual_min = actual_min > n ? actual_min - n : 0;
			continue;
		}
		/* as fio's io_uring: wait for actual_min, or just run the
		 * deferred completions and look again */
		r = actual_min ? io_uring_wait_cqe_nr(&ud->ring, &cqe, actual_min)
			       : io_uring_get_events(&ud->ring);
		if (r < 0 && r != -EAGAIN && r != -EINTR && r != -ETIME) {
			td_verror(td, -r, "io_uring_enter");
			return events ? (int)events : r;
		}
	} while (events < min);
	return events;
}

static struct io_u *uring_event(struct thread_data fio_unused *td, void *priv,
				int ev)
{
	struct uring_data *ud = priv;

	return ud->events[ev];
}

const struct fc_backend fc_backend_io_uring = {
	.name		= "io_uring",
	.order		= 4,
	.help		= "liburing",
	/* as fio's own io_uring engine */
	.fio_flags	= FIO_ASYNCIO_SYNC_TRIM | FIO_ASYNCIO_SETS_ISSUE_TIME |
			  FIO_NO_OFFLOAD,
	.init		= uring_init,
	.cleanup	= uring_cleanup,
	.busy		= uring_busy,
	.queue		= uring_queue,
	.commit		= uring_commit,
	.getevents	= uring_getevents,
	.event		= uring_event,
	.open_file	= fc_file_open,
	.close_file	= fc_file_close,
	.get_file_size	= fc_file_size,
};
FC_REGISTER_BACKEND(fc_backend_io_uring)
