"""The line probe: the cache line between job 1's and job 2's CPUs,
measured before and after each run (flagcheck_analysis.run.lineprobe and
flagcheck-run; results.lineprobes reads what it recorded)."""

import os
import unittest

from tests.analysis.helpers import HERE, NULL_JOB, ResultsDirCase, run_cli
from flagcheck_analysis.results import fiojson, lineprobes
from flagcheck_analysis.stats import compare
from flagcheck_analysis.run import lineprobe
from flagcheck_analysis.calibrate import calibration

USABLE = sorted(os.sched_getaffinity(0))
FIXTURE = os.path.join(HERE, "fixtures", "results",
                       "flagcheck-fixture_always_nj2_r1.json")


def entry(mode, repeat, before, after, scenario="s", numjobs=2):
    return {"scenario": scenario, "numjobs": numjobs, "mode": mode,
            "repeat": repeat, "line_probe": {"cpus": [0, 1],
                                             "before_ns": before,
                                             "after_ns": after}}


class TestPure(unittest.TestCase):
    def test_cpus_of(self):
        self.assertEqual(lineprobe.cpus_of(
            {"pinned": True, "jobs": [2, 5, 3]}), [2, 5])
        for place in (None, {}, {"pinned": True, "jobs": [0]},
                      {"pinned": True, "jobs": [1, 1]},
                      {"pinned": False, "jobs": [0, 1]}):
            self.assertIsNone(lineprobe.cpus_of(place), place)

    def test_spans_and_the_verdict_note(self):
        runs = [entry("always", 1, 26.4, 125.1), entry("test_first", 1,
                                                        125.7, 124.2),
                entry("always", 1, 30.0, None, numjobs=4),
                {"scenario": "s", "numjobs": 1, "mode": "always"}]
        spans = lineprobes.cell_spans(runs)
        self.assertEqual(spans, {("s", 2): (26.4, 125.7),
                                 ("s", 4): (30.0, 30.0)})
        self.assertEqual(lineprobes.moved_text(spans, ("s", 2)),
                         "the line between the jobs' CPUs took 26..126 ns "
                         "over its runs (see the line probe table)")
        self.assertIsNone(lineprobes.moved_text(spans, ("s", 4)))
        self.assertIsNone(lineprobes.moved_text(spans, ("s", 1)))
        # just under a factor of 2: not "moved"
        spans = lineprobes.cell_spans([entry("always", 1, 60.0, 119.9)])
        self.assertIsNone(lineprobes.moved_text(spans, ("s", 2)))

    def test_table_reads_each_runs_iops_from_its_json(self):
        files = [(FIXTURE, entry("always", 1, 26.4, 125.1)),
                 ("/nonexistent.json", entry("test_first", 1, 25.0, 27.5)),
                 (FIXTURE, {"scenario": "s", "numjobs": 1}),
                 (FIXTURE, None)]
        # the report's records of the runs it could read (not the missing
        # one), each run's metrics from its own fio JSON
        records = [compare.Record("s", "always", 2, 1, fiojson.run_metrics(
            fiojson.load_fio_json(FIXTURE), None), FIXTURE)]
        title, header, rows, right = lineprobes.table(files, records)
        self.assertEqual(header, ["scenario", "numjobs", "repeat", "mode",
                                  "CPUs", "IOPS", "before ns", "after ns"])
        iops = fiojson.run_metrics(fiojson.load_fio_json(FIXTURE),
                                   None)["iops"]
        self.assertEqual(rows, [
            ["s", "2", "r1", "always", "0,1", "%.0f" % iops, "26.4",
             "125.1"],
            ["s", "2", "r1", "test_first", "0,1", "-", "25.0", "27.5"]])
        self.assertIsNone(lineprobes.table([(FIXTURE, None)], records))

    def test_header_line(self):
        self.assertIsNone(lineprobes.header_line([{"line_probe_s": None},
                                                  {}]))
        self.assertIn("0.1 s of flagcheck-calibrate's CAS ping-pong",
                      lineprobes.header_line([{"line_probe_s": 0.1}]))

    def test_a_failing_program_says_why(self):
        with self.assertRaises(calibration.CalibrationError) as e:
            lineprobe.probe([0, 1], program="/nonexistent/calibrate")
        self.assertIn("/nonexistent/calibrate: no such program",
                      str(e.exception))


@unittest.skipUnless(len(USABLE) > 1, "needs 2 usable CPUs: no pair to probe")
class TestRunner(ResultsDirCase):
    def run_matrix(self, *extra):
        p = run_cli("flagcheck-run", NULL_JOB, "--numjobs", "1,2",
                    "--modes", "always", "--repeats", "1", "--runtime", "1",
                    "--ramp", "0", "--outdir", self.out, "--quiet", *extra,
                    timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return {(e["numjobs"]): e for e in self.manifest()["runs"]}

    def test_runs_of_two_jobs_are_probed_on_their_jobs_cpus(self):
        runs = self.run_matrix()
        self.assertEqual(self.manifest()["conditions"]["line_probe_s"], 0.1)
        self.assertNotIn("line_probe", runs[1])
        lp = runs[2]["line_probe"]
        self.assertEqual(lp["cpus"], runs[2]["placement"]["jobs"][:2])
        self.assertEqual(len(set(lp["cpus"])), 2)
        for key in ("before_ns", "after_ns"):
            # a transfer between two CPUs: more than nothing, less than
            # a microsecond on any machine that runs this
            self.assertTrue(0 < lp[key] < 1000, lp)
        p = run_cli("flagcheck-report", self.out, "--no-plot")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("line probe: the one-way cache-line transfer", p.stdout)
        self.assertIn("the cache line between the jobs' CPUs, per run",
                      p.stdout)

    def test_a_resume_keeps_the_probes(self):
        """issue 21 item 2: the finished runs keep their line_probe"""
        first = self.run_matrix()[2]["line_probe"]
        runs = self.run_matrix()
        self.assertTrue(runs[2].get("resumed"), runs[2])
        self.assertEqual(runs[2]["line_probe"], first)
        p = run_cli("flagcheck-report", self.out, "--no-plot")
        self.assertIn("the cache line between the jobs' CPUs, per run",
                      p.stdout)

    def test_no_line_probe(self):
        runs = self.run_matrix("--no-line-probe")
        self.assertIsNone(self.manifest()["conditions"]["line_probe_s"])
        self.assertNotIn("line_probe", runs[2])
