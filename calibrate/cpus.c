// SPDX-License-Identifier: GPL-2.0
/*
 * The CPUs this process may use, and a thread pinned to one of them; a
 * failure is one line and exit status 1.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"

void __attribute__((noreturn)) die(const char *fmt, const char *arg, int err)
{
	fprintf(stderr, "flagcheck-calibrate: ");
	fprintf(stderr, fmt, arg);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	exit(1);
}

/* The affinity mask, in a set big enough for any nr_cpu_ids; *size set */
static cpu_set_t *affinity(size_t *size)
{
	int ncpu = 1024;
	cpu_set_t *set;

	for (;;) {
		set = CPU_ALLOC(ncpu);
		*size = CPU_ALLOC_SIZE(ncpu);
		if (!set)
			die("%s", "out of memory", ENOMEM);
		CPU_ZERO_S(*size, set);
		if (!sched_getaffinity(0, *size, set))
			return set;
		CPU_FREE(set);
		if (errno != EINVAL || ncpu > (1 << 20))
			die("%s", "sched_getaffinity", errno);
		ncpu *= 2;
	}
}

/* The usable CPUs, ascending; *n set. Sized for any nr_cpu_ids. */
int *usable_cpus(int *n)
{
	int *cpus, i, k;
	cpu_set_t *set;
	size_t size;

	set = affinity(&size);
	*n = CPU_COUNT_S(size, set);
	cpus = calloc(*n, sizeof(*cpus));
	if (!cpus)
		die("%s", "out of memory", ENOMEM);
	for (i = 0, k = 0; k < *n; i++)
		if (CPU_ISSET_S(i, size, set))
			cpus[k++] = i;
	CPU_FREE(set);
	return cpus;
}

/* Start fn(arg) on a thread pinned to cpu. */
void start_pinned(pthread_t *tid, int cpu, void *(*fn)(void *), void *arg)
{
	cpu_set_t *set = CPU_ALLOC(cpu + 1);
	size_t size = CPU_ALLOC_SIZE(cpu + 1);
	pthread_attr_t attr;
	char what[64];
	int err;

	if (!set)
		die("%s", "out of memory", ENOMEM);
	CPU_ZERO_S(size, set);
	CPU_SET_S(cpu, size, set);
	pthread_attr_init(&attr);
	err = pthread_attr_setaffinity_np(&attr, size, set);
	if (!err)
		err = pthread_create(tid, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	CPU_FREE(set);
	if (err) {
		snprintf(what, sizeof(what), "cannot start a thread on CPU %d",
			 cpu);
		die("%s", what, err);
	}
}
