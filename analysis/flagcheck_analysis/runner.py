"""flagcheck-run: run fio job files over the mode x numjobs x repeat
matrix, one fio JSON and one engine stats file per run, plus manifest.json;
resumable after Ctrl-C."""

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import signal
import subprocess
import sys
import time

from . import matrix

PROG = "flagcheck-run"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))

# Every variable the job files use; fio turns an unset one into "".
DEFAULT_VARS = {
    "FLAGCHECK_ENGINE": os.path.join(REPO, "build", "fio-flagcheck.so"),
    "RUNTIME": "3",
    "SIZE": "1g",
    "FILENAME": "flagcheck-null",
    "BACKEND": "null",
}
MATRIX_VARS = ("FLAG_CHECK", "NUMJOBS", "FLAGCHECK_STATS")
STDERR_TAIL = 20            # lines of fio's stderr kept for a failed run

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

Ctrl-C stops the running fio, discards its partial output, keeps the
finished runs and marks the manifest incomplete; the same command again
resumes, skipping every run whose JSON exists and parses.

exit status: 0 the matrix is complete; 1 a fio run failed (the default
stops at the first failure, --keep-going runs the rest); 2 usage error;
130 interrupted.""" % DEFAULT_VARS


def _csv_list(convert):
    def parse(text):
        try:
            items = [convert(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError("bad list %r" % text)
        if not items:
            raise argparse.ArgumentTypeError("empty list")
        return items
    return parse


def _positive(text):
    n = int(text)
    if n < 1:
        raise ValueError(text)
    return n


def _mode(text):
    text = text.strip()
    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_-]*$", text):
        raise ValueError(text)
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
    p.add_argument("--repeats", type=_positive, default=5, metavar="N",
                   help="runs per mode and numjobs (default: %(default)s)")
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
    args.vars = dict(DEFAULT_VARS)
    if args.runtime is not None:
        args.vars["RUNTIME"] = str(args.runtime)
    for item in args.sets:
        var, eq, value = item.partition("=")
        if not eq or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", var):
            p.error("--set wants VAR=VALUE, got %r" % item)
        if var in MATRIX_VARS:
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
    return args


def _now():
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def _hms(seconds):
    return str(datetime.timedelta(seconds=int(seconds)))


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "cpu model"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _output(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        return out.stdout.strip() if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def host_info():
    return {"hostname": platform.node(), "cpu_model": _cpu_model(),
            "cores": os.cpu_count(),
            "usable_cpus": len(os.sched_getaffinity(0)),
            "kernel": platform.release(), "machine": platform.machine()}


def run_env(args, run):
    env = dict(args.vars)
    env.update(FLAG_CHECK=run.mode, NUMJOBS=str(run.numjobs),
               FLAGCHECK_STATS=os.path.abspath(
                   matrix.stats_path(args.outdir, run)))
    return env


def fio_command(args, run, output):
    fmt = "json+" if args.json_plus else "json"
    return [args.fio, "--output-format=" + fmt, "--output=" + output,
            args.scenarios[run.scenario]]


class Runner:
    def __init__(self, args, runs):
        self.args, self.runs = args, runs
        self.proc = None
        self.stop_reason = None
        self.tty = sys.stderr.isatty() and not args.quiet
        self.manifest_path = os.path.join(args.outdir, "manifest.json")

    # -- signals: Ctrl-C reaches only us (fio runs in its own session); we
    # pass one SIGINT on to fio, and SIGKILL on a second Ctrl-C.
    def _on_signal(self, signum, frame):
        first = self.stop_reason is None
        self.stop_reason = "interrupted by %s" % signal.Signals(signum).name
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT if first else signal.SIGKILL)

    def _write_manifest(self):
        tmp = self.manifest_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.manifest, f, indent=2)
            f.write("\n")
        os.replace(tmp, self.manifest_path)

    def _new_manifest(self):
        old = {}
        try:
            with open(self.manifest_path) as f:
                old = json.load(f)
        except (OSError, ValueError):
            pass
        old_runs = {e.get("name"): e for e in old.get("runs", [])
                    if isinstance(e, dict)}
        fio_version = _output([self.args.fio, "--version"]) or "unknown"
        engine = _output(["git", "-C", REPO, "describe", "--always",
                          "--dirty"]) or "unknown"
        entries = []
        for run in self.runs:
            name = matrix.run_name(run)
            entry = {"name": name, "scenario": run.scenario,
                     "mode": run.mode, "numjobs": run.numjobs,
                     "repeat": run.repeat, "json": name + ".json",
                     "stats": name + ".flagcheck.jsonl"}
            if matrix.is_done(self.args.outdir, run):
                prev = old_runs.get(name, {})
                entry.update({k: prev[k] for k in
                              ("command", "cwd", "env", "rc", "started",
                               "seconds")
                              if k in prev})
                entry.update(status="ok", resumed=True)
            else:
                entry["status"] = "pending"
            entries.append(entry)
        self.manifest = {
            "flagcheck_manifest": 1,
            "complete": False,
            "started": old.get("started", _now()),
            "updated": _now(),
            "fio": self.args.fio,
            "fio_version": fio_version,
            "engine_version": engine,
            "host": host_info(),
            "matrix": {"jobs": self.args.scenarios,
                       "modes": self.args.modes,
                       "numjobs": self.args.numjobs,
                       "repeats": self.args.repeats,
                       "order": "scenario, numjobs, repeat, mode "
                                "(modes interleaved)",
                       "output_format": "json+" if self.args.json_plus
                                        else "json"},
            "vars": self.args.vars,
            "runs": entries,
        }
        return entries

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

    def _execute(self, run, entry, tick):
        """Run fio once; returns the entry's new status."""
        out = matrix.json_path(self.args.outdir, run)
        partial = out + ".partial"
        cmd = fio_command(self.args, run, partial)
        env = run_env(self.args, run)
        entry.update(command=cmd, cwd=os.getcwd(), env=env, started=_now())
        start = time.monotonic()
        self.proc = subprocess.Popen(
            cmd, env=dict(os.environ, **env), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            start_new_session=True)
        while True:
            try:
                stdout, stderr = self.proc.communicate(timeout=1)
                break
            except subprocess.TimeoutExpired:
                tick()
        rc, self.proc = self.proc.returncode, None
        entry.update(rc=rc, seconds=round(time.monotonic() - start, 3))
        if self.stop_reason is None and rc == 0:
            os.replace(partial, out)
            return "ok"
        for path in (partial, matrix.stats_path(self.args.outdir, run)):
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
        if self.stop_reason is not None:
            return "interrupted"
        tail = (stderr or stdout or b"").decode("utf-8", "replace")
        entry["stderr_tail"] = tail.splitlines()[-STDERR_TAIL:]
        return "failed"

    def run(self):
        os.makedirs(self.args.outdir, exist_ok=True)
        entries = self._new_manifest()
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
                self.manifest["updated"] = _now()
                self._write_manifest()
                if entry["status"] == "interrupted":
                    break
                durations.append(entry["seconds"])
                self._progress(i, len(self.runs), name, t0, durations,
                               left - 1, done=entry["status"])
                if entry["status"] == "failed":
                    failed += 1
                    print("%s: fio failed on %s (exit status %d); the end "
                          "of its output:\n  %s" % (
                              PROG, name, entry["rc"],
                              "\n  ".join(entry["stderr_tail"])
                              or "(nothing)"), file=sys.stderr)
                    if not self.args.keep_going:
                        self.stop_reason = "stopped after a failed run"
        finally:
            for s, handler in old.items():
                signal.signal(s, handler)
        done = sum(1 for e in entries if e["status"] == "ok")
        self.manifest["complete"] = done == len(entries)
        if self.stop_reason:
            self.manifest["stopped"] = self.stop_reason
        self.manifest["updated"] = _now()
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


def dry_run(args, runs):
    for i, run in enumerate(runs, 1):
        out = matrix.json_path(args.outdir, run)
        env = run_env(args, run)
        print("# %d/%d %s" % (i, len(runs), matrix.run_name(run)))
        print(" ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env.items())
              + " " + " ".join(shlex.quote(c) for c in
                               fio_command(args, run, out)))
    return 0


def main(argv=None):
    args = parse_args(argv)
    runs = matrix.build(list(args.scenarios), args.modes, args.numjobs,
                        args.repeats)
    if args.dry_run:
        return dry_run(args, runs)
    try:
        return Runner(args, runs).run()
    except OSError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
