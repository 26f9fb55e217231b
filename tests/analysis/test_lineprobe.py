"""The line probe: the cache line between job 1's and job 2's CPUs,
measured before and after each run (flagcheck_analysis.run.lineprobe and
flagcheck run; inputs.lineprobes reads what it recorded)."""

import os

import pytest

from tests.analysis.helpers import HERE, NULL_JOB, ResultsDirCase, run_cli
from flagcheck_analysis.inputs import fiojson, lineprobes
from flagcheck_analysis.stats import compare
from flagcheck_analysis.run import lineprobe
from flagcheck_analysis.calibrate import calibration

USABLE = sorted(os.sched_getaffinity(0))
FIXTURE = os.path.join(HERE, "fixtures", "results",
                       "flagcheck-fixture_always_nj2_r1.json")


def entry(variant, repeat, before, after, scenario="s", numjobs=2):
    return {"scenario": scenario, "numjobs": numjobs, "variant": variant,
            "repeat": repeat, "line_probe": {"cpus": [0, 1],
                                             "before_ns": before,
                                             "after_ns": after}}


class TestPure:
    def test_cpus_of(self):
        assert lineprobe.cpus_of(
            {"pinned": True, "jobs": [2, 5, 3]}) == [2, 5]
        for place in (None, {}, {"pinned": True, "jobs": [0]},
                      {"pinned": True, "jobs": [1, 1]},
                      {"pinned": False, "jobs": [0, 1]}):
            assert lineprobe.cpus_of(place) is None, place

    def test_spans_and_the_verdict_note(self):
        runs = [entry("always", 1, 26.4, 125.1), entry("test_first", 1,
                                                        125.7, 124.2),
                entry("always", 1, 30.0, None, numjobs=4),
                {"scenario": "s", "numjobs": 1, "variant": "always"}]
        spans = lineprobes.cell_spans(runs)
        assert spans == {("s", 2): (26.4, 125.7),
                         ("s", 4): (30.0, 30.0)}
        assert lineprobes.moved_text(spans, ("s", 2)) == \
            ("the line between the jobs' CPUs took 26..126 ns "
             "over its runs (see the line probe table)")
        assert lineprobes.moved_text(spans, ("s", 4)) is None
        assert lineprobes.moved_text(spans, ("s", 1)) is None
        # just under a factor of 2: not "moved"
        spans = lineprobes.cell_spans([entry("always", 1, 60.0, 119.9)])
        assert lineprobes.moved_text(spans, ("s", 2)) is None

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
        assert header == ["scenario", "numjobs", "repeat", "variant",
                          "CPUs", "IOPS", "before ns", "after ns"]
        iops = fiojson.run_metrics(fiojson.load_fio_json(FIXTURE),
                                   None)["iops"]
        assert rows == [
            ["s", "2", "r1", "always", "0,1", "%.0f" % iops, "26.4",
             "125.1"],
            ["s", "2", "r1", "test_first", "0,1", "-", "25.0", "27.5"]]
        assert lineprobes.table([(FIXTURE, None)], records) is None

    def test_header_line(self):
        assert lineprobes.header_line([{"line_probe_s": None},
                                       {}]) is None
        assert "0.1 s of flagcheck-calibrate's CAS ping-pong" in \
            lineprobes.header_line([{"line_probe_s": 0.1}])

    def test_a_failing_program_says_why(self):
        with pytest.raises(calibration.CalibrationError) as e:
            lineprobe.probe([0, 1], program="/nonexistent/calibrate")
        assert "/nonexistent/calibrate: no such program" in str(e.value)


# slow: real flagcheck runs with line probes
@pytest.mark.slow
# serial: the line between two CPUs measured
@pytest.mark.serial
@pytest.mark.skipif(not (len(USABLE) > 1),
                    reason="needs 2 usable CPUs: no pair to probe")
class TestRunner(ResultsDirCase):
    def run_matrix(self, *extra):
        p = run_cli("run", NULL_JOB, "--numjobs", "1,2",
                    "--variants", "always", "--repeats", "1", "--runtime", "1",
                    "--ramp", "0", "--outdir", self.out, "--quiet", *extra,
                    timeout=120)
        assert p.returncode == 0, p.stderr
        return {(e["numjobs"]): e for e in self.manifest()["runs"]}

    def test_runs_of_two_jobs_are_probed_on_their_jobs_cpus(self):
        runs = self.run_matrix()
        assert self.manifest()["conditions"]["line_probe_s"] == 0.1
        assert "line_probe" not in runs[1]
        lp = runs[2]["line_probe"]
        assert lp["cpus"] == runs[2]["placement"]["jobs"][:2]
        assert len(set(lp["cpus"])) == 2
        for key in ("before_ns", "after_ns"):
            # a transfer between two CPUs: more than nothing, less than
            # a microsecond on any machine that runs this
            assert (0 < lp[key] < 1000), lp
        p = run_cli("report", "--verbose", self.out, "--no-plot")
        assert p.returncode == 0, p.stderr
        assert "line probe: the one-way cache-line transfer" in p.stdout
        assert "the cache line between the jobs' CPUs, per run" in p.stdout

    def test_a_resume_keeps_the_probes(self):
        """issue 21 item 2: the finished runs keep their line_probe"""
        first = self.run_matrix()[2]["line_probe"]
        runs = self.run_matrix()
        assert runs[2].get("resumed"), runs[2]
        assert runs[2]["line_probe"] == first
        p = run_cli("report", "--verbose", self.out, "--no-plot")
        assert "the cache line between the jobs' CPUs, per run" in p.stdout

    def test_no_line_probe(self):
        runs = self.run_matrix("--no-line-probe")
        assert self.manifest()["conditions"]["line_probe_s"] is None
        assert "line_probe" not in runs[2]
