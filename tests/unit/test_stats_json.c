// SPDX-License-Identifier: GPL-2.0
/* The counters line is JSON any reader takes, whatever a job or a pattern
 * names: the keys of `paths` and `model_stats` (a pattern's own text, which
 * may hold a tab) and the job's name escaped as RFC 8259 asks, a byte that
 * is not UTF-8 written as U+FFFD. */
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "stats.h"
#include "unit.h"

/* every kind of byte: controls, quote, backslash, Latin-1, UTF-8, a cut one */
#define RAW	"a\tb\vc\"d\\e\x01 f\xe9g \xc3\xa9 \xed\xa0\x80 \xf0\x9f\x98\x80 h\xc3"
#define ESCAPED	"\"a\\u0009b\\u000bc\\\"d\\\\e\\u0001 f\\ufffdg \xc3\xa9 " \
		"\\ufffd\\ufffd\\ufffd \xf0\x9f\x98\x80 h\\ufffd\""

static void a_string_is_escaped(void)
{
	char *s = fc_json_str(RAW);

	CHECK(s != NULL);
	CHECK(!strcmp(s, ESCAPED));
	free(s);
}

static void path_and_stat_keys_are_escaped(void)
{
	const char *const paths[] = { RAW, "plain", NULL };
	const char *const stats[] = { RAW, NULL };
	struct fc_stats_job j = { .job = RAW, .model = "m", .variant = "always",
				  .mapping = "shared", .backend = "null",
				  .paths = paths, .stats = stats };
	struct fc_counters c = { 0 };
	char *line;

	c.rmw[0] = 7;
	c.stat[0] = 3;
	line = fc_stats_json(&j, &c);
	CHECK(line != NULL);
	CHECK(strstr(line, "\"job\": " ESCAPED ",") != NULL);
	CHECK(strstr(line, "\"paths\": {" ESCAPED ": {\"rmw\": 7, ") != NULL);
	CHECK(strstr(line, "}, \"plain\": {\"rmw\": 0, ") != NULL);
	CHECK(strstr(line, "\"model_stats\": {" ESCAPED ": 3}") != NULL);
	CHECK(strchr(line, '\t') == NULL && strchr(line, '\v') == NULL);
	free(line);
}

int main(void)
{
	RUN(a_string_is_escaped);
	RUN(path_and_stat_keys_are_escaped);
	UNIT_EXIT();
}
