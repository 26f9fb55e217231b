"""The report's "why" section against hand-computed fixtures
(fixtures/why: fio JSON + counters lines + calibration.json).

The fixtures, per run (group_reporting: one fio entry; 2 jobs at nj=2):
  s1 always  r1: IOPS 1.8M, total_ios 3.6M, job_runtime 4000 ms; each job
                 1.8M calls, 3.6M RMWs, 7031 timed calls of 200 ns
  s1 always  r2: IOPS 2.2M, total_ios 4.4M, 4000 ms; each job 2.2M calls,
                 4.4M RMWs, 8593 timed calls of 300 ns
  s1 test_first: IOPS 4.0M, total_ios 8.0M, 4000 ms; each job 4.0M calls,
                 0 RMWs, 15625 timed calls of 10 ns
  idle always nj=1: a model whose path takes no time: 2.0M calls, checks
                 0, 7812 timed calls of 0 ns
  (one timed call in timed_every = 256, each line's timed calls in the one
  log2 bucket of its ns)
  calibration: 2 CPUs, 100 ns one way; at 2 threads always 60 ns/op and
                 40M ops/s, test_first 10 ns/op
By hand:
  ns/io (per job) = 1e9 * 2 / mean IOPS: always 1e9*2/2.0M = 1000,
      test_first 1e9*2/4.0M = 500; gap 500 ns
  RMW/io = rmw / fio's total_ios: 7.2M/3.6M = 2, 8.8M/4.4M = 2 (the
      counters' ios would give 1); test_first 0
  ns/RMW in the run = 500 / (2 - 0) = 250
  calibrated = 60 - 10 = 50 ns; accounted 50/250 = 20%
  ceiling = 40M / 2 = 20M IOPS; always/ceiling = 2.0M / 20M = 10%
  share r1 = 200 ns * 1.8M * 2 jobs / (4000 ms * 1e6) = 18%,
        r2 = 300 * 2.2M * 2 / 4e9 = 33%; mean 25.5%; ns per check
        (200 + 300) / 2 = 250
  share test_first = 10 * 4.0M * 2 / 4e9 = 2%; idle 0%
(What the patch would gain on a bigger box is the simulator's, in the
big-box answer: test_whatif.py.)"""

import json
import os
import shutil
import tempfile

from tests.analysis.helpers import FIXTURES, RESULTS, message, run_cli

from flagcheck_analysis.calibrate import calibration
from flagcheck_analysis.report import gaps, runfigures, timeshare, why
from flagcheck_analysis.report.loadrecords import inputs_to_files, load_records

WHY = os.path.join(FIXTURES, "why")


def load(directory, variants=("always", "test_first")):
    files, _ = inputs_to_files([directory])
    records, docs, _, _, _ = load_records(files, None)
    return records, docs


