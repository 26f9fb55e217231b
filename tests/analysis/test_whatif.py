"""The report's "what would my patch gain?" estimate (why.whatif) against
hand-computed fixtures (fixtures/whatif: fio JSON + counters lines).

The fixtures (one run each, group_reporting):
  pat (model=pattern)  always nj=1: 1.0M IOPS, 2.0M I/Os, 2.0M RMWs and
                       2.0M stores;  test_first nj=1: 1.25M IOPS;
                       always nj=2: 1.2M IOPS, 2.4M I/Os, 2.4M RMWs, 2.4M
                       stores;  test_first nj=2: 2.4M IOPS, 4.8M I/Os, 0
                       RMWs, 2 stores (one per job)
  lone (model=pattern) nj=2 only: no one-job run, left out
  cmod (a C model)     no stores counter: not a pattern scenario, left out
By hand, at 100 ns one way:
  always nj=2: line ops/io (2.4M + 2.4M) / 2.4M = 2; ns/io at 1 job 1000;
      1 / (1/(2 x 1.0M) + 2 x 100 ns) = 1e9 / 700 = 1428571 IOPS;
      measured/predicted 1.2M / 1428571 = 0.84
  test_first nj=2: line 2 / 4.8M; ns/io at 1 job 800;
      1 / (1/(2 x 1.25M) + (2/4.8M) x 100 ns) = 2499999.74 IOPS
  gain predicted 2499999.74 / 1428571.43 = 1.75; measured 2.4M / 1.2M = 2.00
"""

import os
import tempfile
import unittest
from types import SimpleNamespace

from tests.analysis.helpers import FIXTURES, run_cli

from flagcheck_analysis.report import rmwcost as why
from flagcheck_analysis.report.cli import inputs_to_files, load_records

WHATIF = os.path.join(FIXTURES, "whatif")


def groups():
    files, _ = inputs_to_files([WHATIF])
    records, docs, _, _, _ = load_records(files, None,
                                          ["always", "test_first"])
    return why.runs(records, docs)


class TestWhatif(unittest.TestCase):
    def test_rows_by_hand(self):
        rows = why.whatif(groups(), 100.0)
        self.assertEqual([(w.scenario, w.numjobs, w.mode) for w in rows],
                         [("pat", 2, "always"), ("pat", 2, "test_first")])
        a, t = rows
        self.assertEqual(a.line_per_io, 2.0)
        self.assertEqual(a.ns_one_job, 1000.0)
        self.assertAlmostEqual(a.predicted, 1e9 / 700, places=3)
        self.assertEqual(a.measured, 1.2e6)
        self.assertAlmostEqual(t.line_per_io, 2 / 4.8e6, places=15)
        self.assertEqual(t.ns_one_job, 800.0)
        self.assertAlmostEqual(
            t.predicted, 1 / (1 / 2.5e6 + (2 / 4.8e6) * 100e-9), places=3)
        (pred, meas), = why.whatif_gains(rows).values()
        self.assertAlmostEqual(pred, t.predicted / a.predicted, places=12)
        self.assertAlmostEqual(pred, 1.75, places=6)
        self.assertEqual(meas, 2.0)

    def test_at_predict_n(self):
        rows = why.whatif(groups(), 100.0, predict=256)
        at = [w for w in rows if w.numjobs == 256]
        self.assertEqual([w.mode for w in at], ["always", "test_first"])
        a, t = at
        # always: 1 / (1/(256 x 1.0M) + 2 x 100 ns) = 1e9 / 203.90625
        self.assertAlmostEqual(a.predicted, 1e9 / (1000 / 256 + 200),
                               places=3)
        self.assertIsNone(a.measured)
        self.assertAlmostEqual(t.predicted, 1 / (1 / (256 * 1.25e6) +
                                                 (2 / 4.8e6) * 100e-9),
                               places=3)
        gains = why.whatif_gains(rows)
        self.assertAlmostEqual(gains[("pat", 256)][0],
                               t.predicted / a.predicted, places=12)
        self.assertIsNone(gains[("pat", 256)][1])
        self.assertEqual(len(why.whatif(groups(), 100.0, predict=2)), 2)

    def test_no_transfer_no_estimate(self):
        self.assertEqual(why.whatif(groups(), None), [])

    def test_grows_with_the_transfer(self):
        a100 = why.whatif(groups(), 100.0)[0].predicted
        a200 = why.whatif(groups(), 200.0)[0].predicted
        self.assertAlmostEqual(a200, 1e9 / 900, places=3)
        self.assertLess(a200, a100)

    def test_in_the_report_labelled_an_estimate(self):
        with tempfile.TemporaryDirectory() as out:
            p = run_cli("flagcheck-report", "--no-plot", "--transfer-ns",
                        "100", "--outdir", out, WHATIF)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("an ESTIMATE per pattern scenario (transfer 100.0 ns "
                      "one way, --transfer-ns)", p.stdout)
        line = [l for l in p.stdout.splitlines()
                if l.split()[:3] == ["pat", "2", "test_first"]]
        self.assertEqual(len(line), 1, p.stdout)
        self.assertEqual(line[0].split()[-2:], ["x1.75", "x2.00"], line[0])
        self.assertNotIn("lone ", p.stdout.split("ESTIMATE")[1])
        self.assertNotIn("cmod ", p.stdout.split("ESTIMATE")[1])


if __name__ == "__main__":
    unittest.main()
