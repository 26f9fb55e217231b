// SPDX-License-Identifier: GPL-2.0
/*
 * The check of the jobs together (->run_check) under generated locks:
 * 1 to 3 sections on one file, 1 to 4 jobs, sequences of spin_lock(),
 * spin_unlock(), work()*N, atomic_inc(), WRITE_ONCE(), READ_ONCE() over a
 * few words that often share a place, A|B alternatives (seeded, bounded:
 * a few seconds). Each case is refused in one line, or else it must run:
 * each job's start accepts it, the model's own I/Os, job after job, never
 * find a lock held (a spin that asks is told to give up: a failed I/O),
 * whichever job starts first; and no interleaving of the jobs' locks, I/O
 * after I/O, leaves every unfinished job waiting (every one searched).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "model_opts.h"
#include "pattern.h"
#include "unit.h"

#define FUZZ_CASES	3000
#define FUZZ_SECONDS	4
#define FUZZ_SEED	0x10cc5f022ULL
#define MAX_SECTIONS	3
#define MAX_JOBS	4

static const struct fc_model *m = &fc_model_pattern;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define PICK(seed, a) ((a)[rnd(seed) % (sizeof(a) / sizeof((a)[0]))])

struct section {
	char words[128], pattern[512];
	unsigned int numjobs, writers;
};

struct fuzz_case {
	struct section s[MAX_SECTIONS];
	unsigned int nr;
};

/* Words w0..w3 on lines 0 to 2 (so that sections share places) */
static void gen_words(uint64_t *seed, char *buf, size_t len)
{
	static const char *const sharing[] = { "", "", "", ":slot", ":pair",
					       ":job", ":slot(16)" };
	unsigned int i, n = 1 + rnd(seed) % 3;
	size_t k = 0;

	for (i = 0; i < n; i++)
		k += snprintf(buf + k, len - k, "%sw%u@%u%s%s%s", i ? "," : "",
			      i, (unsigned int)(rnd(seed) % 3),
			      rnd(seed) % 3 ? "" : "+8", PICK(seed, sharing),
			      rnd(seed) % 12 ? "" : "=1");
}

/* One operation on word w<n> of @words' count */
static size_t gen_op(uint64_t *seed, unsigned int nw, char *buf, size_t len)
{
	static const char *const work[] = { "work(10)", "work(500000)*2",
					    "work(1000000)", "work(400)*3" };
	unsigned int w = rnd(seed) % nw;

	switch (rnd(seed) % 5) {
	case 0:
		return snprintf(buf, len, "%s", PICK(seed, work));
	case 1:
		return snprintf(buf, len, "atomic_inc(w%u)", w);
	case 2:
		return snprintf(buf, len, "WRITE_ONCE(w%u,0)", w);
	default:
		return snprintf(buf, len, "READ_ONCE(w%u)", w);
	}
}

/* One alternative: locks taken in some order, ops between, released in
 * reverse or not (and now and then anything at all) */
static size_t gen_alt(uint64_t *seed, unsigned int nw, char *buf, size_t len)
{
	unsigned int locks[2], nl = rnd(seed) % 3, i;
	size_t k = 0;

	for (i = 0; i < nl; i++) {
		locks[i] = rnd(seed) % nw;
		k += snprintf(buf + k, len - k, "spin_lock(w%u),", locks[i]);
	}
	k += gen_op(seed, nw, buf + k, len - k);
	for (i = nl; i-- > 0;) {
		if (rnd(seed) % 10 == 0)
			continue;		/* never released */
		k += snprintf(buf + k, len - k, ",spin_unlock(w%u)",
			      locks[rnd(seed) % 6 ? i : nl - 1 - i]);
	}
	if (rnd(seed) % 3 == 0) {
		buf[k++] = ',';
		k += gen_op(seed, nw, buf + k, len - k);
	}
	return k;
}

