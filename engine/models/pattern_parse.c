// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern: the parser of pattern_words, pattern and pattern_fixed
 * (pattern.h, docs/pattern.md). Runs while fio parses the job (the model's
 * ->check) and once more at job start, never per I/O. Every refusal is one
 * line: the option, the position or token, and what is allowed.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pattern.h"

/* One operation of the grammar: a row of PATTERN_OPS (pattern_ops.h) */
struct pattern_opdef {
	const char *name;
	enum pattern_opcode code;
	enum pattern_kind kind;
	const char *args;	/* "word,bit": the word included */
	const char *test_first;	/* its test-first form, NULL if none */
	bool flip;		/* has a state it undoes (flip_every) */
};

#define PATTERN_OPDEF(c, n, k, a, tf, f, fn) { n, c, KIND_##k, a, tf, f },
static const struct pattern_opdef opdefs[] = {
	PATTERN_OPS(PATTERN_OPDEF)
	{ .name = NULL },
};
#undef PATTERN_OPDEF

/* Its number of arguments, the word included */
static unsigned int opdef_nargs(const struct pattern_opdef *d)
{
	unsigned int n = d->args[0] ? 1 : 0;
	const char *p;

	for (p = d->args; *p; p++)
		n += *p == ',';
	return n;
}

static bool opdef_word(const struct pattern_opdef *d)
{
	return !strncmp(d->args, "word", 4);
}

static bool opdef_bit(const struct pattern_opdef *d)
{
	return !strcmp(d->args, "word,bit");
}

static const char *const sharing_names[] = {
	[PATTERN_ALL] = "all", [PATTERN_JOB] = "job", [PATTERN_NODE] = "node",
	NULL,
};

/* Where the parser is, for the messages */
struct pctx {
	const char *opt;	/* the option's name */
	const char *item;	/* the current item's text, up to ',' */
	int item_len;
	unsigned int pos;	/* its number, 1 up */
	const char *what;	/* "word" or "operation" */
	char *msg;
	size_t len;
};

static int __attribute__((format(printf, 2, 3)))
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

static const char *skip_blanks(const char *s, const char *end)
{
	while (s < end && isspace((unsigned char)*s))
		s++;
	return s;
}

/* A name: [A-Za-z_][A-Za-z0-9_]*; its length, 0 if none */
static int name_len(const char *s, const char *end)
{
	const char *p = s;

	if (p < end && (isalpha((unsigned char)*p) || *p == '_'))
		for (p++; p < end && (isalnum((unsigned char)*p) || *p == '_');)
			p++;
	return p - s;
}

/* The length of the number-like token at @s: [-]alphanumerics */
static int num_len(const char *s, const char *end)
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

static int parse_u64(const char **s, const char *end, uint64_t *out)
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

static int find_word(const struct pattern_prog *p, const char *name, int n)
{
	unsigned int i;

	for (i = 0; i < p->nr_words; i++)
		if ((int)strlen(p->word[i].name) == n &&
		    !strncmp(p->word[i].name, name, n))
			return i;
	return -1;
}

/* ----- pattern_words: NAME@LINE[+OFFSET][:SHARING][=INIT],... ----- */

static int word_sharing(const struct pctx *x, const char **s, const char *end,
			struct pattern_word *w)
{
	int n = name_len(*s, end), i;

	for (i = 0; sharing_names[i]; i++)
		if (n == (int)strlen(sharing_names[i]) &&
		    !strncmp(*s, sharing_names[i], n)) {
			w->sharing = i;
			*s += n;
			return 0;
		}
	return refuse(x, "sharing '%.*s' is not known: allowed are all (every "
		      "job, the default), job (each job its own), node (the "
		      "jobs of one NUMA node)", n, *s);
}

/* What a word's numbers may be; the arena's sizes as pattern.h has them */
_Static_assert(PATTERN_LINES == 64 && PATTERN_LINE == 64, "the messages");
#define LINES_ALLOWED	"allowed are lines 0 to 63"
#define OFFSETS_ALLOWED	"a multiple of 8 from 0 to 56"
#define U64_ALLOWED	"decimal or 0x hex, 0 to 18446744073709551615"
_Static_assert(PATTERN_MAX_WORK_NS == 1000000, "the message");
#define WORK_ALLOWED	"0 to 1000000 ns (1 ms) of work per call: fio " \
			"cannot stop an I/O inside it"

