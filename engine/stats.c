// SPDX-License-Identifier: GPL-2.0
/*
 * The flagcheck_stats file is JSON Lines: one object per job, appended with
 * a single write(2) on an O_APPEND descriptor, so jobs in separate processes
 * never interleave their lines. The first job of a run truncates it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"

size_t fc_json_str(char *buf, size_t len, const char *s)
{
	size_t n = 0;

#define PUT(ch) do { if (n + 1 < len) buf[n] = (ch); n++; } while (0)
	PUT('"');
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\') {
			PUT('\\');
			PUT(ch);
		} else if (ch < 0x20) {
			char esc[8];
			int i;

			snprintf(esc, sizeof(esc), "\\u%04x", ch);
			for (i = 0; esc[i]; i++)
				PUT(esc[i]);
		} else {
			PUT(ch);
		}
	}
	PUT('"');
#undef PUT
	if (len)
		buf[n < len ? n : len - 1] = '\0';
	return n;
}

/* snprintf that appends at *pos and keeps counting past the end */
static void put(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*pos < len ? buf + *pos : NULL,
		      *pos < len ? len - *pos : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*pos += n;
}

int fc_stats_json(char *buf, size_t len, const struct fc_stats_job *j,
		  const struct fc_counters *c)
{
	char name[1024];
	size_t pos = 0;
	int i;

	fc_json_str(name, sizeof(name), j->job ? j->job : "");
	put(buf, len, &pos,
	    "{\"flagcheck\": 1, \"job\": %s, \"thread_number\": %u, "
	    "\"pid\": %d, \"model\": \"%s\", \"flag_check\": \"%s\", "
	    "\"mapping\": \"%s\", \"backend\": \"%s\", \"options\": %s, "
	    "\"ios\": %llu, \"checks\": %llu, \"rmw\": %llu, "
	    "\"rmw_skipped\": %llu, \"errors_set\": %llu, "
	    "\"errors_reported\": %llu, \"issued\": %llu, \"paths\": {",
	    name, j->thread_number, j->pid, j->model, j->variant, j->mapping,
	    j->backend, j->options ? j->options : "{}",
	    (unsigned long long)c->ios, (unsigned long long)c->checks,
	    (unsigned long long)fc_counters_rmw(c),
	    (unsigned long long)fc_counters_skipped(c),
	    (unsigned long long)c->errors_set,
	    (unsigned long long)c->errors_reported,
	    (unsigned long long)c->issued);
	for (i = 0; j->paths && j->paths[i] && i < FC_MAX_PATHS; i++)
		put(buf, len, &pos, "%s\"%s\": {\"rmw\": %llu, \"skipped\": %llu}",
		    i ? ", " : "", j->paths[i], (unsigned long long)c->rmw[i],
		    (unsigned long long)c->skipped[i]);
	put(buf, len, &pos, "}");
	if (j->stats) {
		put(buf, len, &pos, ", \"model_stats\": {");
		for (i = 0; j->stats[i] && i < FC_MAX_STATS; i++)
			put(buf, len, &pos, "%s\"%s\": %llu", i ? ", " : "",
			    j->stats[i], (unsigned long long)c->stat[i]);
		put(buf, len, &pos, "}");
	}
	put(buf, len, &pos, "}");
	return (int)pos;
}

int fc_stats_text(char *buf, size_t len, const struct fc_stats_job *j,
		  const struct fc_counters *c)
{
	unsigned long long rmw = fc_counters_rmw(c);
	size_t pos = 0;
	int i;

	put(buf, len, &pos,
	    "flagcheck: %s (job %u): %s %s=%s mapping=%s: ios=%llu checks=%llu "
	    "rmw=%llu (%.2f/io) rmw_skipped=%llu errors_set=%llu "
	    "errors_reported=%llu",
	    j->job ? j->job : "", j->thread_number, j->model,
	    j->variant_option ? j->variant_option : "variant", j->variant,
	    j->mapping, (unsigned long long)c->ios,
	    (unsigned long long)c->checks, rmw,
	    c->ios ? (double)rmw / c->ios : 0.0,
	    (unsigned long long)fc_counters_skipped(c),
	    (unsigned long long)c->errors_set,
	    (unsigned long long)c->errors_reported);
	for (i = 0; j->paths && j->paths[i] && j->paths[1] &&
		    i < FC_MAX_PATHS; i++)
		put(buf, len, &pos, "%s %s rmw=%llu skipped=%llu",
		    i ? "," : ";", j->paths[i], (unsigned long long)c->rmw[i],
		    (unsigned long long)c->skipped[i]);
	for (i = 0; j->stats && j->stats[i] && i < FC_MAX_STATS; i++)
		put(buf, len, &pos, "%s%s=%llu", i ? " " : "; ", j->stats[i],
		    (unsigned long long)c->stat[i]);
	return (int)pos;
}

int fc_stats_prepare(const char *path, int truncate)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
		      (truncate ? O_TRUNC : 0), 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

int fc_stats_append(const char *path, const struct fc_stats_job *j,
		    const struct fc_counters *c)
{
	char line[4096];
	int n, fd, ret = 0;

	n = fc_stats_json(line, sizeof(line) - 1, j, c);
	if (n < 0 || (size_t)n >= sizeof(line) - 1)
		return -EOVERFLOW;
	line[n++] = '\n';

	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, line, n) != n)
		ret = errno ? -errno : -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}
