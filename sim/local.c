// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-sim: what a CPU has of its own, that every other file uses
 * and that uses none of them: its random stream and its local time.
 */
#include "sim_int.h"

/* ----- random numbers: splitmix64, one stream per CPU ----- */

uint64_t sim_rand(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Local time, spread by the profile's jitter: x U(1 - j, 1 + j) */
double sim_local(struct sim *s, struct sim_cpu *c, double ns)
{
	double u;

	if (!s->conf->jitter || !ns)
		return ns;
	u = (double)(sim_rand(&c->rng) >> 11) / (double)(1ULL << 53);
	return ns * (1.0 + s->conf->jitter * (2.0 * u - 1.0));
}
