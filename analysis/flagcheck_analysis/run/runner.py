"""The runs of one flagcheck-run command, one after the other: fio in its
own session, a live status line, Ctrl-C, and the manifest written after
every run, so that the same command resumes."""

import os
import signal
import subprocess
import sys
import time

from ..results import fiojson, manifest, matrix, runrecord
from ..stats import decide
from . import (clock, clientserver, interference, jobfile,
               lineprobe, outdirlock, placement, proctree, runmanifest)
from .progress import PROG, Progress
from ..calibrate import calibration

STDERR_TAIL = 20            # lines of fio's stderr kept for a failed run


def fio_command(args, run, output, live=None):
    """One fio run; on several hosts (`live`, the hosts that answered) one
    `fio --client` for them all."""
    fmt = "json+" if args.json_plus else "json"
    if live is None:
        return [args.fio, "--output-format=" + fmt, "--output=" + output] \
            + (["--ramp_time=%d" % args.ramp] if args.ramp else []) \
            + clock.fio_args(args.clock[0]) \
            + placement.fio_args(args.placements.get((run.scenario,
                                                      run.numjobs))) \
            + [args.scenarios[run.scenario]]
    return clientserver.client_command(args, run, output, live, fmt)


def run_env(args, run, host=None):
    """The job files' variables for one run (and one host: each host has
    its own stats file)."""
    return matrix.run_env(args.vars, args.outdir, run,
                          None if host is None else host.label)


