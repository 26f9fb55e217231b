"""flagcheck-run: order, dry run, fio failures, and Ctrl-C then resume with
real (short) runs of fio's built-in null engine."""

import glob
import os
import signal
import subprocess
import sys
import time
import unittest

from tests.analysis.helpers import ANALYSIS, FIO, NULL_JOB, \
    ResultsDirCase, run_cli



class TestDryRun(unittest.TestCase):
    def test_commands_in_interleaved_order(self):
        p = run_cli("flagcheck-run", NULL_JOB, "--numjobs", "1,2",
                    "--repeats", "2", "--dry-run", "--outdir", "/nonexistent",
                    "--set", "SIZE=2g")
        self.assertEqual(p.returncode, 0, p.stderr)
        names = [l.split()[2] for l in p.stdout.splitlines()
                 if l.startswith("#")]
        self.assertEqual(names, [
            "null-engine_%s_nj%d_r%d" % (m, nj, r)
            for nj in (1, 2) for r in (1, 2)
            for m in (("always", "test_first") if r == 1 else
                      ("test_first", "always"))])
        cmds = [l for l in p.stdout.splitlines() if not l.startswith("#")]
        self.assertTrue(all("SIZE=2g" in c and "FLAGCHECK_ENGINE=" in c
                            for c in cmds))
        self.assertIn("FLAG_CHECK=always NUMJOBS=2", cmds[-1])
        self.assertFalse(os.path.exists("/nonexistent"))

    def test_matrix_vars_are_not_settable(self):
        p = run_cli("flagcheck-run", NULL_JOB, "--set", "NUMJOBS=3",
                    "--dry-run")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--numjobs", p.stderr)

    def test_bad_numbers_say_what_is_allowed(self):
        for opt, value, allowed in (
                ("--repeats", "0", "a whole number of 1 or more"),
                ("--runtime", "x", "a whole number of 1 or more"),
                ("--numjobs", "1,0", "a whole number of 1 or more"),
                ("--connect-timeout", "0", "a number of seconds above 0"),
                ("--modes", "a b", "letters, digits, '_' and '-'")):
            p = run_cli("flagcheck-run", NULL_JOB, opt, value, "--dry-run")
            self.assertEqual(p.returncode, 2, p.stderr)
            last = p.stderr.splitlines()[-1]
            self.assertIn("argument %s: " % opt, last)
            self.assertIn(repr(value.split(",")[-1]), last)
            self.assertIn(allowed, last)
            self.assertNotIn("_positive", last)

    def test_help(self):
        p = run_cli("flagcheck-run", "--help")
        for opt in ("--job", "--modes", "--numjobs", "--repeats",
                    "--runtime", "--outdir", "--set", "--json-plus", "--fio",
                    "--quiet", "--dry-run", "--keep-going", "resumes"):
            self.assertIn(opt, p.stdout)


@unittest.skipUnless(FIO, "fio not installed")
class TestRealRuns(ResultsDirCase):
    def test_interrupt_then_resume(self):
        args = [sys.executable, os.path.join(ANALYSIS, "flagcheck-run"), "--fio", FIO,
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
        self.assertEqual(proc.returncode, 130, err)
        self.assertNotIn("Traceback", err)
        m = self.manifest()
        self.assertFalse(m["complete"])
        statuses = [r["status"] for r in m["runs"]]
        self.assertEqual(statuses[0], "ok")
        self.assertIn("interrupted", statuses)
        self.assertEqual(glob.glob(os.path.join(self.out, "*.partial")), [])
        done = sorted(glob.glob(os.path.join(self.out, "*.json")))
        done.remove(os.path.join(self.out, "manifest.json"))
        self.assertEqual(len(done), statuses.count("ok"))
        before = {p: os.stat(p).st_mtime_ns for p in done}

        p = subprocess.run(args, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        m = self.manifest()
        self.assertTrue(m["complete"])
        self.assertEqual([r["status"] for r in m["runs"]], ["ok"] * 4)
        for r in m["runs"]:
            path = os.path.join(self.out, r["json"])
            self.assertEqual(r.get("resumed", False), path in before)
            if path in before:
                self.assertEqual(os.stat(path).st_mtime_ns, before[path])
        for key in ("fio_version", "engine_version", "host", "matrix",
                    "started", "vars"):
            self.assertIn(key, m)
        self.assertEqual(m["runs"][1]["env"]["FLAG_CHECK"], "test_first")
        p = run_cli("flagcheck-report", self.out, "--no-plot")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("runs: 4 (always n=2, test_first n=2)", p.stdout)

    def test_fio_failure_stops_or_keeps_going(self):
        bad = os.path.join(self.tmp, "bad.fio")
        with open(bad, "w") as f:
            f.write("[bad]\nioengine=no_such_engine\nsize=1m\n")
        base = ["--numjobs", "1", "--repeats", "1", "--outdir", self.out,
                "--quiet"]
        p = run_cli("flagcheck-run", bad, *base)
        self.assertEqual(p.returncode, 1)
        self.assertIn("fio failed on bad_always_nj1_r1", p.stderr)
        self.assertIn("no_such_engine", p.stderr)
        runs = self.manifest()["runs"]
        self.assertEqual([r["status"] for r in runs], ["failed", "pending"])
        self.assertNotEqual(runs[0]["rc"], 0)
        p = run_cli("flagcheck-run", bad, "--keep-going", *base)
        self.assertEqual(p.returncode, 1)
        self.assertEqual([r["status"] for r in self.manifest()["runs"]],
                         ["failed", "failed"])


if __name__ == "__main__":
    unittest.main()
