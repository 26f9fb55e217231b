// SPDX-License-Identifier: GPL-2.0
/*
 * model=pattern: the order in which the jobs on one file take their locks
 * (pattern_locks.c finds them). Two jobs each holding the lock the other
 * waits for spin for ever: a cycle of locks, each held by some job while
 * it takes the next, is refused before any I/O, naming the operations.
 */
#include "pattern_locks.h"

/*
 * The locks as nodes, an edge u -> v where a job takes v while it holds
 * u: jobs can each hold a lock another waits for exactly when the edges
 * make a cycle (two jobs, a before b and b before a: the plainest)
 */
struct lock_graph {
	unsigned int n;
	unsigned char *adj;		/* adj[u * n + v] */
	unsigned char *seen;		/* 0, on the walk's path, done */
	unsigned int *path, len;
};

/* Depth first from @u: true with the cycle found in path[0..len) */
static bool lock_walk(struct lock_graph *g, unsigned int u)
{
	unsigned int v, i;

	g->seen[u] = 1;
	g->path[g->len++] = u;
	for (v = 0; v < g->n; v++) {
		if (!g->adj[u * g->n + v])
			continue;
		if (g->seen[v] == 1) {
			for (i = 0; g->path[i] != v; i++)
				;
			memmove(g->path, g->path + i,
				(g->len - i) * sizeof(*g->path));
			g->len -= i;
			return true;
		}
		if (!g->seen[v] && lock_walk(g, v))
			return true;
	}
	g->seen[u] = 2;
	g->len--;
	return false;
}

/* A cycle in g->path[0..len), each held when the next is taken (the
 * last when the first is): its length, 0 if none */
static unsigned int lock_cycle(struct lock_graph *g)
{
	unsigned int u;

	memset(g->seen, 0, g->n);
	g->len = 0;
	for (u = 0; u < g->n; u++)
		if (!g->seen[u] && lock_walk(g, u))
			return g->len;
	return 0;
}

/*
 * Each spin_lock() of a member's alternatives, with each lock it holds
 * then: @edge(u, v, i) for lock v taken by operation i while u is held,
 * in nodes of the graph (a :job lock is none: no other job takes it);
 * stops where @edge says so
 */
typedef bool lock_edge_fn(void *arg, int u, int v, unsigned int i);

static bool lock_edges(const struct file_locks *fl,
		       const struct pattern_member *m, lock_edge_fn *edge,
		       void *arg)
{
	const struct pattern_prog *p = m->prog;
	int held[PATTERN_MAX_OPS], v, at;
	unsigned int k, i = 0, nh, h;

	for (k = 0; m->writer && k < p->nr_alts; k++)
		for (nh = 0; i < p->alt_end[k]; i++) {
			at = lock_op_place(m, &p->op[i]);
			if (!is_lock_op(&p->op[i]) || at == NO_PLACE)
				continue;
			v = fl->node[at];
			for (h = 0; h < nh && held[h] != v; h++)
				;
			if (p->op[i].code == OP_SPIN_UNLOCK) {
				if (h < nh)
					held[h] = held[--nh];
				continue;
			}
			for (h = 0; h < nh; h++)
				if (edge(arg, held[h], v, i))
					return true;
			held[nh++] = v;
		}
	return false;
}

static bool lock_edge_add(void *arg, int u, int v, unsigned int i)
{
	struct lock_graph *g = arg;

	(void)i;
	g->adj[u * g->n + v] = 1;
	return false;
}

/* The first operation of a member that takes v while it holds u */
struct lock_witness {
	int u, v;
	unsigned int op;
};

static bool lock_edge_is(void *arg, int u, int v, unsigned int i)
{
	struct lock_witness *w = arg;

	w->op = i;
	return u == w->u && v == w->v;
}

/* The name member @m gives the lock at node @u */
static const char *lock_name(const struct file_locks *fl,
			     const struct pattern_member *m, int u)
{
	const struct pattern_op *op;

	for (op = m->prog->op; op < m->prog->op + m->prog->nr_ops; op++)
		if (is_lock_op(op) && lock_op_place(m, op) == fl->place_of[u])
			return op_word(m, op)->name;
	return "?";
}

/* One edge of the cycle: "job 1's operation 3 'spin_lock(b)' takes b
 * (byte 64 of the arena) while it holds a (byte 0 of the arena)" */
static void lock_edge_text(const struct file_locks *fl, int u, int v,
			   char *buf, size_t len)
{
	struct lock_witness w = { .u = u, .v = v };
	const struct pattern_member *m;
	char by[128], pu[64], pv[64];

	for (m = fl->m; m < fl->m + fl->n; m++)
		if (lock_edges(fl, m, lock_edge_is, &w))
			break;
	if (m == fl->m + fl->n)		/* cannot be: each edge has one */
		m = fl->m;
	snprintf(buf, len, "%s takes %s (%s) while it holds %s (%s)",
		 lock_op_text(by, sizeof(by), m, w.op), lock_name(fl, m, v),
		 lock_place_text(pv, sizeof(pv), fl->place_of[v]),
		 lock_name(fl, m, u),
		 lock_place_text(pu, sizeof(pu), fl->place_of[u]));
}

/* At most this many edges of a cycle are named */
#define LOCK_CYCLE_SHOWN	3

static int lock_cycle_refuse(struct file_locks *fl, const struct lock_graph *g)
{
	char edge[320];
	unsigned int k;
	size_t n;

	n = snprintf(fl->msg, fl->len, "pattern: ");
	for (k = 0; k < g->len && k < LOCK_CYCLE_SHOWN && n < fl->len; k++) {
		lock_edge_text(fl, g->path[k], g->path[(k + 1) % g->len],
			       edge, sizeof(edge));
		n += snprintf(fl->msg + n, fl->len - n, "%s%s",
			      k ? ", and " : "", edge);
	}
	if (n < fl->len)
		snprintf(fl->msg + n, fl->len - n, "%s: %s", k < g->len ?
			 ", ..." : "", g->len == 1 ? "a job would wait for "
			 "a lock it holds" : "the jobs on one file could each "
			 "hold a lock another waits for: take the locks in one "
			 "order in every alternative and job");
	return -1;
}

/* Locks taken in both orders (a cycle of them) by the file's jobs */
int pattern_locks_ordered(struct file_locks *fl)
{
	const struct pattern_member *m;
	struct lock_graph g = { .n = fl->nr };
	int err = 0;

	g.adj = calloc((size_t)g.n * g.n, 1);
	g.seen = malloc(g.n);
	g.path = malloc(g.n * sizeof(*g.path));
	if (!g.adj || !g.seen || !g.path) {
		snprintf(fl->msg, fl->len, "pattern: out of memory checking "
			 "the order of %u locks", g.n);
		err = -1;
		goto out;
	}
	for (m = fl->m; m < fl->m + fl->n; m++)
		lock_edges(fl, m, lock_edge_add, &g);
	if (lock_cycle(&g))
		err = lock_cycle_refuse(fl, &g);
out:
	free(g.adj);
	free(g.seen);
	free(g.path);
	return err;
}
