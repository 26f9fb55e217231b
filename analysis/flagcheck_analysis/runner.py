"""The runs of one flagcheck-run command, one after the other: fio in its
own session, a live status line, Ctrl-C, and the manifest written after
every run, so that the same command resumes."""

import datetime
import os
import signal
import subprocess
import sys
import time

from . import hostrun, jobfile, manifest, matrix

PROG = "flagcheck-run"
STDERR_TAIL = 20            # lines of fio's stderr kept for a failed run


def _hms(seconds):
    return str(datetime.timedelta(seconds=int(seconds)))


def fio_command(args, run, output, live=None):
    """One fio run; on several hosts (`live`, the hosts that answered) one
    `fio --client` for them all."""
    fmt = "json+" if args.json_plus else "json"
    if live is None:
        return [args.fio, "--output-format=" + fmt, "--output=" + output,
                args.scenarios[run.scenario]]
    return hostrun.client_command(args, run, output, live, fmt)


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
        self.tty = sys.stderr.isatty() and not args.quiet
        self.manifest_path = manifest.path_in(args.outdir)

    # -- signals: Ctrl-C reaches only us (fio runs in its own session); we
    # pass one SIGINT on to fio, and SIGKILL on a second Ctrl-C.
    def _on_signal(self, signum, frame):
        first = self.stop_reason is None
        self.stop_reason = "interrupted by %s" % signal.Signals(signum).name
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT if first else signal.SIGKILL)

    def _write_manifest(self):
        manifest.write(self.manifest_path, self.manifest)

    def _progress(self, i, total, name, t0, durations, left, done=None):
        if self.args.quiet:
            return
        elapsed = time.monotonic() - t0
        eta = ("%s" % _hms(sum(durations) / len(durations) * left)
               if durations else "?")
        msg = "[%d/%d] %s" % (i, total, name)
        if done is None:
            if self.tty:
                sys.stderr.write("\r\033[K%s running, elapsed %s, ETA %s"
                                 % (msg, _hms(elapsed), eta))
                sys.stderr.flush()
            return
        line = "%s %s, elapsed %s, ETA %s" % (msg, done, _hms(elapsed), eta)
        sys.stderr.write(("\r\033[K" if self.tty else "") + line + "\n")
        sys.stderr.flush()

    def _say(self, msg, error=False):
        if error or not self.args.quiet:
            sys.stderr.write(("\r\033[K" if self.tty else "") + msg + "\n")
            sys.stderr.flush()

    def _probe(self, run, entry):
        """(live hosts, [(down host, reason)]); names each down host."""
        live, down = hostrun.probe(self.args)
        for h, reason in down:
            self._say("%s: host %s is down: %s; %s" % (
                PROG, h.spec, reason,
                "running %s on the other %d host(s)"
                % (matrix.run_name(run), len(live)) if live
                else "no host left to run %s" % matrix.run_name(run)),
                error=True)
        entry["hosts"] = hostrun.host_entries(live, down)
        return live, down

    def _execute(self, run, entry, tick):
        """Run fio once; returns the entry's new status."""
        name, out = matrix.run_name(run), matrix.json_path(self.args.outdir,
                                                           run)
        partial = out + ".partial"
        live, down, deadline = None, [], None
        if self.args.hosts:
            live, down = self._probe(run, entry)
            if self.stop_reason is not None:
                return "interrupted"
            if not live:
                entry.update(rc=None, failure="%s did not run: no host "
                             "answered" % name, stderr_tail=["%s: %s" % (h.spec, r)
                                                      for h, r in down])
                return "failed"
            for path in hostrun.stats_paths(self.args, run):
                if os.path.exists(path):
                    os.unlink(path)
            try:
                entry["job_files"] = hostrun.write_job_files(self.args, run,
                                                             live)
            except jobfile.JobFileError as e:
                entry.update(rc=None, failure="%s did not run: no job "
                             "file for the hosts" % name, stderr_tail=[str(e)])
                return "failed"
            deadline = time.monotonic() + self.args.run_timeout
        cmd = fio_command(self.args, run, partial, live)
        env = run_env(self.args, run)
        entry.update(command=cmd, cwd=os.getcwd(), env=env,
                     started=manifest.now())
        start = time.monotonic()
        self.proc = subprocess.Popen(
            cmd, env=dict(os.environ, **env), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            start_new_session=True)
        timed_out = False
        while True:
            try:
                stdout, stderr = self.proc.communicate(timeout=1)
                break
            except subprocess.TimeoutExpired:
                tick()
                if deadline is not None and time.monotonic() > deadline:
                    # a host that hangs after answering: fio would wait on
                    # it for ever.  SIGINT lets fio stop the other servers;
                    # SIGKILL 10 s later if that did not end it.
                    self.proc.send_signal(signal.SIGKILL if timed_out
                                          else signal.SIGINT)
                    timed_out, deadline = True, time.monotonic() + 10
        rc, self.proc = self.proc.returncode, None
        entry.update(rc=rc, seconds=round(time.monotonic() - start, 3))
        kept = out + ".failed"
        if self.stop_reason is None and rc == 0 and not timed_out:
            os.replace(partial, out)
            _unlink(kept)
            if live is None:
                return "ok"
            failed = hostrun.hosts_without_results(live, entry, out)
            live = [h for h in live if h not in failed]
            if live:
                hostrun.collect_counters(self.args, run, entry, live, out)
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
        for path in [matrix.stats_path(self.args.outdir, run)] + \
                hostrun.stats_paths(self.args, run):
            _unlink(path)
        if self.stop_reason is not None:
            _unlink(partial)
            return "interrupted"
        # fio's own words: its stderr, and the text before the JSON in its
        # output file (in client mode, "client: host=... disconnected")
        text = _text_lines(partial) + (stderr or stdout or b"").decode(
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
                "stopped after --run-timeout %g s: a host answered but did "
                "not finish (hosts: %s)" % (self.args.run_timeout,
                                           ", ".join(h.spec for h in live)))
        return "failed"

    def run(self):
        os.makedirs(self.args.outdir, exist_ok=True)
        self.manifest = manifest.build(self.args, self.runs)
        entries = self.manifest["runs"]
        self._write_manifest()
        todo = [(r, e) for r, e in zip(self.runs, entries)
                if e["status"] != "ok"]
        skipped = len(self.runs) - len(todo)
        if skipped and not self.args.quiet:
            print("%s: resuming in %s: %d of %d runs already done"
                  % (PROG, self.args.outdir, skipped, len(self.runs)),
                  file=sys.stderr)
        old = {s: signal.signal(s, self._on_signal)
               for s in (signal.SIGINT, signal.SIGTERM)}
        t0, durations, failed = time.monotonic(), [], 0
        try:
            for k, (run, entry) in enumerate(todo):
                if self.stop_reason:
                    break
                i, name = skipped + k + 1, matrix.run_name(run)
                left = len(todo) - k

                def tick():
                    self._progress(i, len(self.runs), name, t0, durations,
                                   left)
                tick()
                entry["status"] = self._execute(run, entry, tick)
                self.manifest["updated"] = manifest.now()
                self._write_manifest()
                if entry["status"] == "interrupted":
                    break
                if "seconds" in entry:          # fio ran
                    durations.append(entry["seconds"])
                self._progress(i, len(self.runs), name, t0, durations,
                               left - 1, done=entry["status"])
                if entry["status"] == "partial":
                    hosts = entry["hosts"].values()
                    print("%s: %s ran on %d of %d hosts, results kept; %s" % (
                        PROG, name,
                        sum(1 for h in hosts if h["status"] == "ok"),
                        len(entry["hosts"]), "; ".join(
                            "%s: %s" % (what, ", ".join(
                                h["spec"] for h in hosts
                                if h["status"] == what))
                            for what in ("down", "failed")
                            if any(h["status"] == what for h in hosts))),
                        file=sys.stderr)
                    for h in hosts:
                        for line in h.get("reason", []) \
                                if h["status"] == "failed" else ():
                            print("  %s: %s" % (h["spec"], line),
                                  file=sys.stderr)
                elif entry["status"] == "failed":
                    print("%s: %s:\n  %s" % (
                        PROG, entry["failure"],
                        "\n  ".join(entry["stderr_tail"]) or "(nothing)"),
                        file=sys.stderr)
                if entry["status"] in ("failed", "partial"):
                    failed += 1
                    if not self.args.keep_going:
                        self.stop_reason = "stopped after a failed run"
        finally:
            for s, handler in old.items():
                signal.signal(s, handler)
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
              % (PROG, self.stop_reason or "%d runs failed" % failed, done,
                 len(entries)), file=sys.stderr)
        return 130 if (self.stop_reason or "").startswith("interrupted") \
            else 1
