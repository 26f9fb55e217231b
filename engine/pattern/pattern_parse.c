// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern: the parser of pattern and pattern_fixed (pattern.h,
 * docs/pattern.md), and pattern_compile(). Runs while fio parses the job
 * (the model's ->check) and once more at job start, never per I/O. Every
 * refusal is one line: the option, the position or token, and what is
 * allowed.
 */
#include "pattern_lex.h"

/* One operation of the grammar: a row of PATTERN_OPS (ops.tbl) */
struct pattern_opdef {
	const char *name;
	enum pattern_opcode code;
	enum pattern_kind kind;
	const char *args;	/* "word,bit": the word included */
	const char *test_first;	/* its test-first form, NULL if none */
	bool flip;		/* has a state it undoes (flip_every) */
};

#define PATTERN_OPDEF(c, n, k, a, tf, f, l) { n, c, KIND_##k, a, tf, f },
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

/* ----- pattern, pattern_fixed: [?]OP(ARGS)[/GUARD=N]...[*N],... ----- */

static const struct pattern_opdef *find_row(const char *s, int n)
{
	const struct pattern_opdef *d;

	for (d = opdefs; d->name; d++)
		if ((int)strlen(d->name) == n && !strncmp(d->name, s, n))
			return d;
	return NULL;
}

#define PATTERN_ALIAS(prefix) prefix,
static const char *const op_aliases[] = { PATTERN_ALIASES(PATTERN_ALIAS) };
#undef PATTERN_ALIAS

static const struct pattern_opdef *find_op(const char *s, int n)
{
	char name[64];
	unsigned int i;

	for (i = 0; i < sizeof(op_aliases) / sizeof(op_aliases[0]); i++) {
		int len = strlen(op_aliases[i]);

		if (n > len && n - len + 7 < (int)sizeof(name) &&
		    !strncmp(s, op_aliases[i], len)) {
			snprintf(name, sizeof(name), "atomic_%.*s", n - len,
				 s + len);
			return find_row(name, strlen(name));
		}
	}
	return find_row(s, n);
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
	char list[640];

	return refuse(x, "unknown operation '%.*s': allowed are %s (each "
		      "atomic_* also as atomic_long_* and atomic64_*)", n, s,
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

/*
 * The value after the word written as cpu or job: this job's CPU (at its
 * start) or fio's number of the job, set at job start
 */
static int op_value_of(const char **s, const char *end, unsigned int *value_of)
{
	int n = name_len(*s, end);

	if (n == 3 && !strncmp(*s, "cpu", 3))
		*value_of = PATTERN_VALUE_CPU;
	else if (n == 3 && !strncmp(*s, "job", 3))
		*value_of = PATTERN_VALUE_JOB;
	else
		return NOT_A_NUMBER;
	*s += n;
	return 0;
}

/* The arguments after the word (or all, for work): numbers; the first
 * after a word, if not a bit, may be cpu or job */
static int op_args(struct pctx *x, const char **s, const char *end,
		   const struct pattern_opdef *d, uint64_t *v,
		   unsigned int *value_of)
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
		if (err == NOT_A_NUMBER && i == 1 && first && !opdef_bit(d))
			err = op_value_of(s, end, value_of);
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
		      ", a word then numbers (decimal or 0x hex; the first "
		      "may be cpu or job)" :
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
	if (op_args(x, s, end, d, v, &op->value_of))
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

/* /if_test=V: run only if this I/O's last test of a bit (test_bit(),
 * test_and_set_bit(), test_and_clear_bit()) ran and found it V (UNTESTED,
 * pattern.h) */
static int op_if_test(struct pctx *x, struct pattern_op *op, uint64_t v)
{
	if (v > 1)
		return refuse(x, "/if_test=%llu is not allowed: 0 (the bit was "
			      "clear) or 1 (set)", (unsigned long long)v);
	if (!x->tested)
		return refuse(x, "/if_test needs a test_bit(), test_and_set_bit() "
			      "or test_and_clear_bit() earlier in the sequence");
	op->if_test = v + 1;
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
	char list[640];
	uint64_t *slot[] = { &op->below, &op->every, &op->every_ns,
			     &op->flip_every, &op->if_test };
	int n = name_len(*s, end), i, err;
	uint64_t v;

	for (i = 0; names[i]; i++)
		if (n == (int)strlen(names[i]) && !strncmp(*s, names[i], n))
			break;
	if (!names[i])
		return refuse(x, "unknown suffix '/%.*s': allowed are /below=T, "
			      "/every=N, /every_ns=T, /flip_every=N, "
			      "/if_test=0|1", n, *s);
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
	if (i == GUARD_IF_TEST)
		return op_if_test(x, op, v);
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
	char list[640];
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
	/* at most 1000000 + 65536 x 1000000 ns per item: no overflow */
	x->work_ns += d->code == OP_WORK ? op->arg * op->repeat : 0;
	if (x->work_ns > PATTERN_MAX_WORK_NS)
		return refuse(x, "%llu ns of work() in one I/O with *N and the "
			      "work() before it in this alternative: "
			      WORK_ALLOWED, (unsigned long long)x->work_ns);
	op->tests = d->code == OP_TEST_BIT || d->code == OP_TEST_AND_SET_BIT ||
		    d->code == OP_TEST_AND_CLEAR_BIT;
	x->tested |= op->tests;
	op->code = d->code;
	op->kind = d->kind;
	op->test_first = test_first;
	snprintf(op->path, sizeof(op->path), "%u:%.*s", x->pos,
		 x->item_len, x->item);
	p->nr_ops++;
	return 0;
}

/*
 * The end of one of A|B|C: not empty when there are several, at most
 * PATTERN_MAX_ALTS of them
 */
static int alt_end(struct pctx *x, struct pattern_prog *p, bool several)
{
	if (several && p->nr_ops == x->first_pos)
		snprintf(x->msg, x->len, "%s: alternative %u is empty: "
			 "A|B|... takes a sequence on each side of '|'",
			 x->opt, p->nr_alts + 1);
	else if (p->nr_alts == PATTERN_MAX_ALTS)
		snprintf(x->msg, x->len, "%s: more than %d alternatives "
			 "A|B|...", x->opt, PATTERN_MAX_ALTS);
	else {
		p->alt_end[p->nr_alts++] = p->nr_ops;
		return 0;
	}
	return -1;
}

/* Each alternative's locks, once every alternative is known: a word one
 * of them locks is a lock word in all of them */
static int seq_locks(const char *opt, const struct pattern_prog *p, char *msg,
		     size_t len)
{
	unsigned int k, from = 0;

	for (k = 0; k < p->nr_alts; from = p->alt_end[k++])
		if (pattern_check_locks(opt, p, from, p->alt_end[k], msg, len))
			return -1;
	return 0;
}

int pattern_parse_seq(const char *opt, const char *s, struct pattern_prog *p,
		      bool words_known, char *msg, size_t len)
{
	struct pctx x = { .opt = opt, .what = "operation", .msg = msg,
			  .len = len };
	struct seq_ctx sc = { .p = p, .known = words_known };
	char part[FC_MODEL_STR_LEN];
	const char *bar;

	p->nr_ops = p->nr_alts = 0;
	for (s = s ? s : ""; ; s = bar + 1) {
		bar = strchr(s, '|');
		snprintf(part, sizeof(part), "%.*s",
			 (int)(bar ? bar - s : (int)strlen(s)), s);
		x.first_pos = p->nr_ops;
		x.tested = false;
		x.work_ns = 0;
		if (for_each_item(&x, part, &sc, op_item) ||
		    alt_end(&x, p, bar || p->nr_alts))
			return -1;
		if (!bar)
			return seq_locks(opt, p, msg, len);
	}
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
