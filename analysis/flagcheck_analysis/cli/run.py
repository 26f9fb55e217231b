"""flagcheck run's command line: run fio job files over the variant x numjobs
x repeat matrix, one fio JSON and one engine stats file per run, plus
manifest.json; resumable after Ctrl-C."""

import argparse
import os
import re
import sys

from ..inputs import fiojson, matrix, numbers
from .. import width
from . import argparser
from ..stats import decide
from ..run import clock, interference
from ..calibrate import calibration
from ..run.config import (DEFAULT_VARS, MAX_RUNTIME, RUN_TIMEOUT_MARGIN,
                          RunConfig, validate)
from ..run.progress import PROG
from ..run.runner import Runner


MAX_NUMJOBS = 4096          # fio's own limit on jobs (REAL_MAX_JOBS, fio.h)
MAX_REPEATS = 10000         # runs per variant and numjobs

# the rest (the order, the files, fio's environment, hosts, pinning, the
# clock, the line probe, warm-up, interference, --until-decided, refusals,
# resuming) is docs/analysis.md's "flagcheck run", not --help's
EPILOG = """\
Runs every variant in turn per repeat; one fio JSON and counters file per run, plus manifest.json, in --outdir.
Ctrl-C keeps the finished runs: the same command again resumes.
example: flagcheck run jobs/filemap-odirect-read.fio --numjobs 1,2 --until-decided
exit status: 0 the matrix is complete, 1 a fio run failed, 2 usage error, 130 interrupted.
The order, files, fio's environment, hosts, pinning, clock, line probe, warm-up, interference, --until-decided,
refusals and resuming in full: docs/analysis.md (flagcheck run), docs/hosts.md, docs/errors.md."""


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


# a variant names each run's files (JOB_VARIANT_nj4096_r1000.flagcheck.jsonl
# within NAME_MAX, 255 bytes): 64 characters, twice the engine's own
# longest (engine/options.h keeps 31), leave the job's name 150
MAX_VARIANT = 64


def _variant(text):
    text = text.strip()
    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,%d}$" % (MAX_VARIANT - 1),
                    text):
        raise argparse.ArgumentTypeError(
            "%s: a variant name is 1 to %d letters, digits, '_' and '-', "
            "starting with a letter or digit" % (
                numbers.shown(text), MAX_VARIANT))
    return text


def _matrix_options(p, ncpu):
    """The files, variants, numjobs and repeats of the matrix."""
    p.add_argument("jobs", nargs="*", metavar="JOBFILE",
                   help="fio job file(s) to run; same as --job")
    p.add_argument("--job", action="append", default=[], metavar="FILE",
                   help="fio job file to run (repeatable)")
    p.add_argument("--variants", type=_csv_list(_variant),
                   default=list(matrix.DEFAULT_VARIANTS), metavar="A,B",
                   help="engine variant= values, run interleaved (default "
                   "%s)" % ",".join(matrix.DEFAULT_VARIANTS))
    p.add_argument("--numjobs", type=_csv_list(_at_most(MAX_NUMJOBS)),
                   default=matrix.default_numjobs(ncpu), metavar="N,N",
                   help="numjobs values, 1-%d (default 1,2,4,..,CPUs; "
                   "here %s)" % (MAX_NUMJOBS, ",".join(map(
                       str, matrix.default_numjobs(ncpu)))))
    p.add_argument("--repeats", type=_at_most(MAX_REPEATS), metavar="N",
                   help="runs per variant and numjobs, 1-%d (default 5; "
                   "%d with --until-decided)" % (MAX_REPEATS,
                                                 decide.MIN_REPEATS))
    p.add_argument("--until-decided", action="store_true",
                   help="repeat each cell until its IOPS ratio is decided "
                   "or --max-repeats")
    p.add_argument("--max-repeats", type=_at_most(MAX_REPEATS), default=10,
                   metavar="N",
                   help="--until-decided: most runs per variant and "
                   "numjobs (default %(default)s)")
    p.add_argument("--precision", type=_percent,
                   default=100 * decide.DEFAULT_PRECISION, metavar="PCT",
                   help="--until-decided: a CI within +-PCT%% of the ratio "
                   "decides too, 0-100 (default %(default)g)")


