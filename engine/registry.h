/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one registry of what registers itself as the engine (or a unit test
 * program) is loaded: models (model.h) and backends (backend.h), each a
 * struct with a ->name and an ->order. A kind's list is NULL-terminated,
 * numbered entries (->order) first by number, then the others by name,
 * indexed by its option's value; one entry past its capacity is counted,
 * not listed, and refused at load (options.c). Filled by constructors of
 * priority 101, before any constructor of default priority (the engine's)
 * reads it and before fio parses a job or forks one: read-only afterwards,
 * the same in every job process and thread.
 *
 *   FC_REGISTRY_DECLARE(kind, type, max)  in the kind's header:
 *       fc_<kind>s[], fc_register_<kind>(), fc_<kind>s_refused()
 *   FC_REGISTRY(kind, type, max)          in one .c file: their code
 *   FC_REGISTER(kind, var)                in an entry's file, after var
 */
#ifndef FLAGCHECK_REGISTRY_H
#define FLAGCHECK_REGISTRY_H

#include <stdbool.h>
#include <string.h>

/* Numbered entries first, by number; then the others, by name */
static inline bool fc_listed_before(unsigned int a_order, const char *a_name,
				    unsigned int b_order, const char *b_name)
{
	if (a_order != b_order)
		return a_order && (!b_order || a_order < b_order);
	return strcmp(a_name, b_name) < 0;
}

#define FC_REGISTRY_DECLARE(kind, type, max)				\
extern const type *fc_##kind##s[(max) + 1];				\
void fc_register_##kind(const type *e);					\
unsigned int fc_##kind##s_refused(void);

/* Constructors run in link order, which -flto does not keep: sort here */
#define FC_REGISTRY(kind, type, max)					\
const type *fc_##kind##s[(max) + 1];					\
static unsigned int nr_##kind##s, kind##s_refused;			\
									\
void fc_register_##kind(const type *e)					\
{									\
	const type **list = fc_##kind##s;				\
	unsigned int i;							\
									\
	if (nr_##kind##s == (max)) {					\
		kind##s_refused++;					\
		return;							\
	}								\
	for (i = nr_##kind##s++; i && fc_listed_before(e->order,	\
		e->name, list[i - 1]->order, list[i - 1]->name); i--)	\
		list[i] = list[i - 1];					\
	list[i] = e;							\
}									\
									\
unsigned int fc_##kind##s_refused(void)					\
{									\
	return kind##s_refused;						\
}

#define FC_REGISTER(kind, var)						\
static void __attribute__((constructor(101)))				\
fc_register_##kind##_##var(void)					\
{									\
	fc_register_##kind(&var);					\
}

#endif
