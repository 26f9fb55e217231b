// SPDX-License-Identifier: GPL-2.0
/* model=pattern: the parser accepts the grammar and refuses each bad form
 * with one line; each operation counts its RMWs, stores and skips exactly
 * in both forms; guards, flips, repeats and readers count as documented;
 * the words' initial values are written once however many jobs race. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "model_opts.h"
#include "pattern.h"
#include "unit.h"

static const struct fc_model *m = &fc_model_pattern;

/* One job of the model on one state, as the glue drives it */
struct run {
	void *params;
	void *job;
	unsigned char *state;
	struct fc_counters c;
	int err;		/* job_init's */
};

static void run_start(struct run *r, const char *variant, const char *words,
		      const char *pattern, const char *fixed,
		      const char *writers, unsigned int job_number)
{
	size_t size;

	memset(r, 0, sizeof(*r));
	r->params = model_params(m);
	model_set(m, r->params, "variant", variant);
	model_set(m, r->params, "pattern_words", words);
	model_set(m, r->params, "pattern", pattern);
	model_set(m, r->params, "pattern_fixed", fixed);
	model_set(m, r->params, "pattern_writers", writers);
	size = m->state_size(r->params, 0);
	r->state = aligned_alloc(128, (size + 127) & ~(size_t)127);
	memset(r->state, 0, size);
	r->job = calloc(1, m->job_size);
	if (!r->state || !r->job)
		abort();
	r->err = m->job_init(r->job, r->params, job_number);
}

static void run_ios(struct run *r, void *state, unsigned int n)
{
	struct fc_io io = { .ddir = FC_READ, .len = 4096, .job = r->job };

	while (n--) {
		r->c.ios[FC_READ]++;
		if (m->io(state, r->params, &io, &r->c))
			abort();
	}
}

static void run_end(struct run *r)
{
	free(r->params);
	free(r->job);
	free(r->state);
}

/* The word at byte @off of the file's shared arena (after the header) */
static unsigned long shared_word(struct run *r, unsigned int off)
{
	return *(unsigned long *)(r->state + 128 + off);
}

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

/* S1: two test_and_clear_bit() per I/O: 2 RMWs always, none test_first */
static void s1_counts(void)
{
	const char *const *paths;
	struct run r;

	run_start(&r, "always", "flags@0", "test_and_clear_bit(flags,0),"
		  "test_and_clear_bit(flags,1)", "", "0", 1);
	CHECK_EQ(r.err, 0);
	run_ios(&r, r.state, 1000);
	CHECK_EQ(fc_counters_rmw(&r.c), 2000);
	CHECK_EQ(r.c.rmw[0], 1000);
	CHECK_EQ(fc_counters_skipped(&r.c) + fc_counters_stores(&r.c), 0);
	CHECK_EQ(r.c.checks, 1000);
	paths = m->job_paths(r.job);
	CHECK(!strcmp(paths[0], "1:test_and_clear_bit(flags,0)"));
	CHECK(!strcmp(paths[1], "2:test_and_clear_bit(flags,1)") && !paths[2]);
	run_end(&r);

	run_start(&r, "test_first", "flags@0", "test_and_clear_bit(flags,0),"
		  "test_and_clear_bit(flags,1)", "", "0", 1);
	run_ios(&r, r.state, 1000);
	CHECK_EQ(fc_counters_rmw(&r.c), 0);
	CHECK_EQ(fc_counters_skipped(&r.c), 2000);
	run_end(&r);
}

/* One I/O of @pattern in @variant on a word initialised to @init: the
 * counters of path 0 and the word after */
struct one {
	uint64_t rmw, stores, skipped;
	unsigned long word;
};