def _condition_options(p):
    """How each run is made: pinning, clock, line probe, warm-up,
    calibration, busy mark."""
    p.add_argument("--no-pin", action="store_true",
                   help="let the jobs float (default: one CPU per job)")
    p.add_argument("--clocksource", choices=clock.CHOICES, default="auto",
                   metavar="CLOCK",
                   help="fio's clock: %s (default %%(default)s, here %s)"
                   % ("|".join(clock.CHOICES), clock.default_for_here()))
    p.add_argument("--no-line-probe", action="store_true",
                   help="skip timing the line between job 1's and 2's CPUs "
                   "around each run")
    p.add_argument("--ramp", type=_non_negative, default=1,
                   metavar="SECONDS",
                   help="warm-up per run, fio's ramp_time; 0 none "
                   "(default %(default)s)")
    p.add_argument("--no-calibrate", action="store_true",
                   help="skip measuring cache-line costs into --outdir "
                   "(default: once; never on hosts)")
    p.add_argument("--calibrate-seconds", type=calibration.seconds_arg,
                   default=calibration.DEFAULT_SECONDS, metavar="SECONDS",
                   help="calibration time, 0.01-3600 (default %(default)g)")
    p.add_argument("--busy-threshold", type=_percent,
                   default=100 * interference.DEFAULT_THRESHOLD,
                   metavar="PCT",
                   help="mark a run busy above PCT%% others/steal of its "
                   "CPU time (default %(default)g)")


def _output_options(p):
    """The job files' variables and what is kept."""
    p.add_argument("--runtime", type=_at_most(MAX_RUNTIME), metavar="SECONDS",
                   help="seconds per run, sets RUNTIME (default %s)"
                   % DEFAULT_VARS["RUNTIME"])
    p.add_argument("--outdir", default="results", metavar="DIR",
                   help="results directory; an existing one resumes "
                   "(default %(default)s)")
    p.add_argument("--set", action="append", default=[], dest="sets",
                   metavar="VAR=VALUE",
                   help="job file variable, after --runtime (repeatable)")
    p.add_argument("--json-plus", action="store_true",
                   help="fio --output-format=json+: latency histograms, "
                   "exact percentiles")


def _host_options(p):
    """Runs on fio servers."""
    p.add_argument("--hosts", action="append", default=[], metavar="FILE",
                   help="run on the fio servers in FILE, host[,port] a "
                   "line (repeatable)")
    p.add_argument("--client", action="append", default=[], metavar="HOST",
                   dest="client_hosts",
                   help="run on the fio server at HOST[,port] (repeatable; "
                   "adds to --hosts)")
    p.add_argument("--connect-timeout", type=_positive_float, default=10.0,
                   metavar="SECONDS",
                   help="hosts: time a host has to answer before each run "
                   "(default %(default)g)")
    p.add_argument("--run-timeout", type=_positive_float, metavar="SECONDS",
                   help="stop a run past this (default RUNTIME+ramp+%d)"
                   % RUN_TIMEOUT_MARGIN)
    p.add_argument("--allow-exec", action="store_true",
                   help="hosts: allow job files that run programs on the "
                   "servers (default refuse)")


def _fio_options(p):
    """The fio binary and how the command behaves."""
    p.add_argument("--fio", default="fio", metavar="PATH",
                   help="fio binary (default %(default)s)")
    p.add_argument("--keep-going", action="store_true",
                   help="go on after a failed fio run (default stop)")
    p.add_argument("--quiet", action="store_true",
                   help="print errors only (default: a status line or a "
                   "line per run)")
    p.add_argument("--dry-run", action="store_true",
                   help="print each run's command and environment; run "
                   "nothing")


def build_parser(ncpu=None):
    """flagcheck run's options (ncpu: the usable CPUs, for the --numjobs
    default; by default this process's)."""
    if ncpu is None:
        ncpu = len(os.sched_getaffinity(0))
    p = argparser.ArgumentParser(
        prog=PROG, description="Run fio job files over a matrix of "
        "variants x numjobs x repeats and keep every run's JSON.",
        epilog=EPILOG)
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
        rc = Runner(args, runs).run()
    except fiojson.InputError as e:
        print(width.wrap("%s: %s" % (PROG, e)), file=sys.stderr)
        return 1
    except OSError as e:
        print(width.wrap("%s: %s%s; the finished runs are kept: fix that "
                         "and run the same command again" % (
                             PROG, "%s: " % e.filename if e.filename else "",
                             e.strerror or e)), file=sys.stderr)
        return 1
    if rc == 0 and not args.quiet:
        # the report's modules only now: run --help loads none of them
        from . import report
        sys.stderr.flush()
        sys.stdout.write("\n" + report.bottom_line(args.outdir,
                                                   args.variants[0]))
    return rc
