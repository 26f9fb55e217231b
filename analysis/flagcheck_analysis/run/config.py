"""flagcheck run's configuration: the parsed arguments checked (a bad one
is a usage error naming it) and what follows from them (the job files'
variables, the scenarios, the hosts and so where the runs happen, the
clock, the placements), built once into a RunConfig that the runner, the
manifest and the hosts code read."""

import dataclasses
import os
import re
import sys

from ..inputs import fiojson, jobfile, manifest, matrix, numbers, safewrite
from .. import width
from ..stats import decide
from . import hosts, placement, runmanifest, runsettings
from ..guard import jobguard
from .local import Local
from .remote import Remote


def default_engine():
    """The engine beside an installed copy (make install puts both under
    $(PREFIX)/lib/flagcheck), else the one `make` builds in the tree."""
    installed = os.path.join(runmanifest.REPO, "fio-flagcheck.so")
    if os.path.isfile(installed):
        return installed
    return os.path.join(runmanifest.REPO, "build", "fio-flagcheck.so")


# Every variable the job files use; fio turns an unset one into "".
DEFAULT_VARS = {
    "FLAGCHECK_ENGINE": default_engine(),
    "RUNTIME": "3",
    "SIZE": "1g",
    "FILENAME": "flagcheck-null",
    "BACKEND": "null",
}
# fio keeps runtime= in microseconds in an unsigned long long
# (thread_options.h timeout, options.c is_seconds): its most, in seconds
MAX_RUNTIME = (2 ** 64 - 1) // 10 ** 6
RUN_TIMEOUT_MARGIN = 60     # s beyond RUNTIME before a client run is stopped


@dataclasses.dataclass(frozen=True)
class RunConfig:
    """One flagcheck run command: what it runs and how."""
    scenarios: dict         # {job file stem: its absolute path}
    variants: list
    numjobs: list
    repeats: int
    until_decided: bool
    max_repeats: int
    precision: float        # %, with until_decided
    no_pin: bool
    ramp: float             # s, fio's ramp_time
    clock: tuple            # (fio's clocksource or None, why)
    line_probe_s: object    # s, or None: no line probe
    no_calibrate: bool
    calibrate_seconds: float
    busy_threshold: float   # %
    vars: dict              # the job files' variables
    outdir: str
    json_plus: bool
    hosts: list             # hosts.Host, none on this machine
    executor: type          # Local or Remote: where the runs happen
    pinned: bool            # the jobs pinned to CPUs of their own
    ramp_s: int             # s, the warm-up that applies
    connect_timeout: float
    run_timeout: float      # s
    fio: str
    keep_going: bool
    quiet: bool
    dry_run: bool
    placements: dict        # {(scenario, numjobs): placement}
    topology: list          # placement.read_topology()
    policies: dict          # {scenario: its NUMA policy}
    expects: dict           # {scenario: its expect line, or None}

    @classmethod
    def of(cls, args):
        """The RunConfig of checked arguments (validate)."""
        return cls(**{f.name: getattr(args, f.name)
                      for f in dataclasses.fields(cls)})


def _jobs_and_repeats(p, args):
    args.jobs = args.jobs + args.job
    err = safewrite.dir_error("--outdir", args.outdir)
    if err:
        p.error(err)
    if not args.jobs:
        p.error("no job file given (JOBFILE or --job FILE)")
    if args.repeats is None:
        args.repeats = decide.MIN_REPEATS if args.until_decided else 5
    if args.until_decided and args.max_repeats < args.repeats:
        p.error("--max-repeats %d is less than --repeats %d"
                % (args.max_repeats, args.repeats))


def _vars(p, args):
    args.vars = dict(DEFAULT_VARS)
    if args.runtime is not None:
        args.vars["RUNTIME"] = str(args.runtime)
    for item in args.sets:
        var, eq, value = item.partition("=")
        if not eq or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", var):
            p.error("--set wants VAR=VALUE, got %r" % item)
        if var in matrix.MATRIX_VARS:
            p.error("%s is set per run from the matrix; use --variants or "
                    "--numjobs" % var)
        if var == "RUNTIME" and args.runtime is not None:
            p.error("--set RUNTIME=%s and --runtime %d: two runtimes; give "
                    "one of them" % (numbers.shown(value).strip("'"),
                                     args.runtime))
        args.vars[var] = value
    if not re.match(r"^[1-9][0-9]*$", args.vars["RUNTIME"]) or \
            not numbers.in_range(int(args.vars["RUNTIME"][:30]), 1,
                                 MAX_RUNTIME):
        # fio takes a negative runtime for none: it would run for ever
        p.error("--set RUNTIME=%s: want a whole number of seconds, 1 or "
                "more, at most %d (as --runtime)" % (
                    numbers.shown(args.vars["RUNTIME"]).strip("'"),
                    MAX_RUNTIME))


