// SPDX-License-Identifier: GPL-2.0
/* __block_commit_write(): a page's heads are new on its first write only;
 * variant=always runs one RMW per head of the page on every write,
 * test_first none once the page is no longer new; the state fits the arena
 * and no two heads' b_state share a cache line. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "block_commit_write.h"
#include "model.h"
#include "unit.h"

static const struct fc_model *m = &fc_model_block_commit_write;

static struct block_commit_params params(enum fc_variant v, unsigned int ps)
{
	struct block_commit_params p = { .variant = v, .page_size = ps };

	return p;
}

/* One write I/O through the model, as the engine hands it. */
static int write_io(void *state, const struct block_commit_params *p,
		    unsigned long long off, unsigned long long len,
		    struct fc_counters *c)
{
	struct fc_io io = { .ddir = FC_WRITE, .offset = off, .len = len };

	c->ios[FC_WRITE]++;
	return m->io(state, p, &io, c);
}

static void *zeroed_state(const struct block_commit_params *p,
			  unsigned long long file_size)
{
	size_t size = m->state_size(p, file_size);
	void *s = aligned_alloc(128, (size + 127) & ~(size_t)127);

	if (s)
		memset(s, 0, size);
	return s;
}

static void layout_is_one_kernel_object_per_head(void)
{
	struct buffer_head bhs[64];
	int i;

	CHECK_EQ(sizeof(struct buffer_head), 104);
	CHECK_EQ(offsetof(struct buffer_head, b_state), 0);
	/* b_state words of neighbouring heads never share a 64-byte line */
	for (i = 1; i < 64; i++)
		CHECK((uintptr_t)&bhs[i].b_state / 64 !=
		      (uintptr_t)&bhs[i - 1].b_state / 64);
}

static void the_model_as_the_glue_sees_it(void)
{
	const struct fc_model_option *o;
	int variants = 0;

	CHECK(!strcmp(m->name, "block_commit_write"));
	CHECK(!strcmp(m->paths[PATH_SET_BUFFER_UPTODATE], "set_buffer_uptodate"));
	CHECK(!strcmp(m->paths[PATH_MARK_BUFFER_DIRTY], "mark_buffer_dirty"));
	CHECK(!strcmp(m->paths[PATH_CLEAR_BUFFER_NEW], "clear_buffer_new"));
	CHECK(m->paths[3] == NULL);
	for (o = m->options; o->name; o++) {
		if (o->is_variant) {
			variants++;
			CHECK(!strcmp(o->name, "variant"));
			CHECK(o->choices == fc_variant_names);
		}
		if (!strcmp(o->name, "page_size"))
			CHECK(!strcmp(o->def, "64k"));
	}
	CHECK_EQ(variants, 1);
	CHECK(fc_models[0] && fc_models[1] == m);
}

static void page_sizes_give_heads_per_page(void)
{
	static const unsigned int heads[] = {
		[PAGE_SIZE_4K] = 1, [PAGE_SIZE_16K] = 4, [PAGE_SIZE_64K] = 16 };
	unsigned int ps;

	for (ps = PAGE_SIZE_4K; ps <= PAGE_SIZE_64K; ps++) {
		struct block_commit_params p = params(FC_ALWAYS, ps);
		struct fc_counters c = { 0 };
		void *s = zeroed_state(&p, 1 << 20);

		CHECK(s);
		CHECK_EQ(block_commit_page_size(&p) / BH_SIZE, heads[ps]);
		CHECK_EQ(m->state_size(&p, 1 << 20), 256 * 104);
		CHECK_EQ(write_io(s, &p, 8192, 4096, &c), 0);
		CHECK_EQ(c.checks, 1);
		CHECK_EQ(c.rmw[PATH_CLEAR_BUFFER_NEW], heads[ps]);
		free(s);
	}
}

/* The report's 5G file at 64K pages fits a fraction of the 1 GiB arena. */
static void state_of_five_gib_fits(void)
{
	struct block_commit_params p = params(FC_ALWAYS, PAGE_SIZE_64K);
	unsigned long long five_g = 5ULL << 30;

	CHECK_EQ(m->state_size(&p, five_g), five_g / 4096 * 104);
	CHECK(m->state_size(&p, five_g) < (1ULL << 30) / 4);
	CHECK_EQ(m->state_size(&p, 1), 16 * 104);
	CHECK_EQ(m->state_size(&p, 0), 16 * 104);
	CHECK(m->state_size(&p, ~0ULL) >= (1ULL << 40));	/* no wrap */
}

/* The first write maps the page and makes all its heads new; its commit
 * clears them; only the covered head becomes uptodate and dirty. */
