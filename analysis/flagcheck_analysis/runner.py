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

from . import clients, hosts, jobfile, matrix

PROG = "flagcheck-run"
# The source tree, or $(PREFIX)/lib/flagcheck in an installed copy.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))


def default_engine():
    """The engine beside an installed copy (make install puts both under
    $(PREFIX)/lib/flagcheck), else the one `make` builds in the tree."""
    installed = os.path.join(REPO, "fio-flagcheck.so")
    if os.path.isfile(installed):
        return installed
    return os.path.join(REPO, "build", "fio-flagcheck.so")


# Every variable the job files use; fio turns an unset one into "".
DEFAULT_VARS = {
    "FLAGCHECK_ENGINE": default_engine(),
    "RUNTIME": "3",
    "SIZE": "1g",
    "FILENAME": "flagcheck-null",
    "BACKEND": "null",
}
MATRIX_VARS = ("FLAG_CHECK", "NUMJOBS", "FLAGCHECK_STATS")
STDERR_TAIL = 20            # lines of fio's stderr kept for a failed run
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
by the server's host name.  A host that is down is named, the run keeps the
other hosts' results and counts as failed ("partial"); the same command
reruns it.

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


def _positive_float(text):
    x = float(text)
    if not x > 0:
        raise ValueError(text)
    return x


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
    if args.hosts and args.run_timeout is None:
        try:
            args.run_timeout = float(args.vars["RUNTIME"]) \
                + RUN_TIMEOUT_MARGIN
        except ValueError:
            p.error("RUNTIME=%s is not a number of seconds: give "
                    "--run-timeout" % args.vars["RUNTIME"])
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


def run_env(args, run, host=None):
    """The job files' variables for one run (and one host: each host has
    its own stats file)."""
    env = dict(args.vars)
    stats = (matrix.stats_path(args.outdir, run) if host is None else
             matrix.host_stats_path(args.outdir, run, host.label))
    env.update(FLAG_CHECK=run.mode, NUMJOBS=str(run.numjobs),
               FLAGCHECK_STATS=os.path.abspath(stats))
    return env


def fio_command(args, run, output, live=None):
    """One fio run.  On several hosts (`live`, the hosts that answered):
    one --client=HOST JOBFILE pair per host, and the text output beside the
    JSON ("normal"): fio forwards the output format to the servers, and the
    engine prints its counter lines only with fio's normal output."""
    fmt = "json+" if args.json_plus else "json"
    if live is None:
        return [args.fio, "--output-format=" + fmt, "--output=" + output,
                args.scenarios[run.scenario]]
    cmd = [args.fio, "--output-format=%s,normal" % fmt, "--output=" + output]
    for h in live:
        cmd += ["--client=" + h.spec,
                os.path.abspath(matrix.host_job_path(args.outdir, run,
                                                     h.label))]
    return cmd


def host_entries(live, down):
    """The manifest's "hosts" of one run: how fio's JSON names each host,
    and whether it ran."""
    out = {}
    for h in live:
        out[h.label] = {"spec": h.spec, "key": "%s:%d" % (h.host, h.port),
                        "status": "ok"}
    for h, reason in down:
        out[h.label] = {"spec": h.spec, "key": "%s:%d" % (h.host, h.port),
                        "status": "down", "reason": reason}
    return out


def _short(name):
    return name.split(".")[0]


