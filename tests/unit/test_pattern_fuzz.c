// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern's parser at its limits and under generated input: a number
 * past its range is refused as out of range (not as a wrong argument
 * count), work(ns) is bounded, a control character is refused, an empty
 * sequence names its option; and tens of thousands of strings made of the
 * grammar's own pieces and random bytes (seeded, bounded: a few seconds)
 * each get 0 and a program within the engine's limits, or -1 and one line.
 * Run plain, under ASan/UBSan and TSan (make unit-tests).
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "pattern.h"
#include "unit.h"

#define FUZZ_CASES	40000
#define FUZZ_SECONDS	3
#define FUZZ_SEED	0x5eedf1a9c4ecULL

static int compile(unsigned int variant, const char *words, const char *seq,
		   const char *fixed, bool final, struct pattern_prog *p,
		   char *msg, size_t len)
{
	struct pattern_params pp = { .variant = variant, .words = words,
				     .pattern = seq, .fixed = fixed };

	msg[0] = '\0';
	return pattern_compile(&pp, final, p, msg, len);
}

static int refused_with(const char *words, const char *seq,
			const char *says)
{
	static struct pattern_prog p;
	char msg[512];

	if (compile(FC_ALWAYS, words, seq, "", true, &p, msg, sizeof(msg)) ==
	    -1 && strstr(msg, says) && !strchr(msg, '\n'))
		return 1;
	fprintf(stderr, "'%s' '%s': got '%s', wanted '%s'\n", words, seq,
		msg, says);
	return 0;
}

static void numbers_out_of_range_say_so(void)
{
	CHECK(refused_with("f@0", "set_bit(f,18446744073709551616)",
			   "set_bit: argument 2, 18446744073709551616, is out "
			   "of range: allowed are bits 0 to 63"));
	CHECK(refused_with("f@0", "set_bit(f,-1)", "set_bit: argument 2, -1, "
			   "is out of range: allowed are bits 0 to 63"));
	CHECK(refused_with("f@0", "atomic_add(f,99999999999999999999)",
			   "is out of range: decimal or 0x hex, 0 to "
			   "18446744073709551615"));
	CHECK(refused_with("f@18446744073709551616", "set_bit(f,1)",
			   "word 1 'f@18446744073709551616': line "
			   "18446744073709551616 is out of range: allowed are "
			   "lines 0 to 63"));
	CHECK(refused_with("f@0=0x10000000000000000", "set_bit(f,1)",
			   "=INIT 0x10000000000000000 is out of range"));
	CHECK(refused_with("f@0", "atomic_inc(f)/every_ns=18446744073709551616",
			   "/every_ns=18446744073709551616 is out of range: 1 "
			   "to 18446744073709551615"));
	CHECK(refused_with("f@0", "atomic_inc(f)/every=-3",
			   "/every=-3 is out of range"));
}

static void work_is_bounded(void)
{
	static struct pattern_prog p;
	char msg[512];

	CHECK(refused_with("", "work(1000001)", "operation 1 'work(1000001)': "
			   "work(1000001) is too long: 0 to 1000000 ns"));
	CHECK(refused_with("", "work(18446744073709551615)", "too long"));
	CHECK(refused_with("", "work(18446744073709551616)", "work: argument "
			   "1, 18446744073709551616, is out of range: 0 to "
			   "1000000 ns"));
	CHECK(!compile(FC_ALWAYS, "", "work(1000000)", "", true, &p, msg,
		       sizeof(msg)));
	/* per I/O: *N and the alternative's other work() count */
	CHECK(refused_with("", "work(1000000)*65536", "operation 1 "
			   "'work(1000000)*65536': 65536000000 ns of work() in "
			   "one I/O with *N and the work() before it in this "
			   "alternative: 0 to 1000000 ns (1 ms) of work per "
			   "I/O"));
	CHECK(refused_with("", "work(500),work(999000)*1,work(501)",
			   "operation 3 'work(501)': 1000001 ns of work()"));
	CHECK(!compile(FC_ALWAYS, "", "work(1000)*1000|work(999999),work(1)",
		       "", true, &p, msg, sizeof(msg)));
	/* a count may be as large as its type */
	CHECK(!compile(FC_ALWAYS, "f@0", "atomic_inc(f)/every="
		       "18446744073709551615", "", true, &p, msg, sizeof(msg)));
	CHECK_EQ(p.op[0].every, UINT64_MAX);
}

