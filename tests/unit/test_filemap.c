// SPDX-License-Identifier: GPL-2.0
/* filemap_check_errors(): both variants agree; test_first runs no RMW when
 * no error is pending; injection and reports balance exactly under
 * concurrency. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bitops.h"
#include "filemap_check_errors.h"
#include "model.h"
#include "unit.h"

#define ITERATIONS	1000000
/* the model's one counted path, where the kernel functions count */
#define PATH		PATH_FILEMAP_CHECK_ERRORS

static const struct fc_model *m_model = &fc_model_filemap_check_errors;

static void both_variants_agree_on_all_states(void)
{
	unsigned long state;

	for (state = 0; state < 4; state++) {
		struct address_space a = { .flags = 0 }, b = { .flags = 0 };
		struct fc_counters ca = { 0 }, cb = { 0 };
		int expect = 0, ra, rb;

		if (state & (1UL << AS_ENOSPC))
			expect = -ENOSPC;
		if (state & (1UL << AS_EIO))
			expect = -EIO;	/* EIO wins when both are set */
		a.flags = b.flags = state;
		ra = filemap_check_errors_always(&a, &ca, PATH);
		rb = filemap_check_errors_test_first(&b, &cb, PATH);
		CHECK_EQ(ra, expect);
		CHECK_EQ(rb, expect);
		CHECK_EQ(a.flags, 0);
		CHECK_EQ(b.flags, 0);
		CHECK_EQ(ca.rmw[0], 2);
		CHECK_EQ(ca.skipped[0], 0);
		/* test_first: one RMW per bit that was set, none otherwise */
		CHECK_EQ(cb.rmw[0], __builtin_popcountl(state));
		CHECK_EQ(cb.skipped[0], 2 - __builtin_popcountl(state));
	}
}

/*
 * With no error pending, test_first must not write the line at all: run it
 * on a read-only page, where any RMW, even one that changes nothing, faults.
 */
static void test_first_runs_no_rmw_when_clear(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct address_space *m;
	struct fc_counters c = { 0 };
	int i, ret = 0;

	m = mmap(NULL, page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(m != MAP_FAILED);
	CHECK(mprotect(m, page, PROT_READ) == 0);
	for (i = 0; i < 1000; i++)
		ret |= filemap_check_errors_test_first(m, &c, PATH);
	CHECK_EQ(ret, 0);
	CHECK_EQ(c.rmw[0], 0);
	CHECK_EQ(c.skipped[0], 2000);
	munmap(m, page);
}

static void always_runs_two_rmw_per_check(void)
{
	struct address_space m = { 0 };
	struct fc_counters c = { 0 };
	int i;

	for (i = 0; i < 1000; i++)
		CHECK_EQ(filemap_check_errors_always(&m, &c, PATH), 0);
	CHECK_EQ(c.rmw[0], 2000);
}

static void set_error_coalesces(void)
{
	struct address_space m = { 0 };
	struct fc_counters c = { 0 };

	mapping_set_error(&m, -EIO, &c);
	mapping_set_error(&m, -EIO, &c);
	mapping_set_error(&m, -ENOSPC, &c);
	CHECK_EQ(c.errors_set, 2);
	CHECK(test_bit(AS_EIO, &m.flags));
	CHECK(test_bit(AS_ENOSPC, &m.flags));
	CHECK_EQ(filemap_check_errors_test_first(&m, &c, PATH),
		 (unsigned long long)-EIO);
	CHECK_EQ(m.flags, 0);
}

static void nrpages_skips_the_check(void)
{
	struct address_space m = { .nrpages = 1 };
	struct filemap_params p = { .variant = FC_ALWAYS };
	struct fc_io io = { .ddir = FC_READ };
	struct fc_counters c = { .ios = { 1 } };

	CHECK_EQ(m_model->io(&m, &p, &io, &c), 0);
	CHECK_EQ(c.checks, 0);
	CHECK_EQ(c.rmw[0], 0);
}

/* Several checkers, one of them injecting, on one mapping, as the engine's
 * jobs do: every 0 -> 1 transition is reported exactly once. */
struct worker {
	struct address_space *mapping;
	struct filemap_params p;
	struct fc_counters c;
	pthread_t thread;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct fc_io io = { .ddir = FC_READ };
	int i;

	for (i = 0; i < ITERATIONS; i++) {
		w->c.ios[FC_READ]++;
		if (m_model->io(w->mapping, &w->p, &io, &w->c))
			w->c.errors_reported++;
	}
	return NULL;
}

static void concurrent_accounting_is_exact(enum fc_variant v)
{
	static struct address_space mapping;
	struct worker w[4];
	unsigned long long set = 0, reported = 0, reported_by_others = 0;
	int i;

	memset(&mapping, 0, sizeof(mapping));
	memset(w, 0, sizeof(w));
	for (i = 0; i < 4; i++) {
		w[i].mapping = &mapping;
		w[i].p.variant = v;
		w[i].p.inject = i == 0 ? FILEMAP_INJECT_EIO : FILEMAP_INJECT_NONE;
		w[i].p.inject_every = 3;
		CHECK(pthread_create(&w[i].thread, NULL, worker_run, &w[i]) == 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(w[i].thread, NULL);
		set += w[i].c.errors_set;
		reported += w[i].c.errors_reported;
		if (i)
			reported_by_others += w[i].c.errors_reported;
	}
	CHECK_EQ(w[0].c.errors_set, set);
	CHECK(set > 0);
	CHECK_EQ(set, reported);
	CHECK_EQ(mapping.flags, 0);
	printf("     %s: %llu transitions, %llu reported (%llu by non-injecting threads)\n",
	       v == FC_ALWAYS ? "always" : "test_first", set, reported,
	       reported_by_others);
}

static void concurrent_accounting_always(void)
{
	concurrent_accounting_is_exact(FC_ALWAYS);
}

static void concurrent_accounting_test_first(void)
{
	concurrent_accounting_is_exact(FC_TEST_FIRST);
}

static void inject_every_zero_is_refused_with_inject(void)
{
	struct filemap_params p = { .inject = FILEMAP_INJECT_ENOSPC };
	char msg[256];

	CHECK(m_model->check(&p, msg, sizeof(msg)) != 0);
	CHECK(strstr(msg, "inject_every=0") && strstr(msg, "inject=enospc"));
	p.inject_every = 1;
	CHECK(m_model->check(&p, msg, sizeof(msg)) == 0);
	p.inject = FILEMAP_INJECT_NONE;
	p.inject_every = 0;
	CHECK(m_model->check(&p, msg, sizeof(msg)) == 0);
}

int main(void)
{
	RUN(both_variants_agree_on_all_states);
	RUN(test_first_runs_no_rmw_when_clear);
	RUN(always_runs_two_rmw_per_check);
	RUN(set_error_coalesces);
	RUN(nrpages_skips_the_check);
	RUN(concurrent_accounting_always);
	RUN(concurrent_accounting_test_first);
	RUN(inject_every_zero_is_refused_with_inject);
	UNIT_EXIT();
}
