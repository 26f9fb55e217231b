// SPDX-License-Identifier: GPL-2.0
/*
 * Every I/O of a job: fio's ->queue runs the job's model, then hands the
 * I/O to the job's backend (backend.h), whose ->commit, ->getevents and
 * ->event complete it. What every I/O needs is inline here; what it needs
 * only now and then (->busy, the end of fio's ramp, the timed call, a sync
 * fio does not count) is out of line.
 */
#include <errno.h>
#include <string.h>

#include "fio.h"

#include "fio_compat.h"
#include "job.h"

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
void fc_ramp_check(struct thread_data *td, struct flagcheck_data *jd)
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
 * sync_file_range= are refused (fc_refuse_syncs() in job.c).
 */
static bool fc_fio_counts(struct thread_data *td, struct io_u *io_u)
{
	return io_u->ddir != DDIR_SYNC || td->runstate != TD_FSYNCING;
}

void fc_uncounted_done(struct flagcheck_data *jd)
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
 * A backend bug: its ->queue answered FIO_Q_BUSY after the model ran for
 * the I/O. Requeued, the I/O would run the model twice: it fails instead.
 */
static enum fio_q_status __attribute__((noinline))
fc_backend_busy_bug(struct flagcheck_data *jd, struct io_u *io_u)
{
	log_err("flagcheck: backend=%s refused an I/O after the model "
		"ran for it (its ->busy did not say so): failing the "
		"I/O rather than counting it twice\n", jd->backend->name);
	io_u->error = EIO;
	return FIO_Q_COMPLETED;
}

/*
 * The model failed the I/O: as the kernel returns before ->direct_IO,
 * nothing is issued; the model's reason, where it has one, said once
 */
static enum fio_q_status __attribute__((noinline))
fc_model_failed(struct flagcheck_data *jd, struct io_u *io_u, int err)
{
	const char *why = jd->model->io_error ?
			  jd->model->io_error(jd->job) : NULL;

	if (why && !jd->io_error_told) {
		log_err("flagcheck: %s\n", why);
		jd->io_error_told = true;
	}
	jd->c.errors_reported++;
	io_u->error = -err;
	return FIO_Q_COMPLETED;
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
enum fio_q_status fio_flagcheck_queue(struct thread_data *td,
				      struct io_u *io_u)
{
	struct flagcheck_data *jd = td->io_ops_data;
	struct flagcheck_file *ff = FILE_ENG_DATA(io_u->file);
	struct fc_io io = {
		.ddir	= fc_ddir_of(io_u),
		.offset	= io_u->offset,
		.len	= io_u->xfer_buflen,
		.job	= jd->job,
		.stop	= &jd->stop,
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
	if (fio_unlikely(err))
		return fc_model_failed(jd, io_u, err);
	ret = jd->backend->queue(td, jd->backend_data, io_u);
	if (fio_unlikely(ret == FIO_Q_BUSY))
		return fc_backend_busy_bug(jd, io_u);
	return ret;
}

int fio_flagcheck_commit(struct thread_data *td)
{
	struct flagcheck_data *jd = td->io_ops_data;
	int ret = jd->backend->commit(td, jd->backend_data);

	if (fio_unlikely(jd->uncounted))
		fc_uncounted_done(jd);
	return ret;
}

int fio_flagcheck_getevents(struct thread_data *td, unsigned int min,
			    unsigned int max, const struct timespec *t)
{
	struct flagcheck_data *jd = td->io_ops_data;

	return jd->backend->getevents(td, jd->backend_data, min, max, t);
}

struct io_u *fio_flagcheck_event(struct thread_data *td, int ev)
{
	struct flagcheck_data *jd = td->io_ops_data;

	return jd->backend->event(td, jd->backend_data, ev);
}
