"""flagcheck run: order, dry run, fio failures, and Ctrl-C then resume with
real (short) runs of fio's built-in null engine."""

import glob
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.analysis.helpers import ANALYSIS, FIO, NULL_JOB, \
    ResultsDirCase, run_cli
from tests.analysis.helpers import message



class TestDryRun:
    def test_commands_in_interleaved_order(self):
        p = run_cli("run", NULL_JOB, "--numjobs", "1,2",
                    "--repeats", "2", "--dry-run", "--outdir", "/nonexistent",
                    "--set", "SIZE=2g")
        assert p.returncode == 0, p.stderr
        names = [l.split()[2] for l in p.stdout.splitlines()
                 if l.startswith("#")]
        assert names == [
            "null-engine_%s_nj%d_r%d" % (m, nj, r)
            for nj in (1, 2) for r in (1, 2)
            for m in (("always", "test_first") if r == 1 else
                      ("test_first", "always"))]
        cmds = [l for l in p.stdout.splitlines() if not l.startswith("#")]
        assert all("SIZE=2g" in c and "FLAGCHECK_ENGINE=" in c
                   for c in cmds)
        assert "VARIANT=always NUMJOBS=2" in cmds[-1]
        assert not os.path.exists("/nonexistent")

    def test_matrix_vars_are_not_settable(self):
        p = run_cli("run", NULL_JOB, "--set", "NUMJOBS=3",
                    "--dry-run")
        assert p.returncode == 2
        assert "--numjobs" in message(p.stderr)

    def test_bad_numbers_say_what_is_allowed(self):
        for opt, value, allowed in (
                ("--repeats", "0", "a whole number of 1 or more"),
                ("--runtime", "x", "a whole number of 1 or more"),
                ("--numjobs", "1,0", "a whole number of 1 or more"),
                ("--connect-timeout", "0", "a number of seconds above 0"),
                ("--variants", "a b", "letters, digits, '_' and '-'")):
            p = run_cli("run", NULL_JOB, opt, value, "--dry-run")
            assert p.returncode == 2, p.stderr
            last = message(p.stderr).splitlines()[-1]
            assert "argument %s: " % opt in last
            assert repr(value.split(",")[-1]) in last
            assert allowed in last
            assert "_positive" not in last

    def test_help(self):
        p = run_cli("run", "--help")
        for opt in ("--job", "--variants", "--numjobs", "--repeats",
                    "--runtime", "--outdir", "--set", "--json-plus", "--fio",
                    "--quiet", "--dry-run", "--keep-going", "resumes"):
            assert opt in p.stdout


# slow: real flagcheck runs, fio for whole seconds
@pytest.mark.slow
@pytest.mark.skipif(not FIO, reason="fio not installed")
class TestRealRuns(ResultsDirCase):
    def test_interrupt_then_resume(self):
        args = [sys.executable, os.path.join(ANALYSIS, "flagcheck"), "run", "--fio", FIO,
                NULL_JOB, "--no-calibrate", "--numjobs", "1", "--repeats", "2",
                "--runtime",
                "1", "--outdir", self.out, "--quiet"]
        proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
        first = os.path.join(self.out, "null-engine_always_nj1_r1.json")
        deadline = time.monotonic() + 30
        while not os.path.exists(first) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)                 # into the second run
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert "Traceback" not in err
        m = self.manifest()
        assert not m["complete"]
        statuses = [r["status"] for r in m["runs"]]
        assert statuses[0] == "ok"
        assert "interrupted" in statuses
        assert glob.glob(os.path.join(self.out, "*.partial")) == []
        done = sorted(glob.glob(os.path.join(self.out, "*.json")))
        done.remove(os.path.join(self.out, "manifest.json"))
        assert len(done) == statuses.count("ok")
        before = {p: os.stat(p).st_mtime_ns for p in done}

        p = subprocess.run(args, capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        m = self.manifest()
        assert m["complete"]
        assert [r["status"] for r in m["runs"]] == ["ok"] * 4
        for r in m["runs"]:
            path = os.path.join(self.out, r["json"])
            assert r.get("resumed", False) == (path in before)
            if path in before:
                assert os.stat(path).st_mtime_ns == before[path]
        for key in ("fio_version", "engine_version", "host", "matrix",
                    "started", "vars"):
            assert key in m
        assert m["runs"][1]["env"]["VARIANT"] == "test_first"
        p = run_cli("report", self.out, "--no-plot")
        assert p.returncode == 0, p.stderr
        assert "runs: 4 (always n=2, test_first n=2)" in p.stdout

    def test_fio_failure_stops_or_keeps_going(self):
        bad = os.path.join(self.tmp, "bad.fio")
        with open(bad, "w") as f:
            f.write("[bad]\nioengine=no_such_engine\nsize=1m\n")
        base = ["--numjobs", "1", "--repeats", "1", "--outdir", self.out,
                "--quiet"]
        p = run_cli("run", bad, *base)
        assert p.returncode == 1
        assert "fio failed on bad_always_nj1_r1" in message(p.stderr)
        assert "no_such_engine" in message(p.stderr)
        runs = self.manifest()["runs"]
        assert [r["status"] for r in runs] == ["failed", "pending"]
        assert runs[0]["rc"] != 0
        p = run_cli("run", bad, "--keep-going", *base)
        assert p.returncode == 1
        assert [r["status"] for r in self.manifest()["runs"]] == \
            ["failed", "failed"]
