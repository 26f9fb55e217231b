"""Shared paths and helpers for the analysis tests."""

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ANALYSIS = os.path.join(REPO, "analysis")
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


def cli_argv(name, *args, calibrate=False):
    """The command line of analysis/<name> with this Python. flagcheck-run
    gets this test run's fio (--fio; a later --fio in args wins) and
    --no-calibrate unless calibrate=True: the 10 s calibration is tested
    on its own (test_calibrate)."""
    if name == "flagcheck-run":
        args = ("--fio", FIO or "fio") + \
            (() if calibrate else ("--no-calibrate",)) + args
    return [sys.executable, os.path.join(ANALYSIS, name)] + list(args)


def run_cli(name, *args, **kw):
    """Run cli_argv(name, *args) to its end; CompletedProcess (text)."""
    argv = cli_argv(name, *args, calibrate=kw.pop("calibrate", False))
    return subprocess.run(argv, capture_output=True, text=True,
                          timeout=kw.pop("timeout", 60), **kw)


class ResultsDirCase(unittest.TestCase):
    """A test with a scratch directory and, in it, a results directory
    (self.out) whose manifest.json self.manifest() reads."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "results")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def manifest(self):
        with open(os.path.join(self.out, "manifest.json")) as f:
            return json.load(f)
