"""flagcheck run's command line: run fio job files over the variant x numjobs
x repeat matrix, one fio JSON and one engine stats file per run, plus
manifest.json; resumable after Ctrl-C."""

import argparse
import os
import re
import sys

from ..inputs import fiojson, matrix, numbers
from .. import width
from ..stats import decide
from ..run import clock, interference
from ..calibrate import calibration
from ..run.config import (DEFAULT_VARS, MAX_RUNTIME, RUN_TIMEOUT_MARGIN,
                          RunConfig, validate)
from ..run.progress import PROG
from ..run.runner import Runner


MAX_NUMJOBS = 4096          # fio's own limit on jobs (REAL_MAX_JOBS, fio.h)
MAX_REPEATS = 10000         # runs per variant and numjobs

EPILOG = """\
order: for each job file, for each numjobs, for each repeat, every variant in
turn (always, test_first, always, test_first, ...), so slow drift of the
machine hits all variants alike.

files in --outdir, per run (repeat counts from 1):
  <scenario>_<variant>_nj<numjobs>_r<repeat>.json             fio output
  <scenario>_<variant>_nj<numjobs>_r<repeat>.flagcheck.jsonl  engine counters
  manifest.json   host, versions, matrix, every run's command, env, status
  flagcheck.lock  held while flagcheck run or a fio it started runs
scenario is the job file name without its extension.

environment given to fio (override with --set VAR=VALUE):
  FLAGCHECK_ENGINE  %(FLAGCHECK_ENGINE)s
  RUNTIME %(RUNTIME)s, SIZE %(SIZE)s, FILENAME %(FILENAME)s, BACKEND %(BACKEND)s
  VARIANT, NUMJOBS, FLAGCHECK_STATS  set per run from the matrix

on several hosts (--hosts FILE, --client HOST): every host runs
`fio --server`, with the engine at the FLAGCHECK_ENGINE path on its own disk
(make install puts it at the same path everywhere).  Per run, flagcheck run
asks each host's server to run a tiny null job (--connect-timeout), then runs
the job on every host that answered through one `fio --client` (all hosts at
once), stopped after --run-timeout.  It expands ${VARS} and inlines includes
itself into one job file per host (jobs/<run>.<host>.fio), since fio would
expand them on the client and can not include on the server.  The engine
counters of a host come from its stats file when that lies on this machine
at the same path (server on this machine, or a shared file system), else
from the counter lines fio forwards as text, when they can be told apart
by the server's host name.  A host that is down, or that returns no job
results (its server could not run the job: what it said is quoted), is
named; the run keeps the other hosts' results and counts as failed
("partial"); the same command reruns it.  Pinning, the warm-up and the interference record (below) are
for runs on this machine only: on several hosts none of them applies.

pinning (default; --no-pin lets the jobs float): the N jobs of a run get N
CPUs of their own through fio's cpus_allowed and cpus_allowed_policy=split
(job k on the k-th lowest CPU of the set), every physical core before any
SMT sibling, over the NUMA nodes as the job file's "; run-job defaults:"
line asks: NUMA=spread (the default) takes the nodes in turn, NUMA=node0
stays on node 0.  More jobs than usable CPUs share them, as fio wraps.
The set and each job's CPU are in the manifest ("placement" of each run).

clock: fio picks its clock at each start, the CPU's cycle counter or
clock_gettime() (slower: several calls per I/O), by tests that on a VM pass
or fail at random: the same run then has two speeds (9.0M or 5.5M IOPS of
fio's null engine on the dev VM).  flagcheck run gives every run one
--clocksource: auto (the default) takes cpu when the kernel's clocksource is
the cycle counter (tsc), else clock_gettime; "fio" leaves fio its choice.
The manifest's conditions say which, and why.

line probe (default; --no-line-probe leaves it out): right before and
after every run of 2 or more pinned jobs, flagcheck-calibrate measures for
0.1 s the one-way transfer of a cache line between job 1's and job 2's CPUs
(CAS ping-pong).  On a VM the host may move the vCPUs between runs, and the
cost of the line changing hands with them: on the dev VM 27 or 123 ns, and
S1 at 2 jobs x1.1 or x1.65 in step.  The manifest's "line_probe" of each
run and the report's line probe table say what each run had.

warm-up: fio's ramp_time (--ramp, default 1 s) runs before the measured
runtime; fio leaves it out of every figure it reports.  The engine's
counters are zeroed when it ends, as fio's are, so they count what fio counts.

interference: right before and after every run, flagcheck run samples
/proc/stat, /proc/loadavg and, where readable, the CPU frequency governor
and frequencies.  "others" is the busy (user+nice+system) time of the run's
CPUs minus all CPU time of fio and of flagcheck run itself; "steal" is the
hypervisor's steal time on them.  A run where either exceeds
--busy-threshold of the run's CPU time is marked busy in the manifest
("interference" of each run), and flagcheck report names it.

--until-decided: each cell (a job file at one numjobs) first gets
--repeats interleaved repeats, then one more repeat of every variant at a
time until the IOPS ratio of every variant against the first variant is
decided: its 95%% bootstrap CI (the report's) excludes 1 and Welch's test
agrees, or the CI is narrower than +-PRECISION of the ratio; or until
--max-repeats.  No cell is decided on fewer than %(min)d runs per side.
The manifest's "cells" say, per cell, which it was and after how many
repeats.  Resuming re-decides from the runs on disk.

A job that writes (an rw= other than read or randread, on a backend other
than null) is refused when a file it names (filename, filename_format,
directory, a filename list, a symlink) is a block device, and on several
hosts when it names anything under /dev/, unless FLAGCHECK_DESTROY=yes (in
the environment or --set).  On several hosts a job that has a fio server
run a program is refused unless --allow-exec: exec_prerun=, exec_postrun=,
ioengine=exec (its program=), or an ioengine library other than
FLAGCHECK_ENGINE (external:PATH, a path or a .so: fio loads and runs it).

A failed run's fio output is kept as <run>.json.failed (and quoted).
Ctrl-C stops the running fio, discards its partial output, keeps the
finished runs and marks the manifest incomplete; the same command again
resumes, skipping every run whose JSON exists and parses.  Each run's
manifest entry records what it was made with (pinning, --ramp, the clock,
the output format, RUNTIME and every --set, the job file's SHA-256): a
resume with other settings is refused, naming the flag that matches; the
runs of a job file edited in between are reported apart.  While
flagcheck run, or a fio it started, runs in --outdir, another flagcheck run
there is refused (flagcheck.lock); fio gets SIGTERM when flagcheck run
dies, and a run whose engine counters disagree with fio's I/O count is
failed, not done.

exit status: 0 the matrix is complete; 1 a fio run failed (the default
stops at the first failure, --keep-going runs the rest); 2 usage error;
130 interrupted.""" % dict(DEFAULT_VARS, min=decide.MIN_REPEATS)


