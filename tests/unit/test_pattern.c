// SPDX-License-Identifier: GPL-2.0
/* model=pattern's parser: the model as the glue sees it, the grammar
 * accepted, each bad form refused with one line naming it, and the words
 * given after the pattern as well as before. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pattern_run.h"
#include "unit.h"

/* check() of these options: 0, or -1 with the message in @msg */
static int check_of(const char *words, const char *pattern,
		    const char *fixed, char *msg, size_t len)
{
	void *p = model_params(m);
	int ret;

	model_set(m, p, "pattern_words", words);
	model_set(m, p, "pattern", pattern);
	model_set(m, p, "pattern_fixed", fixed);
	ret = m->check(p, msg, len);
	free(p);
	return ret;
}

static void the_model_as_the_glue_sees_it(void)
{
	const struct fc_model_option *o = model_opt(m, "variant");
	void *p = model_params(m);
	char msg[512];

	CHECK(!strcmp(m->name, "pattern"));
	CHECK(o && o->is_variant && o->choices == fc_variant_names);
	CHECK(!strcmp(o->def, "test_first"));
	CHECK(model_opt(m, "pattern")->is_string);
	CHECK(model_opt(m, "pattern_words")->is_string);
	CHECK(model_opt(m, "pattern_fixed")->is_string);
	CHECK(!model_opt(m, "pattern_writers")->is_string);
	CHECK(m->job_init && m->job_paths && m->job_size);
	/* the defaults (another model's job): nothing to refuse */
	CHECK_EQ(m->check(p, msg, sizeof(msg)), 0);
	CHECK(fc_models_agree(fc_models, msg, sizeof(msg)) == 0);
	free(p);
}

static void accepts_the_grammar(void)
{
	struct pattern_prog p;
	char msg[512];

	memset(&p, 0, sizeof(p));
	CHECK_EQ(pattern_parse_words(" flags@0 , pinned@1+8:all=0x1,mine@2:job,"
				     "n@63+56:node=18446744073709551615,",
				     &p, msg, sizeof(msg)), 0);
	CHECK_EQ(p.nr_words, 4);
	CHECK_EQ(p.word[1].offset, 72);
	CHECK_EQ(p.word[1].init, 1);
	CHECK_EQ(p.word[2].sharing, PATTERN_JOB);
	CHECK_EQ(p.word[3].offset, 63 * 64 + 56);
	CHECK_EQ(p.word[3].init, ~0UL);
	CHECK(p.uses_node);
	CHECK_EQ(pattern_parse_seq("pattern",
				   "READ_ONCE(flags), WRITE_ONCE(flags, 0x10),"
				   "atomic_read(pinned),atomic_set(pinned,1),"
				   "__set_bit(flags,63),__clear_bit(flags,0),"
				   "?set_bit(mine,3)/flip_every=100*2,"
				   "clear_bit(mine,1),change_bit(mine,2),"
				   "test_and_set_bit(flags,4),"
				   "test_and_clear_bit(flags,5)/every=3,"
				   "atomic_add(n,1)/below=64,atomic_inc(n),"
				   "atomic_dec(n)/every_ns=1000000,"
				   "atomic_xchg(pinned,7),"
				   "?atomic_cmpxchg(pinned,0,1)",
				   &p, true, msg, sizeof(msg)), 0);
	CHECK_EQ(p.nr_ops, 16);
	CHECK(!strcmp(p.op[6].path, "7:?set_bit(mine,3)/flip_every=100*2"));
	CHECK_EQ(p.op[6].repeat, 2);
	CHECK_EQ(p.op[6].flip_every, 100);
	CHECK(p.op[6].test_first && !p.op[7].test_first);
	CHECK_EQ(p.op[11].below, 64);
	CHECK_EQ(p.op[13].every_ns, 1000000);
	CHECK_EQ(p.op[15].arg2, 1);
	CHECK_EQ(pattern_parse_seq("pattern", "smp_mb(),smp_mb__before_atomic(),"
				   "work(200)*3", &p, true, msg,
				   sizeof(msg)), 0);
	CHECK_EQ(p.nr_ops, 3);
	CHECK_EQ(p.op[2].arg, 200);
}

