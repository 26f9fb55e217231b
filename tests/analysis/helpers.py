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
NULL_JOB = os.path.join(HERE, "null-engine.fio")

if ANALYSIS not in sys.path:
    sys.path.insert(0, ANALYSIS)


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


def run_cli(name, *args, **kw):
    """Run analysis/<name> with this Python; CompletedProcess (text).
    flagcheck-run gets --no-calibrate unless calibrate=True: the 10 s
    calibration is tested on its own (test_calibrate)."""
    if name == "flagcheck-run" and not kw.pop("calibrate", False):
        args = ("--no-calibrate",) + args
    return subprocess.run([sys.executable, os.path.join(ANALYSIS, name)]
                          + list(args), capture_output=True, text=True,
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