static void control_characters_are_refused(void)
{
	CHECK(refused_with("f@0", "set_bit(f,\t1)", "pattern: control "
			   "character 0x09 at character 11: only printable "
			   "characters and spaces"));
	CHECK(refused_with("f@0\v", "set_bit(f,1)", "pattern_words: control "
			   "character 0x0b at character 4"));
	CHECK(refused_with("f@0", "set_bit(f,1),\x7f", "character 0x7f"));
	CHECK(refused_with("f@0", "set_bit(f,1)\n", "character 0x0a"));
}

static void an_empty_sequence_names_its_option(void)
{
	static struct pattern_prog p;
	char msg[512];

	CHECK(compile(FC_TEST_FIRST, "f@0", "set_bit(f,1)", " ", true, &p,
		      msg, sizeof(msg)) == -1);
	CHECK(!strncmp(msg, "pattern_fixed is empty", 22));
	CHECK(compile(FC_ALWAYS, "f@0", " , ", "", true, &p, msg,
		      sizeof(msg)) == -1);
	CHECK(!strncmp(msg, "pattern is empty", 16));
	/* while fio parses, the other options may still come */
	CHECK(!compile(FC_ALWAYS, "f@0", "", "", false, &p, msg, sizeof(msg)));
}

/* ----- generated strings ----- */

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static const char *const pieces[] = {
	"set_bit", "test_and_clear_bit", "atomic_cmpxchg", "WRITE_ONCE",
	"work", "smp_mb", "atomic_add", "READ_ONCE", "f", "g", "(", ")", ",",
	"?", "/every=", "/below=", "/flip_every=", "/every_ns=", "*", "@",
	"+", ":", "=", "all", "job", "node", "0", "1", "63", "64", "-1",
	"0x", "ff", "18446744073709551615", "18446744073709551616",
	"99999999999999999999999999999999", "1000000", " ", ";", "#", "\t",
	"\"", "\\", "\xc3\xa9", "\xff", ":obj(8,turn)", ":obj(4096,random)",
	"obj(", "cpu",
};

/* A string of pieces and random bytes, at most @len - 1 bytes */
static void generate(uint64_t *seed, char *buf, size_t len)
{
	size_t n = 0, k, want = rnd(seed) % len;
	const char *piece;
	char byte[2] = "";

	buf[0] = '\0';
	while (n < want) {
		if (rnd(seed) % 8) {
			piece = pieces[rnd(seed) % (sizeof(pieces) /
						    sizeof(pieces[0]))];
		} else {
			byte[0] = 1 + rnd(seed) % 255;
			piece = byte;
		}
		k = strlen(piece);
		if (n + k >= len)
			break;
		memcpy(buf + n, piece, k + 1);
		n += k;
	}
}

static const char *pick(uint64_t *seed, const char *const *a, size_t n)
{
	return a[rnd(seed) % n];
}

#define PICK(seed, a) pick(seed, a, sizeof(a) / sizeof(a[0]))

/* Items as the grammar has them, then perhaps one byte changed */
static void generate_items(uint64_t *seed, char *buf, size_t len)
{
	static const char *const ops[] = {
		"set_bit(f,", "?clear_bit(g,", "test_and_set_bit(f,",
		"?WRITE_ONCE(f,", "atomic_inc(g", "atomic_cmpxchg(f,1,",
		"work(", "smp_mb(", "?__set_bit(g,", "atomic_add(f,",
	};
	static const char *const nums[] = { "0", "3", "63", "64", "0x3f",
					    "1000000", "18446744073709551615",
					    "-2", "" };
	static const char *const tails[] = { ")", ")/every=3", ")/below=2",
					     ")/flip_every=2*3", ")*65536",
					     ")/every_ns=1000", ")*65537" };
	size_t n = 0, items = 1 + rnd(seed) % 4, i;

	buf[0] = '\0';
	for (i = 0; i < items && n + 64 < len; i++)
		n += snprintf(buf + n, len - n, "%s%s%s%s", i ? "," : "",
			      PICK(seed, ops), PICK(seed, nums),
			      PICK(seed, tails));
	if (n && rnd(seed) % 2)
		buf[rnd(seed) % n] = 1 + rnd(seed) % 255;
}

