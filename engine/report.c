// SPDX-License-Identifier: GPL-2.0
/*
 * A job's counters at its end (report.h): the record of the job for
 * stats.c, the line through fio's log_info, the line in the counters file.
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "shm.h"
#include "stats.h"

/*
 * The run's fio process, recorded at load (fio loads the engine while it
 * parses, before it forks a job): set once, the same in every job.
 */
static pid_t fc_run_pid;

void fc_report_load(void)
{
	fc_run_pid = getpid();
}

/* A job process whose fio has gone (killed): its run has no result. */
static bool fc_run_is_gone(void)
{
	return getpid() != fc_run_pid && getppid() != fc_run_pid;
}

/*
 * The key of a counters file in the run's arena: its real path, so that two
 * spellings of one file (s.jsonl, ./s.jsonl) are one file whose first job
 * alone starts it afresh. The file exists by now (created, not truncated).
 */
static int fc_stats_key(const char *path, char *key, size_t len)
{
	char *real = realpath(path, NULL);

	if (!real)
		return -errno;
	snprintf(key, len, "stats:%s", real);
	free(real);
	return 0;
}

/* The run's word for one counters file: is it started afresh yet? */
enum { STATS_PENDING = 0, STATS_STARTED, STATS_FAILED };

/*
 * The first job of the run to get here starts the file afresh; every other
 * job waits until it has, so that no job's line (a short job that already
 * ended, under load) can come before the truncation and be lost with it.
 */
int fc_report_prepare(struct thread_data *td,
		      const struct flagcheck_options *o)
{
	uint32_t *state = NULL;
	bool first = false;
	char key[PATH_MAX + 16];
	int err;

	if (!o->stats[0])
		return 0;
	err = fc_stats_prepare(o->stats, 0);
	if (!err)
		err = fc_stats_key(o->stats, key, sizeof(key));
	if (!err && !fc_shm_error())
		state = fc_shm_get(key, sizeof(*state), &first);
	if (state && first) {
		err = fc_stats_prepare(o->stats, 1);
		__atomic_store_n(state, err ? STATS_FAILED : STATS_STARTED,
				 __ATOMIC_RELEASE);
	} else if (state) {
		while (__atomic_load_n(state, __ATOMIC_ACQUIRE) == STATS_PENDING)
			sched_yield();
	}
	if (err) {
		log_err("flagcheck: flagcheck_stats=%s cannot be written: %s%s\n",
			o->stats, strerror(-err), err == -ELOOP ?
			" (it is a symbolic link: the counters file is never "
			"written through one; remove it or name a regular file)" :
			"");
		td_verror(td, -err, "flagcheck_stats");
		return 1;
	}
	return 0;
}

static void fc_stats_job_of(struct thread_data *td,
			    const struct flagcheck_options *o,
			    const struct fc_report_job *rj,
			    struct fc_stats_job *j, const char *opts)
{
	const struct fc_model *m = rj->model;
	const struct fc_model_option *mo;

	j->job = td->o.name;
	j->thread_number = td->thread_number;
	j->pid = (int)getpid();
	j->model = m->name;
	j->variant = fc_variant_names[FC_ALWAYS];
	mo = fc_model_variant_option(m);
	if (mo)		/* by the model's own names */
		j->variant = mo->choices[fc_model_variant(m, rj->params)];
	j->mapping = fc_mapping_names[o->mapping];
	j->backend = rj->backend->name;
	j->options = opts;
	j->paths = m->job_paths && rj->job ? m->job_paths(rj->job) : m->paths;
	j->stats = m->stats;
}

void fc_report(struct thread_data *td, const struct flagcheck_options *o,
	       const struct fc_report_job *rj)
{
	struct fc_stats_job j;
	char *opts, *line, *corun = NULL;
	int err;

	opts = fc_model_options_json(rj->model, rj->params);
	fc_stats_job_of(td, o, rj, &j, opts);
	if (rj->corun)
		corun = fc_corun_json(rj->corun);
	j.corun = corun;
	/* only beside fio's text output: never inside its JSON or terse */
	if (output_format & FIO_OUTPUT_NORMAL) {
		line = fc_stats_text(&j, rj->c);
		if (line)
			log_info("%s\n", line);
		free(line);
	}
	if (o->stats[0]) {
		if (fc_run_is_gone()) {
			log_err("flagcheck: fio (pid %d) is gone: job %s writes "
				"no counters to %s\n", (int)fc_run_pid,
				td->o.name, o->stats);
		} else {
			err = opts && (corun || !rj->corun) ?
				fc_stats_append(o->stats, &j, rj->c) : -ENOMEM;
			if (err) {
				/* the job fails: fio exits non-zero */
				log_err("flagcheck: writing the counters of job "
					"%s to flagcheck_stats=%s: %s (nothing "
					"of this job's line was kept)\n",
					td->o.name, o->stats, strerror(-err));
				td_verror(td, -err, "flagcheck_stats");
			}
		}
	}
	free(opts);
	free(corun);
}