static struct one one_io(const char *variant, const char *init,
			 const char *pattern)
{
	char words[64];
	struct one o;
	struct run r;

	snprintf(words, sizeof(words), "w@3+16=%s", init);
	run_start(&r, variant, words, pattern, "", "0", 1);
	if (r.err)
		abort();
	run_ios(&r, r.state, 1);
	o.rmw = r.c.rmw[0];
	o.stores = r.c.stores[0];
	o.skipped = r.c.skipped[0];
	o.word = shared_word(&r, 3 * 64 + 16);
	run_end(&r);
	return o;
}

/* Each operation, both forms, on a word where it changes something and
 * on one where it does not */
static void each_operation_counts(void)
{
	static const struct {
		const char *op, *init;
		uint64_t rmw, stores;		/* always */
		uint64_t tf_rmw, tf_stores;	/* test_first */
		unsigned long after;
	} cases[] = {
		{ "READ_ONCE(w)", "5", 0, 0, 0, 0, 5 },
		{ "atomic_read(w)", "5", 0, 0, 0, 0, 5 },
		{ "WRITE_ONCE(w,5)", "5", 0, 1, 0, 0, 5 },
		{ "WRITE_ONCE(w,5)", "4", 0, 1, 0, 1, 5 },
		{ "atomic_set(w,5)", "5", 0, 1, 0, 0, 5 },
		{ "__set_bit(w,2)", "4", 0, 1, 0, 0, 4 },
		{ "__set_bit(w,2)", "0", 0, 1, 0, 1, 4 },
		{ "__clear_bit(w,2)", "0", 0, 1, 0, 0, 0 },
		{ "__clear_bit(w,2)", "6", 0, 1, 0, 1, 2 },
		{ "set_bit(w,63)", "0x8000000000000000", 1, 0, 0, 0,
		  0x8000000000000000UL },
		{ "set_bit(w,0)", "0", 1, 0, 1, 0, 1 },
		{ "clear_bit(w,0)", "0", 1, 0, 0, 0, 0 },
		{ "clear_bit(w,0)", "3", 1, 0, 1, 0, 2 },
		{ "change_bit(w,1)", "3", 1, 0, 1, 0, 1 },
		{ "test_and_set_bit(w,0)", "1", 1, 0, 0, 0, 1 },
		{ "test_and_set_bit(w,0)", "0", 1, 0, 1, 0, 1 },
		{ "test_and_clear_bit(w,0)", "0", 1, 0, 0, 0, 0 },
		{ "test_and_clear_bit(w,0)", "1", 1, 0, 1, 0, 0 },
		{ "atomic_add(w,3)", "4", 1, 0, 1, 0, 7 },
		{ "atomic_inc(w)", "4", 1, 0, 1, 0, 5 },
		{ "atomic_dec(w)", "4", 1, 0, 1, 0, 3 },
		{ "atomic_xchg(w,9)", "9", 1, 0, 0, 0, 9 },
		{ "atomic_xchg(w,9)", "1", 1, 0, 1, 0, 9 },
		/* a failed cmpxchg is still an RMW in the always form */
		{ "atomic_cmpxchg(w,1,2)", "7", 1, 0, 0, 0, 7 },
		{ "atomic_cmpxchg(w,1,2)", "1", 1, 0, 1, 0, 2 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct one a = one_io("always", cases[i].init, cases[i].op);
		struct one t = one_io("test_first", cases[i].init, cases[i].op);
		uint64_t counted = cases[i].rmw + cases[i].stores;

		if (a.rmw != cases[i].rmw || a.stores != cases[i].stores ||
		    a.skipped || t.rmw != cases[i].tf_rmw ||
		    t.stores != cases[i].tf_stores ||
		    t.skipped != counted - t.rmw - t.stores ||
		    a.word != cases[i].after || t.word != cases[i].after) {
			fprintf(stderr, "case %u %s init %s: always %llu/%llu/"
				"%llu %#lx, test_first %llu/%llu/%llu %#lx\n",
				i, cases[i].op, cases[i].init,
				(unsigned long long)a.rmw,
				(unsigned long long)a.stores,
				(unsigned long long)a.skipped, a.word,
				(unsigned long long)t.rmw,
				(unsigned long long)t.stores,
				(unsigned long long)t.skipped, t.word);
			CHECK(0);
		}
	}
}

/* '?' in pattern runs the test-first form in always too (as written), and
 * pattern_fixed replaces the sequence in test_first */
static void explicit_forms_and_the_fixed_sequence(void)
{
	struct run r;

	run_start(&r, "always", "f@0", "?set_bit(f,1),set_bit(f,1)", "", "0",
		  1);
	run_ios(&r, r.state, 10);
	CHECK_EQ(r.c.rmw[0], 1);
	CHECK_EQ(r.c.skipped[0], 9);
	CHECK_EQ(r.c.rmw[1], 10);
	run_end(&r);

	run_start(&r, "test_first", "f@0,g@2", "set_bit(f,1),set_bit(f,2)",
		  "atomic_inc(g)/every=4", "0", 1);
	run_ios(&r, r.state, 10);
	CHECK(!strcmp(m->job_paths(r.job)[0], "1:atomic_inc(g)/every=4"));
	CHECK(!m->job_paths(r.job)[1]);
	CHECK_EQ(r.c.rmw[0], 3);	/* I/Os 1, 5, 9 */
	CHECK_EQ(r.c.skipped[0], 7);
	CHECK_EQ(shared_word(&r, 128), 3);
	CHECK_EQ(shared_word(&r, 0), 0);
	run_end(&r);
}

static void guards_and_repeats(void)
{
	struct run r;

	/* the memcg threshold: adds until the word reaches 64 */
	run_start(&r, "always", "nr@0", "atomic_add(nr,1)/below=64*4", "", "0",
		  1);
	run_ios(&r, r.state, 100);
	CHECK_EQ(r.c.rmw[0], 64);
	CHECK_EQ(r.c.skipped[0], 400 - 64);
	CHECK_EQ(shared_word(&r, 0), 64);
	run_end(&r);

	/* at most once per second of the job: only the first I/O here */
	run_start(&r, "always", "l@0", "atomic_add(l,2)/every_ns=1000000000*3",
		  "", "0", 1);
	run_ios(&r, r.state, 50);
	CHECK_EQ(r.c.rmw[0], 3);
	CHECK_EQ(r.c.skipped[0], 49 * 3);
	run_end(&r);

	/* a flip every 10th I/O: test_first clears it once per flip */
	run_start(&r, "test_first", "f@0", "clear_bit(f,7)/flip_every=10*2",
		  "", "0", 1);
	run_ios(&r, r.state, 1000);
	CHECK_EQ(r.c.stat[name_index(m->stats, "flips")], 100);
	CHECK_EQ(r.c.rmw[0], 100);
	CHECK_EQ(r.c.skipped[0], 2000 - 100);
	run_end(&r);

	/* WRITE_ONCE with flips: always stores every time */
	run_start(&r, "always", "f@0", "WRITE_ONCE(f,1)/flip_every=4", "", "0",
		  1);
	run_ios(&r, r.state, 100);
	CHECK_EQ(r.c.stores[0], 100);
	CHECK_EQ(fc_counters_rmw(&r.c), 0);
	CHECK_EQ(r.c.stat[name_index(m->stats, "flips")], 25);
	run_end(&r);

	/* barriers and work count nothing */
	run_start(&r, "always", "", "smp_mb(),smp_mb__before_atomic(),work(50)",
		  "", "0", 1);
	CHECK_EQ(r.err, 0);
	run_ios(&r, r.state, 10);
	CHECK_EQ(fc_counters_rmw(&r.c) + fc_counters_stores(&r.c) +
		 fc_counters_skipped(&r.c), 0);
	CHECK_EQ(r.c.checks, 10);
	run_end(&r);
}

/* Jobs past pattern_writers only read, once per word per I/O */
static void readers_only_read(void)
{
	int calls = name_index(m->stats, "reader_calls");
	int loads = name_index(m->stats, "reader_loads");
	struct run r;

	run_start(&r, "always", "f@0,g@1", "set_bit(f,1),set_bit(f,2),"
		  "atomic_inc(g),work(10)", "", "2", 3);
	run_ios(&r, r.state, 100);
	CHECK_EQ(fc_counters_rmw(&r.c) + fc_counters_stores(&r.c) +
		 fc_counters_skipped(&r.c), 0);
	CHECK_EQ(r.c.stat[calls], 100);
	CHECK_EQ(r.c.stat[loads], 200);
	CHECK_EQ(r.c.checks, 100);
	run_end(&r);

	run_start(&r, "always", "f@0,g@1", "set_bit(f,1),atomic_inc(g)", "",
		  "2", 2);
	run_ios(&r, r.state, 100);
	CHECK_EQ(fc_counters_rmw(&r.c), 200);
	CHECK_EQ(r.c.stat[calls], 0);
	run_end(&r);
}

/* job words live in the job; node words in the node's copy of the state */
static void sharing_places_the_words(void)
{
	struct run r;
	unsigned int i;
	bool in_state = false;

	run_start(&r, "always", "mine@5:job=0x10", "atomic_inc(mine)", "", "0",
		  1);
	run_ios(&r, r.state, 7);
	for (i = 0; i < m->state_size(r.params, 0); i++)
		in_state |= r.state[i] != 0 && i >= 128;
	CHECK(!in_state);
	CHECK_EQ(r.c.rmw[0], 7);
	run_end(&r);

	/* this CPU's node's copy: after the run's own arena */
	run_start(&r, "always", "n@5:node=0x10,a@5", "atomic_inc(n),"
		  "atomic_add(a,2)", "", "0", 1);
	CHECK_EQ(r.err, 0);
	run_ios(&r, r.state, 7);
	CHECK_EQ(shared_word(&r, 5 * 64), 14);
	for (i = 0; i < PATTERN_MAX_NODES; i++)
		if (shared_word(&r, (1 + i) * PATTERN_ARENA + 5 * 64) == 0x17)
			break;
	CHECK(i < PATTERN_MAX_NODES);
	run_end(&r);
}

/* Many jobs attach to one state at once: the initial value is written
 * once, before any of them runs an operation on it */
#define THREADS	4
#define ITERS	20000

struct racer {
	struct run r;
	unsigned char *state;
};

static void *racer_main(void *arg)
{
	struct racer *x = arg;

	run_ios(&x->r, x->state, ITERS);
	return NULL;
}

static void init_once_under_concurrency(void)
{
	struct racer x[THREADS];
	pthread_t t[THREADS];
	uint64_t rmw = 0;
	int i;

	for (i = 0; i < THREADS; i++)
		run_start(&x[i].r, "always", "n@0=1000000,f@1",
			  "atomic_inc(n),test_and_set_bit(f,3)", "", "0", i + 1);
	for (i = 0; i < THREADS; i++) {
		x[i].state = x[0].r.state;
		pthread_create(&t[i], NULL, racer_main, &x[i]);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		rmw += fc_counters_rmw(&x[i].r.c);
	}
	CHECK_EQ(rmw, 2ULL * THREADS * ITERS);
	CHECK_EQ(shared_word(&x[0].r, 0), 1000000 + THREADS * ITERS);
	CHECK_EQ(shared_word(&x[0].r, 64), 8);
	for (i = 0; i < THREADS; i++)
		run_end(&x[i].r);
}

int main(void)
{
	RUN(the_model_as_the_glue_sees_it);
	RUN(accepts_the_grammar);
	RUN(refuses_each_bad_form);
	RUN(words_may_come_after_the_pattern);
	RUN(s1_counts);
	RUN(each_operation_counts);
	RUN(explicit_forms_and_the_fixed_sequence);
	RUN(guards_and_repeats);
	RUN(readers_only_read);
	RUN(sharing_places_the_words);
	RUN(init_once_under_concurrency);
	UNIT_EXIT();
}