/* Two words of 8 bytes overlap when their offsets are equal */
static int word_place(const struct pctx *x, const struct pattern_prog *p,
		      uint64_t line, uint64_t off, struct pattern_word *w)
{
	unsigned int i;

	if (line >= PATTERN_LINES)
		return refuse(x, "line %llu is past the arena: " LINES_ALLOWED,
			      (unsigned long long)line);
	if (off >= PATTERN_LINE || off % 8)
		return refuse(x, "offset %llu is not allowed: " OFFSETS_ALLOWED,
			      (unsigned long long)off);
	w->offset = line * PATTERN_LINE + off;
	for (i = 0; i < p->nr_words; i++)
		if (p->word[i].offset == w->offset &&
		    p->word[i].sharing == w->sharing)
			return refuse(x, "overlaps word %s (line %llu offset "
				      "%llu): two words may not overlap",
				      p->word[i].name, (unsigned long long)line,
				      (unsigned long long)off);
	return 0;
}

/* A number of the item, @what it is and what is @allowed for the message */
static int word_num(const struct pctx *x, const char **s, const char *end,
		    uint64_t *v, const char *what, const char *allowed)
{
	int n = num_len(*s, end), err = parse_u64(s, end, v);

	if (err == OUT_OF_RANGE)
		return refuse(x, "%s %.*s is out of range: %s", what, n, *s,
			      allowed);
	if (err)
		return refuse(x, "%s is not a number: %s", what, allowed);
	return 0;
}

static int parse_word(const struct pctx *x, const char *s, const char *end,
		      struct pattern_prog *p)
{
	struct pattern_word w = { .sharing = PATTERN_ALL };
	uint64_t line, off = 0, init = 0;
	int n = name_len(s, end);

	if (!n)
		return refuse(x, "a word is NAME@LINE[+OFFSET][:SHARING][=INIT], "
			      "NAME a C identifier");
	if (n >= PATTERN_NAME_LEN)
		return refuse(x, "the name is longer than %d characters",
			      PATTERN_NAME_LEN - 1);
	if (find_word(p, s, n) >= 0)
		return refuse(x, "word %.*s is declared twice", n, s);
	memcpy(w.name, s, n);
	s = skip_blanks(s + n, end);
	if (s >= end || *s != '@')
		return refuse(x, "@LINE is missing: " LINES_ALLOWED);
	s++;
	if (word_num(x, &s, end, &line, "line", LINES_ALLOWED))
		return -1;
	if (s < end && *s == '+' && (s++, word_num(x, &s, end, &off, "offset",
						  OFFSETS_ALLOWED)))
		return -1;
	if (s < end && *s == ':' && (s++, word_sharing(x, &s, end, &w)))
		return -1;
	if (s < end && *s == '=' && (s++, word_num(x, &s, end, &init, "=INIT",
						  U64_ALLOWED)))
		return -1;
	if (skip_blanks(s, end) != end)
		return refuse(x, "unexpected '%.*s': a word is "
			      "NAME@LINE[+OFFSET][:SHARING][=INIT]",
			      (int)(end - s), s);
	w.init = init;
	if (word_place(x, p, line, off, &w))
		return -1;
	p->uses_node |= w.sharing == PATTERN_NODE;
	p->word[p->nr_words++] = w;
	return 0;
}