def _csv_list(convert):
    def parse(text):
        items = [convert(x) for x in text.split(",") if x.strip()]
        if not items:
            raise argparse.ArgumentTypeError("empty list %r" % text)
        twice = sorted({str(x) for x in items if items.count(x) > 1})
        if twice:
            raise argparse.ArgumentTypeError(
                "%r: %s given twice; each value once" % (
                    text, ", ".join(twice)))
        return items
    return parse


def _positive(text, most=None):
    try:
        return numbers.number(text, whole=True, low=1, high=most)
    except numbers.NumberError:
        raise argparse.ArgumentTypeError(
            "%s: want a whole number of 1 or more%s" % (
                numbers.shown(text),
                "" if most is None else ", at most %d" % most))


def _at_most(most):
    def parse(text):
        return _positive(text, most)
    return parse


def _positive_float(text):
    try:
        return float(numbers.number(text, above=0))
    except numbers.NumberError:
        raise argparse.ArgumentTypeError(
            "%s: want a number of seconds above 0" % numbers.shown(text))


def _non_negative(text):
    try:
        return numbers.number(text, whole=True, low=0)
    except numbers.NumberError:
        raise argparse.ArgumentTypeError(
            "%s: allowed are whole seconds, 0 or more" % numbers.shown(text))


def _percent(text):
    try:
        return float(numbers.number(text.strip().rstrip("%"), above=0,
                                    below=100))
    except numbers.NumberError:
        raise argparse.ArgumentTypeError(
            "%s: allowed is a percentage above 0 and below 100"
            % numbers.shown(text))


def _variant(text):
    text = text.strip()
    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_-]*$", text):
        raise argparse.ArgumentTypeError(
            "%r: a variant name is letters, digits, '_' and '-', starting "
            "with a letter or digit" % text)
    return text


