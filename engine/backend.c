// SPDX-License-Identifier: GPL-2.0
/* The registry of backends: a new backend is one file in backends/ that
 * ends with FC_REGISTER_BACKEND (backend.h), nothing here. */
#include <stdbool.h>
#include <string.h>

#include "backend.h"

const struct fc_backend *fc_backends[FC_MAX_BACKENDS + 1];
static unsigned int nr_backends, nr_refused;

/* Numbered backends first, by number; then the others, by name */
static bool listed_before(const struct fc_backend *a,
			  const struct fc_backend *b)
{
	if (a->order != b->order)
		return a->order && (!b->order || a->order < b->order);
	return strcmp(a->name, b->name) < 0;
}

/* Constructors run in link order, which -flto does not keep: sort here */
void fc_register_backend(const struct fc_backend *b)
{
	unsigned int i;

	if (nr_backends == FC_MAX_BACKENDS) {
		nr_refused++;
		return;
	}
	for (i = nr_backends++; i && listed_before(b, fc_backends[i - 1]); i--)
		fc_backends[i] = fc_backends[i - 1];
	fc_backends[i] = b;
}

unsigned int fc_backends_refused(void)
{
	return nr_refused;
}
