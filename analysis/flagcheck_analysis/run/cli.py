"""flagcheck-run's command line: run fio job files over the mode x numjobs
x repeat matrix, one fio JSON and one engine stats file per run, plus
manifest.json; resumable after Ctrl-C."""

import argparse
import os
import re
import shlex
import sys

from ..results import fiojson, manifest, matrix
from ..stats import decide
from . import clock, hosts, interference, jobguard, lineprobe, placement
from ..calibrate import calibration as calibrate
from .runner import PROG, Runner, fio_command, run_env


def default_engine():
    """The engine beside an installed copy (make install puts both under
    $(PREFIX)/lib/flagcheck), else the one `make` builds in the tree."""
    installed = os.path.join(manifest.REPO, "fio-flagcheck.so")
    if os.path.isfile(installed):
        return installed
    return os.path.join(manifest.REPO, "build", "fio-flagcheck.so")


# Every variable the job files use; fio turns an unset one into "".
DEFAULT_VARS = {
    "FLAGCHECK_ENGINE": default_engine(),
    "RUNTIME": "3",
    "SIZE": "1g",
    "FILENAME": "flagcheck-null",
    "BACKEND": "null",
}
RUN_TIMEOUT_MARGIN = 60     # s beyond RUNTIME before a client run is stopped

EPILOG = """\
order: for each job file, for each numjobs, for each repeat, every mode in
turn (always, test_first, always, test_first, ...), so slow drift of the
machine hits all modes alike.

files in --outdir, per run (repeat counts from 1):
  <scenario>_<mode>_nj<numjobs>_r<repeat>.json             fio output
  <scenario>_<mode>_nj<numjobs>_r<repeat>.flagcheck.jsonl  engine counters
  manifest.json   host, versions, matrix, every run's command, env, status
scenario is the job file name without its extension.

environment given to fio (override with --set VAR=VALUE):
  FLAGCHECK_ENGINE  %(FLAGCHECK_ENGINE)s
  RUNTIME %(RUNTIME)s, SIZE %(SIZE)s, FILENAME %(FILENAME)s, BACKEND %(BACKEND)s
  FLAG_CHECK, NUMJOBS, FLAGCHECK_STATS  set per run from the matrix

on several hosts (--hosts FILE, --client HOST): every host runs
`fio --server`, with the engine at the FLAGCHECK_ENGINE path on its own disk
(make install puts it at the same path everywhere).  Per run, flagcheck-run
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
fio's null engine on the dev VM).  flagcheck-run gives every run one
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

interference: right before and after every run, flagcheck-run samples
/proc/stat, /proc/loadavg and, where readable, the CPU frequency governor
and frequencies.  "others" is the busy (user+nice+system) time of the run's
CPUs minus all CPU time of fio and of flagcheck-run itself; "steal" is the
hypervisor's steal time on them.  A run where either exceeds
--busy-threshold of the run's CPU time is marked busy in the manifest
("interference" of each run), and flagcheck-report names it.

--until-decided: each cell (a job file at one numjobs) first gets
--repeats interleaved repeats, then one more repeat of every mode at a
time until the IOPS ratio of every mode against the first mode is
decided: its 95%% bootstrap CI (the report's) excludes 1 and Welch's test
agrees, or the CI is narrower than +-PRECISION of the ratio; or until
--max-repeats.  No cell is decided on fewer than %(min)d runs per side.
The manifest's "cells" say, per cell, which it was and after how many
repeats.  Resuming re-decides from the runs on disk.

A job that writes (an rw= other than read or randread, on a backend other
than null) is refused when a file it names (filename, filename_format,
directory, a filename list, a symlink) is a block device, and on several
hosts when it names anything under /dev/, unless FLAGCHECK_DESTROY=yes (in
the environment or --set).  On several hosts a job with exec_prerun= or
exec_postrun= is refused unless --allow-exec: a fio server runs them.

A failed run's fio output is kept as <run>.json.failed (and quoted).
Ctrl-C stops the running fio, discards its partial output, keeps the
finished runs and marks the manifest incomplete; the same command again
resumes, skipping every run whose JSON exists and parses.

exit status: 0 the matrix is complete; 1 a fio run failed (the default
stops at the first failure, --keep-going runs the rest); 2 usage error;
130 interrupted.""" % dict(DEFAULT_VARS, min=decide.MIN_REPEATS)


def _csv_list(convert):
    def parse(text):
        items = [convert(x) for x in text.split(",") if x.strip()]
        if not items:
            raise argparse.ArgumentTypeError("empty list %r" % text)
        return items
    return parse


