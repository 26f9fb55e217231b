// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-sim: the physics settings of sim/physics.def as options
 * (--NAME VALUE) and their defaults. Nothing here knows one setting by
 * name: a row of physics.def is an option and a field of struct sim_conf.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

enum ph_kind { PH_CHOICE, PH_BOOL, PH_NUMBER };

struct ph_row {
	const char *name;
	enum ph_kind kind;
	const char *values;
	const char *dflt;
	size_t off;
};

#define PHYSICS(n, k, v, d, what) \
	{ #n, PH_##k, v, d, offsetof(struct sim_conf, n) },
static const struct ph_row ph_rows[] = {
#include "physics.def"
};
#undef PHYSICS

#define PH_ROWS	(sizeof(ph_rows) / sizeof(ph_rows[0]))

/* The index of @val among the space-separated @values, or -1 */
static int ph_index(const char *values, const char *val)
{
	size_t len = strlen(val);
	const char *p = values;
	int i = 0;

	while (len && *p) {
		size_t n = strcspn(p, " ");

		if (n == len && !strncmp(p, val, n))
			return i;
		p += n;
		p += strspn(p, " ");
		i++;
	}
	return -1;
}

/* A NUMBER row's range, its VALUES "LO HI" */
static void ph_range(const struct ph_row *r, double *lo, double *hi)
{
	char *e;

	*lo = strtod(r->values, &e);
	*hi = strtod(e, NULL);
}

static int ph_number(const struct ph_row *r, const char *val, double *out)
{
	char *e;
	double lo, hi, v = val ? strtod(val, &e) : 0;

	ph_range(r, &lo, &hi);
	if (!val || e == val || *e || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

/* @val into @c's field of row @r: 0, or -1 with one line on stderr */
static int ph_set(struct sim_conf *c, const struct ph_row *r, const char *val)
{
	char *field = (char *)c + r->off;
	double d;
	int i;

	if (r->kind == PH_NUMBER) {
		double lo, hi;

		if (!ph_number(r, val, &d)) {
			memcpy(field, &d, sizeof(d));
			return 0;
		}
		ph_range(r, &lo, &hi);
		fprintf(stderr, "flagcheck-sim: --%s %s: a number from %g to %g\n",
			r->name, val ? val : "", lo, hi);
		return -1;
	}
	i = val ? ph_index(r->values, val) : -1;
	if (i < 0) {
		fprintf(stderr, "flagcheck-sim: --%s %s: one of %s\n", r->name,
			val ? val : "", r->values);
		return -1;
	}
	if (r->kind == PH_BOOL)
		*(bool *)field = i;
	else
		*(int *)field = i;
	return 0;
}

double sim_rmw_hit_ns(const struct sim_conf *c)
{
	return c->atomics == SIM_FAR ? c->atomic_far_ns : c->atomic_local_ns;
}

void sim_physics_defaults(struct sim_conf *c)
{
	size_t i;

	for (i = 0; i < PH_ROWS; i++)
		ph_set(c, &ph_rows[i], ph_rows[i].dflt);
}

int sim_physics_option(struct sim_conf *c, const char *opt, const char *val)
{
	size_t i;

	if (strncmp(opt, "--", 2))
		return 1;
	for (i = 0; i < PH_ROWS; i++)
		if (!strcmp(opt + 2, ph_rows[i].name))
			return ph_set(c, &ph_rows[i], val);
	return 1;
}
