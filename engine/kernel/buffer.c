// SPDX-License-Identifier: GPL-2.0
/*
 * fs/buffer.c: the buffered-write commit path that walks every head of a
 * page,
 *
 *   generic_perform_write -> ->write_end -> block_write_end
 *       -> __block_commit_write(page, from, to)
 *
 * in both forms around the patch "Add checking buffer head stat before
 * clear" (Yang Guo, Shaokun Zhang, February 2021): clear_buffer_new() on
 * every head of the page, or only on the heads that are new. The rest is
 * the kernel's of that time (5.11): mark_buffer_dirty() (test, barrier,
 * test again), __block_write_begin() reduced to what makes heads new.
 */
#include "buffer_head.h"

/*
 * A buffer already dirty costs two plain loads and a barrier, no RMW. Only
 * the 0 -> 1 transition goes on to dirty the page and the inode, which the
 * model leaves out. Returns whether it ran the RMW.
 */
bool mark_buffer_dirty(struct buffer_head *bh)
{
	if (buffer_dirty(bh)) {
		smp_mb();
		if (buffer_dirty(bh))
			return false;
	}
	if (!test_set_buffer_dirty(bh)) {
		/* __set_page_dirty(), __mark_inode_dirty(): not modelled */
	}
	return true;
}

/*
 * What makes heads new: in __block_write_begin_int(), get_block() gives an
 * unmapped head a newly allocated block and sets BH_New. The model maps every
 * head of a page on the page's first write, as if the filesystem allocated
 * the page's whole extent at once, so the zero state (nothing mapped) is a
 * file no job has written yet. The kernel holds the page lock here and the
 * model does not: test_set_buffer_mapped() elects the one job that makes a
 * head new. These are write_begin's RMWs, once per head per run: not counted.
 */
void __block_write_begin(struct buffer_head *head, unsigned int nr)
{
	struct buffer_head *bh;

	for (bh = head; bh < head + nr; bh++)
		if (!buffer_mapped(bh) && !test_set_buffer_mapped(bh))
			set_buffer_new(bh);
}

/*
 * The heads the write [from, to) covers become uptodate and dirty (both test
 * first, so only a block's first write runs their RMWs); every head of the
 * page loses BH_New. The one line the 2021 patch changed: before it
 * (!test_new_first) an RMW on every head; after it a plain test first, so a
 * head that is not new stays clean and shared in every cache. The kernel's
 * closing SetPageUptodate() on page->flags is not modelled.
 */
void __block_commit_write(struct buffer_head *head, unsigned int nr,
			  unsigned int from, unsigned int to,
			  bool test_new_first,
			  const struct block_commit_count *count)
{
	struct fc_counters *c = count->c;
	unsigned int block_start = 0, block_end;
	struct buffer_head *bh;

	for (bh = head; bh < head + nr; bh++, block_start = block_end) {
		block_end = block_start + BH_SIZE;
		if (block_end > from && block_start < to) {
			fc_count_rmw(c, count->set_uptodate,
				     set_buffer_uptodate(bh));
			fc_count_rmw(c, count->mark_dirty,
				     mark_buffer_dirty(bh));
		}
		if (test_new_first && !buffer_new(bh))	/* the fix */
			fc_count_rmw(c, count->clear_new, false);
		else	/* before it, or a new head: the RMW */
			fc_count_rmw(c, count->clear_new, clear_buffer_new(bh));
	}
}