static void gen_case(uint64_t *seed, struct fuzz_case *fc)
{
	unsigned int i, jobs = 0, nw, alts;
	struct section *s;
	size_t k;

	fc->nr = 1 + rnd(seed) % MAX_SECTIONS;
	for (i = 0; i < fc->nr; i++) {
		s = &fc->s[i];
		gen_words(seed, s->words, sizeof(s->words));
		for (nw = 1, k = 0; s->words[k]; k++)
			nw += s->words[k] == ',';
		alts = 1 + rnd(seed) % 2;
		for (k = 0; alts--;) {
			k += gen_alt(seed, nw, s->pattern + k,
				     sizeof(s->pattern) - k);
			if (alts)
				s->pattern[k++] = '|';
		}
		s->numjobs = 1 + rnd(seed) % 2;
		if (jobs + s->numjobs > MAX_JOBS)
			s->numjobs = MAX_JOBS - jobs ?: 1;
		jobs += s->numjobs;
		s->writers = rnd(seed) % 8 ? 0 : 1;
	}
	while (jobs > MAX_JOBS) {		/* at most MAX_JOBS in all */
		fc->nr--;
		jobs -= fc->s[fc->nr].numjobs;
	}
}

/* ----- the jobs, as the engine runs them ----- */

struct jobs {
	void *params[MAX_SECTIONS];
	struct fc_run_job job[MAX_JOBS];
	unsigned int n;
	void *mem[MAX_JOBS];
	unsigned char *state;
	struct pattern_prog prog[MAX_JOBS];	/* each job's sequence */
};

static void jobs_make(struct jobs *j, const struct fuzz_case *fc)
{
	char writers[16];
	unsigned int i, k;

	memset(j, 0, sizeof(*j));
	for (i = 0; i < fc->nr; i++) {
		j->params[i] = model_params(m);
		snprintf(writers, sizeof(writers), "%u", fc->s[i].writers);
		model_set(m, j->params[i], "variant", "always");
		model_set(m, j->params[i], "pattern_words", fc->s[i].words);
		model_set(m, j->params[i], "pattern", fc->s[i].pattern);
		model_set(m, j->params[i], "pattern_writers", writers);
		for (k = 0; k < fc->s[i].numjobs; k++, j->n++)
			j->job[j->n] = (struct fc_run_job){
				.params = j->params[i],
				.job_number = j->n + 1 };
	}
}

static void jobs_free(struct jobs *j)
{
	unsigned int i;

	for (i = 0; i < MAX_SECTIONS; i++)
		free(j->params[i]);
	for (i = 0; i < MAX_JOBS; i++)
		free(j->mem[i]);
	free(j->state);
}

/* A spin is told to give up at once: a lock held between two I/Os run one
 * after the other is never freed */
static const char *give_up(const struct fc_stop *s)
{
	(void)s;
	return "the fuzz found the lock held";
}

/* Each job started, then 3 I/Os of each in turn, job @first starting:
 * 0, or -1 with why in @msg */
static int jobs_run(struct jobs *j, unsigned int first, char *msg, size_t len)
{
	static const struct fc_stop stop = { .why = give_up };
	struct fc_counters c;
	struct fc_io io = { .ddir = FC_READ, .len = 4096, .stop = &stop };
	size_t size = 0, sz;
	unsigned int i, k, r;
	int err;

	for (i = 0; i < j->n; i++) {
		sz = m->state_size(j->job[i].params, 0);
		size = sz > size ? sz : size;
	}
	j->state = aligned_alloc(128, (size + 127) & ~(size_t)127);
	if (!j->state)
		abort();
	memset(j->state, 0, size);
	for (i = 0; i < j->n; i++) {
		j->mem[i] = calloc(1, m->job_size);
		if (m->job_init(j->mem[i], j->job[i].params,
				j->job[i].job_number, msg, len))
			return -1;
	}
	memset(&c, 0, sizeof(c));
	for (r = 0; r < 3 * j->n; r++) {
		k = (first + r) % j->n;
		io.job = j->mem[k];
		err = m->io(j->state, j->job[k].params, &io, &c);
		if (err) {
			snprintf(msg, len, "job %u's I/O %u: %s", k + 1, r,
				 m->io_error(j->mem[k]) ?: "failed");
			return -1;
		}
	}
	return 0;
}

