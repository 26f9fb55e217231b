/* SPDX-License-Identifier: GPL-2.0 */
/* A very small harness: each test program runs its cases, prints one line
 * per case, and exits 0 (all passed), 1 (a case failed) or 77 (skipped). */
#ifndef FLAGCHECK_UNIT_H
#define FLAGCHECK_UNIT_H

#include <stdio.h>
#include <stdlib.h>

static int unit_failed;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: check failed: %s\n",		\
			__FILE__, __LINE__, #cond);			\
		unit_failed++;						\
		return;							\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	unsigned long long _a = (a), _b = (b);				\
	if (_a != _b) {							\
		fprintf(stderr, "%s:%d: %s == %s failed: %llu != %llu\n",\
			__FILE__, __LINE__, #a, #b, _a, _b);		\
		unit_failed++;						\
		return;							\
	}								\
} while (0)

#define RUN(fn) do {							\
	int _before = unit_failed;					\
	fn();								\
	printf("%s %s\n", unit_failed == _before ? "ok  " : "FAIL", #fn);\
} while (0)

#define UNIT_EXIT() return unit_failed ? 1 : 0

#endif
