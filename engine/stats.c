// SPDX-License-Identifier: GPL-2.0
/*
 * The flagcheck_stats file is JSON Lines: one object per job, appended with
 * a single write(2) on an O_APPEND descriptor, so jobs in separate processes
 * never interleave their lines. The first job of a run truncates it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"

unsigned long long fc_stats_rmw_skipped(const struct fc_stats_job *j,
					const struct fc_counters *c)
{
	unsigned long long most = (unsigned long long)j->rmw_per_check * c->checks;

	if (strcmp(j->variant, "test_first") || c->rmw > most)
		return 0;
	return most - c->rmw;
}

/* a JSON string: the job name is the only free text */
static int json_str(char *buf, size_t len, const char *s)
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
	return (int)n;
}

int fc_stats_json(char *buf, size_t len, const struct fc_stats_job *j,
		  const struct fc_counters *c)
{
	char name[1024];

	json_str(name, sizeof(name), j->job ? j->job : "");
	return snprintf(buf, len,
		"{\"flagcheck\": 1, \"job\": %s, \"thread_number\": %u, "
		"\"pid\": %d, \"model\": \"%s\", \"flag_check\": \"%s\", "
		"\"mapping\": \"%s\", \"backend\": \"%s\", \"inject\": \"%s\", "
		"\"inject_every\": %u, \"ios\": %llu, \"checks\": %llu, "
		"\"rmw\": %llu, \"rmw_skipped\": %llu, \"errors_set\": %llu, "
		"\"errors_reported\": %llu}",
		name, j->thread_number, j->pid, j->model, j->variant,
		j->mapping, j->backend, j->inject, j->inject_every,
		(unsigned long long)c->ios, (unsigned long long)c->checks,
		(unsigned long long)c->rmw, fc_stats_rmw_skipped(j, c),
		(unsigned long long)c->errors_set,
		(unsigned long long)c->errors_reported);
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
	char line[2048];
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
