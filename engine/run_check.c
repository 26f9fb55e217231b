// SPDX-License-Identifier: GPL-2.0
/*
 * The jobs of a run checked together before any of them runs an I/O, for
 * what no one job's options show (model.h's ->run_check: model=pattern's
 * layouts and locks), from every job's options in fio's table of jobs.
 * That table is shared memory, which each job changes as it ends: the
 * answer is worked out once, in the process that parsed every job, before
 * any job runs: when fio lays out the first job's files there
 * (create_serialize=1, the default: ->setup), or else just before it forks
 * its first job process (pthread_atfork; in client and server mode, the
 * server's process that runs the jobs), or, with threads, at the first
 * job's ->init. Every job asks at its ->setup or ->init and is refused.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"

#include "job.h"
#include "options.h"

/* The tests' build without this check (the Makefile's unchecked.so) */
#ifdef FC_RUN_CHECK_OFF
#define FC_RUN_CHECKED	false
#else
#define FC_RUN_CHECKED	true
#endif

static pthread_once_t fc_run_once = PTHREAD_ONCE_INIT;
static char fc_run_why[1024];		/* "": the jobs fit together */
static unsigned int fc_run_teller;	/* the job that says why, in a job */
static bool fc_run_told;

/* The jobs on one model, one entry per file; the states' file names */
struct fc_run_list {
	struct fc_run_job *job;
	unsigned int n, cap;
	void **params;			/* each job's, freed at the end */
	unsigned int nr_params;
	const char **state;		/* a shared state's file, or NULL */
	unsigned int nr_states;
};

/* A job on this engine and on model @m */
static bool fc_run_on(struct thread_data *td, const struct fc_model *m)
{
	const struct flagcheck_options *o = td->eo;

	return td->io_ops == &ioengine && o && fc_models[o->model] == m;
}

/* The state of file @name (NULL: a job's own): one per name, as
 * file_state.c keys the arena; -1 when out of memory */
static int fc_run_state(struct fc_run_list *l, const char *name)
{
	const char **more;
	unsigned int i;

	for (i = 0; name && i < l->nr_states; i++)
		if (l->state[i] && !strcmp(l->state[i], name))
			return i;
	more = realloc(l->state, (l->nr_states + 1) * sizeof(*more));
	if (!more)
		return -1;
	l->state = more;
	l->state[l->nr_states] = name;
	return l->nr_states++;
}

static int fc_run_add(struct fc_run_list *l, const void *params,
		      struct thread_data *td, const char *file)
{
	struct fc_run_job *more;
	int state = fc_run_state(l, file);

	if (state < 0)
		return -1;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		more = realloc(l->job, l->cap * sizeof(*more));
		if (!more)
			return -1;
		l->job = more;
	}
	l->job[l->n++] = (struct fc_run_job){ .params = params,
		.job_number = td->thread_number, .state = state };
	return 0;
}

/* Job @td on each of its files (mapping=shared), or on its own states */
static int fc_run_job(struct fc_run_list *l, const struct fc_model *m,
		      struct thread_data *td)
{
	const struct flagcheck_options *o = td->eo;
	bool shared = o->mapping == FC_MAPPING_SHARED;
	void *params = calloc(1, FC_MAX_PARAMS), **more;
	struct fio_file *f;
	unsigned int i, files = 0;

	more = realloc(l->params, (l->nr_params + 1) * sizeof(*more));
	if (!more || !params) {
		free(params);
		l->params = more ?: l->params;
		return -1;
	}
	l->params = more;
	l->params[l->nr_params++] = params;
	fc_model_params(m, o, params);
	if (!fc_run_teller || td->thread_number < fc_run_teller)
		fc_run_teller = td->thread_number;
	for_each_file(td, f, i) {
		if (fc_run_add(l, params, td, shared ? f->file_name : NULL))
			return -1;
		files++;
	}
	return files ? 0 : fc_run_add(l, params, td, NULL);
}

/* Model @m's jobs, checked together: 0, or -1 with fc_run_why set */
static int fc_run_model(const struct fc_model *m)
{
	struct fc_run_list l = { 0 };
	unsigned int i;
	int err = 0;

	for (i = 0; i < thread_number && !err; i++)
		if (fc_run_on(tnumber_to_td(i), m))
			err = fc_run_job(&l, m, tnumber_to_td(i));
	if (err)
		snprintf(fc_run_why, sizeof(fc_run_why), "%s: out of memory "
			 "checking the run's jobs together", m->name);
	else if (l.n)
		err = m->run_check(l.job, l.n, fc_run_why, sizeof(fc_run_why));
	for (i = 0; i < l.nr_params; i++)
		free(l.params[i]);
	free(l.params);
	free(l.job);
	free(l.state);
	return err;
}

static void fc_run_check_all(void)
{
	unsigned int i;

	for (i = 0; fc_models[i]; i++)
		if (fc_models[i]->run_check && fc_run_model(fc_models[i]))
			return;
	fc_run_why[0] = '\0';
}

/* Before fio forks a job process: the answer, for the child to inherit */
static void fc_run_prefork(void)
{
	pthread_once(&fc_run_once, fc_run_check_all);
}

__attribute__((constructor))
static void fc_run_check_load(void)
{
	pthread_atfork(fc_run_prefork, NULL, NULL);
}

/*
 * 0, or 1 with @td's error set: the run's jobs do not fit together. Said
 * once, in fio's main process (@in_job false), else by the lowest-numbered
 * job of the run on this engine, each job process asking alone.
 */
int fc_run_check(struct thread_data *td, bool in_job)
{
	if (!FC_RUN_CHECKED)
		return 0;
	pthread_once(&fc_run_once, fc_run_check_all);
	if (!fc_run_why[0])
		return 0;
	if ((!in_job || td->thread_number == fc_run_teller) &&
	    !__atomic_exchange_n(&fc_run_told, true, __ATOMIC_RELAXED))
		log_err("flagcheck: %s\n", fc_run_why);
	td_verror(td, EINVAL, "flagcheck: the run's jobs together");
	return 1;
}
