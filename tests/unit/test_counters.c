// SPDX-License-Identifier: GPL-2.0
/* The counters: the log2 buckets of the timed calls, adding one job's
 * counters to another's (offload workers), and the buckets in the JSON
 * line. */
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "stats.h"
#include "unit.h"

static void buckets_are_bit_lengths(void)
{
	CHECK_EQ(fc_timed_bucket(0), 0);
	CHECK_EQ(fc_timed_bucket(1), 1);
	CHECK_EQ(fc_timed_bucket(2), 2);
	CHECK_EQ(fc_timed_bucket(3), 2);
	CHECK_EQ(fc_timed_bucket(4), 3);
	CHECK_EQ(fc_timed_bucket(63), 6);
	CHECK_EQ(fc_timed_bucket(64), 7);
	CHECK_EQ(fc_timed_bucket((1ULL << 30) - 1), 30);
	CHECK_EQ(fc_timed_bucket(1ULL << 30), FC_TIMED_BUCKETS - 1);
	CHECK_EQ(fc_timed_bucket(UINT64_MAX), FC_TIMED_BUCKETS - 1);
}

static void timed_calls_sum_to_their_buckets(void)
{
	static const uint64_t ns[] = { 40, 41, 45, 3000000, 0, 60 };
	struct fc_counters c = { 0 };
	unsigned int i;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		fc_count_timed(&c, ns[i]);
	CHECK_EQ(c.timed_calls, 6);
	CHECK_EQ(c.timed_ns, 40 + 41 + 45 + 3000000 + 60);
	CHECK_EQ(c.timed_hist[6], 4);		/* 32..63 ns */
	CHECK_EQ(c.timed_hist_ns[6], 40 + 41 + 45 + 60);
	CHECK_EQ(c.timed_hist[22], 1);		/* 3 ms: preempted */
	CHECK_EQ(c.timed_hist[0], 1);
	CHECK_EQ(fc_sum(c.timed_hist, FC_TIMED_BUCKETS), c.timed_calls);
	CHECK_EQ(fc_sum(c.timed_hist_ns, FC_TIMED_BUCKETS), c.timed_ns);
}

static void counters_add_field_by_field(void)
{
	struct fc_counters a = { 0 }, b = { 0 };

	a.ios[FC_READ] = 5;
	a.rmw[1] = 2;
	fc_count_timed(&a, 100);
	b.ios[FC_READ] = 7;
	b.stat[FC_MAX_STATS - 1] = 9;
	fc_count_timed(&b, 100);
	fc_counters_add(&a, &b);
	CHECK_EQ(a.ios[FC_READ], 12);
	CHECK_EQ(a.rmw[1], 2);
	CHECK_EQ(a.stat[FC_MAX_STATS - 1], 9);
	CHECK_EQ(a.timed_calls, 2);
	CHECK_EQ(a.timed_hist[7], 2);
	CHECK_EQ(a.timed_hist_ns[7], 200);
	CHECK_EQ(b.ios[FC_READ], 7);		/* the source unchanged */
}

static void the_line_has_the_buckets(void)
{
	struct fc_stats_job j = { .job = "t", .model = "m", .variant = "always",
				  .mapping = "shared", .backend = "null" };
	struct fc_counters c = { 0 };
	char *line;

	fc_count_timed(&c, 5);
	line = fc_stats_json(&j, &c);
	CHECK(line != NULL);
	CHECK(strstr(line, "\"timed_log2\": [0, 0, 0, 1, 0,") != NULL);
	CHECK(strstr(line, "\"timed_log2_ns\": [0, 0, 0, 5, 0,") != NULL);
	free(line);
}

int main(void)
{
	RUN(buckets_are_bit_lengths);
	RUN(timed_calls_sum_to_their_buckets);
	RUN(counters_add_field_by_field);
	RUN(the_line_has_the_buckets);
	UNIT_EXIT();
}