static void first_write_makes_the_page_new(void)
{
	struct buffer_head head[16];
	struct fc_counters c = { 0 };
	const struct block_commit_count count = {
		.c		= &c,
		.set_uptodate	= PATH_SET_BUFFER_UPTODATE,
		.mark_dirty	= PATH_MARK_BUFFER_DIRTY,
		.clear_new	= PATH_CLEAR_BUFFER_NEW,
	};
	int i;

	memset(head, 0, sizeof(head));
	__block_write_begin(head, 16);
	for (i = 0; i < 16; i++)
		CHECK(buffer_mapped(&head[i]) && buffer_new(&head[i]));
	__block_write_begin(head, 16);	/* a second look changes nothing */
	for (i = 0; i < 16; i++)
		CHECK(buffer_new(&head[i]));

	__block_commit_write(head, 16, 3 * 4096, 4 * 4096, true, &count);
	for (i = 0; i < 16; i++) {
		CHECK(!buffer_new(&head[i]) && buffer_mapped(&head[i]));
		CHECK_EQ(buffer_uptodate(&head[i]), i == 3);
		CHECK_EQ(buffer_dirty(&head[i]), i == 3);
	}
	CHECK_EQ(c.rmw[PATH_CLEAR_BUFFER_NEW], 16);
	CHECK_EQ(c.skipped[PATH_CLEAR_BUFFER_NEW], 0);
	CHECK_EQ(c.rmw[PATH_SET_BUFFER_UPTODATE], 1);
	CHECK_EQ(c.rmw[PATH_MARK_BUFFER_DIRTY], 1);

	/* the page is no longer new: no RMW at all for the same block */
	__block_write_begin(head, 16);
	__block_commit_write(head, 16, 3 * 4096, 4 * 4096, true, &count);
	CHECK_EQ(fc_counters_rmw(&c), 18);
	CHECK_EQ(c.skipped[PATH_CLEAR_BUFFER_NEW], 16);
	CHECK_EQ(c.skipped[PATH_SET_BUFFER_UPTODATE], 1);
	CHECK_EQ(c.skipped[PATH_MARK_BUFFER_DIRTY], 1);
}

/* always: 16 RMWs per 4k write at 64K pages, new or not; test_first: 16 per
 * page's first write, none after; both leave the same state. */
static void rmws_per_write_by_variant(void)
{
	const unsigned long long file = 64 << 16;	/* 64 pages */
	struct block_commit_params pa = params(FC_ALWAYS, PAGE_SIZE_64K);
	struct block_commit_params pt = params(FC_TEST_FIRST, PAGE_SIZE_64K);
	struct fc_counters ca = { 0 }, ct = { 0 };
	void *sa = zeroed_state(&pa, file), *st = zeroed_state(&pt, file);
	unsigned long long off;
	int pass;

	CHECK(sa && st);
	/* every 4k block written twice: 2 * 1024 writes on 64 pages */
	for (pass = 0; pass < 2; pass++)
		for (off = 0; off < file; off += 4096) {
			write_io(sa, &pa, off, 4096, &ca);
			write_io(st, &pt, off, 4096, &ct);
		}
	CHECK_EQ(ca.checks, 2048);
	CHECK_EQ(ca.rmw[PATH_CLEAR_BUFFER_NEW], 16 * 2048);
	CHECK_EQ(ca.skipped[PATH_CLEAR_BUFFER_NEW], 0);
	CHECK_EQ(ct.rmw[PATH_CLEAR_BUFFER_NEW], 16 * 64);
	CHECK_EQ(ct.skipped[PATH_CLEAR_BUFFER_NEW], 16 * 2048 - 16 * 64);
	/* uptodate and dirty: test first in both, once per block */
	CHECK_EQ(ca.rmw[PATH_SET_BUFFER_UPTODATE], 1024);
	CHECK_EQ(ct.rmw[PATH_SET_BUFFER_UPTODATE], 1024);
	CHECK_EQ(ca.rmw[PATH_MARK_BUFFER_DIRTY], 1024);
	CHECK_EQ(ct.skipped[PATH_MARK_BUFFER_DIRTY], 1024);
	CHECK(!memcmp(sa, st, m->state_size(&pa, file)));
	free(sa);
	free(st);
}

/* Once every head is written, test_first must not write a line: run it on
 * read-only pages, where any RMW, even one that changes nothing, faults. */
static void test_first_runs_no_rmw_on_written_pages(void)
{
	struct block_commit_params p = params(FC_TEST_FIRST, PAGE_SIZE_64K);
	const unsigned long long file = 16 << 16;
	size_t size = m->state_size(&p, file);
	size_t len = (size + 4095) & ~(size_t)4095;
	struct fc_counters c = { 0 };
	unsigned long long off;
	void *s;

	s = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(s != MAP_FAILED);
	for (off = 0; off < file; off += 4096)
		write_io(s, &p, off, 4096, &c);
	CHECK(mprotect(s, len, PROT_READ) == 0);
	memset(&c, 0, sizeof(c));
	for (off = 0; off < file; off += 4096)
		CHECK_EQ(write_io(s, &p, off ^ 0x5000, 4096, &c), 0);
	CHECK_EQ(fc_counters_rmw(&c), 0);
	CHECK_EQ(c.skipped[PATH_CLEAR_BUFFER_NEW], 16 * 256);
	munmap(s, len);
}