/* The end of the item at @s: the next ',' outside parentheses, or the end */
static const char *item_end(const char *s)
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
static int control_char(const struct pctx *x, const char *s)
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
static int for_each_item(struct pctx *x, const char *s, void *p,
			 int (*fn)(struct pctx *, const char *, const char *,
				   void *))
{
	const char *next, *end, *bad = strpbrk(s, ";#");

	x->pos = 0;
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

static int word_item(struct pctx *x, const char *s, const char *end, void *p)
{
	struct pattern_prog *prog = p;

	if (prog->nr_words == PATTERN_MAX_WORDS)
		return refuse(x, "more than %d words: the engine holds %d",
			      PATTERN_MAX_WORDS, PATTERN_MAX_WORDS);
	return parse_word(x, s, end, prog);
}

int pattern_parse_words(const char *s, struct pattern_prog *p, char *msg,
			size_t len)
{
	struct pctx x = { .opt = "pattern_words", .what = "word", .msg = msg,
			  .len = len };

	p->nr_words = 0;
	p->uses_node = false;
	return for_each_item(&x, s ? s : "", p, word_item);
}

/* ----- pattern, pattern_fixed: [?]OP(ARGS)[/GUARD=N]...[*N],... ----- */

static const struct pattern_opdef *find_op(const char *s, int n)
{
	const struct pattern_opdef *d;

	for (d = opdefs; d->name; d++)
		if ((int)strlen(d->name) == n && !strncmp(d->name, s, n))
			return d;
	return NULL;
}

/* The names of the operations (with a test-first form, with a state to
 * undo, or all), separated by @sep */
static const char *op_names(char *list, size_t len, bool tf, bool flip,
			    const char *sep)
{
	const struct pattern_opdef *d;
	size_t n = 0;

	list[0] = '\0';
	for (d = opdefs; d->name && n < len; d++)
		if ((!tf || d->test_first) && (!flip || d->flip))
			n += snprintf(list + n, len - n, "%s%s",
				      n ? sep : "", d->name);
	return list;
}

static int unknown_op(const struct pctx *x, const char *s, int n)
{
	char list[400];

	return refuse(x, "unknown operation '%.*s': allowed are %s", n, s,
		      op_names(list, sizeof(list), false, false, " "));
}

/* The word argument: NAME of a declared word */
static int op_word(struct pctx *x, const char **s, const char *end,
		   const struct pattern_prog *p, bool known,
		   struct pattern_op *op)
{
	int n = name_len(*s, end), i = find_word(p, *s, n);

	if (!n)
		return refuse(x, "the first argument must be a word's name");
	if (i < 0 && known)
		return refuse(x, "unknown word '%.*s': declare it in "
			      "pattern_words first", n, *s);
	op->has_word = true;
	op->word = i;
	if (i >= 0) {
		op->sharing = p->word[i].sharing;
		op->offset = p->word[i].offset;
	}
	*s += n;
	return 0;
}

/* What an operation's numbers may be */
static const char *arg_range(const struct pattern_opdef *d)
{
	if (opdef_bit(d))
		return "allowed are bits 0 to 63";
	if (d->code == OP_WORK)
		return WORK_ALLOWED;
	return U64_ALLOWED;
}

/* The arguments after the word (or all, for work): numbers */
static int op_args(struct pctx *x, const char **s, const char *end,
		   const struct pattern_opdef *d, uint64_t *v)
{
	unsigned int i, first = opdef_word(d), nargs = opdef_nargs(d);
	int err;

	for (i = first; i < nargs; i++) {
		if (i) {
			*s = skip_blanks(*s, end);
			if (*s >= end || **s != ',')
				goto bad;
			(*s)++;
		}
		*s = skip_blanks(*s, end);
		err = parse_u64(s, end, &v[i - first]);
		if (err == OUT_OF_RANGE)
			return refuse(x, "%s: argument %u, %.*s, is out of range: "
				      "%s", d->name, i + 1, num_len(*s, end), *s,
				      arg_range(d));
		if (err)
			goto bad;
	}
	return 0;
bad:
	return refuse(x, "%s takes %u argument%s%s: (%s)", d->name, nargs,
		      nargs == 1 ? "" : "s", first ?
		      ", a word then numbers (decimal or 0x hex)" :
		      " (decimal or 0x hex)", d->args);
}

/* OP(ARGS): the operation's name, word and numbers into @op */
static int op_call(struct pctx *x, const char **s, const char *end,
		   const struct pattern_prog *p, bool known,
		   const struct pattern_opdef *d, struct pattern_op *op)
{
	uint64_t v[3] = { 0, 0, 0 };

	*s = skip_blanks(*s, end);
	if (*s >= end || **s != '(')
		return refuse(x, "'(' expected after %s", d->name);
	*s = skip_blanks(*s + 1, end);
	if (opdef_word(d) && op_word(x, s, end, p, known, op))
		return -1;
	if (op_args(x, s, end, d, v))
		return -1;
	*s = skip_blanks(*s, end);
	if (*s >= end || **s != ')')
		return refuse(x, "')' expected: %s takes %u argument%s",
			      d->name, opdef_nargs(d),
			      opdef_nargs(d) == 1 ? "" : "s");
	(*s)++;
	if (d->code == OP_WORK && v[0] > PATTERN_MAX_WORK_NS)
		return refuse(x, "work(%llu) is too long: " WORK_ALLOWED,
			      (unsigned long long)v[0]);
	if (opdef_bit(d) && v[0] > 63)
		return refuse(x, "bit %llu is past the word: allowed are bits "
			      "0 to 63", (unsigned long long)v[0]);
	op->arg = v[0];		/* the bit number, value, old, n or ns */
	op->arg2 = v[1];
	return 0;
}

/* One /GUARD=N suffix */
static int op_guard(struct pctx *x, const char **s, const char *end,
		    const struct pattern_opdef *d, struct pattern_op *op)
{
#define PATTERN_GUARD_NAME(code, name) [code] = name,
	static const char *const names[] = { PATTERN_GUARDS(PATTERN_GUARD_NAME)
					     NULL };
#undef PATTERN_GUARD_NAME
	char list[400];
	uint64_t *slot[] = { &op->below, &op->every, &op->every_ns,
			     &op->flip_every };
	int n = name_len(*s, end), i, err;
	uint64_t v;

	for (i = 0; names[i]; i++)
		if (n == (int)strlen(names[i]) && !strncmp(*s, names[i], n))
			break;
	if (!names[i])
		return refuse(x, "unknown suffix '/%.*s': allowed are /below=T, "
			      "/every=N, /every_ns=T, /flip_every=N", n, *s);
	*s += n;
	if (*s >= end || **s != '=')
		return refuse(x, "/%s needs =N, a whole number", names[i]);
	++*s;
	err = parse_u64(s, end, &v);
	if (err == OUT_OF_RANGE)
		return refuse(x, "/%s=%.*s is out of range: 1 to "
			      "18446744073709551615", names[i],
			      num_len(*s, end), *s);
	if (err)
		return refuse(x, "/%s needs =N, a whole number", names[i]);
	if (*slot[i])
		return refuse(x, "/%s is given twice", names[i]);
	if (!v)
		return refuse(x, "/%s=0 is not allowed: %s", names[i],
			      i == GUARD_BELOW ? "a threshold of 1 or more" :
			      "a rate of 1 or more (1: every call)");
	if (i == GUARD_BELOW && !opdef_word(d))
		return refuse(x, "/below needs an operation on a word");
	if (i == GUARD_FLIP_EVERY && !d->flip)
		return refuse(x, "/flip_every is not allowed on %s: it has no "
			      "state to undo (allowed on %s)", d->name,
			      op_names(list, sizeof(list), false, true, ", "));
	*slot[i] = v;
	return 0;
}

/* The suffixes after OP(ARGS): /GUARD=N ..., then *N */
static int op_suffixes(struct pctx *x, const char *s, const char *end,
		       const struct pattern_opdef *d, struct pattern_op *op)
{
	uint64_t n;

	for (s = skip_blanks(s, end); s < end && *s == '/';
	     s = skip_blanks(s, end)) {
		s = skip_blanks(s + 1, end);
		if (op_guard(x, &s, end, d, op))
			return -1;
	}
	op->repeat = 1;
	if (s < end && *s == '*') {
		s = skip_blanks(s + 1, end);
		if (parse_u64(&s, end, &n) || !n || n > PATTERN_MAX_REPEAT)
			return refuse(x, "*N: a repeat count from 1 to %d is "
				      "allowed", PATTERN_MAX_REPEAT);
		op->repeat = n;
	}
	if (skip_blanks(s, end) != end)
		return refuse(x, "unexpected '%.*s': an operation is "
			      "[?]OP(ARGS)[/below=T][/every=N][/every_ns=T]"
			      "[/flip_every=N][*N]", (int)(end - s), s);
	return 0;
}

/* What an item's parse needs besides the text */
struct seq_ctx {
	struct pattern_prog *p;
	bool known;
};

static int op_item(struct pctx *x, const char *s, const char *end, void *arg)
{
	struct seq_ctx *sc = arg;
	struct pattern_prog *p = sc->p;
	struct pattern_op *op = &p->op[p->nr_ops];
	const struct pattern_opdef *d;
	bool test_first = *s == '?';
	char list[400];
	int n;

	if (p->nr_ops == PATTERN_MAX_OPS)
		return refuse(x, "the sequence is longer than the engine holds: "
			      "at most %d operations", PATTERN_MAX_OPS);
	memset(op, 0, sizeof(*op));
	if (test_first)
		s = skip_blanks(s + 1, end);
	n = name_len(s, end);
	d = find_op(s, n);
	if (!d)
		return unknown_op(x, s, n);
	if (test_first && !d->test_first)
		return refuse(x, "'?' is not allowed on %s: it has no test-first "
			      "form (allowed on %s)", d->name,
			      op_names(list, sizeof(list), true, false, ", "));
	s += n;
	if (op_call(x, &s, end, p, sc->known, d, op) ||
	    op_suffixes(x, s, end, d, op))
		return -1;
	op->code = d->code;
	op->kind = d->kind;
	op->test_first = test_first;
	snprintf(op->path, sizeof(op->path), "%u:%.*s", x->pos,
		 x->item_len, x->item);
	p->nr_ops++;
	return 0;
}

int pattern_parse_seq(const char *opt, const char *s, struct pattern_prog *p,
		      bool words_known, char *msg, size_t len)
{
	struct pctx x = { .opt = opt, .what = "operation", .msg = msg,
			  .len = len };
	struct seq_ctx sc = { .p = p, .known = words_known };

	p->nr_ops = 0;
	return for_each_item(&x, s ? s : "", &sc, op_item);
}

/* test_first without pattern_fixed: each operation in its test-first form */
static void pattern_auto_test_first(struct pattern_prog *p)
{
	const struct pattern_opdef *d;
	unsigned int i;

	for (i = 0; i < p->nr_ops; i++)
		for (d = opdefs; d->name; d++)
			if (d->code == p->op[i].code && d->test_first)
				p->op[i].test_first = true;
}

int pattern_compile(const struct pattern_params *pp, bool final,
		    struct pattern_prog *p, char *msg, size_t len)
{
	bool known = final || (pp->words && pp->words[0]);
	bool fixed = pp->fixed && pp->fixed[0];

	memset(p, 0, sizeof(*p));
	if (pattern_parse_words(pp->words, p, msg, len))
		return -1;
	/* both are checked; the job runs the one its variant picks */
	if (fixed && pattern_parse_seq("pattern_fixed", pp->fixed, p, known,
				       msg, len))
		return -1;
	if (pattern_parse_seq("pattern", pp->pattern, p, known, msg, len))
		return -1;
	if (pp->variant == FC_TEST_FIRST && fixed &&
	    pattern_parse_seq("pattern_fixed", pp->fixed, p, known, msg, len))
		return -1;
	else if (pp->variant == FC_TEST_FIRST && !fixed)
		pattern_auto_test_first(p);
	if (final && !p->nr_ops) {
		snprintf(msg, len, "%s is empty: model=pattern needs a sequence "
			 "of operations (docs/pattern.md)%s",
			 pp->variant == FC_TEST_FIRST && fixed ? "pattern_fixed" :
			 "pattern", pp->variant == FC_TEST_FIRST && fixed ?
			 "; leave it out to run pattern in its test-first form" :
			 "");
		return -1;
	}
	return 0;
}