def _unlink(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _text_lines(path):
    """The lines of a fio output file before its JSON begins."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("{"):
            return lines[:i]
    return lines


class Runner:
    def __init__(self, args, runs):
        self.args, self.runs = args, runs
        self.proc = None
        self.stop_reason = None
        self.progress = Progress(args.quiet)
        self.manifest_path = manifest.path_in(args.outdir)
        self.line_probe = bool(args.line_probe_s)
        self.records = {}           # runrecord.run_record per scenario

    # -- signals: Ctrl-C reaches only us (fio runs in its own session); we
    # pass one SIGINT on to fio, and SIGKILL (fio and its job processes) on
    # a second Ctrl-C.
    def _on_signal(self, signum, frame):
        first = self.stop_reason is None
        self.stop_reason = "interrupted by %s" % signal.Signals(signum).name
        if self.proc is not None and self.proc.poll() is None:
            if first:
                self.proc.send_signal(signal.SIGINT)
            else:
                proctree.kill_tree(self.proc.pid)

    def _write_manifest(self):
        manifest.write(self.manifest_path, self.manifest)

    def _probe(self, run, entry):
        """(live hosts, [(down host, reason)]); names each down host."""
        live, down = clientserver.probe(self.args)
        for h, reason in down:
            self.progress.say("%s: host %s is down: %s; %s" % (
                PROG, h.spec, reason,
                "running %s on the other %d host(s)"
                % (matrix.run_name(run), len(live)) if live
                else "no host left to run %s" % matrix.run_name(run)),
                error=True)
        entry["hosts"] = clientserver.host_entries(live, down)
        return live, down

    def _hosts_ready(self, run, entry, name):
        """On several hosts: (live hosts, down ones), their job files
        written, or the entry's status when the run cannot start."""
        live, down = self._probe(run, entry)
        if self.stop_reason is not None:
            return "interrupted"
        if not live:
            entry.update(rc=None, failure="%s did not run: no host "
                         "answered" % name, stderr_tail=["%s: %s" % (h.spec, r)
                                                  for h, r in down])
            return "failed"
        for path in clientserver.stats_paths(self.args, run):
            if os.path.exists(path):
                os.unlink(path)
        try:
            entry["job_files"] = clientserver.write_job_files(self.args, run,
                                                         live)
        except jobfile.JobFileError as e:
            entry.update(rc=None, failure="%s did not run: no job "
                         "file for the hosts" % name, stderr_tail=[str(e)])
            return "failed"
        return live, down

    def _wait(self, deadline, tick):
        """fio's (stdout, stderr) and whether it ran past the deadline."""
        timed_out = False
        while True:
            try:
                stdout, stderr = self.proc.communicate(timeout=1)
                return stdout, stderr, timed_out
            except subprocess.TimeoutExpired:
                tick()
                if time.monotonic() > deadline:
                    # a fio that does not end (a host that hangs after
                    # answering, a job that never stops): SIGINT lets fio
                    # stop its jobs and servers; SIGKILL 10 s later, to
                    # its job processes too (each in a session of its own)
                    if timed_out:
                        proctree.kill_tree(self.proc.pid)
                    else:
                        self.proc.send_signal(signal.SIGINT)
                    timed_out, deadline = True, time.monotonic() + 10

    def _hosts_done(self, run, entry, live, down, out, kept, name):
        """The status of a run on several hosts that fio finished."""
        failed = clientserver.hosts_without_results(live, entry, out)
        live = [h for h in live if h not in failed]
        if live:
            clientserver.collect_counters(self.args, run, entry, live, out)
            return "partial" if down or failed else "ok"
        # nothing a resume or the report could take for a result
        os.replace(out, kept)
        entry.update(failure="%s: no job results from any host; what "
                     "the servers said (all of it in %s)"
                     % (name, os.path.basename(kept)),
                     failed_output=os.path.basename(kept),
                     stderr_tail=["%s: %s" % (h.spec, line)
                                  for h in failed for line in
                                  entry["hosts"][h.label]["reason"]])
        return "failed"

    def _failed(self, entry, name, rc, partial, kept, output, timed_out,
                live):
        """The entry of a run fio failed (output: its stderr or stdout)."""
        # fio's own words: its stderr, and the text before the JSON in its
        # output file (in client mode, "client: host=... disconnected")
        text = _text_lines(partial) + (output or b"").decode(
            "utf-8", "replace").splitlines()
        if os.path.exists(partial):
            os.replace(partial, kept)
            entry["failed_output"] = os.path.basename(kept)
        entry["failure"] = "fio failed on %s (exit status %s); the end of " \
            "its output%s" % (name, rc, " (all of it in %s)" % os.path.basename(kept)
                          if "failed_output" in entry else "")
        entry["stderr_tail"] = text[-STDERR_TAIL:]
        if timed_out:
            entry["stderr_tail"].append(
                "stopped after --run-timeout %g s: %s" % (
                    self.args.run_timeout, "fio did not finish" if live is None
                    else "a host answered but did not finish (hosts: %s)"
                    % ", ".join(h.spec for h in live)))
        return "failed"

    def _execute(self, run, entry, tick):
        """Run fio once; returns the entry's new status."""
        name, out = matrix.run_name(run), matrix.json_path(self.args.outdir,
                                                           run)
        partial = out + ".partial"
        live, down = None, []
        if self.args.hosts:
            ready = self._hosts_ready(run, entry, name)
            if isinstance(ready, str):
                return ready
            live, down = ready
        # fio opens its output, and the engine its counters, following
        # links: whatever lies at their names (a link planted there) goes
        for path in (partial, matrix.stats_path(self.args.outdir, run)):
            _unlink(path)
        cmd = fio_command(self.args, run, partial, live)
        env = run_env(self.args, run)
        record = runrecord.run_record(self.args, run.scenario,
                                      self.records)
        # beside the run's files, for a resume without this manifest
        runrecord.write_setup(self.args.outdir, run, record)
        entry.update(command=cmd, cwd=os.getcwd(), env=env,
                     started=manifest.now(), **record)
        before = line_before = None
        if live is None:
            place = self.args.placements[(run.scenario, run.numjobs)]
            entry["placement"] = place
            line_cpus = lineprobe.cpus_of(place)
            line_before = self._probe_line(line_cpus)
            before = interference.sample(place["cpus"])
        start = time.monotonic()
        deadline = start + self.args.run_timeout
        # the lock goes with fio: a fio that outlives us (it should not:
        # die_with) still keeps every other flagcheck-run out
        self.proc = subprocess.Popen(
            cmd, env=dict(os.environ, **env), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            start_new_session=True, pass_fds=(self.lock_fd,),
            preexec_fn=proctree.die_with(os.getpid()))
        outdirlock.note(self.lock_fd, fio=self.proc.pid, run=name)
        stdout, stderr, timed_out = self._wait(deadline, tick)
        rc, self.proc = self.proc.returncode, None
        entry.update(rc=rc, seconds=round(time.monotonic() - start, 3))
        if before is not None:
            entry["interference"] = interference.measure(
                before, interference.sample(place["cpus"]), place["cpus"],
                self.args.busy_threshold / 100)
        if line_before is not None:
            entry["line_probe"] = {"cpus": line_cpus,
                                   "before_ns": line_before,
                                   "after_ns": self._probe_line(line_cpus)}
        kept = out + ".failed"
        if self.stop_reason is None and rc == 0 and not timed_out:
            os.replace(partial, out)
            _unlink(kept)
            if live is None:
                return self._counted(run, entry, out, kept)
            return self._hosts_done(run, entry, live, down, out, kept, name)
        for path in [matrix.stats_path(self.args.outdir, run)] + \
                clientserver.stats_paths(self.args, run):
            _unlink(path)
        if self.stop_reason is not None:
            _unlink(partial)
            return "interrupted"
        return self._failed(entry, name, rc, partial, kept,
                            stderr or stdout, timed_out, live)

    def _counted(self, run, entry, out, kept):
        """A local run is done only when the engine's counters describe
        it: its I/O count equals fio's (another fio writing the same
        counters file, or a stale one, breaks that)."""
        name = matrix.run_name(run)
        try:
            why = fiojson.counts_disagree(
                fiojson.load_fio_json(out),
                fiojson.load_stats(matrix.stats_path(self.args.outdir, run)))
        except fiojson.InputError as e:
            why = str(e)
        if why is None:
            return "ok"
        os.replace(out, kept)
        entry.update(failure="%s: %s; not a measurement, run again (fio's "
                     "output is in %s)" % (name, why, os.path.basename(kept)),
                     failed_output=os.path.basename(kept), stderr_tail=[])
        return "failed"

    def _one(self, run):
        """Run one run of the matrix unless it is done; False when the
        matrix must stop."""
        entry = self.entry_of[run]
        self.count += 1
        if entry["status"] == "ok":
            return True
        i, name = self.count, matrix.run_name(run)
        total = len(self.runs)
        left = total - i + 1

        def tick():
            self.progress.line(i, total, name, self.t0, self.durations, left)
        tick()
        entry["status"] = self._execute(run, entry, tick)
        self.manifest["updated"] = manifest.now()
        self._write_manifest()
        if entry["status"] == "interrupted":
            return False
        if "seconds" in entry:          # fio ran
            self.durations.append(entry["seconds"])
        busy = (entry.get("interference") or {}).get("reasons")
        self.progress.line(i, total, name, self.t0, self.durations, left - 1,
                       done=entry["status"] + (" (busy: %s)" % "; ".join(
                           busy) if busy else ""))
        if entry["status"] == "partial":
            hosts = entry["hosts"].values()
            print("%s: %s ran on %d of %d hosts, results kept; %s" % (
                PROG, name,
                sum(1 for h in hosts if h["status"] == "ok"),
                len(entry["hosts"]), "; ".join(
                    "%s: %s" % (what, ", ".join(
                        h["spec"] for h in hosts if h["status"] == what))
                    for what in ("down", "failed")
                    if any(h["status"] == what for h in hosts))),
                file=sys.stderr)
            for h in hosts:
                for line in h.get("reason", []) \
                        if h["status"] == "failed" else ():
                    print("  %s: %s" % (h["spec"], line), file=sys.stderr)
        elif entry["status"] == "failed":
            print("%s: %s:\n  %s" % (
                PROG, entry["failure"],
                "\n  ".join(entry["stderr_tail"]) or "(nothing)"),
                file=sys.stderr)
        if entry["status"] in ("failed", "partial"):
            self.failed += 1
            if not self.args.keep_going:
                self.stop_reason = "stopped after a failed run"
        return not self.stop_reason

    def _add_repeat(self, scenario, numjobs, repeat):
        """The runs of one more repeat of a cell (--until-decided), with
        their manifest entries; done ones (a resumed matrix) stay done."""
        runs = [matrix.Run(scenario, mode, numjobs, repeat)
                for mode in matrix.modes_in_order(self.args.modes, repeat)]
        entries = manifest.run_entries(self.args.outdir, runs, self.old)
        names = {e["name"] for e in entries}
        self.runs += runs
        self.manifest["runs"] = [e for e in self.manifest["runs"]
                                 if e.get("name") not in names] + entries
        self.entry_of.update(zip(runs, entries))
        return runs

    def _decide(self, runs):
        ok = [r for r in runs if self.entry_of[r]["status"] == "ok"]
        by_repeat = decide.cell_values_by_repeat(self.args.outdir, ok)
        values = {m: list(v.values()) for m, v in by_repeat.items()}
        return decide.decide_cell(values, self.args.modes,
                                  self.args.precision / 100, by_repeat)

    def _run_cell(self, scenario, numjobs, first):
        """All repeats of one cell; with --until-decided, one more repeat
        of every mode at a time until it is decided or --max-repeats."""
        a = self.args
        runs, repeat, stopped = [], 0, None
        while stopped is None:
            repeat += 1
            pair = [r for r in first if r.repeat == repeat] or \
                self._add_repeat(scenario, numjobs, repeat)
            for run in pair:
                if not self._one(run):
                    return
            runs += pair
            if not a.until_decided:
                if repeat >= a.repeats:
                    stopped = "repeats"
            elif repeat >= a.repeats:
                decisions = self._decide(runs)
                if decide.is_decided(decisions):
                    stopped = "decided"
                elif repeat >= a.max_repeats:
                    stopped = "max_repeats"
        decisions = self._decide(runs)
        base = a.modes[0]
        self.manifest["cells"].append({
            "scenario": scenario, "numjobs": numjobs, "repeats": repeat,
            "stopped": stopped,
            "decisions": [{"mode": d.mode, "reason": d.reason,
                           "ratio": d.ratio,
                           "ci": list(d.ci) if d.ci else None,
                           "by": d.by}
                          for d in decisions],
            "text": "; ".join(decide.text(d, base, a.precision / 100)
                              for d in decisions)})
        self._write_manifest()
        if a.until_decided:
            self.progress.say(
                "%s: %s nj%d: %s after %d repeats per mode: %s" % (
                    PROG, scenario, numjobs,
                    "decided" if stopped == "decided"
                    else "undecided (--max-repeats)", repeat,
                    self.manifest["cells"][-1]["text"]))

    def _cells(self):
        """[(scenario, numjobs, its runs of the first --repeats)] in run
        order (matrix.build keeps a cell's runs together)."""
        cells = []
        for run in self.runs:
            if not cells or cells[-1][:2] != (run.scenario, run.numjobs):
                cells.append((run.scenario, run.numjobs, []))
            cells[-1][2].append(run)
        return cells

    def _probe_line(self, cpus):
        """The line between @cpus now, one way in ns, or None (no pair to
        probe, probes off, or the probe failed: said once)."""
        if not cpus or not self.line_probe or self.stop_reason:
            return None
        try:
            return round(lineprobe.probe(
                cpus, seconds=self.args.line_probe_s), 1)
        except calibration.CalibrationError as e:
            self.line_probe = False
            self.progress.say("line probe: %s; no more probes in this matrix "
                      "(--no-line-probe leaves them out)" % e, error=True)
            return None

    def _calibrate(self):
        """This machine's cache-line costs, once per results directory
        (calibration.json, kept on resume), for the report's why section:
        before the runs, on the same CPUs, with no fio running."""
        if self.args.no_calibrate or self.args.hosts or self.stop_reason:
            return
        if not self.args.quiet:
            print("%s: calibrating this machine's cache-line costs "
                  "(%g s; --no-calibrate skips it)"
                  % (PROG, self.args.calibrate_seconds), file=sys.stderr)
        progress = None if self.args.quiet else calibration.Progress(PROG)
        doc = calibration.ensure(self.args.outdir,
                               seconds=self.args.calibrate_seconds,
                               warn=lambda m: self.progress.say(m, error=True),
                               progress=progress)
        if progress:
            progress.done()
        if self.stop_reason:
            return
        self.manifest["calibration"] = calibration.JSON_NAME if doc else None
        self._write_manifest()

    def run(self):
        os.makedirs(self.args.outdir, exist_ok=True)
        try:
            self.lock_fd = outdirlock.lock(self.args.outdir)
        except outdirlock.Busy as e:
            print("%s: %s" % (PROG, e), file=sys.stderr)
            return 1
        try:
            outdirlock.note(self.lock_fd)
            return self._run()
        finally:
            os.close(self.lock_fd)

    def _run(self):
        self.old = runmanifest.load_previous(self.manifest_path)
        self.manifest = runmanifest.build(self.args, self.runs, self.old)
        entries = self.manifest["runs"][:len(self.runs)]
        self.entry_of = dict(zip(self.runs, entries))
        self._write_manifest()
        skipped = sum(1 for e in entries if e["status"] == "ok")
        if skipped and not self.args.quiet:
            print("%s: resuming in %s: %d of %d runs already done"
                  % (PROG, self.args.outdir, skipped, len(self.runs)),
                  file=sys.stderr)
        old = {s: signal.signal(s, self._on_signal)
               for s in (signal.SIGINT, signal.SIGTERM)}
        self.t0, self.durations, self.failed = time.monotonic(), [], 0
        self.count = 0
        try:
            # under the handlers: Ctrl-C here stops the run like any other
            self._calibrate()
            for scenario, numjobs, first in self._cells():
                if self.stop_reason:
                    break
                self._run_cell(scenario, numjobs, first)
        finally:
            for s, handler in old.items():
                signal.signal(s, handler)
        # this command's matrix; the runs outside it are kept as they were
        entries = list(self.entry_of.values())
        done = sum(1 for e in entries if e["status"] == "ok")
        self.manifest["complete"] = done == len(entries)
        if self.stop_reason:
            self.manifest["stopped"] = self.stop_reason
        self.manifest["updated"] = manifest.now()
        self._write_manifest()
        if self.manifest["complete"]:
            if not self.args.quiet:
                print("%s: all %d runs done in %s" % (PROG, done,
                      self.args.outdir), file=sys.stderr)
            return 0
        print("%s: %s: %d of %d runs done; the same command resumes"
              % (PROG, self.stop_reason or "%d runs failed" % self.failed,
                 done, len(entries)), file=sys.stderr)
        return 130 if (self.stop_reason or "").startswith("interrupted") \
            else 1