/* The most work() of one I/O: its alternatives' sums of ns x *N */
static uint64_t work_per_io(const struct pattern_prog *p)
{
	uint64_t most = 0, sum;
	unsigned int k, i = 0;

	for (k = 0; k < p->nr_alts; k++) {
		for (sum = 0; i < p->alt_end[k]; i++)
			if (p->op[i].code == OP_WORK)
				sum += p->op[i].arg * p->op[i].repeat;
		most = sum > most ? sum : most;
	}
	return most;
}

/* What an accepted program must hold to */
static int prog_ok(const struct pattern_prog *p)
{
	const struct pattern_op *op;
	const char *c;

	if (p->nr_ops > PATTERN_MAX_OPS || p->nr_words > PATTERN_MAX_WORDS ||
	    work_per_io(p) > PATTERN_MAX_WORK_NS)
		return 0;
	for (op = p->op; op < p->op + p->nr_ops; op++) {
		if (op->offset >= PATTERN_ARENA || op->repeat < 1 ||
		    op->repeat > PATTERN_MAX_REPEAT)
			return 0;
		for (c = op->path; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == '"' ||
			    *c == '\\' || *c == 0x7f)
				return 0;
	}
	return 1;
}

static void generated_strings_are_accepted_or_refused_in_one_line(void)
{
	static struct pattern_prog p;
	static char words[160], seq[400], fixed[200];
	uint64_t seed = FUZZ_SEED, i, accepted = 0;
	time_t stop = time(NULL) + FUZZ_SECONDS;
	char msg[512];
	int ret;

	for (i = 0; i < FUZZ_CASES && time(NULL) < stop; i++) {
		generate(&seed, words, i % 4 ? sizeof(words) : 8);
		if (i % 3)
			strcpy(words, i % 6 == 1 ? "f@0:obj(9,random),g@1:obj(9,"
			       "random)" : "f@0,g@1+8:job=0x1");
		if (i % 2)
			generate_items(&seed, seq, sizeof(seq));
		else
			generate(&seed, seq, sizeof(seq));
		if (i % 4 == 0)
			generate(&seed, fixed, sizeof(fixed));
		else if (i % 4 == 1)
			generate_items(&seed, fixed, sizeof(fixed));
		else
			fixed[0] = '\0';
		ret = compile(i % 2 ? FC_TEST_FIRST : FC_ALWAYS, words, seq,
			      fixed, i % 5 == 0, &p, msg, sizeof(msg));
		if (ret == 0 && !prog_ok(&p))
			ret = 2;
		if (ret == -1 && (!msg[0] || strchr(msg, '\n')))
			ret = 3;
		if (ret != 0 && ret != -1) {
			fprintf(stderr, "case %llu: %d '%s' '%s' '%s': '%s'\n",
				(unsigned long long)i, ret, words, seq, fixed,
				msg);
			CHECK(0);
		}
		accepted += ret == 0;
	}
	printf("fuzz: %llu strings, %llu accepted\n", (unsigned long long)i,
	       (unsigned long long)accepted);
	CHECK(i >= 1000);
}

int main(void)
{
	RUN(numbers_out_of_range_say_so);
	RUN(work_is_bounded);
	RUN(control_characters_are_refused);
	RUN(an_empty_sequence_names_its_option);
	RUN(generated_strings_are_accepted_or_refused_in_one_line);
	UNIT_EXIT();
}