def _matrix_options(p, ncpu):
    """The files, variants, numjobs and repeats of the matrix."""
    p.add_argument("jobs", nargs="*", metavar="JOBFILE",
                   help="fio job file(s); same as --job")
    p.add_argument("--job", action="append", default=[], metavar="FILE",
                   help="fio job file to run (repeatable)")
    p.add_argument("--variants", type=_csv_list(_variant),
                   default=list(matrix.DEFAULT_VARIANTS), metavar="A,B",
                   help="variants (the engine's variant=), run "
                   "interleaved in this order (default: always,test_first)")
    p.add_argument("--numjobs", type=_csv_list(_at_most(MAX_NUMJOBS)),
                   default=matrix.default_numjobs(ncpu), metavar="N,N",
                   help="numjobs values, each at most %d (fio's limit; "
                   "default: 1,2,4,... up to the "
                   "usable CPUs, plus their number if not a power of two; "
                   "here: %s)" % (MAX_NUMJOBS, ",".join(map(
                       str, matrix.default_numjobs(ncpu)))))
    p.add_argument("--repeats", type=_at_most(MAX_REPEATS), metavar="N",
                   help="runs per variant and numjobs, at most %d (default: "
                   "5; with "
                   "--until-decided the runs before the first check, "
                   "default %d)" % (MAX_REPEATS, decide.MIN_REPEATS))
    p.add_argument("--until-decided", action="store_true",
                   help="add interleaved repeats to each cell until its "
                   "IOPS ratio is decided (see below) or --max-repeats")
    p.add_argument("--max-repeats", type=_at_most(MAX_REPEATS), default=10,
                   metavar="N",
                   help="with --until-decided: at most N runs per variant and "
                   "numjobs (default: %(default)s)")
    p.add_argument("--precision", type=_percent,
                   default=100 * decide.DEFAULT_PRECISION, metavar="PCT",
                   help="with --until-decided: a CI narrower than +-PCT%% "
                   "of the ratio decides too (default: %(default)g)")


def _condition_options(p):
    """How each run is made: pinning, clock, line probe, warm-up,
    calibration, busy mark."""
    p.add_argument("--no-pin", action="store_true",
                   help="let the jobs float over the usable CPUs (default: "
                   "one CPU per job, see below)")
    p.add_argument("--clocksource", choices=clock.CHOICES, default="auto",
                   help="fio's clock for every run: auto (cpu when the "
                   "kernel's clocksource is the cycle counter, else "
                   "clock_gettime; here: %s), cpu, clock_gettime, "
                   "gettimeofday, or fio (fio's own choice at each start; "
                   "see below; default: %%(default)s)"
                   % clock.default_for_here())
    p.add_argument("--no-line-probe", action="store_true",
                   help="do not measure the cache line between job 1's and "
                   "job 2's CPUs before and after each run (see below)")
    p.add_argument("--ramp", type=_non_negative, default=1,
                   metavar="SECONDS",
                   help="warm-up before each run's measured runtime, fio's "
                   "ramp_time; 0 for none (default: %(default)s)")
    p.add_argument("--no-calibrate", action="store_true",
                   help="do not measure this machine's cache-line costs "
                   "(flagcheck-calibrate) into the results directory; "
                   "default: once per results directory, kept on resume, "
                   "never with --hosts (it would measure this machine, not "
                   "the fio servers)")
    p.add_argument("--calibrate-seconds", type=calibration.seconds_arg,
                   default=calibration.DEFAULT_SECONDS, metavar="SECONDS",
                   help="how long the calibration measures, 0.01 to 3600 "
                   "(default: %(default)g)")
    p.add_argument("--busy-threshold", type=_percent,
                   default=100 * interference.DEFAULT_THRESHOLD,
                   metavar="PCT",
                   help="mark a run busy when others used, or the "
                   "hypervisor stole, more than PCT%% of its CPUs' time "
                   "(default: %(default)g)")


def _output_options(p):
    """The job files' variables and what is kept."""
    p.add_argument("--runtime", type=_at_most(MAX_RUNTIME), metavar="SECONDS",
                   help="seconds per run, sets RUNTIME (default: %s)"
                   % DEFAULT_VARS["RUNTIME"])
    p.add_argument("--outdir", default="results", metavar="DIR",
                   help="results directory; an existing one is resumed "
                   "(default: %(default)s)")
    p.add_argument("--set", action="append", default=[], dest="sets",
                   metavar="VAR=VALUE",
                   help="set an environment variable for the job files, "
                   "after --runtime (repeatable)")
    p.add_argument("--json-plus", action="store_true",
                   help="use --output-format=json+ (latency histograms; the "
                   "report then merges them for exact percentiles)")


