"""The runs of one flagcheck run command, one after the other: fio in its
own session, a live status line, Ctrl-C, and the manifest written after
every run, so that the same command resumes."""

import os
import signal
import subprocess
import sys
import time

from ..inputs import manifest, matrix, outpath, runrecord, runsetup
from .. import width
from ..stats import decide
from . import clientserver, outdirlock, proctree, runmanifest, runsettings
from .executor import Status
from .progress import PROG, Progress

STDERR_TAIL = 20            # lines of fio's stderr kept for a failed run


def _unlink(path):
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _text_lines(path):
    """The lines of a fio output file before its JSON begins."""
    lines = clientserver.output_text(path).splitlines()
    for i, line in enumerate(lines):
        if line.startswith("{"):
            return lines[:i]
    return lines


# how a cell of --until-decided stopped, in the line that says so
STOPPED_WORDS = {"decided": "decided",
                 "seldom_together": "undecided (its jobs seldom ran "
                 "together)",
                 "max_repeats": "undecided (--max-repeats)"}


class Runner:
    def __init__(self, args, runs):
        self.args, self.runs = args, runs
        self.proc = None
        self.stop_reason = None
        self.progress = Progress(args.quiet)
        self.manifest_path = manifest.path_in(args.outdir)
        self.records = {}           # runsettings.run_record per scenario
        # where the runs happen, chosen once (config.py)
        self.executor = args.executor(args, self.progress,
                                      lambda: self.stop_reason is not None)

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

    def _failed(self, entry, name, rc, partial, kept, output, timed_out):
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
                    self.args.run_timeout, self.executor.timeout_reason()))
        return Status.FAILED

    def _start(self, cmd, env, name):
        """fio in a session of its own, holding the lock: a fio that
        outlives us (it should not: die_with) still keeps every other
        flagcheck run out."""
        self.proc = subprocess.Popen(
            cmd, env=dict(os.environ, **env), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            start_new_session=True, pass_fds=(self.lock_fd,),
            preexec_fn=proctree.die_with(os.getpid()))
        outdirlock.note(self.lock_fd, fio=self.proc.pid, run=name)

    def _execute(self, run, entry, tick):
        """Run fio once; returns the run's Status."""
        ex = self.executor
        name, out = matrix.run_name(run), matrix.json_path(self.args.outdir,
                                                           run)
        partial = out + ".partial"
        status = ex.ready(run, entry)
        if status is not None:
            return status
        # fio opens its output, and the engine its counters, following
        # links: whatever lies at their names (a link planted there) goes
        for path in (partial, matrix.counters_path(self.args.outdir, run)):
            _unlink(path)
        cmd, env = ex.command(run, partial), ex.env(run)
        record = runsettings.run_record(self.args, run.scenario,
                                        self.records)
        # beside the run's files, for a resume without this manifest
        runrecord.write_setup(self.args.outdir, run, record)
        entry.update(command=cmd, cwd=os.getcwd(), env=env,
                     started=manifest.now(), **record)
        ex.before(run, entry)
        start = time.monotonic()
        self._start(cmd, env, name)
        stdout, stderr, timed_out = self._wait(
            start + self.args.run_timeout, tick)
        rc, self.proc = self.proc.returncode, None
        entry.update(rc=rc, seconds=round(time.monotonic() - start, 3))
        ex.after(entry)
        kept = out + ".failed"
        if self.stop_reason is None and rc == 0 and not timed_out:
            os.replace(partial, out)
            _unlink(kept)
            # what a resume holds this run's JSON to (manifest.run_entries)
            entry["json_sha256"] = runsetup.file_sha256(out)
            runrecord.write_setup(self.args.outdir, run, dict(
                record, json_sha256=entry["json_sha256"]))
            return ex.done(run, entry, out, kept)
        for path in ex.counters_paths(run):
            _unlink(path)
        if self.stop_reason is not None:
            _unlink(partial)
            return Status.INTERRUPTED
        if not timed_out and ex.failed_everywhere(run, entry, partial, kept):
            return Status.FAILED
        return self._failed(entry, name, rc, partial, kept,
                            stderr or stdout, timed_out)

    def _one(self, run):
        """Run one run of the matrix unless it is done; False when the
        matrix must stop."""
        entry = self.entry_of[run]
        self.count += 1
        if entry["status"] == Status.OK.value:
            return True
        i, name = self.count, matrix.run_name(run)
        # the budget's worst case: every cell to its last repeat
        total = self.worst
        left = total - i + 1

        def tick():
            self.progress.line(i, total, name, self.t0, self.durations, left)
        tick()
        status = self._execute(run, entry, tick)
        entry["status"] = status.value
        self.manifest["updated"] = manifest.now()
        self._write_manifest()
        if status is Status.INTERRUPTED:
            return False
        if "seconds" in entry:          # fio ran
            self.durations.append(entry["seconds"])
        busy = (entry.get("interference") or {}).get("reasons")
        self.progress.line(i, total, name, self.t0, self.durations, left - 1,
                           done=status.value + (" (busy: %s)" % "; ".join(
                               busy) if busy else ""))
        if status is Status.PARTIAL:
            print(width.wrap("\n".join(clientserver.partial_lines(
                PROG, name, entry))), file=sys.stderr)
        elif status is Status.FAILED:
            print(width.wrap("%s: %s:\n  %s" % (
                PROG, entry["failure"],
                "\n  ".join(entry["stderr_tail"]) or "(nothing)")),
                file=sys.stderr)
        if status in (Status.FAILED, Status.PARTIAL):
            self.failed += 1
            if not self.args.keep_going:
                self.stop_reason = "stopped after a failed run"
        return not self.stop_reason

    def _add_repeat(self, scenario, numjobs, repeat):
        """The runs of one more repeat of a cell (--until-decided), with
        their manifest entries; done ones (a resumed matrix) stay done."""
        runs = [matrix.Run(scenario, variant, numjobs, repeat)
                for variant in matrix.variants_in_order(self.args.variants, repeat)]
        entries = manifest.run_entries(self.args.outdir, runs, self.old)
        names = {e["name"] for e in entries}
        self.runs += runs
        self.manifest["runs"] = [e for e in self.manifest["runs"]
                                 if e.get("name") not in names] + entries
        self.entry_of.update(zip(runs, entries))
        return runs

    def _ok(self, runs):
        return [r for r in runs
                if self.entry_of[r]["status"] == Status.OK.value]

    def _decide(self, runs, numjobs):
        """(the cell's decisions, left undecided where its jobs seldom ran
        together; the co-running share, or None)."""
        ok = self._ok(runs)
        by_repeat = decide.cell_values_by_repeat(self.args.outdir, ok)
        values = {m: list(v.values()) for m, v in by_repeat.items()}
        together = decide.cell_corun(self.args.outdir, ok)
        return decide.apart(decide.decide_cell(
            values, self.args.variants, self.args.precision / 100, by_repeat),
            numjobs, together), together

    def _run_cell(self, scenario, numjobs, first):
        """All repeats of one cell; with --until-decided, one more repeat
        of every variant at a time until its jobs seldom ran together (more
        of the same would not contend the line: never decided, whatever
        the CI), it is decided, or --max-repeats."""
        a = self.args
        runs, repeat, stopped, together = [], 0, None, None
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
                decisions, together = self._decide(runs, numjobs)
                if decide.seldom_together(numjobs, together):
                    stopped = "seldom_together"
                elif decide.is_decided(decisions):
                    stopped = "decided"
                elif repeat >= a.max_repeats:
                    stopped = "max_repeats"
        # a cell that stopped early gives back the repeats it did not run
        self.worst -= (self._worst_repeats() - repeat) * len(a.variants)
        decisions, together = self._decide(runs, numjobs)
        base = a.variants[0]
        self.manifest["cells"].append({
            "scenario": scenario, "numjobs": numjobs, "repeats": repeat,
            "stopped": stopped, "corun_pct": together,
            "decisions": [{"variant": d.variant, "reason": d.reason,
                           "why": d.why,
                           "ratio": d.ratio,
                           "ci": list(d.ci) if d.ci else None,
                           "by": d.by}
                          for d in decisions],
            "text": "; ".join(decide.text(d, base, a.precision / 100)
                              for d in decisions)})
        self._write_manifest()
        if a.until_decided:
            self.progress.say(
                "%s: %s nj%d: %s after %d repeats per variant: %s" % (
                    PROG, scenario, numjobs, STOPPED_WORDS[stopped],
                    repeat, self.manifest["cells"][-1]["text"]))
            if stopped == "seldom_together":
                self.progress.say(
                    "%s: %s nj%d: the %d jobs ran together %.0f%% of the "
                    "run (median over its runs): the line was seldom "
                    "contended, more repeats of the same would not decide "
                    "it; stop the other load" % (
                        PROG, scenario, numjobs, numjobs, together))

    def _worst_repeats(self):
        """A cell's repeats at worst: --max-repeats under
        --until-decided, else --repeats."""
        a = self.args
        return max(a.repeats, a.max_repeats) if a.until_decided \
            else a.repeats

    def _cells(self):
        """[(scenario, numjobs, its runs of the first --repeats)] in run
        order (matrix.build keeps a cell's runs together)."""
        cells = []
        for run in self.runs:
            if not cells or cells[-1][:2] != (run.scenario, run.numjobs):
                cells.append((run.scenario, run.numjobs, []))
            cells[-1][2].append(run)
        return cells

    def _calibrate(self):
        """The executor's calibration, before the runs, in the manifest."""
        fields = self.executor.calibrate()
        if fields:
            self.manifest.update(fields)
            self._write_manifest()

    def run(self):
        os.makedirs(self.args.outdir, exist_ok=True)
        try:
            self.lock_fd = outdirlock.lock(self.args.outdir)
        except (outdirlock.Busy, outpath.OutPathError) as e:
            print(width.wrap("%s: %s" % (PROG, e)), file=sys.stderr)
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
        skipped = sum(1 for e in entries if e["status"] == Status.OK.value)
        if skipped and not self.args.quiet:
            print(width.wrap("%s: resuming in %s: %d of %d runs already "
                             "done" % (PROG, self.args.outdir, skipped,
                                       len(self.runs))), file=sys.stderr)
        old = {s: signal.signal(s, self._on_signal)
               for s in (signal.SIGINT, signal.SIGTERM)}
        self.t0, self.durations, self.failed = time.monotonic(), [], 0
        self.count = 0
        self.worst = len(self._cells()) * self._worst_repeats() * \
            len(self.args.variants)
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
        done = sum(1 for e in entries if e["status"] == Status.OK.value)
        self.manifest["complete"] = done == len(entries)
        if self.stop_reason:
            self.manifest["stopped"] = self.stop_reason
        self.manifest["updated"] = manifest.now()
        self._write_manifest()
        if self.manifest["complete"]:
            if not self.args.quiet:
                print(width.wrap("%s: all %d runs done in %s" % (
                    PROG, done, self.args.outdir)), file=sys.stderr)
            return 0
        print(width.wrap("%s: %s: %d of %d runs done; the same command "
                         "resumes" % (PROG, self.stop_reason or "%d runs "
                                      "failed" % self.failed, done,
                                      len(entries))), file=sys.stderr)
        return 130 if (self.stop_reason or "").startswith("interrupted") \
            else 1