def _positive(text):
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(
            "%r: want a whole number of 1 or more" % text)
    return n


def _positive_float(text):
    try:
        x = float(text)
    except ValueError:
        x = 0.0
    if not 0 < x < float("inf"):
        raise argparse.ArgumentTypeError(
            "%r: want a number of seconds above 0" % text)
    return x


def _non_negative(text):
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(
            "%r: allowed are whole seconds, 0 or more" % text)
    return n


def _percent(text):
    try:
        x = float(text.strip().rstrip("%"))
    except ValueError:
        x = -1
    if not 0 < x < 100:
        raise argparse.ArgumentTypeError(
            "%r: allowed is a percentage above 0 and below 100" % text)
    return x


def _mode(text):
    text = text.strip()
    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_-]*$", text):
        raise argparse.ArgumentTypeError(
            "%r: a mode name is letters, digits, '_' and '-', starting "
            "with a letter or digit" % text)
    return text


def parse_args(argv):
    ncpu = len(os.sched_getaffinity(0))
    p = argparse.ArgumentParser(
        prog=PROG, description="Run fio job files over a matrix of "
        "flag_check modes x numjobs x repeats and keep every run's JSON.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("jobs", nargs="*", metavar="JOBFILE",
                   help="fio job file(s); same as --job")
    p.add_argument("--job", action="append", default=[], metavar="FILE",
                   help="fio job file to run (repeatable)")
    p.add_argument("--modes", type=_csv_list(_mode),
                   default=list(matrix.DEFAULT_MODES), metavar="A,B",
                   help="flag_check modes, run interleaved in this order "
                   "(default: always,test_first)")
    p.add_argument("--numjobs", type=_csv_list(_positive),
                   default=matrix.default_numjobs(ncpu), metavar="N,N",
                   help="numjobs values (default: 1,2,4,... up to the "
                   "usable CPUs, plus their number if not a power of two; "
                   "here: %s)" % ",".join(map(str, matrix.default_numjobs(
                       ncpu))))
    p.add_argument("--repeats", type=_positive, metavar="N",
                   help="runs per mode and numjobs (default: 5; with "
                   "--until-decided the runs before the first check, "
                   "default %d)" % decide.MIN_REPEATS)
    p.add_argument("--until-decided", action="store_true",
                   help="add interleaved repeats to each cell until its "
                   "IOPS ratio is decided (see below) or --max-repeats")
    p.add_argument("--max-repeats", type=_positive, default=10, metavar="N",
                   help="with --until-decided: at most N runs per mode and "
                   "numjobs (default: %(default)s)")
    p.add_argument("--precision", type=_percent,
                   default=100 * decide.DEFAULT_PRECISION, metavar="PCT",
                   help="with --until-decided: a CI narrower than +-PCT%% "
                   "of the ratio decides too (default: %(default)g)")
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
    p.add_argument("--calibrate-seconds", type=_positive_float,
                   default=calibrate.DEFAULT_SECONDS, metavar="SECONDS",
                   help="how long the calibration measures "
                   "(default: %(default)g)")
    p.add_argument("--busy-threshold", type=_percent,
                   default=100 * interference.DEFAULT_THRESHOLD,
                   metavar="PCT",
                   help="mark a run busy when others used, or the "
                   "hypervisor stole, more than PCT%% of its CPUs' time "
                   "(default: %(default)g)")
    p.add_argument("--runtime", type=_positive, metavar="SECONDS",
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
                   help="on several hosts: stop a run that takes longer "
                   "(default: RUNTIME + %d)" % RUN_TIMEOUT_MARGIN)
    p.add_argument("--allow-exec", action="store_true",
                   help="on several hosts: send a job file that has the "
                   "fio servers run a command (exec_prerun, exec_postrun); "
                   "refused without this (default: refuse)")
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
    args = p.parse_args(argv)
    args.jobs = args.jobs + args.job
    if not args.jobs:
        p.error("no job file given (JOBFILE or --job FILE)")
    if args.repeats is None:
        args.repeats = decide.MIN_REPEATS if args.until_decided else 5
    if args.until_decided and args.max_repeats < args.repeats:
        p.error("--max-repeats %d is less than --repeats %d"
                % (args.max_repeats, args.repeats))
    args.vars = dict(DEFAULT_VARS)
    if args.runtime is not None:
        args.vars["RUNTIME"] = str(args.runtime)
    for item in args.sets:
        var, eq, value = item.partition("=")
        if not eq or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", var):
            p.error("--set wants VAR=VALUE, got %r" % item)
        if var in matrix.MATRIX_VARS:
            p.error("%s is set per run from the matrix; use --modes or "
                    "--numjobs" % var)
        args.vars[var] = value
    scenarios = {}
    for job in args.jobs:
        if not os.path.isfile(job):
            p.error("job file %s: not found" % job)
        stem = os.path.splitext(os.path.basename(job))[0]
        if stem in scenarios:
            p.error("two job files named %s" % stem)
        scenarios[stem] = os.path.abspath(job)
    args.scenarios = scenarios
    try:
        args.hosts = [h for path in args.hosts for h in hosts.read_list(path)]
        for spec in args.client_hosts:
            try:
                args.hosts.append(hosts.parse(spec))
            except ValueError as e:
                raise hosts.HostError("--client %r: %s" % (spec, e))
        hosts.check_unique(args.hosts)
    except hosts.HostError as e:
        p.error(str(e))
    for stem, path in scenarios.items():
        for mode in args.modes:
            env = dict(os.environ, **matrix.run_env(
                args.vars, args.outdir, matrix.Run(stem, mode,
                                                   args.numjobs[0], 1)))
            try:
                jobguard.check_devices(path, env, remote=bool(args.hosts))
                if args.hosts and not args.allow_exec:
                    jobguard.check_exec(path, env)
            except jobguard.Refused as e:
                p.error(str(e))
    # the probe runs on this machine: never for runs on fio servers
    args.line_probe_s = None if args.no_line_probe or args.hosts \
        else lineprobe.SECONDS
    if args.hosts:
        args.clock = (None, "chosen by each fio server (--hosts)")
    else:
        args.clock = clock.choose(args.clocksource,
                                  clock.kernel_clocksource())
    try:
        old = manifest.load_previous(manifest.path_in(args.outdir))
    except fiojson.InputError:
        old = {}                # said where the manifest is built
    err = clock.resume_error(old, args.clock[0], args.outdir)
    if err:
        p.error(err)
    try:
        args.placements = placements(args)
    except placement.PlacementError as e:
        p.error(str(e))
    if args.hosts and args.run_timeout is None:
        try:
            args.run_timeout = float(args.vars["RUNTIME"]) \
                + RUN_TIMEOUT_MARGIN
        except ValueError:
            p.error("RUNTIME=%s is not a number of seconds: give "
                    "--run-timeout" % args.vars["RUNTIME"])
    return args


