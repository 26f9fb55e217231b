// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern: the parser of pattern_words (pattern.h, docs/pattern.md),
 * NAME@LINE[+OFFSET][:SHARING][=INIT],... Runs while fio parses the job
 * and once more at job start, never per I/O.
 */
#include "pattern_lex.h"

static const char *const sharing_names[] = {
	[PATTERN_ALL] = "all", [PATTERN_JOB] = "job", [PATTERN_NODE] = "node",
	NULL,
};

/* Where the parser is, for the messages */
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

/* The end of the item at @s: the next ',' outside parentheses, or the end */static int word_item(struct pctx *x, const char *s, const char *end, void *p)
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
