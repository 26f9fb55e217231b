"""The runs of a flagcheck run command on this machine: each job pinned
to its CPUs (placement), fio's clock chosen once, the line probe and the
interference record around each run, the machine calibrated once, and a
run done only when the engine's counters agree with fio."""

import os
import shlex
import sys

from ..inputs import fiojson, matrix
from ..calibrate import calibration
from . import clock, interference, lineprobe, placement
from ..guard import jobguard
from .executor import Executor, Status, env_words
from .progress import PROG


def aux_args(args):
    """fio's --aux-path: the files fio derives names for itself (the
    verify state, local-JOB-N-verify.state; verify dumps) go into the
    results directory, not into the directory flagcheck run started in."""
    return ["--aux-path=" + os.path.abspath(args.outdir)]


class Local(Executor):
    @staticmethod
    def check_job(path, env, args):
        """Raises jobguard.Refused for a job that would write a block
        device, or a file the rule for written paths refuses (a link at
        the run's counters file is not: the runner removes it)."""
        jobguard.check_devices(path, env, aux_args(args), remote=False,
                               cleared=(env["FLAGCHECK_STATS"],))

    @staticmethod
    def parse_error(path, env, args):
        """fio --parse-only of a job file that loads the engine: its
        options checked (the variant against the job's model)."""
        return jobguard.parse_error(path, env, args.fio)

    @staticmethod
    def clock(args):
        """(fio's clocksource, why), and the line probe's seconds."""
        return (clock.choose(args.clocksource, clock.kernel_clocksource()),
                None if args.no_line_probe else lineprobe.SECONDS)

    @staticmethod
    def placements(args):
        """({(scenario, numjobs): the manifest's "placement"}, the
        topology, {scenario: its NUMA policy}); raises
        placement.PlacementError."""
        usable = sorted(os.sched_getaffinity(0))
        topology = placement.read_topology(usable)
        out, policies = {}, {}
        for scenario, path in args.scenarios.items():
            policy = policies[scenario] = placement.scenario_policy(path)
            for n in args.numjobs:
                out[(scenario, n)] = (placement.floating(usable)
                                      if args.no_pin
                                      else placement.plan(topology, n,
                                                          policy))
        return out, topology, policies

    @staticmethod
    def pinned(args):
        return not args.no_pin

    @staticmethod
    def ramp_s(args):
        return args.ramp

    def __init__(self, args, progress=None, stopped=None):
        super().__init__(args, progress, stopped)
        self.line_probe = bool(args.line_probe_s)

    def command(self, run, output):
        a = self.args
        return [a.fio, "--output-format=" + ("json+" if a.json_plus
                                             else "json"),
                "--output=" + output] + aux_args(a) \
            + (["--ramp_time=%d" % a.ramp] if a.ramp else []) \
            + clock.fio_args(a.clock[0]) \
            + placement.fio_args(a.placements.get((run.scenario,
                                                   run.numjobs))) \
            + [a.scenarios[run.scenario]]

    def before(self, run, entry):
        self.place = self.args.placements[(run.scenario, run.numjobs)]
        entry["placement"] = self.place
        self.line_cpus = lineprobe.cpus_of(self.place)
        self.line_before = self._probe_line(self.line_cpus)
        self.sample = interference.sample(self.place["cpus"])

    def after(self, entry):
        cpus = self.place["cpus"]
        entry["interference"] = interference.measure(
            self.sample, interference.sample(cpus), cpus,
            self.args.busy_threshold / 100)
        if self.line_before is not None:
            entry["line_probe"] = {"cpus": self.line_cpus,
                                   "before_ns": self.line_before,
                                   "after_ns": self._probe_line(
                                       self.line_cpus)}

    def _probe_line(self, cpus):
        """The line between @cpus now, one way in ns, or None (no pair to
        probe, probes off, or the probe failed: said once)."""
        if not cpus or not self.line_probe or self.stopped():
            return None
        try:
            return round(lineprobe.probe(
                cpus, seconds=self.args.line_probe_s), 1)
        except calibration.CalibrationError as e:
            self.line_probe = False
            self.progress.say("line probe: %s; no more probes in this "
                              "matrix (--no-line-probe leaves them out)" % e,
                              error=True)
            return None

    def done(self, run, entry, out, kept):
        """A local run is done only when the engine's counters describe
        it: its I/O count equals fio's (another fio writing the same
        counters file, or a stale one, breaks that), and they are what
        the job file's expect line says."""
        name = matrix.run_name(run)
        broken = []
        try:
            records = fiojson.load_counters(
                matrix.counters_path(self.args.outdir, run))
            why = fiojson.counts_disagree(fiojson.load_fio_json(out),
                                          records)
        except fiojson.InputError as e:
            why = str(e)
        if why is None:
            broken = self.expect_failures(run, records)
            if not broken:
                return Status.OK
            why = "its counters break the job file's expect line, so the " \
                "job does not model what it says"
        os.replace(out, kept)
        entry.update(failure="%s: %s; not a measurement%s (fio's output is "
                     "in %s)" % (name, why, "" if broken else ", run again",
                                 os.path.basename(kept)),
                     failed_output=os.path.basename(kept), stderr_tail=broken)
        return Status.FAILED

    def timeout_reason(self):
        return "fio did not finish"

    def calibrate(self):
        """This machine's cache-line costs, once per results directory
        (calibration.json, kept on resume), for the report's why section:
        before the runs, on the same CPUs, with no fio running."""
        a = self.args
        if a.no_calibrate or self.stopped():
            return {}
        if not a.quiet:
            print("%s: calibrating this machine's cache-line costs "
                  "(%g s; --no-calibrate skips it)"
                  % (PROG, a.calibrate_seconds), file=sys.stderr)
        progress = None if a.quiet else calibration.Progress(PROG)
        doc = calibration.ensure(a.outdir, seconds=a.calibrate_seconds,
                                 warn=lambda m: self.progress.say(
                                     m, error=True),
                                 progress=progress)
        if progress:
            progress.done()
        if self.stopped():
            return {}
        return {"calibration": calibration.JSON_NAME if doc else None}

    def dry_run(self, run, out):
        """--dry-run's line of one run: its environment and command."""
        return [env_words(self.env(run)) + " " + " ".join(
            shlex.quote(c) for c in self.command(run, out))]