/* ----- every interleaving of the jobs' locks ----- */

/* A job's lock operations, alternative by alternative: +place (take) or
 * -place (release), places as fio's jobs see them (its own for :job) */
struct locks {
	int op[PATTERN_MAX_ALTS][PATTERN_MAX_OPS];
	unsigned int len[PATTERN_MAX_ALTS], nr_alts;
};

static int place_of(const struct pattern_prog *p, const struct pattern_op *op,
		    unsigned int job)
{
	const struct pattern_word *w = &p->word[op->word];
	unsigned int at = w->offset;

	if (w->sharing == PATTERN_SLOT)
		at += w->stride * (job - 1);
	else if (w->sharing == PATTERN_PAIR)
		at += 128 * ((job - 1) / 2);
	else if (w->sharing == PATTERN_JOB)
		at += 8192 * job;
	return 1 + at / 8;
}

static void locks_of(const struct pattern_prog *p, unsigned int job,
		     bool writer, struct locks *l)
{
	unsigned int k, i = 0;
	const struct pattern_op *op;

	memset(l, 0, sizeof(*l));
	l->nr_alts = p->nr_alts;
	for (k = 0; k < p->nr_alts; k++)
		for (; i < p->alt_end[k]; i++) {
			op = &p->op[i];
			if (!writer || (op->code != OP_SPIN_LOCK &&
					op->code != OP_SPIN_UNLOCK))
				continue;
			l->op[k][l->len[k]++] = op->code == OP_SPIN_LOCK ?
				place_of(p, op, job) : -place_of(p, op, job);
		}
}

/* Where each job is: its I/O (up to IOS) and its place in it */
#define IOS	3
#define SEEN	(1U << 18)

struct explore {
	struct locks l[MAX_JOBS];
	unsigned int n;
	uint64_t *seen;			/* open addressing; 0: empty */
	unsigned int states;
	bool cut;			/* more states than it holds */
};

static uint64_t key_of(const unsigned char *io, const unsigned char *pos,
		       unsigned int n)
{
	uint64_t key = 1;
	unsigned int i;

	for (i = 0; i < n; i++)
		key = key << 12 | io[i] << 6 | pos[i];
	return key;
}

static bool seen_before(struct explore *e, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL >> 46;

	while (e->seen[h % SEEN]) {
		if (e->seen[h % SEEN] == key)
			return true;
		h++;
	}
	e->seen[h % SEEN] = key;
	e->states++;
	return false;
}

/* Whether place @at is held, the jobs being where @io and @pos say */
static bool held(const struct explore *e, const unsigned char *io,
		 const unsigned char *pos, int at)
{
	unsigned int j, i, a;
	int h;

	for (j = 0; j < e->n; j++) {
		if (io[j] >= IOS)
			continue;
		a = io[j] % e->l[j].nr_alts;
		for (h = 0, i = 0; i < pos[j]; i++)
			h += e->l[j].op[a][i] == at ? 1 :
			     e->l[j].op[a][i] == -at ? -1 : 0;
		if (h > 0)
			return true;
	}
	return false;
}

/* true where some interleaving from here leaves every unfinished job
 * waiting on a lock */
static bool deadlock_from(struct explore *e, unsigned char *io,
			  unsigned char *pos)
{
	unsigned int j, a, moved = 0, left = 0;
	bool found = false;
	int op;

	e->cut |= e->states >= SEEN / 2;
	if (e->cut || seen_before(e, key_of(io, pos, e->n)))
		return false;
	for (j = 0; j < e->n && !found; j++) {
		if (io[j] >= IOS)
			continue;
		left++;
		a = io[j] % e->l[j].nr_alts;
		if (pos[j] == e->l[j].len[a]) {
			io[j]++;
			pos[j] = 0;
			found = deadlock_from(e, io, pos);
			io[j]--;
			pos[j] = e->l[j].len[a];
			moved++;
			continue;
		}
		op = e->l[j].op[a][pos[j]];
		if (op > 0 && held(e, io, pos, op))
			continue;		/* it spins */
		pos[j]++;
		found = deadlock_from(e, io, pos);
		pos[j]--;
		moved++;
	}
	return found || (left && !moved);
}