class TestArithmetic:
    def setup_method(self):
        self.records, self.docs = load(WHY)
        self.groups = runfigures.runs(self.records, self.docs)
        self.cal = calibration.load(os.path.join(WHY, "calibration.json"))

    def test_runs(self):
        a1, a2 = sorted(self.groups[("s1", 2, "always")],
                        key=lambda r: r.iops)
        assert (a1.iops, a1.total_ios) == (1800000.0, 3600000)
        assert a1.rmw_per_io == 2.0      # not 1.0 (counters' ios)
        assert round(a1.share - 18.0, 9) == 0
        assert round(a2.share - 33.0, 9) == 0
        assert (a1.ns_per_check, a2.ns_per_check) == (200.0, 300.0)
        tf, = self.groups[("s1", 2, "test_first")]
        assert tf.rmw_per_io == 0.0
        assert round(tf.share - 2.0, 9) == 0
        idle, = self.groups[("idle", 1, "always")]
        assert idle.share == 0.0
        assert idle.ns_per_check == 0.0

    def test_gap(self):
        g, = gaps.gaps(self.groups, self.cal)
        assert (g.scenario, g.numjobs) == ("s1", 2)
        assert g.ns_io == {"always": 1000.0, "test_first": 500.0}
        assert g.rmw_io == {"always": 2.0, "test_first": 0.0}
        assert (g.gap, g.ns_rmw, g.cal_ns_rmw) == (500.0, 250.0,
                                                   50.0)
        assert round(g.accounted - 0.20, 12) == 0
        assert g.ceiling == 20e6
        assert round(g.of_ceiling - 0.10, 12) == 0

    def test_gap_that_cannot_be_read_says_why(self):
        g, = gaps.gaps(self.groups, self.cal)
        cells = lambda g: why.gap_table([g], self.cal)[2][0]  # noqa: E731
        header = why.gap_table([g], self.cal)[1]
        col = {h: i for i, h in enumerate(header)}
        # test_first slower than always: no cost per RMW, nothing accounted
        slower = g._replace(gap=-30.7, ns_rmw=-15.35, accounted=None)
        row = cells(slower)
        assert row[col["gap ns/io"]] == "-30.7"
        assert row[col["ns/write in run"]] == \
            "none: test_first not faster here"
        assert row[col["accounted"]] == "none: no gap to account for"
        # the calibration's RMW costs 4.574 times the run's
        beyond = g._replace(accounted=4.574)
        assert cells(beyond)[col["accounted"]] == \
            ("beyond 100% (x4.6): the runs' RMWs cost less than "
             "the calibration's, as when the jobs seldom ran at "
             "once")
        assert cells(g)[col["accounted"]] == "20.0%"

    def test_stores_are_line_writes(self):
        """A fix that only stores (no RMW): the stores per I/O are the
        line writes the gap is divided by, and the ceiling's too."""
        def run(iops, stores):
            return runfigures.Run(iops, 1000, 0.0, None, None, "pattern", "x",
                           stores)
        groups = {("p", 2, "always"): [run(2.0e6, 3.0)],
                  ("p", 2, "test_first"): [run(4.0e6, 0.0)]}
        g, = gaps.gaps(groups, self.cal)
        assert g.rmw_io == {"always": 0.0, "test_first": 0.0}
        assert g.stores_io == {"always": 3.0, "test_first": 0.0}
        # ns/io 1000 and 500: a gap of 500 ns over 3 extra stores per I/O
        assert g.gap == 500.0
        assert round(g.ns_rmw - 500.0 / 3, 9) == 0
        assert round(g.ceiling - 40e6 / 3, 3) == 0
        title, header, rows, _ = why.gap_table([g], self.cal)
        col = {h: i for i, h in enumerate(header)}
        assert [rows[0][col[h]] for h in (
            "RMW/io always", "RMW/io test_first", "stores/io always",
            "stores/io test_first", "ns/write in run")] == \
            ["0.000", "0.000", "3.000", "0.000", "166.7"]
        assert "per line write, an RMW or a plain store" in title

    def test_equal_write_counts_give_no_ns_per_write(self):
        """A layout fix: both forms write the line twice per I/O; the
        counts divided by each run's own total_ios leave a residue (the
        engine's 2 setup writes here), which is no difference to divide
        the gap by.  One more store per 1024 I/Os is one."""
        def run(iops, ios, rmw, stores):
            return runfigures.Run(iops, ios, rmw / ios, None, None,
                                  "pattern", "x", stores / ios)
        a = [run(2.0e6, 3000001, 2 * 3000001, 2),
             run(2.1e6, 3100003, 2 * 3100003, 2)]
        t = [run(2.5e6, 2900007, 2 * 2900007, 2),
             run(2.4e6, 3000011, 2 * 3000011, 2)]
        extra = (sum(r.rmw_per_io + r.stores_per_io for r in a) -
                 sum(r.rmw_per_io + r.stores_per_io for r in t)) / 2
        assert extra != 0.0                    # the residue
        g, = gaps.gaps({("l", 2, "always"): a, ("l", 2, "test_first"): t},
                       None)
        assert g.gap is not None and g.ns_rmw is None
        title, header, rows, _ = why.gap_table([g], None)
        col = {h: i for i, h in enumerate(header)}
        assert rows[0][col["ns/write in run"]] == \
            "none: both forms write the line as often"
        # a real difference: always stores once more every 1024 I/Os
        a2 = [run(r.iops, r.total_ios, 2 * r.total_ios,
                  2 + r.total_ios // 1024) for r in a]
        g2, = gaps.gaps({("l", 2, "always"): a2, ("l", 2, "test_first"): t},
                        None)
        assert gaps.real_extra(a2, t, 1.0 / 1024)
        assert round(g2.ns_rmw - g2.gap / (
            sum(r.rmw_per_io + r.stores_per_io for r in a2) / 2 -
            sum(r.rmw_per_io + r.stores_per_io for r in t) / 2), 6) == 0

    def test_gap_without_calibration(self):
        g, = gaps.gaps(self.groups, None)
        assert g.ns_rmw == 250.0
        assert (g.cal_ns_rmw, g.accounted, g.ceiling,
                g.of_ceiling) == (None, None, None, None)

    def test_gap_beyond_the_calibrated_threads(self):
        cal = json.loads(json.dumps(self.cal))
        for name in calibration.PATTERNS:
            cal["patterns"][name] = cal["patterns"][name][:1]
        g, = gaps.gaps(self.groups, cal)
        assert (g.cal_ns_rmw, g.ceiling) == (None, None)

    def test_shares(self):
        got = {(s.scenario, s.numjobs, s.variant): s
               for s in timeshare.shares(self.groups)}
        a = got[("s1", 2, "always")]
        assert (a.n, a.ns_per_check, a.published) == (2, 250.0, 40.0)
        assert round(a.share - 25.5, 9) == 0
        assert got[("s1", 2, "test_first")].published is None
        assert got[("idle", 1, "always")].share == 0.0
        assert got[("idle", 1, "always")].published is None
        for s in got.values():
            assert s.share <= 100.0

    def test_time_share_edges(self):
        # no model ran: 0, whatever the timing keys
        assert timeshare.time_share([{"ios": 0}], 1000) == (0.0, None)
        # model calls ran but none was timed: unknown
        assert timeshare.time_share(
            [{"ios": 10, "timed_calls": 0, "timed_ns": 0}], 1000) == \
            (None, None)
        # one job whose path took all of its 1 ms: exactly 100%
        assert timeshare.time_share([timed(1000, 16, 1000)], 1) == \
            (100.0, 1000.0)

    def test_time_share_of_the_model_calls(self):
        # the engine's own keys: timed_calls of the model's calls, which
        # are the job's ios (equal to fio's): 2 jobs x 500 ns x 1e6 calls
        # in 1 s of runtime each (2000 ms summed) = 50%
        recs = [dict(timed(1000000, 15625, 500), ios_read=1000000,
                     checks=1000000)] * 2
        assert timeshare.time_share(recs, 2000) == (50.0, 500.0)
        # a model that ran no check for these I/Os still ran per call
        recs = [dict(timed(1000, 16, 100), ios_read=1000, checks=0)]
        assert timeshare.time_share(recs, 1) == (10.0, 100.0)

    def test_time_share_without_the_preempted_calls(self):
        # 1e6 calls of 40 ns in 1 s; of the 3907 timed, 30 preempted for
        # 2 ms each (a busy machine): their plain mean would say 15.4 us
        # per call, 1536% of the runtime; trimmed, the 40 ns calls: 4%
        hist, hist_ns = [0] * 32, [0] * 32
        hist[6], hist_ns[6] = 3877, 3877 * 40
        hist[21], hist_ns[21] = 30, 30 * 2000000
        rec = {"ios": 1000000, "checks": 1000000, "timed_calls": 3907,
               "timed_ns": 3877 * 40 + 30 * 2000000, "timed_log2": hist,
               "timed_log2_ns": hist_ns}
        assert timeshare.time_share([rec], 1000) == (4.0, 40.0)
        # within TRIM_BUCKETS of the median: a genuine slow call, kept
        hist[8], hist_ns[8] = 100, 100 * 200
        assert round(timeshare.trimmed_ns_per_call(hist, hist_ns) -
                     (3877 * 40 + 20000) / 3977, 9) == 0

    def test_share_warning_only_for_what_cannot_be_genuine(self):
        run = runfigures.Run(1.0, 10, 2.0, 150.0, 40.0, "m", "x.json", None)
        assert "are wrong" in timeshare.share_warning(run)
        assert timeshare.share_warning(run._replace(share=100.0)) is None


def timed(ios, calls, ns):
    """A counters line of @ios model calls, @calls of them timed at @ns
    each, in the one log2 bucket of @ns (the engine's: its bit length)."""
    hist, hist_ns = [0] * 32, [0] * 32
    hist[ns.bit_length()], hist_ns[ns.bit_length()] = calls, calls * ns
    return {"ios": ios, "timed_calls": calls, "timed_ns": calls * ns,
            "timed_log2": hist, "timed_log2_ns": hist_ns}


class TestReport:
    def setup_method(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "out")

    def teardown_method(self):
        shutil.rmtree(self.tmp)

    def report(self, *argv):
        return run_cli("report", "--verbose", "--no-plot", "--width", "0",
                       "--outdir", self.out, *argv)

    def test_text_and_markdown(self):
        p = self.report(WHY)
        assert p.returncode == 0, p.stderr
        assert p.stderr.count("\n") == 1, p.stderr
        row = [l.split() for l in p.stdout.splitlines()
               if l.startswith("s1 ") and "%" in l and "always" not in l
               and "test_first" not in l]
        # the fixture's counters have no stores: "-" in both stores/io
        assert row == [["s1", "2", "1000.0", "500.0", "500.0",
                        "2.000", "0.000", "-", "-", "250.0",
                        "50.00", "20.0%", "20000000", "10.0%"]]
        assert ("s1              2  always         2         250.0"
                "              25.5%  40% (S1, before the fix)") in p.stdout
        assert ("idle            1  always         1           0.0"
                "               0.0%  -") in p.stdout
        # issue 26: the formula's worked estimate is gone (the big-box
        # answer is the simulator's)
        assert "worked estimate" not in p.stdout
        assert "ESTIMATE" not in p.stdout
        with open(os.path.join(self.out, "report.md")) as f:
            md = f.read()
        assert "\n## Why\n" in md
        assert "### Calibration of this machine" in md
        assert ("| s1 | 2 | 1000.0 | 500.0 | 500.0 | 2.000 | 0.000 | "
                "- | - | 250.0 | 50.00 | 20.0% | 20000000 | 10.0% |") in md
        assert "calibration.png" not in md           # --no-plot

    def test_heatmap_in_report(self):
        p = run_cli("report", "--verbose", "--outdir", self.out, WHY)
        assert p.returncode == 0, p.stderr
        with open(os.path.join(self.out, "calibration.png"), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        with open(os.path.join(self.out, "report.md")) as f:
            assert ("![cache-line transfer latency between CPUs]"
                    "(calibration.png)") in f.read()

    def test_no_section_without_calibration_or_timing(self):
        # the committed results without their calibration.json and
        # counters files: nothing to show
        d = os.path.join(self.tmp, "res")
        shutil.copytree(RESULTS, d)
        for name in os.listdir(d):
            if name.endswith(".flagcheck.jsonl") or \
                    name == calibration.JSON_NAME:
                os.remove(os.path.join(d, name))
        p = self.report(d)
        assert p.returncode == 0, p.stderr
        assert "why:" not in p.stdout
        with open(os.path.join(self.out, "report.md")) as f:
            assert "## Why" not in f.read()

    def test_csv_prints_no_section(self):
        p = self.report(WHY, "--format", "csv")
        assert p.returncode == 0, p.stderr
        assert "why:" not in p.stdout
        with open(os.path.join(self.out, "report.md")) as f:
            assert "## Why" in f.read()

    def test_share_over_100_percent_is_named(self):
        d = os.path.join(self.tmp, "res")
        shutil.copytree(WHY, d)
        path = os.path.join(d, "s1_test_first_nj2_r1.flagcheck.jsonl")
        with open(path) as f:
            lines = [json.loads(l) for l in f]
        for r in lines:                 # 600 ns x 8M > 4 s
            r.update(timed(r["ios"], r["timed_calls"], 600))
        with open(path, "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in lines))
        p = self.report(d)
        assert p.returncode == 0, p.stderr
        assert (os.path.join(d, "s1_test_first_nj2_r1.json") +
                ": its counters put 120.0% of the jobs' time in the "
                "modelled path") in message(p.stderr)

    def test_the_formulas_options_are_gone(self):
        # issue 26: --transfer-ns and --calibration drove the formula; a
        # calibration made elsewhere is a profile: --machine FILE
        for argv in (["--transfer-ns", "150"], ["--calibration",
                                                os.path.join(WHY,
                                                "calibration.json")]):
            p = self.report(WHY, *argv)
            assert p.returncode == 2, argv
            assert "unrecognized arguments: %s" % argv[0] in p.stderr
            assert not os.path.exists(self.out)

    def test_bad_results_calibration_is_named(self):
        d = os.path.join(self.tmp, "res")
        shutil.copytree(WHY, d)
        with open(os.path.join(d, "calibration.json"), "w") as f:
            f.write("{")
        p = self.report(d)
        assert p.returncode == 0, p.stderr
        assert (os.path.join(d, "calibration.json") + ": malformed "
                "JSON") in p.stderr
        assert "250.0" in p.stdout      # the rest is still there
