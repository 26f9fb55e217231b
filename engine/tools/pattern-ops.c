// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-pattern-ops: model=pattern's operation table
 * (engine/pattern/ops.tbl, through pattern_ops.h) as JSON on stdout, for the tests and the
 * docs' check: every operation with its arguments, what one call counts,
 * its test-first form, whether /flip_every may undo it and whether it is a
 * compare-and-swap loop (its retries counted); then the guards and the
 * prefixes the parser also takes for atomic_OP (atomic_long_OP, ...).
 * The strings of the table hold no '"' or '\': printed as they are.
 */
#include <stdio.h>

#include "pattern.h"

#define COUNTS_LOAD	"load"
#define COUNTS_STORE	"store"
#define COUNTS_RMW	"rmw"
#define COUNTS_OTHER	"other"

struct row {
	const char *name, *counts, *args, *test_first;
	int flip, loop;
};

#define ROW(code, name, kind, args, tf, flip, loop) \
	{ name, COUNTS_##kind, args, tf, flip, loop },
static const struct row rows[] = { PATTERN_OPS(ROW) };
#undef ROW

#define GUARD(code, name) name,
static const char *const guards[] = { PATTERN_GUARDS(GUARD) };
#undef GUARD

#define ALIAS(prefix) prefix,
static const char *const aliases[] = { PATTERN_ALIASES(ALIAS) };
#undef ALIAS

static void print_list(const char *key, const char *const *list, size_t n,
		       int last)
{
	size_t i;

	printf("  \"%s\": [", key);
	for (i = 0; i < n; i++)
		printf("%s\"%s\"", i ? ", " : "", list[i]);
	printf("]%s\n", last ? "" : ",");
}

static void print_row(const struct row *r, int last)
{
	printf("    {\"name\": \"%s\", \"args\": \"%s\", \"counts\": \"%s\", ",
	       r->name, r->args, r->counts);
	if (r->test_first)
		printf("\"test_first\": \"%s\", ", r->test_first);
	else
		printf("\"test_first\": null, ");
	printf("\"flip\": %s, \"loop\": %s, \"spin\": %s}%s\n",
	       r->flip ? "true" : "false", r->loop ? "true" : "false",
	       r->loop == PATTERN_SPIN ? "true" : "false", last ? "" : ",");
}

int main(void)
{
	size_t i, n = sizeof(rows) / sizeof(rows[0]);
	size_t g = sizeof(guards) / sizeof(guards[0]);

	printf("{\n  \"operations\": [\n");
	for (i = 0; i < n; i++)
		print_row(&rows[i], i + 1 == n);
	printf("  ],\n");
	print_list("guards", guards, g, 0);
	print_list("aliases", aliases, sizeof(aliases) / sizeof(aliases[0]), 1);
	printf("}\n");
	return 0;
}
