"""flagcheck-report on bad and plain inputs: one line per bad file, no
traceback, the rest still reported, exit status 1 only with nothing."""

import os
import shutil
import tempfile
import unittest

from tests.analysis.helpers import CLIENTSERVER, RESULTS, run_cli


class TestReportInputs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "out")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def copy(self, name, new):
        shutil.copy(os.path.join(RESULTS, name), os.path.join(self.tmp, new))
        return os.path.join(self.tmp, new)

    def report(self, *args):
        return run_cli("flagcheck-report", "--no-plot", "--outdir", self.out,
                       *args)

    def test_bad_files_are_named_and_skipped(self):
        good = self.copy("flagcheck-fixture_always_nj1_r1.json",
                         "flagcheck-fixture_always_nj1_r1.json")
        trunc = os.path.join(self.tmp, "trunc.json")
        with open(good) as f, open(trunc, "w") as g:
            g.write(f.read()[:3000])
        garbage = os.path.join(self.tmp, "garbage.json")
        with open(garbage, "w") as g:
            g.write("{ this is not json\n")
        p = self.report(trunc, good, garbage,
                        os.path.join(self.tmp, "absent.json"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        errors = [l for l in p.stderr.splitlines() if "wrote" not in l]
        self.assertEqual(len(errors), 3, p.stderr)
        self.assertIn(trunc + ": truncated JSON", p.stderr)
        self.assertIn(garbage + ": malformed JSON", p.stderr)
        self.assertIn("runs: 1 (always n=1)", p.stdout)
        self.assertIn("flagcheck-fixture, numjobs=1", p.stdout)
        self.assertNotIn("test_first", p.stdout)    # only one mode read

    def test_nothing_to_report(self):
        bad = os.path.join(self.tmp, "bad.json")
        with open(bad, "w") as g:
            g.write("[1, 2]\n")
        p = self.report(bad)
        self.assertEqual(p.returncode, 1)
        self.assertNotIn("Traceback", p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertEqual(run_cli("flagcheck-report", self.tmp + "/none"
                                 ).returncode, 1)

    def test_plain_files_grouped_by_job_options(self):
        # names without the convention: mode from the flag_check job option
        a = self.copy("flagcheck-fixture_always_nj2_r1.json", "a.json")
        b = self.copy("flagcheck-fixture_test_first_nj2_r1.json", "b.json")
        p = self.report(a, b, CLIENTSERVER)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("runs: 3 (always n=1, test_first n=2)", p.stdout)
        self.assertIn("fixture, numjobs=2", p.stdout)
        self.assertIn("n=1 vs 2: cannot tell", p.stdout)
        # --group-by another option: every run is one mode ("null" backend)
        p = self.report("--group-by", "backend", "--base", "null", a, b)
        self.assertIn("runs: 2 (null n=2)", p.stdout)

    def test_group_by_missing_option(self):
        a = self.copy("flagcheck-fixture_always_nj2_r1.json", "a.json")
        p = self.report("--group-by", "no_such_option", a)
        self.assertEqual(p.returncode, 1)
        self.assertIn("cannot tell the mode", p.stderr)

    def test_plots(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib not installed for this Python")
        p = run_cli("flagcheck-report", RESULTS, "--outdir", self.out)
        self.assertEqual(p.returncode, 0, p.stderr)
        for kind in ("iops", "ratio"):
            for ext in ("png", "svg"):
                path = os.path.join(self.out, "flagcheck-fixture_%s.%s"
                                    % (kind, ext))
                self.assertGreater(os.path.getsize(path), 1000, path)

    def test_help(self):
        p = run_cli("flagcheck-report", "--help")
        self.assertEqual(p.returncode, 0)
        for opt in ("--base", "--outdir", "--format", "--no-plot",
                    "--group-by", "exit status"):
            self.assertIn(opt, p.stdout)


if __name__ == "__main__":
    unittest.main()


class TestCountsCrossChecked(unittest.TestCase):
    """Every run's counters file is checked against its fio JSON: a run
    whose engine counted other I/Os than fio (the doubled counts of the
    engine before the exactly-once fix) is named and left out; RMWs per
    I/O divide by fio's own count."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        for name in os.listdir(RESULTS):
            if "_nj1_" in name:
                shutil.copy(os.path.join(RESULTS, name), self.tmp)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def report(self):
        return run_cli("flagcheck-report", "--no-plot", "--outdir",
                       os.path.join(self.tmp, "out"), "--format", "markdown",
                       *sorted(os.path.join(self.tmp, n)
                               for n in os.listdir(self.tmp)
                               if n.endswith(".json")))

    def test_agreeing_runs_are_all_kept(self):
        p = self.report()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("left out", p.stdout + p.stderr)

    def test_a_doubled_count_is_named_and_left_out(self):
        import json
        bad = os.path.join(self.tmp,
                           "flagcheck-fixture_always_nj1_r2.flagcheck.jsonl")
        with open(bad) as f:
            recs = [json.loads(line) for line in f]
        for r in recs:
            r["ios"] *= 2
            r["rmw"] *= 2
        with open(bad, "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in recs))
        p = self.report()
        self.assertEqual(p.returncode, 0, p.stderr)
        want = "flagcheck-fixture_always_nj1_r2.json: the engine counted " \
               "%d I/Os, fio %d" % (recs[0]["ios"], recs[0]["ios"] // 2)
        self.assertIn(want, p.stderr)
        self.assertIn("left out (counters disagree with fio's)", p.stdout)
        self.assertIn(want, p.stdout)
        # the always side keeps its one agreeing run: n=1
        with open(os.path.join(self.tmp, "out", "report.md")) as f:
            self.assertIn("left out", f.read())