def _scenarios(p, args):
    scenarios = {}
    for job in args.jobs:
        try:
            jobfile.read_text(job)      # a regular file, of bounded size
        except jobfile.JobFileError as e:
            p.error(str(e))
        stem = os.path.splitext(os.path.basename(job))[0]
        if stem in scenarios:
            p.error("two job files named %s" % stem)
        scenarios[stem] = os.path.abspath(job)
    args.scenarios = scenarios


def _headers(p, args):
    """Every header line of every job file, before anything runs: a bad
    one, or a published machine with no profile, is a usage error."""
    args.expects = {}
    for stem, path in args.scenarios.items():
        try:
            args.expects[stem] = jobguard.check_headers(path)
        except jobguard.Refused as e:
            p.error(str(e))


def _hosts(p, args):
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


def _executor(p, args):
    # the one place that tells local runs from runs on fio servers
    args.executor = Remote if args.hosts else Local
    args.pinned = args.executor.pinned(args)
    args.ramp_s = args.executor.ramp_s(args)


def _guard(p, args):
    for stem, path in args.scenarios.items():
        for variant in args.variants:
            env = dict(os.environ, **matrix.run_env(
                args.vars, args.outdir, matrix.Run(stem, variant,
                                                   args.numjobs[0], 1)))
            try:
                args.executor.check_job(path, env, args)
            except jobguard.Refused as e:
                p.error(str(e))


def _parse(p, args):
    """Each job file as fio parses it, with each variant's variables:
    every variant of the run and of its expect line against the job's
    model, and every engine option, before any fio runs."""
    for stem, path in args.scenarios.items():
        expect = args.expects.get(stem)
        named = list(expect.groups) if expect else []
        for variant in args.variants + [v for v in named
                                        if v not in args.variants]:
            env = dict(os.environ, **matrix.run_env(
                args.vars, args.outdir, matrix.Run(stem, variant,
                                                   args.numjobs[0], 1)))
            why = args.executor.parse_error(path, env, args)
            if why and variant in args.variants:
                p.error("%s (--variants %s): %s" % (path, variant, why))
            if why:
                p.error("%s: expect names variant %s: %s"
                        % (expect.where, variant, why))


def _clock(p, args):
    args.clock, args.line_probe_s = args.executor.clock(args)
    try:
        old = runmanifest.load_previous(manifest.path_in(args.outdir))
    except fiojson.InputError:
        old = {}                # said where the manifest is built
    err = runsettings.resume_error(old, args)
    if err:
        p.error(err)


def _placements(p, args):
    try:
        args.placements, args.topology, args.policies = \
            args.executor.placements(args)
    except placement.PlacementError as e:
        p.error(str(e))


def _patterns(p, args):
    # the engine's pattern options as fio hands them over, per numjobs
    pinned = bool(args.placements) and all(
        pl.get("pinned") for pl in args.placements.values())
    warned = set()
    for stem, path in args.scenarios.items():
        for n in args.numjobs:
            env = dict(os.environ, **matrix.run_env(
                args.vars, args.outdir, matrix.Run(stem, args.variants[0], n,
                                                   1)))
            try:
                for w in jobguard.check_patterns(path, env, pinned=pinned):
                    if w not in warned:
                        warned.add(w)
                        print(width.wrap("flagcheck run: warning: %s" % w),
                              file=sys.stderr)
            except jobguard.Refused as e:
                p.error(str(e))


def _run_timeout(p, args):
    if args.run_timeout is None:
        args.run_timeout = int(args.vars["RUNTIME"]) + args.ramp_s + \
            RUN_TIMEOUT_MARGIN


# in this order: each step reads what the ones before it set
STEPS = (_jobs_and_repeats, _vars, _scenarios, _headers, _hosts, _executor,
         _guard, _parse, _clock, _placements, _patterns, _run_timeout)


def validate(p, args):
    """Check the arguments parser p parsed into args, in place, adding
    what follows from them; p.error() (exit status 2) names a bad one."""
    for step in STEPS:
        step(p, args)
    return args
