// SPDX-License-Identifier: GPL-2.0
/*
 * flagcheck-calibrate: what one shared cache line costs on this machine
 * (calibrate.h says what it measures). This file is the command line: the
 * options, each bad value refused in one line, and main, which runs the
 * calibration and prints its JSON.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: flagcheck-calibrate [--seconds S] [--batch N] [--max-threads N]\n"
"                           [--output FILE] [--progress]\n"
"\n"
"Measures, on the CPUs this process may use (taskset limits them), one\n"
"thread pinned per CPU: the one-way cache-line transfer latency of every\n"
"pair of CPUs (CAS ping-pong, median), the cost of the always and\n"
"test_first bit patterns on one shared word and the line's visits at 1..N\n"
"threads (at 2, between two ping-pongs of the same pair). Prints JSON.\n"
"\n"
"  -s, --seconds S      time budget: up to half for the pairs, the rest for\n"
"                       the patterns (default %g; 0.01 to 3600)\n"
"  -b, --batch N        round trips timed as one sample (default %d; 1 to\n"
"                       100000)\n"
"  -t, --max-threads N  run the patterns at 1..N threads only (default:\n"
"                       every usable CPU)\n"
"  -o, --output FILE    write the JSON to FILE instead of stdout\n"
"  -p, --progress       before each step, a line on stderr: \"progress K/N\n"
"                       what\" (the pairs first, then the patterns)\n"
"  -h, --help           this text\n", DEFAULT_SECONDS, DEFAULT_BATCH);
}

static void __attribute__((noreturn))
bad_value(const char *opt, const char *val, const char *allowed)
{
	fprintf(stderr, "flagcheck-calibrate: %s=%s is not valid: %s\n", opt,
		val, allowed);
	exit(2);
}

static long parse_long(const char *opt, const char *val, long lo, long hi,
		       const char *allowed)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(val, &end, 10);
	if (errno || end == val || *end || v < lo || v > hi)
		bad_value(opt, val, allowed);
	return v;
}

static double parse_seconds(const char *val)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (errno || end == val || *end || !(v >= 0.01 && v <= 3600))
		bad_value("--seconds", val,
			  "a number of seconds from 0.01 to 3600");
	return v;
}

/* One option of getopt_long()'s, @c, into *o; --help and a bad one exit */
static void parse_opt(int c, struct opts *o)
{
	switch (c) {
	case 's':
		o->seconds = parse_seconds(optarg);
		break;
	case 'b':
		o->batch = parse_long("--batch", optarg, 1, 100000,
				      "a whole number from 1 to 100000");
		break;
	case 't':
		o->max_threads = parse_long("--max-threads", optarg, 1, INT_MAX,
					    "a whole number of at least 1");
		break;
	case 'o':
		o->output = optarg;
		break;
	case 'p':
		o->progress = true;
		break;
	case 'h':
		usage(stdout);
		exit(0);
	default:
		usage(stderr);
		exit(2);
	}
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "seconds",	 required_argument, NULL, 's' },
		{ "batch",	 required_argument, NULL, 'b' },
		{ "max-threads", required_argument, NULL, 't' },
		{ "output",	 required_argument, NULL, 'o' },
		{ "progress",	 no_argument,	    NULL, 'p' },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	o->seconds = DEFAULT_SECONDS;
	o->batch = DEFAULT_BATCH;
	o->max_threads = INT_MAX;
	o->output = NULL;
	o->progress = false;
	while ((c = getopt_long(argc, argv, "s:b:t:o:ph", longopts, NULL)) != -1)
		parse_opt(c, o);
	if (optind < argc) {
		fprintf(stderr, "flagcheck-calibrate: unexpected argument %s: "
			"the program takes options only (see --help)\n",
			argv[optind]);
		exit(2);
	}
}

/* What @mode is where --output refuses it, else NULL (a regular file) */
static const char *refused_kind(mode_t mode)
{
	if (S_ISLNK(mode))
		return "a symbolic link";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISDIR(mode))
		return "a directory";
	return S_ISREG(mode) ? NULL : "not a regular file";
}

static void __attribute__((noreturn))
refuse(const char *path, const char *what)
{
	fprintf(stderr, "flagcheck-calibrate: %s is %s: refused (a regular "
		"file or a new name is allowed, never a link)\n", path, what);
	exit(1);
}

/*
 * --output FILE by the rule every flagcheck output follows
 * (analysis/flagcheck_analysis/inputs/outpath.py): a regular file or a
 * new name, never a link.  A device, a FIFO, a socket or a directory is
 * refused before anything is written; the open follows no link
 * (O_NOFOLLOW), never blocks on a FIFO (O_NONBLOCK) and what it opened is
 * checked again (fstat) before the file is truncated.
 */
static FILE *open_output(const char *path)
{
	struct stat st;
	const char *what;
	FILE *f;
	int fd;

	if (!lstat(path, &st) && (what = refused_kind(st.st_mode)))
		refuse(path, what);
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
		  O_NOCTTY | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (!lstat(path, &st) && (what = refused_kind(st.st_mode)))
			refuse(path, what);
		die("cannot write %s", path, errno);
	}
	if (fstat(fd, &st))
		die("cannot write %s", path, errno);
	what = refused_kind(st.st_mode);
	if (what)
		refuse(path, what);
	if (ftruncate(fd, 0) || !(f = fdopen(fd, "w")))
		die("cannot write %s", path, errno);
	return f;
}

int main(int argc, char **argv)
{
	struct calibration c = { 0 };
	struct opts o;
	FILE *f;

	parse_opts(argc, argv, &o);
	/* a bad --output fails now, not after the measurement */
	f = stdout;
	if (o.output)
		f = open_output(o.output);
	calibration_alloc(&o, &c);
	calibration_run(&o, &c);
	print_calibration(f, &o, &c);
	if (fflush(f) || (f != stdout && fclose(f)))
		die("cannot write %s", o.output ? o.output : "stdout", errno);
	calibration_free(&c);
	return 0;
}
