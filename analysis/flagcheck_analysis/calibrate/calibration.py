"""This machine's cache-line costs, measured: runs flagcheck-calibrate
(calibrate/flagcheck-calibrate.c), adds the CPU model and the topology
from /sys and /proc/cpuinfo, summarises the matrix per relation and writes
calibration.json (its reader and what its figures mean:
inputs/calibfile.py). docs/analysis.md, "Calibration and the why section"."""

import ctypes
import datetime
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from ..inputs import numbers, safewrite
from .. import width
from ..inputs import calibfile
from ..inputs.calibfile import JSON_NAME, CalibrationError, load, validate
from ..machines import cpulist
from ..machines.cpulist import read_text

PROG = "flagcheck calibrate"
DEFAULT_SECONDS = 10.0
SYSFS = cpulist.SYSFS
CPUINFO = "/proc/cpuinfo"
# The source tree, or $(PREFIX)/lib/flagcheck in an installed copy.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))))

# the two bit patterns it measures (the file's reader, inputs/calibfile.py)
PATTERNS = calibfile.PATTERNS


class Interrupted(CalibrationError):
    """The measurement was stopped by a signal (Ctrl-C: SIGINT)."""

    def __init__(self, program, signum):
        self.signum = signum
        super().__init__("%s stopped: interrupted by %s" % (
            program, signal.Signals(signum).name))


PR_SET_PDEATHSIG = 1        # <linux/prctl.h>
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _child_setup(parent, cpus):
    """For the program, between fork and exec: SIGKILL when this process
    dies (SIGKILLed included; at once when it already has), so that it
    never measures on for its budget with nobody to read it; its CPUs."""
    def preexec():
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) or \
                os.getppid() != parent:
            os._exit(127)
        if cpus is not None:
            os.sched_setaffinity(0, cpus)
    return preexec


def _kill_group(proc):
    """SIGKILL to @proc's process group (the program and its threads)."""
    if proc is not None and proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


class _StopOnSignal:
    """While the program runs (main thread only): SIGINT or SIGTERM kills
    it at once (it runs in a session of its own, so Ctrl-C does not reach
    it), then the handler that was there runs (flagcheck run's records
    the stop); Python's default for SIGINT is left out, Interrupted says it.
    A signal that was ignored stays ignored."""

    def __init__(self):
        self.proc, self.signum, self.old = None, None, {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for s in STOP_SIGNALS:
                if signal.getsignal(s) != signal.SIG_IGN:
                    self.old[s] = signal.signal(s, self._on_signal)
        return self

    def _on_signal(self, signum, frame):
        self.signum = self.signum or signum
        _kill_group(self.proc)
        prev = self.old.get(signum)
        if callable(prev) and prev is not signal.default_int_handler:
            prev(signum, frame)

    def __exit__(self, *exc):
        _kill_group(self.proc)
        for s, handler in self.old.items():
            if self.signum and handler is signal.default_int_handler:
                # Interrupted ends the command: a second Ctrl-C meanwhile
                # has nothing left to stop (no KeyboardInterrupt on exit)
                handler = signal.SIG_IGN
            signal.signal(s, handler)
        return False


def default_program():
    """The program beside an installed copy, else the one make builds."""
    installed = os.path.join(REPO, "flagcheck-calibrate")
    if os.path.isfile(installed):
        return installed
    return os.path.join(REPO, "build", "flagcheck-calibrate")


def _exit_text(rc):
    """How a program ended: its exit status, or the signal that killed
    it (by name)."""
    if rc >= 0:
        return "exited with status %d" % rc
    try:
        return "was killed by %s" % signal.Signals(-rc).name
    except ValueError:
        return "was killed by signal %d" % -rc


def run_program(program, seconds=DEFAULT_SECONDS, max_threads=None,
                cpus=None, progress=None, timeout=None):
    """The program's JSON document, measured on @cpus (default: every CPU
    this process may use); raises CalibrationError.  @progress, when
    given, is called with (step, steps, what) before each step of the
    measurement (the program's --progress lines).  The program (and
    anything it started) is killed after @timeout s, by default three
    times its budget and 120 s."""
    cmd = [program, "--seconds", "%g" % seconds]
    if max_threads:
        cmd += ["--max-threads", str(max_threads)]
    if progress:
        cmd.append("--progress")
    if timeout is None:
        timeout = 3 * seconds + 120
    stopped = []

    def stop():
        stopped.append(True)
        _kill_group(p)
    try:
        with tempfile.TemporaryFile("w+") as out, _StopOnSignal() as guard:
            p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE,
                                 text=True, start_new_session=True,
                                 preexec_fn=_child_setup(os.getpid(), cpus))
            guard.proc = p
            if guard.signum:        # a signal before it started
                _kill_group(p)
            timer = threading.Timer(timeout, stop)
            timer.start()
            try:
                messages = _read_progress(p.stderr, progress)
                p.wait()
            finally:
                timer.cancel()
            out.seek(0)
            stdout = out.read()
    except FileNotFoundError:
        raise CalibrationError("%s: no such program (run make, or give "
                               "--program)" % program)
    except OSError as e:
        raise CalibrationError("%s: %s" % (program, e))
    if guard.signum:
        raise Interrupted(program, guard.signum)
    if stopped:
        raise CalibrationError("%s did not finish within %g s (a %g s "
                               "measurement): stopped" % (program, timeout,
                                                          seconds))
    if p.returncode != 0:
        last = (messages or ["no message"])[-1]
        raise CalibrationError("%s %s: %s" % (
            program, _exit_text(p.returncode), last))
    try:
        doc = json.loads(stdout)
    except ValueError as e:
        raise CalibrationError("%s: output is not JSON (%s)" % (program, e))
    validate(doc, program)
    return doc


