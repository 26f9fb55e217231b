/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model=pattern: what the parsers of pattern_words (pattern_words.c) and
 * of the sequences (pattern_parse.c) share: where the parser is, its
 * one-line refusals, names, numbers and the items of a value.
 */
#ifndef FLAGCHECK_PATTERN_LEX_H
#define FLAGCHECK_PATTERN_LEX_H

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"

/* Where the parser is, for the messages */
struct pctx {
	const char *opt;	/* the option's name */
	const char *item;	/* the current item's text, up to ',' */
	int item_len;
	unsigned int pos;	/* its number, 1 up */
	const char *what;	/* "word" or "operation" */
	bool tested;		/* a test_bit() came before (/if_test) */
	unsigned int first_pos;	/* the items before this part ('|') */
	uint64_t work_ns;	/* its work(), *N included, up to here */
	char *msg;
	size_t len;
};

static inline int __attribute__((format(printf, 2, 3)))
refuse(const struct pctx *x, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	n = snprintf(x->msg, x->len, "%s: %s %u '%.*s': ", x->opt, x->what,
		     x->pos, x->item_len > 80 ? 80 : x->item_len, x->item);
	if (n >= x->len)
		return -1;
	va_start(ap, fmt);
	vsnprintf(x->msg + n, x->len - n, fmt, ap);
	va_end(ap);
	return -1;
}

static inline const char *skip_blanks(const char *s, const char *end)
{
	while (s < end && isspace((unsigned char)*s))
		s++;
	return s;
}

/* A name: [A-Za-z_][A-Za-z0-9_]*; its length, 0 if none */
static inline int name_len(const char *s, const char *end)
{
	const char *p = s;

	if (p < end && (isalpha((unsigned char)*p) || *p == '_'))
		for (p++; p < end && (isalnum((unsigned char)*p) || *p == '_');)
			p++;
	return p - s;
}

/* The length of the number-like token at @s: [-]alphanumerics */
static inline int num_len(const char *s, const char *end)
{
	const char *p = s;

	if (p < end && *p == '-')
		p++;
	while (p < end && isalnum((unsigned char)*p))
		p++;
	return p - s;
}

/*
 * An unsigned 64-bit number, decimal or 0x hex; *s moves past it. Returns
 * 0, NOT_A_NUMBER, or OUT_OF_RANGE for a number past 2^64 - 1 or below 0
 * (the caller names the range).
 */
enum { NOT_A_NUMBER = -1, OUT_OF_RANGE = -2 };

static inline int parse_u64(const char **s, const char *end, uint64_t *out)
{
	char buf[32], *e;
	int n = num_len(*s, end), neg = n && **s == '-';

	if (n - neg == 0 || n >= (int)sizeof(buf))
		return n >= (int)sizeof(buf) ? OUT_OF_RANGE : NOT_A_NUMBER;
	memcpy(buf, *s + neg, n - neg);
	buf[n - neg] = '\0';
	errno = 0;
	*out = strtoull(buf, &e, 0);
	if (*e || buf[0] == '-' || buf[0] == '+' ||
	    (buf[0] == '0' && n - neg > 1 && buf[1] != 'x' && buf[1] != 'X'))
		return NOT_A_NUMBER;
	if (errno == ERANGE || neg)
		return OUT_OF_RANGE;
	*s += n;
	return 0;
}

static inline int find_word(const struct pattern_prog *p, const char *name, int n)
{
	unsigned int i;

	for (i = 0; i < p->nr_words; i++)
		if ((int)strlen(p->word[i].name) == n &&
		    !strncmp(p->word[i].name, name, n))
			return i;
	return -1;
}

/* What a word's numbers may be; the arena's sizes as pattern.h has them */
_Static_assert(PATTERN_LINES == 64 && PATTERN_LINE == 64, "the messages");
#define LINES_ALLOWED	"allowed are lines 0 to 63"
#define OFFSETS_ALLOWED	"a multiple of 8 from 0 to 56"
#define U64_ALLOWED	"decimal or 0x hex, 0 to 18446744073709551615"
_Static_assert(PATTERN_MAX_WORK_NS == 1000000, "the message");
#define WORK_ALLOWED	"0 to 1000000 ns (1 ms) of work per I/O, *N and " \
			"every work() of the alternative included: fio " \
			"cannot stop an I/O inside it"

static inline const char *item_end(const char *s)
{
	int depth = 0;

	for (; *s && (*s != ',' || depth > 0); s++)
		depth += *s == '(' ? 1 : *s == ')' ? -1 : 0;
	return s;
}

/*
 * A tab, a vertical tab or any other control character: refused, as fio
 * copies option values as they are into its JSON output (and the paths
 * into the counters' keys); blanks between items are spaces.
 */
static inline int control_char(const struct pctx *x, const char *s)
{
	const char *c;

	for (c = s; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			break;
	if (!*c)
		return 0;
	snprintf(x->msg, x->len, "%s: control character 0x%02x at character "
		 "%d: only printable characters and spaces are allowed (fio "
		 "writes option values into its JSON output as they are)",
		 x->opt, (unsigned char)*c, (int)(c - s) + 1);
	return -1;
}

/*
 * Calls @fn on each item of @s, separated by ',' outside parentheses (blank
 * items skipped), with @x telling where it is; stops at the first refusal.
 * Not ';': fio's job-file reader cuts a line at its first ';' or '#'.
 */
static inline int for_each_item(struct pctx *x, const char *s, void *p,
			 int (*fn)(struct pctx *, const char *, const char *,
				   void *))
{
	const char *next, *end, *bad = strpbrk(s, ";#");

	x->pos = x->first_pos;
	if (control_char(x, s))
		return -1;
	if (bad) {
		snprintf(x->msg, x->len, "%s=%.80s: '%c' at character %d: "
			 "separate items with ',' (in a job file fio ends the "
			 "line at ';' or '#')", x->opt, s, *bad,
			 (int)(bad - s) + 1);
		return -1;
	}
	for (; *s; s = next) {
		end = item_end(s);
		next = *end ? end + 1 : end;
		s = skip_blanks(s, end);
		while (end > s && isspace((unsigned char)end[-1]))
			end--;
		if (s == end)
			continue;
		x->item = s;
		x->item_len = end - s;
		x->pos++;
		if (fn(x, s, end, p))
			return -1;
	}
	return 0;
}

/*
 * pattern_locks.c: the lock words of alternative [@from, @to) of @p, taken
 * and released in turn (spin_lock(), spin_unlock()); 0, or -1 with one
 * line in @msg naming @opt and the operation
 */
int pattern_check_locks(const char *opt, const struct pattern_prog *p,
			unsigned int from, unsigned int to, char *msg,
			size_t len);

#endif
