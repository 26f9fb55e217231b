// SPDX-License-Identifier: GPL-2.0
/*
 * The flagcheck_stats file is JSON Lines: one object per job, appended
 * under an exclusive lock, so jobs in separate processes never interleave
 * their lines, and a line is kept whole or not at all. The first job of a
 * run truncates it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "stats.h"

/* The text of an open_memstream() once closed: NULL if it failed */
static char *fc_closed(FILE *out, char **buf)
{
	if (fclose(out)) {
		free(*buf);
		return NULL;
	}
	return *buf;
}

/* The length of the valid UTF-8 sequence @s starts with, or 0 */
static int fc_utf8_len(const unsigned char *s)
{
	int n, i;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;	/* a continuation byte, overlong or too high */
	n = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* the NUL ends it here too */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;	/* overlong, a surrogate, past U+10FFFF */
	return n;
}

/*
 * @s as a JSON string, quotes included (RFC 8259): '"', '\\' and control
 * characters escaped, a byte that is not UTF-8 written as U+FFFD, so that
 * any JSON reader takes the line whatever a job or a pattern names.
 */
static void fc_json_put(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n;

	fputc('"', out);
	while (*s) {
		if (*s == '"' || *s == '\\') {
			fprintf(out, "\\%c", *s++);
		} else if (*s < 0x20) {
			fprintf(out, "\\u%04x", *s++);
		} else if (*s < 0x80) {
			fputc(*s++, out);
		} else if ((n = fc_utf8_len(s))) {
			fwrite(s, 1, n, out);
			s += n;
		} else {
			fputs("\\ufffd", out);
			s++;
		}
	}
	fputc('"', out);
}

/* @s as a JSON string, quotes included: malloc'd, NULL without memory */
char *fc_json_str(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	fc_json_put(out, s);
	return fc_closed(out, &buf);
}

/* The model's options as a JSON object, from its params: malloc'd */
char *fc_model_options_json(const struct fc_model *m, const void *params)
{
	const struct fc_model_option *mo;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	fputc('{', out);
	for (mo = m->options; mo && mo->name; mo++) {
		const char *p = (const char *)params + mo->offset;
		unsigned int v = mo->is_string ? 0 : *(const unsigned int *)p;

		fprintf(out, "%s\"%s\": ", mo == m->options ? "" : ", ",
			mo->name);
		if (mo->is_string)
			fc_json_put(out, *(const char *const *)p ?: "");
		else if (mo->choices)
			fprintf(out, "\"%s\"", mo->choices[v]);
		else
			fprintf(out, "%u", v);
	}
	fputc('}', out);
	return fc_closed(out, &buf);
}

/* , "name": [v0, v1, ...] */
static void fc_json_u64s(FILE *out, const char *name, const uint64_t *v,
			 int n)
{
	int i;

	fprintf(out, ", \"%s\": [", name);
	for (i = 0; i < n; i++)
		fprintf(out, "%s%llu", i ? ", " : "", (unsigned long long)v[i]);
	fputc(']', out);
}