def _host_options(p):
    """Runs on fio servers."""
    p.add_argument("--hosts", action="append", default=[], metavar="FILE",
                   help="run on the fio servers listed in FILE, one "
                   "host[,port] a line as fio's own host list (repeatable)")
    p.add_argument("--client", action="append", default=[], metavar="HOST",
                   dest="client_hosts",
                   help="run on the fio server at HOST[,port] (repeatable; "
                   "with --hosts, adds to the list)")
    p.add_argument("--connect-timeout", type=_positive_float, default=10.0,
                   metavar="SECONDS",
                   help="on several hosts: how long a host may take to "
                   "answer before each run (default: %(default)g)")
    p.add_argument("--run-timeout", type=_positive_float, metavar="SECONDS",
                   help="stop a run (fio gets SIGINT, then SIGKILL 10 s "
                   "later) that takes longer (default: RUNTIME + --ramp + "
                   "%d; on several hosts RUNTIME + %d)"
                   % (RUN_TIMEOUT_MARGIN, RUN_TIMEOUT_MARGIN))
    p.add_argument("--allow-exec", action="store_true",
                   help="on several hosts: send a job file that has the "
                   "fio servers run a program (exec_prerun, exec_postrun, "
                   "ioengine=exec, an ioengine library other than "
                   "FLAGCHECK_ENGINE); refused without this (default: "
                   "refuse)")



def _fio_options(p):
    """The fio binary and how the command behaves."""
    p.add_argument("--fio", default="fio", metavar="PATH",
                   help="fio binary (default: %(default)s)")
    p.add_argument("--keep-going", action="store_true",
                   help="after a failed fio run, go on with the rest "
                   "(default: stop)")
    p.add_argument("--quiet", action="store_true",
                   help="print nothing but errors (default: a live status "
                   "line on a terminal, one line per run otherwise)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the commands, with their environment, in "
                   "run order, and run nothing")


def build_parser(ncpu):
    """flagcheck run's options (ncpu: the usable CPUs, for the --numjobs
    default)."""
    p = width.ArgumentParser(
        prog=PROG, description="Run fio job files over a matrix of "
        "variants x numjobs x repeats and keep every run's JSON.",
        epilog=EPILOG, formatter_class=width.HelpFormatter)
    _matrix_options(p, ncpu)
    _condition_options(p)
    _output_options(p)
    _host_options(p)
    _fio_options(p)
    return p


def parse_args(argv):
    """The RunConfig of a command line; a bad argument exits with status 2
    and one line naming it."""
    p = build_parser(len(os.sched_getaffinity(0)))
    return RunConfig.of(validate(p, p.parse_args(argv)))


def dry_run(args, runs):
    if args.until_decided:
        print("# --until-decided: these first, then one more repeat of "
              "every variant at a time, up to %d, until each cell is decided"
              % args.max_repeats)
    executor = args.executor(args)
    for i, run in enumerate(runs, 1):
        print("# %d/%d %s" % (i, len(runs), matrix.run_name(run)))
        print("\n".join(executor.dry_run(
            run, matrix.json_path(args.outdir, run))))
    return 0


def over_cpus(numjobs, ncpu, hosts=None):
    """The warning for a --numjobs above this box's usable CPUs (jobs
    beyond them take turns: a cell that seldom runs together is never
    decided), or None; on fio servers (--hosts) their CPUs count."""
    over = [n for n in numjobs if n > ncpu]
    if hosts or not over:
        return None
    return ("%s: --numjobs %s: above this box's %d usable CPUs: the jobs "
            "beyond them share CPUs and take turns, so those cells "
            "seldom run together and are never decided"
            % (PROG, ",".join(map(str, over)), ncpu))


def main(argv=None):
    args = parse_args(argv)
    warning = over_cpus(args.numjobs, len(os.sched_getaffinity(0)),
                        getattr(args, "hosts", None))
    if warning:
        print(width.wrap(warning), file=sys.stderr)
    runs = matrix.build(list(args.scenarios), args.variants, args.numjobs,
                        args.repeats)
    if args.dry_run:
        return dry_run(args, runs)
    try:
        return Runner(args, runs).run()
    except fiojson.InputError as e:
        print(width.wrap("%s: %s" % (PROG, e)), file=sys.stderr)
        return 1
    except OSError as e:
        print(width.wrap("%s: %s%s; the finished runs are kept: fix that "
                         "and run the same command again" % (
                             PROG, "%s: " % e.filename if e.filename else "",
                             e.strerror or e)), file=sys.stderr)
        return 1
