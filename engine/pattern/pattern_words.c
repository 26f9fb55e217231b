// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern: the parser of pattern_words (pattern.h, docs/pattern.md),
 * NAME@LINE[+OFFSET][:SHARING][=INIT],... Runs while fio parses the job
 * and once more at job start, never per I/O.
 */
#include "pattern_lex.h"

static const char *const sharing_names[] = {
	[PATTERN_ALL] = "all", [PATTERN_JOB] = "job", [PATTERN_NODE] = "node",
	[PATTERN_OBJ] = "obj", [PATTERN_SLOT] = "slot",
	[PATTERN_PAIR] = "pair", NULL,
};

/* Where the parser is, for the messages */
/* ----- pattern_words: NAME@LINE[+OFFSET][:SHARING][=INIT],... ----- */

static const char *const pick_names[] = {
	[PICK_TURN] = "turn", [PICK_RANDOM] = "random", [PICK_CPU] = "cpu",
	[PICK_JOB] = "job", [PICK_OFFSET] = "offset", NULL,
};

static int name_in(const char *s, int n, const char *const *names)
{
	int i;

	for (i = 0; names[i]; i++)
		if (n == (int)strlen(names[i]) && !strncmp(s, names[i], n))
			return i;
	return -1;
}

/* offset(BYTES): an object per BYTES of the file, a power of two; *shift */
static int pick_bytes(const char **s, const char *end, unsigned int *shift)
{
	uint64_t n = 0;

	if (*s >= end || *(*s)++ != '(' || parse_u64(s, end, &n) ||
	    *s >= end || *(*s)++ != ')' || n & (n - 1))
		return -1;
	*shift = __builtin_ctzll(n | 1ULL << 63);
	return *shift < PATTERN_MIN_OBJ_SHIFT ||
	       *shift > PATTERN_MAX_OBJ_SHIFT ? -1 : 0;
}

/* The rule as written, for the messages: "offset(65536)" or "turn" */
static const char *pick_text(char *buf, size_t len, int pick,
			     unsigned int shift)
{
	if (pick != PICK_OFFSET)
		return pick_names[pick];
	snprintf(buf, len, "offset(%llu)", 1ULL << shift);
	return buf;
}

/*
 * obj(N,RULE): the word is a field of N objects, one picked per I/O by
 * RULE; every obj word is a field of the same objects
 */
static int word_objects(const struct pctx *x, const char **s,
			const char *end, struct pattern_prog *p)
{
	char a[32], b[32];
	uint64_t n = 0;
	unsigned int shift = 0;
	int pick, len;

	if (*s >= end || *(*s)++ != '(' || parse_u64(s, end, &n) || !n ||
	    n > PATTERN_MAX_OBJECTS || *s >= end || *(*s)++ != ',')
		goto bad;
	len = name_len(*s, end);
	pick = name_in(*s, len, pick_names);
	*s += len;
	if (pick == PICK_OFFSET && pick_bytes(s, end, &shift))
		goto bad;
	if (pick < 0 || *s >= end || *(*s)++ != ')')
		goto bad;
	if (p->nr_objects && (p->nr_objects != n || (int)p->pick != pick ||
			      p->obj_shift != shift))
		return refuse(x, "obj(%llu,%s) differs from the first obj word's "
			      "obj(%u,%s): every obj word is a field of the "
			      "same objects", (unsigned long long)n,
			      pick_text(a, sizeof(a), pick, shift),
			      p->nr_objects,
			      pick_text(b, sizeof(b), p->pick, p->obj_shift));
	p->nr_objects = n;
	p->pick = pick;
	p->obj_shift = shift;
	return 0;
bad:
	return refuse(x, "obj needs (N,RULE): N objects from 1 to %d, RULE "
		      "turn (in turn), random, cpu (the job's CPU), job "
		      "(the job's number) or offset(BYTES) (the I/O's offset "
		      "/ BYTES mod N, BYTES a power of two from %llu to %llu)",
		      PATTERN_MAX_OBJECTS, 1ULL << PATTERN_MIN_OBJ_SHIFT,
		      1ULL << PATTERN_MAX_OBJ_SHIFT);
}

/* slot[(STRIDE)]: job N's copy STRIDE x (N - 1) bytes on, 8 if not given */
static int word_stride(const struct pctx *x, const char **s, const char *end,
		       struct pattern_word *w)
{
	uint64_t n = 8;

	if (*s < end && **s == '(' &&
	    (++*s, parse_u64(s, end, &n) || n < 8 || n > PATTERN_ARENA ||
	     n % 8 || *s >= end || *(*s)++ != ')'))
		return refuse(x, "slot(STRIDE): STRIDE a multiple of 8 from 8 "
			      "to %d bytes (default 8: slots packed in a line)",
			      PATTERN_ARENA);
	w->stride = n;
	return 0;
}

static int word_sharing(const struct pctx *x, const char **s, const char *end,
			struct pattern_word *w, struct pattern_prog *p)
{
	int n = name_len(*s, end), i = name_in(*s, n, sharing_names);

	if (i < 0)
		return refuse(x, "sharing '%.*s' is not known: allowed are all "
			      "(every job, the default), job (each job its "
			      "own), node (the jobs of one NUMA node), "
			      "obj(N,RULE) (N objects, one picked per I/O), "
			      "slot[(STRIDE)] (job N at +STRIDE x (N-1)), "
			      "pair (jobs 2k+1 and 2k+2 one copy, at +128 x k)",
			      n, *s);
	w->sharing = i;
	*s += n;
	if (i == PATTERN_SLOT)
		return word_stride(x, s, end, w);
	return i == PATTERN_OBJ ? word_objects(x, s, end, p) : 0;
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
	if (s < end && *s == ':' && (s++, word_sharing(x, &s, end, &w, p)))
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

/* One item of pattern_words: a word */
static int word_item(struct pctx *x, const char *s, const char *end, void *p)
{
	struct pattern_prog *prog = p;

	if (prog->nr_words == PATTERN_MAX_WORDS)
		return refuse(x, "more than %d words: the engine holds %d",
			      PATTERN_MAX_WORDS, PATTERN_MAX_WORDS);
	return parse_word(x, s, end, prog);
}

/* The bytes of one object: the obj words' lines, in 128-byte pairs so
 * that no two objects share the adjacent-line prefetcher's pair */
static unsigned int obj_stride(const struct pattern_prog *p)
{
	unsigned int i, end = 0;

	for (i = 0; i < p->nr_words; i++)
		if (p->word[i].sharing == PATTERN_OBJ &&
		    p->word[i].offset + 8 > end)
			end = p->word[i].offset + 8;
	return (end + 127) & ~127U;
}

int pattern_parse_words(const char *s, struct pattern_prog *p, char *msg,
			size_t len)
{
	struct pctx x = { .opt = "pattern_words", .what = "word", .msg = msg,
			  .len = len };

	p->nr_words = 0;
	p->uses_node = false;
	p->nr_objects = 0;
	p->obj_shift = 0;
	if (for_each_item(&x, s ? s : "", p, word_item))
		return -1;
	p->obj_stride = obj_stride(p);
	return 0;
}