/* The record's scalars, up to the log2 buckets: @name is the job's, quoted */
static void fc_json_head(FILE *out, const char *name,
			 const struct fc_stats_job *j,
			 const struct fc_counters *c)
{
	fprintf(out,
		"{\"flagcheck\": 2, \"job\": %s, \"thread_number\": %u, "
		"\"pid\": %d, \"model\": \"%s\", \"variant\": \"%s\", "
		"\"mapping\": \"%s\", \"backend\": \"%s\", \"options\": %s, "
		"\"ios\": %llu, \"ios_read\": %llu, \"ios_write\": %llu, "
		"\"ios_other\": %llu, \"checks\": %llu, \"rmw\": %llu, "
		"\"rmw_skipped\": %llu, \"stores\": %llu, \"errors_set\": %llu, "
		"\"errors_reported\": %llu, \"issued\": %llu, "
		"\"timed_every\": %d, \"timed_calls\": %llu, "
		"\"timed_ns\": %llu, \"stores_skipped\": %llu",
		name, j->thread_number, j->pid, j->model, j->variant,
		j->mapping, j->backend, j->options ? j->options : "{}",
		(unsigned long long)fc_counters_ios(c),
		(unsigned long long)c->ios[FC_READ],
		(unsigned long long)c->ios[FC_WRITE],
		(unsigned long long)c->ios[FC_OTHER],
		(unsigned long long)c->checks,
		(unsigned long long)fc_counters_rmw(c),
		(unsigned long long)fc_counters_skipped(c),
		(unsigned long long)fc_counters_stores(c),
		(unsigned long long)c->errors_set,
		(unsigned long long)c->errors_reported,
		(unsigned long long)c->issued, FC_TIMED_EVERY,
		(unsigned long long)c->timed_calls,
		(unsigned long long)c->timed_ns,
		(unsigned long long)fc_counters_stores_skipped(c));
}

/* "paths": each path's counts, by its name */
static void fc_json_paths(FILE *out, const struct fc_stats_job *j,
			  const struct fc_counters *c)
{
	int i;

	fputs(", \"paths\": {", out);
	for (i = 0; j->paths && j->paths[i] && i < FC_MAX_PATHS; i++) {
		fputs(i ? ", " : "", out);
		fc_json_put(out, j->paths[i]);	/* a pattern's own text */
		fprintf(out, ": {\"rmw\": %llu, \"skipped\": %llu, "
			"\"stores\": %llu, \"stores_skipped\": %llu, "
			"\"retries\": %llu}",
			(unsigned long long)c->rmw[i],
			(unsigned long long)c->skipped[i],
			(unsigned long long)c->stores[i],
			(unsigned long long)c->stores_skipped[i],
			(unsigned long long)c->retries[i]);
	}
	fputc('}', out);
}

/* "model_stats": the model's own counters, where it has any */
static void fc_json_model_stats(FILE *out, const struct fc_stats_job *j,
				const struct fc_counters *c)
{
	int i;

	if (!j->stats)
		return;
	fputs(", \"model_stats\": {", out);
	for (i = 0; j->stats[i] && i < FC_MAX_STATS; i++) {
		fputs(i ? ", " : "", out);
		fc_json_put(out, j->stats[i]);
		fprintf(out, ": %llu", (unsigned long long)c->stat[i]);
	}
	fputc('}', out);
}

char *fc_stats_json(const struct fc_stats_job *j, const struct fc_counters *c)
{
	char *buf = NULL, *name;
	size_t len = 0;
	FILE *out;

	name = fc_json_str(j->job ? j->job : "");
	out = name ? open_memstream(&buf, &len) : NULL;
	if (!out) {
		free(name);
		return NULL;
	}
	fc_json_head(out, name, j, c);
	free(name);
	fc_json_u64s(out, "timed_log2", c->timed_hist, FC_TIMED_BUCKETS);
	fc_json_u64s(out, "timed_log2_ns", c->timed_hist_ns, FC_TIMED_BUCKETS);
	fc_json_paths(out, j, c);
	fc_json_model_stats(out, j, c);
	if (j->corun)
		fprintf(out, ", \"corun\": %s", j->corun);
	fputc('}', out);
	return fc_closed(out, &buf);
}

