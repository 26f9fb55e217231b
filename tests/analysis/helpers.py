"""Shared paths and helpers for the analysis tests."""

import contextlib
import functools
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import traceback

import pytest

import widthcheck

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ANALYSIS = os.path.join(REPO, "analysis")
FLAGCHECK = os.path.join(ANALYSIS, "flagcheck")
FIXTURES = os.path.join(HERE, "fixtures")
RESULTS = os.path.join(FIXTURES, "results")
CLIENTSERVER = os.path.join(FIXTURES, "clientserver.json")
# fio 3.41, two servers: "global options" a list (fixtures/record-hosts)
CLIENTSERVER_HOSTS = os.path.join(FIXTURES, "clientserver-hosts.json")
NULL_JOB = os.path.join(HERE, "null-engine.fio")
# the fio and the build directory of this test run: pytest's --fio and
# --build (tests/conftest.py puts them here), else fio on PATH and build/
FIO = os.environ.get("FLAGCHECK_TEST_FIO") or shutil.which("fio")
BUILD = os.environ.get("FLAGCHECK_TEST_BUILD") or os.path.join(REPO, "build")
ENGINE = os.path.join(BUILD, "fio-flagcheck.so")
LOSETUP = shutil.which("losetup")
LOOPBACK = "127.0.0.1"


def alive(pid):
    """pid is a live process (a zombie, or a pid gone, is not)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def free_port():
    """A TCP port on LOOPBACK that nothing listens on just now."""
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def cpu_hog(cpu):
    """A shell busy loop pinned to @cpu for the time of the with block."""
    hog = subprocess.Popen(["sh", "-c", "while :; do :; done"],
                           preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
    try:
        yield hog
    finally:
        hog.kill()
        hog.wait()


@contextlib.contextmanager
def loop_device(image, size):
    """A loop device over @image, a new file of @size bytes, for the time
    of the with block; the test is skipped, with the reason, where losetup
    is not permitted."""
    with open(image, "wb") as f:
        f.truncate(size)
    p = subprocess.run([LOSETUP, "--find", "--show", image],
                       capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip("losetup not permitted here: %s"
                    % (p.stderr.strip() or "exit %d" % p.returncode))
    dev = p.stdout.strip()
    try:
        yield dev
    finally:
        subprocess.run([LOSETUP, "--detach", dev])


def cli_argv(name, *args, calibrate=False):
    """The command line of `flagcheck <name>` (a subcommand) with this
    Python. flagcheck run gets this test run's fio (--fio; a later --fio in
    args wins) and --no-calibrate unless calibrate=True: the 10 s
    calibration is tested on its own (test_calibrate)."""
    if name == "run":
        args = ("--fio", FIO or "fio") + \
            (() if calibrate else ("--no-calibrate",)) + args
    return [sys.executable, FLAGCHECK, name] + list(args)


# the subcommands that only read, compute and print: run_cli runs them in
# this process; flagcheck run and calibrate start fio or the calibration
# program, take signals and count their children's CPU time: a process of
# their own, unless they only parse and print (--help, --dry-run)
IN_PROCESS = ("report", "compare", "predict", "backtest", "physics",
              "catalogue", "lru", "from-diff")
PARSE_ONLY = ("-h", "--help", "--dry-run")


def run_cli(name, *args, **kw):
    """Run cli_argv(name, *args) to its end; CompletedProcess (text).
    In this process (in_process()) where it only reads and prints
    (IN_PROCESS, PARSE_ONLY; process=True: never); the keywords
    subprocess.run takes that matter here (env, cwd, input) either way."""
    calibrate = kw.pop("calibrate", False)
    process = kw.pop("process", False)
    argv = cli_argv(name, *args, calibrate=calibrate)
    if not process and (name in IN_PROCESS or any(
            a in PARSE_ONLY for a in map(str, args))):
        kw.pop("timeout", None)     # pytest's own timeout (pytest.ini)
        return in_process(argv, **kw)
    return subprocess.run(argv, capture_output=True, text=True,
                          timeout=kw.pop("timeout", 60), **kw)


@contextlib.contextmanager
def _environment(env, cwd):
    """os.environ as @env and the working directory @cwd (each where
    given) for the with block, as a child process would have them."""
    saved, here = dict(os.environ), os.getcwd()
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        os.chdir(here)
        if env is not None:
            os.environ.clear()
            os.environ.update(saved)


def _no_terminal(fd):
    raise OSError("not a terminal")     # a child's pipe: no width


def in_process(argv, env=None, cwd=None, input=None):
    """The command line @argv (cli_argv's) run by flagcheck's main() in
    this process, as `python3 analysis/flagcheck ...` would run it with its
    output captured: CompletedProcess(argv, exit status, stdout, stderr);
    an exception is a traceback on stderr and status 1, as Python's. Its
    lines are checked against 120 columns (tests/widthcheck.py) as a
    child's are."""
    from flagcheck_analysis.cli import main as cli_main
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin, os.get_terminal_size
    sys.stdin, os.get_terminal_size = io.StringIO(input or ""), _no_terminal
    try:
        with _environment(env, cwd), contextlib.redirect_stdout(out), \
                contextlib.redirect_stderr(err):
            try:
                rc = cli_main.main(argv[2:])
            except SystemExit as e:
                rc = e.code
                if rc is not None and not isinstance(rc, int):
                    print(rc, file=sys.stderr)
                    rc = 1
            except Exception:
                traceback.print_exc()
                rc = 1
    finally:
        sys.stdin, os.get_terminal_size = saved
    p = subprocess.CompletedProcess(argv, int(rc or 0), out.getvalue(),
                                    err.getvalue())
    widthcheck.check(p.args, p.stdout, p.stderr)
    return p


@functools.lru_cache(maxsize=None)
def backtest():
    """What `make backtest` prints: flagcheck backtest on this build's
    simulator (a CompletedProcess), made once per test process; the tests
    that read it are in one pytest-xdist group (xdist_group("backtest"))
    so that they share one process."""
    sim = os.path.join(BUILD, "flagcheck-sim")
    assert os.path.exists(sim), "%s missing: run make" % sim
    return run_cli("backtest", env=dict(os.environ, FLAGCHECK_SIM=sim))


class ResultsDirCase:
    """A test class whose tests each get a scratch directory (self.tmp)
    and, in it, a results directory (self.out) whose manifest.json
    self.manifest() reads."""

    def setup_method(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "results")

    def teardown_method(self):
        shutil.rmtree(self.tmp)

    def manifest(self):
        with open(os.path.join(self.out, "manifest.json")) as f:
            return json.load(f)


def message(text):
    """@text (a tool's stderr) with each message on one line: the lines a
    tool indents to go on from a line within 120 columns joined to it."""
    return re.sub(r"\n  +", " ", text)
