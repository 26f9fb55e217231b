"""Shared paths and helpers for the analysis tests."""

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile

import pytest

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


def run_cli(name, *args, **kw):
    """Run cli_argv(name, *args) to its end; CompletedProcess (text)."""
    argv = cli_argv(name, *args, calibrate=kw.pop("calibrate", False))
    return subprocess.run(argv, capture_output=True, text=True,
                          timeout=kw.pop("timeout", 60), **kw)


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
