// SPDX-License-Identifier: GPL-2.0
/*
 * The stretches of time a job ran on its CPU (corun.h): sampled every
 * FC_CORUN_EVERY I/Os, written as the "corun" object of the job's line in
 * the flagcheck_stats file, merged across the jobs by the analysis.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "corun.h"

static uint64_t fc_corun_clock(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int fc_corun_init(struct fc_corun *r)
{
	r->iv = calloc(2 * FC_CORUN_MAX, sizeof(*r->iv));
	if (!r->iv)
		return -ENOMEM;
	r->n = 0;
	r->left = 1;		/* the first I/O opens the first stretch */
	r->on_ns = r->merged = 0;
	return 0;
}

/* A new stretch from @now, or the last one stretched when iv is full */
static void fc_corun_open(struct fc_corun *r, uint64_t now)
{
	if (r->n == FC_CORUN_MAX) {
		r->merged++;
		r->iv[2 * r->n - 1] = now;
		return;
	}
	r->iv[2 * r->n] = r->iv[2 * r->n + 1] = now;
	r->n++;
}

/* After a long window: away for longer than FC_CORUN_AWAY_NS since the
 * thread's CPU time was last read? */
static int fc_corun_away(struct fc_corun *r, uint64_t wall)
{
	uint64_t cpu = fc_corun_clock(CLOCK_THREAD_CPUTIME_ID);
	uint64_t dw = wall - r->cpu_wall;
	uint64_t dc = cpu > r->cpu ? cpu - r->cpu : 0;

	r->on_ns += dc < dw ? dc : dw;
	r->cpu = cpu;
	r->cpu_wall = wall;
	return dw > dc + FC_CORUN_AWAY_NS;
}

void fc_corun_sample(struct fc_corun *r)
{
	uint64_t wall = fc_corun_clock(CLOCK_MONOTONIC);
	uint64_t dw = wall - r->wall;
	bool long_window;

	r->left = FC_CORUN_EVERY;
	if (!r->n) {
		r->cpu = fc_corun_clock(CLOCK_THREAD_CPUTIME_ID);
		r->cpu_wall = wall;
		r->min_dw = UINT64_MAX;
		fc_corun_open(r, wall);
	} else {
		/* the first window is asked too: no shortest one is known */
		long_window = r->min_dw == UINT64_MAX ||
			      dw > r->min_dw + FC_CORUN_AWAY_NS;
		if (dw < r->min_dw)
			r->min_dw = dw;
		if (long_window && fc_corun_away(r, wall))
			fc_corun_open(r, wall);	/* a new stretch */
		else
			r->iv[2 * r->n - 1] = wall;
	}
	r->wall = wall;
}

void fc_corun_end(struct fc_corun *r)
{
	if (r->n)	/* the CPU time up to the last sample */
		fc_corun_away(r, r->wall);
}

char *fc_corun_json(const struct fc_corun *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	unsigned int i;

	if (!out)
		return NULL;
	fprintf(out, "{\"every\": %d, \"away_ns\": %llu, \"on_cpu_ns\": %llu, "
		"\"merged\": %llu, \"intervals\": [", FC_CORUN_EVERY,
		FC_CORUN_AWAY_NS, (unsigned long long)r->on_ns,
		(unsigned long long)r->merged);
	for (i = 0; r->iv && i < r->n; i++)
		fprintf(out, "%s[%llu, %llu]", i ? ", " : "",
			(unsigned long long)r->iv[2 * i],
			(unsigned long long)r->iv[2 * i + 1]);
	fputs("]}", out);
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

void fc_corun_free(struct fc_corun *r)
{
	free(r->iv);
	r->iv = NULL;
	r->n = 0;
}