def text_counters(live, text):
    """{label: records} from the counter lines in fio's client output, for
    the hosts they can be told apart for.  fio prefixes each line with the
    host name the server reports, not with the address the client used;
    a line is the host's when only one host is live, or when exactly one
    live host was given by that name (or its first label)."""
    found = clients.counter_lines(text)
    if len(live) == 1 and len(found) == 1:
        return {live[0].label: next(iter(found.values()))}
    out = {}
    for server, records in found.items():
        match = [h for h in live if h.host == server
                 or _short(h.host) == _short(server)]
        if len(match) == 1:
            out[match[0].label] = records
    return out


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
        # an installed copy is no git tree (and may sit inside another)
        engine = (_output(["git", "-C", REPO, "describe", "--always",
                           "--dirty"])
                  if os.path.exists(os.path.join(REPO, ".git")) else None) \
            or "unknown"
        entries = []
        for run in self.runs:
            name = matrix.run_name(run)
            entry = {"name": name, "scenario": run.scenario,
                     "mode": run.mode, "numjobs": run.numjobs,
                     "repeat": run.repeat, "json": name + ".json",
                     "stats": name + ".flagcheck.jsonl"}
            prev = old_runs.get(name, {})
            # a partial run (a host was down) is run again on all hosts
            if matrix.is_done(self.args.outdir, run) and \
                    prev.get("status") != "partial":
                entry.update({k: prev[k] for k in
                              ("command", "cwd", "env", "rc", "started",
                               "seconds", "hosts", "job_files")
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
            "hosts": [h.spec for h in self.args.hosts],
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

    def _probe(self, run, entry):
        """(live hosts, [(down host, reason)]); names each down host."""
        answers = hosts.probe(self.args.fio, self.args.hosts,
                              self.args.connect_timeout)
        live = [h for h in self.args.hosts if answers.get(h.label) is None]
        down = [(h, answers[h.label]) for h in self.args.hosts
                if answers.get(h.label) is not None]
        for h, reason in down:
            self._say("%s: host %s is down: %s; %s" % (
                PROG, h.spec, reason,
                "running %s on the other %d host(s)"
                % (matrix.run_name(run), len(live)) if live
                else "no host left to run %s" % matrix.run_name(run)),
                error=True)
        entry["hosts"] = host_entries(live, down)
        return live, down

    def _say(self, msg, error=False):
        if error or not self.args.quiet:
            sys.stderr.write(("\r\033[K" if self.tty else "") + msg + "\n")
            sys.stderr.flush()

    def _write_host_jobs(self, run, live):
        paths = {}
        for h in live:
            path = matrix.host_job_path(self.args.outdir, run, h.label)
            text = jobfile.render(self.args.scenarios[run.scenario],
                                  dict(os.environ,
                                       **run_env(self.args, run, h)))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
            paths[h.label] = os.path.relpath(path, self.args.outdir)
        return paths

    def _host_stats_paths(self, run):
        return [matrix.host_stats_path(self.args.outdir, run, h.label)
                for h in self.args.hosts]

    def _collect_counters(self, run, entry, live, out):
        """Per host: the engine's stats file if it is on this machine,
        else the counter lines fio forwarded, else nothing."""
        with open(out, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        from_text = text_counters(live, text)
        for h in live:
            path = matrix.host_stats_path(self.args.outdir, run, h.label)
            info = entry["hosts"][h.label]
            info["stats"] = os.path.basename(path)
            if os.path.exists(path):
                info["counters"] = "engine stats file"
            elif h.label in from_text:
                with open(path, "w") as f:
                    for rec in from_text[h.label]:
                        f.write(json.dumps(rec) + "\n")
                info["counters"] = "fio client text"
            else:
                info["counters"] = "missing"
                del info["stats"]

    def _execute(self, run, entry, tick):
        """Run fio once; returns the entry's new status."""
        out = matrix.json_path(self.args.outdir, run)
        partial = out + ".partial"
        live, down, deadline = None, [], None
        if self.args.hosts:
            live, down = self._probe(run, entry)
            if self.stop_reason is not None:
                return "interrupted"
            if not live:
                entry["stderr_tail"] = ["%s: %s" % (h.spec, r)
                                        for h, r in down]
                entry["rc"] = None
                return "failed"
            for path in self._host_stats_paths(run):
                if os.path.exists(path):
                    os.unlink(path)
            try:
                entry["job_files"] = self._write_host_jobs(run, live)
            except jobfile.JobFileError as e:
                entry["stderr_tail"] = [str(e)]
                entry["rc"] = None
                return "failed"
            deadline = time.monotonic() + self.args.run_timeout
        cmd = fio_command(self.args, run, partial, live)
        env = run_env(self.args, run)
        entry.update(command=cmd, cwd=os.getcwd(), env=env, started=_now())
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
        if self.stop_reason is None and rc == 0 and not timed_out:
            os.replace(partial, out)
            if live is None:
                return "ok"
            self._collect_counters(run, entry, live, out)
            return "partial" if down else "ok"
        for path in [partial, matrix.stats_path(self.args.outdir, run)] + \
                self._host_stats_paths(run):
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
        if self.stop_reason is not None:
            return "interrupted"
        tail = (stderr or stdout or b"").decode("utf-8", "replace")
        entry["stderr_tail"] = tail.splitlines()[-STDERR_TAIL:]
        if timed_out:
            entry["stderr_tail"].append(
                "stopped after --run-timeout %g s: a host answered but did "
                "not finish (hosts: %s)" % (self.args.run_timeout,
                                           ", ".join(h.spec for h in live)))
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
                if entry["status"] == "partial":
                    print("%s: %s ran on %d of %d hosts, results kept; "
                          "down: %s" % (
                              PROG, name,
                              sum(1 for h in entry["hosts"].values()
                                  if h["status"] == "ok"),
                              len(entry["hosts"]),
                              ", ".join(h["spec"] for h in
                                        entry["hosts"].values()
                                        if h["status"] == "down")),
                          file=sys.stderr)
                elif entry["status"] == "failed":
                    print("%s: fio failed on %s (exit status %s); the end "
                          "of its output:\n  %s" % (
                              PROG, name, entry["rc"],
                              "\n  ".join(entry["stderr_tail"])
                              or "(nothing)"), file=sys.stderr)
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


def _env_words(env):
    return " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in env.items())


def dry_run(args, runs):
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
    except OSError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
