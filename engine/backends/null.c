// SPDX-License-Identifier: GPL-2.0
/*
 * The null backend: no data moves, as with fio's own null engine, so the
 * modelled path is all that costs. With iodepth > 1 I/Os are queued and
 * completed at commit, as fio's null engine does.
 */
#include <stdlib.h>

#include "backend.h"

struct null_data {
	struct fc_counters *c;
	struct io_u **io_us;
	unsigned int queued;
	unsigned int events;
};

static int null_init(struct thread_data *td, struct fc_counters *c,
		     void **priv)
{
	struct null_data *nd = calloc(1, sizeof(*nd));

	if (!nd)
		return ENOMEM;
	nd->c = c;
	if (td->o.iodepth > 1) {
		nd->io_us = calloc(td->o.iodepth, sizeof(struct io_u *));
		if (!nd->io_us) {
			free(nd);
			return ENOMEM;
		}
		fc_td_engine_flags(td, FIO_ASYNCIO_SETS_ISSUE_TIME, 0);
	} else {
		/* as fio's null engine: at depth 1 it is a sync engine */
		fc_td_engine_flags(td, FIO_SYNCIO, 0);
	}
	*priv = nd;
	return 0;
}

static void null_cleanup(struct thread_data fio_unused *td, void *priv)
{
	struct null_data *nd = priv;

	if (nd) {
		free(nd->io_us);
		free(nd);
	}
}

/* completions not reaped yet: fio reaps them before it queues more */
static bool null_busy(void *priv)
{
	struct null_data *nd = priv;

	return nd->io_us && nd->events;
}

static enum fio_q_status null_queue(struct thread_data fio_unused *td,
				    void *priv, struct io_u *io_u)
{
	struct null_data *nd = priv;

	if (!nd->io_us) {
		nd->c->issued++;
		return FIO_Q_COMPLETED;
	}
	nd->io_us[nd->queued++] = io_u;
	return FIO_Q_QUEUED;
}

static int null_commit(struct thread_data *td, void *priv)
{
	struct null_data *nd = priv;

	if (nd->events || !nd->queued)
		return 0;
	fc_stamp_issued(td, nd->io_us, nd->queued);
	nd->c->issued += nd->queued;
	nd->events = nd->queued;
	nd->queued = 0;
	return 0;
}

static int null_getevents(struct thread_data fio_unused *td, void *priv,
			  unsigned int min, unsigned int fio_unused max,
			  const struct timespec fio_unused *t)
{
	struct null_data *nd = priv;
	int ret = 0;

	if (min) {
		ret = nd->events;
		nd->events = 0;
	}
	return ret;
}

static struct io_u *null_event(struct thread_data fio_unused *td, void *priv,
			       int ev)
{
	struct null_data *nd = priv;

	return nd->io_us[ev];
}

static int null_open_file(struct thread_data fio_unused *td,
			  void fio_unused *priv, struct fio_file fio_unused *f)
{
	return 0;
}

const struct fc_backend fc_backend_null = {
	.name		= "null",
	.order		= 1,
	.help		= "no data transfer, like fio's null engine",
	.fio_flags	= FIO_DISKLESSIO | FIO_FAKEIO,
	.init		= null_init,
	.cleanup	= null_cleanup,
	.busy		= null_busy,
	.queue		= null_queue,
	.commit		= null_commit,
	.getevents	= null_getevents,
	.event		= null_event,
	.open_file	= null_open_file,
	.close_file	= null_open_file,
};
FC_REGISTER_BACKEND(fc_backend_null)