/* Each bad form: refused, one line naming the option and the item */
static void refuses_each_bad_form(void)
{
	static const struct {
		const char *words, *pattern, *fixed, *says;
	} bad[] = {
		{ "f@0", "foo(f,1)", "", "pattern: operation 1 'foo(f,1)': "
		  "unknown operation 'foo': allowed are READ_ONCE" },
		{ "f@0", "set_bit(f,1),set_bit(g,1)", "", "operation 2 "
		  "'set_bit(g,1)': unknown word 'g'" },
		{ "f@0", "set_bit(f,64)", "", "bit 64 is past the word: "
		  "allowed are bits 0 to 63" },
		{ "f@0", "", "set_bit(f,1)/every=0", "pattern_fixed: operation "
		  "1 'set_bit(f,1)/every=0': /every=0 is not allowed" },
		{ "f@0", "set_bit(f,1)/every_ns=0", "", "/every_ns=0 is not "
		  "allowed" },
		{ "f@0", "atomic_add(f,1)/below=0", "", "/below=0 is not "
		  "allowed" },
		{ "f@0", "set_bit(f,1)/flip_every=0", "", "/flip_every=0" },
		{ "f@0", "?change_bit(f,1)", "", "'?' is not allowed on "
		  "change_bit: it has no test-first form" },
		{ "f@0", "?atomic_add(f,1)", "", "'?' is not allowed on "
		  "atomic_add" },
		{ "f@0", "atomic_add(f,1)/flip_every=3", "", "/flip_every is "
		  "not allowed on atomic_add" },
		{ "f@0", "work(5)/below=3", "", "/below needs an operation on "
		  "a word" },
		{ "f@0", "set_bit(f)", "", "set_bit takes 2 arguments" },
		{ "f@0", "set_bit(f,1,2)", "", "')' expected" },
		{ "f@0", "set_bit(f,-1)", "", "argument 2, -1, is out of range" },
		{ "f@0", "set_bit(f,1)*0", "", "*N: a repeat count from 1 to "
		  "65536" },
		{ "f@0", "set_bit(f,1)/often=2", "", "unknown suffix '/often'" },
		{ "f@0", "set_bit(f,1)/every=2/every=3", "", "/every is given "
		  "twice" },
		{ "f@0", "set_bit(f,1) x", "", "unexpected 'x'" },
		{ "f@0", "set_bit(f,1);set_bit(f,2)", "", "pattern=set_bit(f,1);"
		  "set_bit(f,2): ';' at character 13: separate items with ','" },
		{ "f@0#g@1", "", "", "pattern_words=f@0#g@1: '#' at character 4" },
		{ "f@0,g@0", "", "", "word 2 'g@0': overlaps word f" },
		{ "f@0,f@1", "", "", "word f is declared twice" },
		{ "f@64", "", "", "line 64 is past the arena: allowed are lines "
		  "0 to 63" },
		{ "f@0+4", "", "", "offset 4 is not allowed: a multiple of 8" },
		{ "f@0+64", "", "", "offset 64 is not allowed" },
		{ "f@0:cpu", "", "", "sharing 'cpu' is not known: allowed are "
		  "all" },
		{ "f@0:pairs", "", "", "sharing 'pairs' is not known: allowed "
		  "are all (every job, the default), job (each job its own), "
		  "node (the jobs of one NUMA node), obj(N,RULE) (N objects, "
		  "one picked per I/O), slot[(STRIDE)] (job N at +STRIDE x "
		  "(N-1)), pair (jobs 2k+1 and 2k+2 one copy, at +128 x k)" },
		{ "f@0:pair(2)", "", "", "word 1 'f@0:pair(2)': unexpected "
		  "'(2)': a word is NAME@LINE[+OFFSET][:SHARING][=INIT]" },
		{ "f@0=x", "", "", "=INIT is not a number" },
		{ "f", "", "", "@LINE is missing" },
		{ "0f@0", "", "", "NAME a C identifier" },
		{ "abcdefghijabcdefghijabcdefghijab@0", "", "", "longer than 31" },
	};
	char msg[512], seq[1024];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		msg[0] = '\0';
		if (check_of(bad[i].words, bad[i].pattern, bad[i].fixed, msg,
			     sizeof(msg)) != -1 || !strstr(msg, bad[i].says) ||
		    strchr(msg, '\n')) {
			fprintf(stderr, "case %u: got '%s', wanted '%s'\n", i,
				msg, bad[i].says);
			CHECK(0);
		}
	}
	/* one operation more than the engine holds */
	seq[0] = '\0';
	for (i = 0; i <= PATTERN_MAX_OPS; i++)
		strcat(seq, "set_bit(f,1),");
	CHECK(check_of("f@0", seq, "", msg, sizeof(msg)) == -1);
	CHECK(strstr(msg, "operation 65 'set_bit(f,1)': the sequence is longer "
		     "than the engine holds: at most 64 operations"));
}

/* fio parses options in its own order: an unknown word waits for
 * pattern_words while parsing, and is refused at job start without it */
static void words_may_come_after_the_pattern(void)
{
	struct run r;
	char msg[512];

	CHECK_EQ(check_of("", "set_bit(f,1)", "", msg, sizeof(msg)), 0);
	CHECK(check_of("", "set_bit(f,64)", "", msg, sizeof(msg)) == -1);
	run_start(&r, "always", "", "set_bit(f,1)", "", "0", 1);
	CHECK_EQ(r.err, -EINVAL);
	run_end(&r);
	run_start(&r, "always", "f@0", "", "", "0", 1);
	CHECK_EQ(r.err, -EINVAL);	/* an empty pattern */
	run_end(&r);
}

int main(void)
{
	RUN(the_model_as_the_glue_sees_it);
	RUN(accepts_the_grammar);
	RUN(refuses_each_bad_form);
	RUN(words_may_come_after_the_pattern);
	UNIT_EXIT();
}
