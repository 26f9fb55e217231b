// SPDX-License-Identifier: GPL-2.0
/* set_buffer_verified (60f91826ca62): both variants leave the same state;
 * always runs two RMWs per creat-clo cycle, test_first none once the bit is
 * set (checked on a read-only page); with creat_dir the real cycle runs in
 * a directory of the job's own, removed at its end. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buffer_head.h"
#include "model.h"
#include "model_opts.h"
#include "unit.h"

extern const struct fc_model fc_model_set_buffer_verified;
static const struct fc_model *m = &fc_model_set_buffer_verified;

static void *params_of(const char *variant, const char *dir)
{
	void *p = model_params(m);

	model_set(m, p, "variant", variant);
	model_set(m, p, "creat_dir", dir);
	return p;
}

static int one_cycle(void *state, void *p, void *job, struct fc_counters *c)
{
	struct fc_io io = { .ddir = FC_READ, .len = 4096, .job = job };

	c->ios[FC_WRITE]++;
	return m->io(state, p, &io, c);
}

static void the_model_as_the_glue_sees_it(void)
{
	const struct fc_model_option *o = model_opt(m, "variant");
	void *p = model_params(m);
	char msg[256];

	CHECK(!strcmp(m->name, "set_buffer_verified"));
	CHECK(!strcmp(m->paths[0], "set_buffer_verified") && !m->paths[1]);
	CHECK(o && o->is_variant && o->choices == fc_variant_names);
	CHECK(!strcmp(o->def, "test_first"));
	CHECK(model_opt(m, "creat_dir")->is_string);
	CHECK(m->job_size && m->job_init && m->job_exit);
	/* no directory: no file operations, nothing to check */
	CHECK(!strcmp(*(const char **)((char *)p +
				       model_opt(m, "creat_dir")->offset), ""));
	CHECK_EQ(m->check(p, msg, sizeof(msg)), 0);
	model_set(m, p, "creat_dir", "/nonexistent/flagcheck");
	CHECK(m->check(p, msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "creat_dir=/nonexistent/flagcheck"));
	free(p);
}

static void same_state_and_rmws(void)
{
	struct buffer_head ba, bt;
	struct fc_counters ca = { 0 }, ct = { 0 };
	void *pa = params_of("always", ""), *pt = params_of("test_first", "");
	int i;

	memset(&ba, 0, sizeof(ba));
	memset(&bt, 0, sizeof(bt));
	for (i = 0; i < 1000; i++) {
		CHECK_EQ(one_cycle(&ba, pa, NULL, &ca), 0);
		CHECK_EQ(one_cycle(&bt, pt, NULL, &ct), 0);
	}
	CHECK(buffer_verified(&ba) && !memcmp(&ba, &bt, sizeof(ba)));
	CHECK_EQ(ca.rmw[0], 2000);
	CHECK_EQ(ca.skipped[0], 0);
	CHECK_EQ(ct.rmw[0], 1);
	CHECK_EQ(ct.skipped[0], 1999);
	CHECK_EQ(ca.checks, 1000);
	free(pa);
	free(pt);
}

static void test_first_no_rmw_on_a_verified_buffer(void)
{
	struct fc_counters c = { 0 };
	void *p = params_of("test_first", "");
	struct buffer_head *bh;
	int i;

	bh = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(bh != MAP_FAILED);
	one_cycle(bh, p, NULL, &c);
	CHECK(mprotect(bh, 4096, PROT_READ) == 0);
	memset(&c, 0, sizeof(c));
	for (i = 0; i < 10000; i++)
		one_cycle(bh, p, NULL, &c);
	CHECK_EQ(fc_counters_rmw(&c), 0);
	CHECK_EQ(c.skipped[0], 20000);
	munmap(bh, 4096);
	free(p);
}

static int entries(const char *dir)
{
	struct dirent *d;
	DIR *dh = opendir(dir);
	int n = 0;

	if (!dh)
		return -1;
	while ((d = readdir(dh)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			n++;
	closedir(dh);
	return n;
}

/* The real cycle: one directory per job inside creat_dir, empty between
 * cycles, gone after job_exit */
static void real_creat_close_unlink(void)
{
	char base[] = "/tmp/flagcheck-unit-XXXXXX";
	char msg[512], want[512];
	struct fc_counters c = { 0 };
	struct buffer_head bh;
	void *p, *job;
	int i;

	CHECK(mkdtemp(base));
	p = params_of("always", base);
	job = calloc(1, m->job_size);
	CHECK(job);
	memset(&bh, 0, sizeof(bh));
	CHECK_EQ(m->job_init(job, p, 1, msg, sizeof(msg)), 0);
	CHECK_EQ(entries(base), 1);
	for (i = 0; i < 100; i++)
		CHECK_EQ(one_cycle(&bh, p, job, &c), 0);
	CHECK_EQ(c.stat[name_index(m->stats, "files_created")], 100);
	CHECK_EQ(c.stat[name_index(m->stats, "files_unlinked")], 100);
	CHECK_EQ(c.rmw[0], 200);
	m->job_exit(job, p);
	CHECK_EQ(entries(base), 0);
	free(job);

	/* a directory that cannot be written fails the job at init */
	if (geteuid() != 0) {
		job = calloc(1, m->job_size);
		CHECK(chmod(base, 0500) == 0);
		CHECK_EQ(m->job_init(job, p, 1, msg, sizeof(msg)), -EACCES);
		free(job);
	}
	CHECK(rmdir(base) == 0);
	free(p);

	/* ... and one that is gone by then, with the reason in @msg */
	p = params_of("always", base);
	job = calloc(1, m->job_size);
	CHECK(job);
	CHECK_EQ(m->job_init(job, p, 1, msg, sizeof(msg)), -ENOENT);
	snprintf(want, sizeof(want), "creat_dir=%s: cannot make this job's "
		 "directory there: No such file or directory", base);
	CHECK(!strcmp(msg, want));
	free(job);
	free(p);
}

#define THREADS	4
#define CYCLES	50000

struct worker {
	void *state, *p;
	struct fc_counters c;
	pthread_t t;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	int i;

	for (i = 0; i < CYCLES; i++)
		one_cycle(w->state, w->p, NULL, &w->c);
	return NULL;
}

static void concurrent_processes(void)
{
	const char *variant[] = { "always", "test_first" };
	int v, i;

	for (v = 0; v < 2; v++) {
		struct buffer_head bh;
		struct worker w[THREADS];
		unsigned long long rmw = 0;
		void *p = params_of(variant[v], "");

		memset(&bh, 0, sizeof(bh));
		memset(w, 0, sizeof(w));
		for (i = 0; i < THREADS; i++) {
			w[i].state = &bh;
			w[i].p = p;
			CHECK(pthread_create(&w[i].t, NULL, worker_run, &w[i]) == 0);
		}
		for (i = 0; i < THREADS; i++) {
			pthread_join(w[i].t, NULL);
			rmw += w[i].c.rmw[0];
		}
		CHECK(buffer_verified(&bh));
		if (v == 0)
			CHECK_EQ(rmw, 2ULL * THREADS * CYCLES);
		else
			CHECK(rmw >= 1 && rmw <= THREADS);
		free(p);
	}
}

int main(void)
{
	RUN(the_model_as_the_glue_sees_it);
	RUN(same_state_and_rmws);
	RUN(test_first_no_rmw_on_a_verified_buffer);
	RUN(real_creat_close_unlink);
	RUN(concurrent_processes);
	UNIT_EXIT();
}