def placements(args):
    """{(scenario, numjobs): the manifest's "placement"}; none on several
    hosts (their CPUs are not this machine's)."""
    args.topology, args.policies = [], {}
    if args.hosts:
        return {}
    usable = sorted(os.sched_getaffinity(0))
    args.topology = topology = placement.read_topology(usable)
    out = {}
    for scenario, path in args.scenarios.items():
        policy = args.policies[scenario] = placement.scenario_policy(path)
        for n in args.numjobs:
            out[(scenario, n)] = (placement.floating(usable) if args.no_pin
                                  else placement.plan(topology, n, policy))
    return out


def _env_words(env):
    return " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env.items())


def dry_run(args, runs):
    if args.until_decided:
        print("# --until-decided: these first, then one more repeat of "
              "every mode at a time, up to %d, until each cell is decided"
              % args.max_repeats)
    for i, run in enumerate(runs, 1):
        out = matrix.json_path(args.outdir, run)
        print("# %d/%d %s" % (i, len(runs), matrix.run_name(run)))
        if not args.hosts:
            print(_env_words(run_env(args, run)) + " " + " ".join(
                shlex.quote(c) for c in fio_command(args, run, out)))
            continue
        for h in args.hosts:
            print("# %s gets %s, ${VARS} expanded from: %s" % (
                h.spec, matrix.host_job_path(args.outdir, run, h.label),
                _env_words(run_env(args, run, h))))
        print(" ".join(shlex.quote(c) for c in
                       fio_command(args, run, out, args.hosts)))
    return 0


def main(argv=None):
    args = parse_args(argv)
    runs = matrix.build(list(args.scenarios), args.modes, args.numjobs,
                        args.repeats)
    if args.dry_run:
        return dry_run(args, runs)
    try:
        return Runner(args, runs).run()
    except fiojson.InputError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
    except OSError as e:
        print("%s: %s%s; the finished runs are kept: fix that and run the "
              "same command again" % (
                  PROG, "%s: " % e.filename if e.filename else "",
                  e.strerror or e), file=sys.stderr)
        return 1
