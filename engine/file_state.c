// SPDX-License-Identifier: GPL-2.0
/*
 * Each file's model state: one per file name for the whole run in the
 * arena (mapping=shared, as one inode has one address_space), or the job's
 * own (mapping=private); made for every file at the job's init, before any
 * I/O, or when fio opens a file it had not sized then; freed at the job's
 * end. And fio's file hooks, which reach the job's backend through it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"

#include "job.h"
#include "options.h"
#include "shm.h"

/*
 * fio sizes and lays out a job's files in the parent, before the job's
 * init: then there is no job data yet, and the backend opens the file alone.
 */
const struct fc_backend *fc_backend_of(struct thread_data *td)
{
	struct flagcheck_options *o = td->eo;

	return fc_backends[o->backend];
}

/*
 * The model's state covers the range the job addresses, not the whole
 * device: a model with per-page state on a large device needs only what
 * size= and offset= reach.
 */
static unsigned long long fc_file_span(const struct fio_file *f)
{
	return f->io_size ? f->file_offset + f->io_size : f->real_file_size;
}

/* The run's state of @f for the job's model, found or made in the arena */
static void *fc_state_shared(struct flagcheck_data *jd, struct fio_file *f,
			     size_t size)
{
	char key[PATH_MAX + 64];
	bool created;

	snprintf(key, sizeof(key), "%s:%s", jd->model->name, f->file_name);
	return fc_shm_get(key, size, &created);
}

/* The job's own state of a file, zero-filled as the arena's */
static void *fc_state_private(size_t size)
{
	void *state;

	size = (size + FC_SHM_ALIGN - 1) & ~(size_t)(FC_SHM_ALIGN - 1);
	state = aligned_alloc(FC_SHM_ALIGN, size);
	if (state)
		memset(state, 0, size);
	return state;
}

/* Why @f got no state: one line naming the model, the bytes and the cure */
static void fc_state_refused(const struct flagcheck_data *jd,
			     const struct flagcheck_file *ff,
			     const struct fio_file *f, size_t size, int err)
{
	log_err("flagcheck: %s needs %zu bytes of %s state for %s (its "
		"first %llu bytes): %s%s\n", jd->model->name, size,
		ff->private_state ? "private" : "shared", f->file_name,
		fc_file_span(f), strerror(err), err == EINVAL ?
		" (another job on this file made it for a smaller range: "
		"give every job on one file the same size and offset)" :
		err == ENOMEM ? " (give a smaller size= to address less of "
		"the file)" : err == ENOSPC ? " (the run's arena holds "
		"no more names: fewer files per run)" : "");
}

/* The model's state for a file, once per job and file: 0 or an errno */
static int fc_file_attach(struct thread_data *td, struct flagcheck_data *jd,
			  struct fio_file *f)
{
	struct flagcheck_options *o = td->eo;
	size_t size = jd->model->state_size(jd->params, fc_file_span(f));
	struct flagcheck_file *ff;

	if (FILE_ENG_DATA(f))
		return 0;
	ff = calloc(1, sizeof(*ff));
	if (!ff)
		return ENOMEM;

	errno = 0;
	if (o->mapping == FC_MAPPING_SHARED) {
		ff->state = fc_state_shared(jd, f, size);
	} else {
		ff->state = fc_state_private(size);
		ff->private_state = 1;
	}
	if (!ff->state) {
		int err = errno ? errno : ENOMEM;

		fc_state_refused(jd, ff, f, size, err);
		free(ff);
		return err;
	}
	ff->next = jd->files;
	jd->files = ff;
	FILE_SET_ENG_DATA(f, ff);
	return 0;
}

/*
 * Every file's model state now, before any I/O: a file the arena or memory
 * cannot hold fails the job here, with one message, rather than an open in
 * the middle of the run. Files fio has not sized yet (create_serialize=0
 * sizes them after init) get theirs when opened.
 */
int fc_attach_files(struct thread_data *td, struct flagcheck_data *jd)
{
	struct fio_file *f;
	unsigned int i;
	int err;

	for_each_file(td, f, i) {
		if (f->real_file_size == -1ULL && !f->io_size)
			continue;
		err = fc_file_attach(td, jd, f);
		if (err) {
			td_verror(td, err, "flagcheck model state");
			return 1;
		}
	}
	return 0;
}

/* At the job's end: every state the job made, the shared ones forgotten */
void fc_free_files(struct thread_data *td, struct flagcheck_data *jd)
{
	struct flagcheck_file *ff, *next;
	struct fio_file *f;
	unsigned int i;

	/* files fio has not freed yet: forget our data before freeing it */
	for_each_file(td, f, i)
		FILE_SET_ENG_DATA(f, NULL);
	for (ff = jd->files; ff; ff = next) {
		next = ff->next;
		if (ff->private_state)
			free(ff->state);
		free(ff);
	}
	jd->files = NULL;
}

int fio_flagcheck_open_file(struct thread_data *td, struct fio_file *f)
{
	struct flagcheck_data *jd = td->io_ops_data;
	int err;

	if (!jd)
		return fc_backend_of(td)->open_file(td, NULL, f);
	err = fc_file_attach(td, jd, f);
	if (err) {
		td_verror(td, err, "flagcheck open_file");
		return 1;
	}
	return jd->backend->open_file(td, jd->backend_data, f);
}

int fio_flagcheck_close_file(struct thread_data *td, struct fio_file *f)
{
	struct flagcheck_data *jd = td->io_ops_data;

	if (!jd)
		return fc_backend_of(td)->close_file(td, NULL, f);
	return jd->backend->close_file(td, jd->backend_data, f);
}

int fio_flagcheck_get_file_size(struct thread_data *td, struct fio_file *f)
{
	struct flagcheck_data *jd = td->io_ops_data;
	const struct fc_backend *b = fc_backend_of(td);

	if (!b->get_file_size)
		return 0;
	return b->get_file_size(td, jd ? jd->backend_data : NULL, f);
}