char *fc_stats_text(const struct fc_stats_job *j, const struct fc_counters *c)
{
	unsigned long long rmw = fc_counters_rmw(c), ios = fc_counters_ios(c);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	int i;

	if (!out)
		return NULL;
	fprintf(out,
		"flagcheck: %s (job %u): %s variant=%s mapping=%s: ios=%llu "
		"checks=%llu rmw=%llu (%.2f/io) rmw_skipped=%llu "
		"errors_set=%llu errors_reported=%llu stores=%llu "
		"stores_skipped=%llu",
		j->job ? j->job : "", j->thread_number, j->model, j->variant,
		j->mapping, ios, (unsigned long long)c->checks, rmw,
		ios ? (double)rmw / ios : 0.0,
		(unsigned long long)fc_counters_skipped(c),
		(unsigned long long)c->errors_set,
		(unsigned long long)c->errors_reported,
		(unsigned long long)fc_counters_stores(c),
		(unsigned long long)fc_counters_stores_skipped(c));
	for (i = 0; j->paths && j->paths[i] && j->paths[1] &&
		    i < FC_MAX_PATHS; i++)
	{
		fprintf(out, "%s %s rmw=%llu skipped=%llu", i ? "," : ";",
			j->paths[i], (unsigned long long)c->rmw[i],
			(unsigned long long)c->skipped[i]);
		if (c->stores[i] || c->stores_skipped[i])
			fprintf(out, " stores=%llu stores_skipped=%llu",
				(unsigned long long)c->stores[i],
				(unsigned long long)c->stores_skipped[i]);
	}
	for (i = 0; j->stats && j->stats[i] && i < FC_MAX_STATS; i++)
		fprintf(out, "%s%s=%llu", i ? " " : "; ", j->stats[i],
			(unsigned long long)c->stat[i]);
	return fc_closed(out, &buf);
}

/*
 * Never through a link planted in the file's place (it could point at any
 * file the user may write): O_NOFOLLOW, open fails with ELOOP instead.
 */
#define FC_STATS_OPEN	(O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW)

/*
 * Only a regular file: a device node or a FIFO put in the file's place
 * after the options were checked is never written (O_NONBLOCK: opening a
 * FIFO does not wait for a reader; O_TRUNC is left to ftruncate() once
 * the file is known to be regular).
 */
static int fc_stats_open(const char *path, int flags)
{
	struct stat st;
	int fd = open(path, FC_STATS_OPEN | O_NONBLOCK | flags, 0644);

	int err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = errno;
	else if (!S_ISREG(st.st_mode))
		err = EINVAL;		/* not a regular file */
	else
		return fd;
	close(fd);
	return -err;
}

int fc_stats_prepare(const char *path, int truncate)
{
	int fd = fc_stats_open(path, O_APPEND);

	if (fd < 0)
		return fd;
	if (truncate && ftruncate(fd, 0)) {
		int err = errno;

		close(fd);
		return -err;
	}
	close(fd);
	return 0;
}

/*
 * One line, whole or not at all: under an exclusive lock (the jobs of a
 * run, threads or processes, take turns), written at the end; a short write
 * (a full disk) is cut off again, so no reader ever sees half a line.
 */
/* @n bytes of @buf at offset @at of @fd, all of them: 0 or -errno */
static int fc_write_at(int fd, const char *buf, size_t n, off_t at)
{
	size_t done = 0;

	while (done < n) {
		ssize_t w = pwrite(fd, buf + done, n - done, at + done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		done += w;
	}
	return 0;
}

int fc_stats_append(const char *path, const struct fc_stats_job *j,
		    const struct fc_counters *c)
{
	char *line = fc_stats_json(j, c);
	struct stat st;
	size_t n;
	int fd, ret = 0;

	if (!line)
		return -ENOMEM;
	n = strlen(line);
	line[n++] = '\n';	/* over the NUL: written by length */

	fd = fc_stats_open(path, 0);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	if (flock(fd, LOCK_EX) || fstat(fd, &st)) {
		ret = -errno;
		goto close;
	}
	ret = fc_write_at(fd, line, n, st.st_size);
	if (!ret && fsync(fd) && errno != EINVAL && errno != EROFS)
		ret = -errno;
	if (ret && S_ISREG(st.st_mode) && ftruncate(fd, st.st_size))
		ret = -errno;
close:
	if (close(fd) && !ret)
		ret = -errno;
out:
	free(line);
	return ret;
}