static bool can_deadlock(const struct jobs *j, struct explore *e)
{
	unsigned char io[MAX_JOBS] = { 0 }, pos[MAX_JOBS] = { 0 };
	const struct pattern_params *pp;
	unsigned int i;

	e->n = j->n;
	e->states = 0;
	memset(e->seen, 0, SEEN * sizeof(*e->seen));
	for (i = 0; i < j->n; i++) {
		pp = j->job[i].params;
		locks_of(&j->prog[i], i + 1, !pp->writers || i + 1 <=
			 pp->writers, &e->l[i]);
	}
	return deadlock_from(e, io, pos);
}

/* ----- the cases ----- */

static void print_case(const struct fuzz_case *fc, uint64_t i,
		       const char *what, const char *msg)
{
	unsigned int k;

	fprintf(stderr, "case %llu: %s: %s\n", (unsigned long long)i, what,
		msg);
	for (k = 0; k < fc->nr; k++)
		fprintf(stderr, "  [s%u] numjobs=%u writers=%u words=%s "
			"pattern=%s\n", k, fc->s[k].numjobs, fc->s[k].writers,
			fc->s[k].words, fc->s[k].pattern);
}

/* 0: refused in one line; 1: accepted and ran; -1: a failure, said */
static int one_case(const struct fuzz_case *fc, uint64_t i,
		    struct explore *e)
{
	static struct jobs j;
	char msg[1024] = "";
	unsigned int k, first;
	int ret = 1;

	jobs_make(&j, fc);
	if (m->run_check(j.job, j.n, msg, sizeof(msg))) {
		ret = msg[0] && !strchr(msg, '\n') ? 0 : -1;
		if (ret)
			print_case(fc, i, "refused, not in one line", msg);
		jobs_free(&j);
		return ret;
	}
	for (k = 0; k < j.n && ret == 1; k++)
		if (pattern_compile(j.job[k].params, true, &j.prog[k], msg,
				    sizeof(msg))) {
			print_case(fc, i, "accepted, then refused", msg);
			ret = -1;
		}
	if (ret == 1 && can_deadlock(&j, e)) {
		print_case(fc, i, "accepted, and its jobs can deadlock", "");
		ret = -1;
	}
	jobs_free(&j);
	for (first = 0; ret == 1 && first < j.n; first++) {
		jobs_make(&j, fc);
		if (jobs_run(&j, first, msg, sizeof(msg))) {
			print_case(fc, i, "accepted, then failed", msg);
			ret = -1;
		}
		jobs_free(&j);
	}
	return ret;
}

static void generated_locks_are_refused_or_run(void)
{
	struct explore e = { .seen = calloc(SEEN, sizeof(uint64_t)) };
	uint64_t seed = FUZZ_SEED, i, counts[2] = { 0, 0 };
	time_t stop = time(NULL) + FUZZ_SECONDS;
	struct fuzz_case fc;
	int ret = 0;

	CHECK(e.seen != NULL);
	for (i = 0; i < FUZZ_CASES && time(NULL) < stop; i++) {
		memset(&fc, 0, sizeof(fc));
		gen_case(&seed, &fc);
		ret = one_case(&fc, i, &e);
		if (ret < 0)
			break;
		counts[ret]++;
	}
	free(e.seen);
	e.seen = NULL;
	printf("lock fuzz: %llu cases, %llu refused, %llu ran\n",
	       (unsigned long long)i, (unsigned long long)counts[0],
	       (unsigned long long)counts[1]);
	CHECK(ret >= 0);
	CHECK(!e.cut);
	CHECK(i >= 200 && counts[0] >= 20 && counts[1] >= 20);
}

int main(void)
{
	RUN(generated_locks_are_refused_or_run);
	UNIT_EXIT();
}