/* A write across pages commits each page with its own range, as
 * generic_perform_write() does; reads do not pass here. */
static void writes_span_pages_reads_do_nothing(void)
{
	struct block_commit_params p = params(FC_TEST_FIRST, PAGE_SIZE_16K);
	struct fc_io rd = { .ddir = FC_READ, .offset = 0, .len = 1 << 20 };
	struct fc_counters c = { 0 };
	struct buffer_head *bh;
	void *s = zeroed_state(&p, 1 << 20);
	int i;

	CHECK(s);
	CHECK_EQ(m->io(s, &p, &rd, &c), 0);
	CHECK_EQ(c.checks, 0);
	CHECK_EQ(fc_counters_rmw(&c), 0);

	/* 12k..44k: the last head of page 0, all of page 1, two of page 2 */
	CHECK_EQ(write_io(s, &p, 12288, 32768, &c), 0);
	CHECK_EQ(c.checks, 3);
	CHECK_EQ(c.rmw[PATH_SET_BUFFER_UPTODATE], 8);
	CHECK_EQ(c.rmw[PATH_CLEAR_BUFFER_NEW], 12);
	bh = s;
	for (i = 0; i < 16; i++)
		CHECK_EQ(buffer_dirty(&bh[i]), i >= 3 && i < 11);
	CHECK(!buffer_mapped(&bh[12]));

	/* an unaligned write covers every block it touches */
	CHECK_EQ(write_io(s, &p, 4096 * 12 + 100, 4096, &c), 0);
	CHECK(buffer_dirty(&bh[12]) && buffer_dirty(&bh[13]));
	free(s);
}

/* Jobs on one file share the heads, as the engine's jobs do: racing first
 * writes make each head new exactly once, and the end state is the same as
 * one job's. */
#define WRITERS		4
#define WRITES		200000
#define FILE_PAGES	256

struct writer {
	void *state;
	struct block_commit_params p;
	struct fc_counters c;
	unsigned int seed;
	pthread_t thread;
};

static void *writer_run(void *arg)
{
	struct writer *w = arg;
	int i;

	for (i = 0; i < WRITES; i++) {
		unsigned long long block = rand_r(&w->seed) % (FILE_PAGES * 16);

		write_io(w->state, &w->p, block * 4096, 4096, &w->c);
	}
	return NULL;
}

static void concurrent_writers(enum fc_variant v)
{
	struct block_commit_params p = params(v, PAGE_SIZE_64K);
	const unsigned long long file = (unsigned long long)FILE_PAGES << 16;
	struct writer w[WRITERS];
	unsigned long long new_cleared = 0, checks = 0;
	struct buffer_head *bh;
	void *s = zeroed_state(&p, file);
	int i;

	CHECK(s);
	memset(w, 0, sizeof(w));
	for (i = 0; i < WRITERS; i++) {
		w[i].state = s;
		w[i].p = p;
		w[i].seed = i + 1;
		CHECK(pthread_create(&w[i].thread, NULL, writer_run, &w[i]) == 0);
	}
	for (i = 0; i < WRITERS; i++) {
		pthread_join(w[i].thread, NULL);
		new_cleared += w[i].c.rmw[PATH_CLEAR_BUFFER_NEW];
		checks += w[i].c.checks;
	}
	CHECK_EQ(checks, WRITERS * WRITES);
	bh = s;
	for (i = 0; i < FILE_PAGES * 16; i++) {
		CHECK(buffer_mapped(&bh[i]) && !buffer_new(&bh[i]));
		CHECK(buffer_uptodate(&bh[i]) && buffer_dirty(&bh[i]));
	}
	if (v == FC_ALWAYS)
		CHECK_EQ(new_cleared, 16ULL * WRITERS * WRITES);
	else	/* every head was new once; racing commits may both clear it */
		CHECK(new_cleared >= FILE_PAGES * 16 &&
		      new_cleared < FILE_PAGES * 16 * 2);
	printf("     %s: %llu writes, %llu clear_buffer_new RMWs\n",
	       fc_variant_names[v], checks, new_cleared);
	free(s);
}

static void concurrent_writers_always(void)
{
	concurrent_writers(FC_ALWAYS);
}

static void concurrent_writers_test_first(void)
{
	concurrent_writers(FC_TEST_FIRST);
}

int main(void)
{
	RUN(layout_is_one_kernel_object_per_head);
	RUN(the_model_as_the_glue_sees_it);
	RUN(page_sizes_give_heads_per_page);
	RUN(state_of_five_gib_fits);
	RUN(first_write_makes_the_page_new);
	RUN(rmws_per_write_by_variant);
	RUN(test_first_runs_no_rmw_on_written_pages);
	RUN(writes_span_pages_reads_do_nothing);
	RUN(concurrent_writers_always);
	RUN(concurrent_writers_test_first);
	UNIT_EXIT();
}
