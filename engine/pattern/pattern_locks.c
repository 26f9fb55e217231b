// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern: the lock words (spin_lock(), spin_unlock(), docs/pattern.md).
 * A job spins for ever on a lock no one frees, and two jobs that each hold
 * the lock the other waits for spin for ever both: every way a lock could
 * stay held is refused before any I/O, in one line. In one alternative,
 * while fio parses: a lock not taken then released, or written by another
 * of its operations. In the jobs on one file (pattern_jobs.c, the engine
 * and the simulator alike): a lock's place written by any job's operation
 * or initial value, or locks taken in both orders.
 */
#include "pattern_locks.h"

/* ----- one alternative: each I/O takes a lock and releases it ----- */

/* One refusal, naming operation @op as the parser does */
static int __attribute__((format(printf, 5, 6)))
lock_refuse(const char *opt, const struct pattern_op *op, char *msg,
	    size_t len, const char *fmt, ...)
{
	const char *item = strchr(op->path, ':');
	struct pctx x = { .opt = opt, .what = "operation", .msg = msg,
			  .len = len, .pos = (unsigned int)atoi(op->path) };
	va_list ap;
	size_t n;

	x.item = item ? item + 1 : op->path;
	x.item_len = strlen(x.item);
	refuse(&x, "%s", "");
	n = strlen(msg);
	va_start(ap, fmt);
	if (n < len)
		vsnprintf(msg + n, len - n, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * The lock words (those of spin_lock(), spin_unlock()) in alternative
 * [@from, @to) of @p: each starts at 0 (free), only spin_lock() and
 * spin_unlock() write it, with no guard and no *N, in turn, and it is
 * released by the end: else a job would spin forever on a lock that no
 * one releases.
 */
int pattern_check_locks(const char *opt, const struct pattern_prog *p,
			unsigned int from, unsigned int to, char *msg,
			size_t len)
{
	const struct pattern_op *op, *last[PATTERN_MAX_WORDS] = { NULL };
	bool lock[PATTERN_MAX_WORDS] = { false };
	bool held[PATTERN_MAX_WORDS] = { false };
	const char *w;
	unsigned int i;

	for (i = 0; i < p->nr_ops; i++)
		if (is_lock_op(&p->op[i]) && p->op[i].word >= 0)
			lock[p->op[i].word] = true;
	for (op = p->op + from; op < p->op + to; op++) {
		if (!op->has_word || op->word < 0 || !lock[op->word])
			continue;
		w = p->word[op->word].name;
		if (p->word[op->word].init)
			return lock_refuse(opt, op, msg, len, "lock %s starts at "
					   "%lu: a lock word starts at 0 (free)",
					   w, p->word[op->word].init);
		if (!is_lock_op(op) && op->kind != KIND_LOAD &&
		    op->kind != KIND_OTHER)
			return lock_refuse(opt, op, msg, len, "writes lock %s: "
					   "only spin_lock() and spin_unlock() "
					   "write a lock word", w);
		if (!is_lock_op(op))
			continue;
		if (op->repeat != 1 || op->below || op->every ||
		    op->every_ns || op->flip_every || op->if_test)
			return lock_refuse(opt, op, msg, len, "a guard or *N on "
					   "lock %s: each I/O takes it and "
					   "releases it once", w);
		if (held[op->word] == (op->code == OP_SPIN_LOCK))
			return lock_refuse(opt, op, msg, len, "%s lock %s, which "
					   "it %s: %s(%s) must come first",
					   held[op->word] ? "takes" : "releases",
					   w, held[op->word] ? "holds" :
					   "does not hold", held[op->word] ?
					   "spin_unlock" : "spin_lock", w);
		held[op->word] = op->code == OP_SPIN_LOCK;
		last[op->word] = op;
	}
	for (i = 0; i < p->nr_words; i++)
		if (held[i])
			return lock_refuse(opt, last[i], msg, len, "takes lock %s "
					   "and never releases it: spin_unlock(%s) "
					   "later in the sequence", p->word[i].name,
					   p->word[i].name);
	return 0;
}

/* ----- the jobs on one file: where each lock is ----- */

static const char *const place_region[] = {
	"of the arena", "of each node's copy", "of each object",
};

static int place_at(int region, unsigned int at)
{
	return at < PATTERN_ARENA ? region * PLACE_WORDS + (int)(at / 8) :
	       NO_PLACE;
}

/* Word @w's place for job @job: none for a :job word (no other job sees
 * it), nor for a copy past the arena (pattern_jobs.c refuses it first) */
static int word_place(const struct pattern_word *w, unsigned int job)
{
	unsigned int k = job ? job - 1 : 0;

	switch (w->sharing) {
	case PATTERN_ALL:
		return place_at(PLACE_ARENA, w->offset);
	case PATTERN_NODE:
		return place_at(PLACE_NODE, w->offset);
	case PATTERN_OBJ:
		return place_at(PLACE_OBJ, w->offset);
	case PATTERN_SLOT:
		return place_at(PLACE_ARENA, w->offset + w->stride * k);
	case PATTERN_PAIR:
		return place_at(PLACE_ARENA, w->offset +
				PATTERN_PAIR_STRIDE * (k / 2));
	default:
		return NO_PLACE;
	}
}

/* The place of @op's word for member @m, or none */
int lock_op_place(const struct pattern_member *m, const struct pattern_op *op)
{
	const struct pattern_word *w = op_word(m, op);

	return w ? word_place(w, m->job) : NO_PLACE;
}

/* Every writer's locks: their places, the first member to take each */
static void locks_found(struct file_locks *fl)
{
	const struct pattern_member *m;
	unsigned int i;
	int at;

	for (m = fl->m; m < fl->m + fl->n; m++)
		for (i = 0; m->writer && i < m->prog->nr_ops; i++) {
			at = lock_op_place(m, &m->prog->op[i]);
			if (!is_lock_op(&m->prog->op[i]) || at == NO_PLACE)
				continue;
			if (fl->taker[at] < 0) {
				fl->taker[at] = m - fl->m;
				fl->taker_op[at] = i;
				fl->place_of[fl->nr] = at;
				fl->node[at] = fl->nr++;
			} else if (fl->taker[at] != m - fl->m) {
				fl->several[at] = true;
			}
		}
}

/* "byte 8 of the arena" */
const char *lock_place_text(char *buf, size_t len, int at)
{
	snprintf(buf, len, "byte %d %s", at % PLACE_WORDS * 8,
		 place_region[at / PLACE_WORDS]);
	return buf;
}

/* "job 1's operation 2 'spin_lock(l)'" */
const char *lock_op_text(char *buf, size_t len, const struct pattern_member *m,
		    unsigned int i)
{
	const char *path = m->prog->op[i].path, *item = strchr(path, ':');

	snprintf(buf, len, "job %u's operation %u '%s'", m->job, i + 1,
		 item ? item + 1 : path);
	return buf;
}

/* One refusal about the lock at @at: WHAT, then whose lock, then WHY */
static int lock_misfit(struct file_locks *fl, int at, const char *opt,
		       const char *what, const char *why)
{
	const struct pattern_member *t = &fl->m[fl->taker[at]];
	const struct pattern_op *op = &t->prog->op[fl->taker_op[at]];
	char where[64], by[128];

	snprintf(fl->msg, fl->len, "%s: %s %s, where %s takes lock %s: %s",
		 opt, what, lock_place_text(where, sizeof(where), at),
		 lock_op_text(by, sizeof(by), t, fl->taker_op[at]),
		 op_word(t, op)->name, why);
	return -1;
}

/* Another operation of any writer that writes a lock's place */
static int locks_written(struct file_locks *fl)
{
	const struct pattern_member *m;
	const struct pattern_op *op;
	char what[192];
	int at;

	for (m = fl->m; m < fl->m + fl->n; m++)
		for (op = m->prog->op; m->writer &&
		     op < m->prog->op + m->prog->nr_ops; op++) {
			at = lock_op_place(m, op);
			if (at == NO_PLACE || fl->taker[at] < 0 ||
			    is_lock_op(op) || (op->kind != KIND_STORE &&
					       op->kind != KIND_RMW))
				continue;
			lock_op_text(what, sizeof(what) - 8, m,
				     op - m->prog->op);
			strcat(what, " writes");
			return lock_misfit(fl, at, "pattern", what,
					   "only spin_lock() and spin_unlock() "
					   "write a lock word, in every job on "
					   "the file");
		}
	return 0;
}

/*
 * A word's initial value on a lock's place: the first job on the file
 * writes the arena's, the nodes', the objects' and every pair's copy
 * before any job takes a lock (not 0: the lock never free); each job
 * writes its own slot's when it starts, while another may hold the lock
 */
static int locks_initial(struct file_locks *fl, const struct pattern_member *m,
			 const struct pattern_word *w)
{
	char what[160];
	unsigned int k;
	int at;

	if (w->sharing == PATTERN_SLOT) {
		at = word_place(w, m->job);
		if (at == NO_PLACE || fl->taker[at] < 0 ||
		    (fl->taker[at] == m - fl->m && !fl->several[at]))
			return 0;
		snprintf(what, sizeof(what), "job %u's slot of word %.31s is "
			 "at", m->job, w->name);
		return lock_misfit(fl, at, "pattern_words", what,
				   "a job writes its slot's initial value when "
				   "it starts, while another job may hold the "
				   "lock: give the slot a place of its own");
	}
	for (k = 0; w->init && k < PATTERN_MAX_PAIRS; k++) {
		if (w->sharing == PATTERN_PAIR)
			at = place_at(PLACE_ARENA, w->offset +
				      PATTERN_PAIR_STRIDE * k);
		else
			at = k ? NO_PLACE : word_place(w, m->job);
		if (at == NO_PLACE || fl->taker[at] < 0)
			continue;
		snprintf(what, sizeof(what), "job %u's word %.31s starts at "
			 "%lu at", m->job, w->name, w->init);
		return lock_misfit(fl, at, "pattern_words", what,
				   "a lock word starts at 0 (free): the first "
				   "job on the file writes the initial values");
	}
	return 0;
}

static int locks_initialised(struct file_locks *fl)
{
	const struct pattern_member *m;
	const struct pattern_word *w;

	for (m = fl->m; m < fl->m + fl->n; m++)
		for (w = m->prog->word; w < m->prog->word + m->prog->nr_words;
		     w++)
			if (locks_initial(fl, m, w))
				return -1;
	return 0;
}

/*
 * An :obj lock is at the same byte of each object only for jobs that
 * declare the same objects: a job on the file with other ones would put
 * its words elsewhere in them
 */
static int locks_objects(struct file_locks *fl)
{
	const struct pattern_member *m, *t = NULL;
	char what[192];
	int at;

	for (at = PLACE_OBJ * PLACE_WORDS; at < PLACES && !t; at++)
		if (fl->taker[at] >= 0)
			t = &fl->m[fl->taker[at]];
	for (m = fl->m; t && m < fl->m + fl->n; m++) {
		if (!m->prog->nr_objects ||
		    (m->prog->nr_objects == t->prog->nr_objects &&
		     m->prog->obj_stride == t->prog->obj_stride))
			continue;
		snprintf(what, sizeof(what), "job %u's obj words (%u objects "
			 "of %u bytes) differ from job %u's (%u of %u bytes), "
			 "whose objects hold a lock at", m->job,
			 m->prog->nr_objects, m->prog->obj_stride, t->job,
			 t->prog->nr_objects, t->prog->obj_stride);
		return lock_misfit(fl, at - 1, "pattern_words", what,
				   "the jobs on one file with an :obj lock "
				   "declare the same obj words");
	}
	return 0;
}

int pattern_state_locks(const struct pattern_member *m, unsigned int n,
			char *msg, size_t len)
{
	struct file_locks *fl = calloc(1, sizeof(*fl));
	int err = 0;

	if (!fl) {
		snprintf(msg, len, "pattern: out of memory checking the locks");
		return -1;
	}
	memset(fl->taker, 0xff, sizeof(fl->taker));
	memset(fl->node, 0xff, sizeof(fl->node));
	fl->m = m;
	fl->n = n;
	fl->msg = msg;
	fl->len = len;
	locks_found(fl);
	if (fl->nr)
		err = locks_objects(fl) ?: locks_written(fl) ?:
		      locks_initialised(fl) ?: pattern_locks_ordered(fl);
	free(fl);
	return err;
}