_PROGRESS = re.compile(r"progress (\d+)/(\d+) (.*)$")


def _read_progress(stream, progress):
    """The program's stderr lines other than its progress lines, which go
    to @progress as they come."""
    messages = []
    for line in stream:
        line = line.rstrip("\n")
        m = _PROGRESS.match(line)
        if m and progress:
            progress(int(m.group(1)), int(m.group(2)), m.group(3))
        elif line.strip():
            messages.append(line.strip())
    return messages


class Progress:
    """What the calibration measures and how far it is, on stderr: one
    line per step ("[2/5] always at 1 thread, elapsed 0:03"), rewritten
    in place on a terminal."""

    def __init__(self, prog, stream=None):
        self.prog, self.stream = prog, stream or sys.stderr
        self.tty = self.stream.isatty()
        self.t0 = time.monotonic()

    def __call__(self, step, steps, what):
        line = "%s: calibration [%d/%d] %s, elapsed %s" % (
            self.prog, step, steps, what,
            datetime.timedelta(seconds=int(time.monotonic() - self.t0)))
        self.stream.write(("\r\033[K%s" % line) if self.tty
                          else line + "\n")
        self.stream.flush()

    def done(self):
        if self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()


# ---- the machine: CPU model and topology ----

def cpu_model(cpuinfo=CPUINFO):
    text = read_text(cpuinfo) or ""
    m = re.search(r"^(?:model name|Model|cpu model)\s*:\s*(.+)$", text,
                  re.MULTILINE)
    return m.group(1).strip() if m else "unknown"


def relation(a, b, topo):
    """smt, same_node or other_node."""
    if b in topo["siblings"][a]:
        return "smt"
    if topo["node"][a] == topo["node"][b]:
        return "same_node"
    return "other_node"


def _pairs(doc):
    """(cpu a, cpu b, one-way ns) for every measured pair, a < b."""
    cpus, m = doc["cpus"], doc["transfer_ns"]
    return [(cpus[i], cpus[j], m[i][j]) for i in range(len(cpus))
            for j in range(i + 1, len(cpus)) if m[i][j] is not None]


def summarise(doc, topo):
    """{relation: {"pairs", "median_ns", "min_ns", "max_ns"}} over the pair
    figures (each a median of its samples), for the relations present, and
    "all" over every pair."""
    groups = {}
    for a, b, ns in _pairs(doc):
        groups.setdefault(relation(a, b, topo), []).append(ns)
        groups.setdefault("all", []).append(ns)
    return {rel: {"pairs": len(v), "median_ns": statistics.median(v),
                  "min_ns": min(v), "max_ns": max(v)}
            for rel, v in groups.items()}


def describe(doc, sysfs=SYSFS, cpuinfo=CPUINFO):
    """doc with "host" (CPU model, its L2 size from sysfs, nodes, SMT
    groups of the usable CPUs) and "summary" (per relation) added."""
    cpus = doc["cpus"]
    topo = cpulist.topology(cpus, sysfs)
    nodes = {}
    for c in cpus:
        nodes.setdefault(str(topo["node"][c]), []).append(c)
    smt = sorted({tuple(c2 for c2 in topo["siblings"][c] if c2 in cpus)
                  for c in cpus})
    doc = dict(doc)
    doc["host"] = {
        "cpu_model": cpu_model(cpuinfo),
        "l2_kib": cpulist.l2_kib(cpus[0], sysfs),
        "nodes": nodes,
        "packages": sorted({topo["package"][c] for c in cpus}),
        "smt_groups": [list(g) for g in smt if len(g) > 1],
        "relation": {"%d,%d" % (a, b): relation(a, b, topo)
                     for a, b, _ in _pairs(doc)},
    }
    doc["summary"] = summarise(doc, topo)
    return doc


# ---- presenting ----


def write(doc, outdir):
    """calibration.json in outdir (replaced whole); returns its path."""
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, JSON_NAME)
    safewrite.write(path, json.dumps(doc, indent=1) + "\n")
    return path


def calibrate(outdir, seconds=DEFAULT_SECONDS, program=None,
              max_threads=None, progress=None):
    """Measure, describe and write calibration.json in outdir; returns the
    document.  Raises CalibrationError and OSError.  @progress: see
    run_program."""
    doc = describe(run_program(program or default_program(), seconds,
                               max_threads, progress=progress))
    write(doc, outdir)
    return doc


def ensure(outdir, seconds=DEFAULT_SECONDS, program=None, warn=None,
           progress=None):
    """The runner's call, once per results directory: keep a valid
    calibration.json that is already there (a resumed run), else measure
    one.  Returns the document, or None (told through warn) when the
    calibration failed: the runs go ahead without it.  The heatmap is the
    report's (flagcheck report draws it beside report.md)."""
    warn = warn or (lambda msg: print(width.wrap("%s: %s" % (PROG, msg)),
                                      file=sys.stderr))
    path = os.path.join(outdir, JSON_NAME)
    if os.path.exists(path) and not os.path.islink(path):
        try:
            return load(path)
        except CalibrationError as e:
            warn("%s; measuring again" % e)
    try:
        return calibrate(outdir, seconds, program, progress=progress)
    except CalibrationError as e:
        warn("calibration left out: %s" % e)
    except OSError as e:
        warn("calibration left out: cannot write to %s: %s"
             % (outdir, e.strerror or e))
    return None


def seconds_arg(text):
    """--seconds (and flagcheck run's --calibrate-seconds): the program's
    own range."""
    return float(_seconds(text))


_seconds = numbers.arg(" is not valid: a number of seconds from 0.01 to "
                       "3600", low=0.01, high=3600)
