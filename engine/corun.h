/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When a job was on its CPU: the job's own record of the stretches of time
 * it ran, so that the analysis can merge the jobs' records after the run
 * and say how much of it the jobs ran at the same time (a line is only
 * contended while two jobs run). Nothing here is shared between jobs.
 *
 * Every FC_CORUN_EVERY I/Os (never per I/O) the job reads CLOCK_MONOTONIC.
 * A window between two samples longer than the shortest one so far by more
 * than FC_CORUN_AWAY_NS may hold time off the CPU: only then does the job
 * read its thread's CPU time (CLOCK_THREAD_CPUTIME_ID). When the wall time
 * since that clock's last read exceeds the CPU time by more than
 * FC_CORUN_AWAY_NS, the job was off its CPU in between (another task ran,
 * the VM's vCPU was stolen, or the job waited for an I/O): its running
 * stretch ends at the last sample and a new one starts now.
 */
#ifndef FLAGCHECK_CORUN_H
#define FLAGCHECK_CORUN_H

#include <stdint.h>

/*
 * 1 sample in 128 I/Os: CLOCK_MONOTONIC through the vDSO (37 ns on the dev
 * VM: 0.3 ns an I/O). CLOCK_THREAD_CPUTIME_ID is a system call (0.9 us
 * there, 7 ns an I/O if read at every sample): read only after a long
 * window, which on a job running undisturbed never comes.
 */
#define FC_CORUN_EVERY		128
/* Off the CPU for longer than this between two samples: away. Shorter
 * than any scheduler time slice (CFS's least is 0.75 ms), longer than an
 * interrupt's handling */
#define FC_CORUN_AWAY_NS	100000ULL
/* At most this many stretches per job (64 KiB); past it the last one is
 * stretched over the gaps, which are counted (merged) */
#define FC_CORUN_MAX		4096

struct fc_corun {
	uint64_t *iv;		/* [start, end] pairs, CLOCK_MONOTONIC ns */
	unsigned int n;		/* stretches in iv */
	unsigned int left;	/* I/Os until the next sample */
	uint64_t wall;		/* at the last sample, ns */
	uint64_t min_dw;	/* the shortest window between two samples */
	uint64_t cpu, cpu_wall;	/* the thread's CPU time at its last read,
				 * and the wall time then */
	uint64_t on_ns;		/* the thread's CPU time, first sample to last */
	uint64_t merged;	/* gaps lost to a full iv */
};

/* At job init: 0 or -ENOMEM */
int fc_corun_init(struct fc_corun *r);
/* The sample, out of line: every FC_CORUN_EVERY I/Os */
void fc_corun_sample(struct fc_corun *r);
/* The per-I/O hook: a decrement and a rarely taken branch */
static inline void fc_corun_io(struct fc_corun *r)
{
	if (__builtin_expect(--r->left == 0, 0))
		fc_corun_sample(r);
}
/* At job end, in the job's thread: on_ns up to the last sample */
void fc_corun_end(struct fc_corun *r);
/* The record as a JSON object: malloc'd, NULL without memory */
char *fc_corun_json(const struct fc_corun *r);
void fc_corun_free(struct fc_corun *r);

#endif
