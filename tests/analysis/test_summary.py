"""The summary (the report's last block on the terminal, the first in
report.md) on fixtures/summary: rate-cap, a decided cell (fio's rate_iops
sets the ratio: x2), and S2, an undecided cell recorded with a CPU hog
beside it (every run marked busy); the verdict's rules on their own."""

import glob
import json
import os
import re
import tempfile

import pytest

from tests.analysis.helpers import FIXTURES, REPO, ResultsDirCase, run_cli
from flagcheck_analysis.inputs import corun, fiojson, published
from flagcheck_analysis.stats import decide, paired
from flagcheck_analysis.report import catalogue, summary

SUMMARY = os.path.join(FIXTURES, "summary")
S2, CAP = os.path.join(SUMMARY, "s2"), os.path.join(SUMMARY, "rate-cap")


def raw_iops(directory, scenario, variant, nj):
    """IOPS of each run of one cell, summed over fio's jobs, read and
    write, from fio's own JSON."""
    out = []
    for path in sorted(glob.glob(os.path.join(
            directory, "%s_%s_nj%d_r*.json" % (scenario, variant, nj)))):
        doc = fiojson.load_fio_json(path)
        out.append(sum(j[d]["iops"] for j in doc["jobs"]
                       for d in ("read", "write")))
    return out


def corun_pct(directory):
    """The share of the run its jobs ran together, the median over the
    directory's runs (inputs/corun.py)."""
    return corun.cell_share([corun.share(fiojson.load_counters(p)) for p in
                             sorted(glob.glob(os.path.join(
                                 directory, "*.flagcheck.jsonl")))])


def busy_runs(directory):
    with open(os.path.join(directory, "manifest.json")) as f:
        runs = json.load(f)["runs"]
    return sum(1 for e in runs if e["interference"]["busy"]), len(runs)


class TestSummaryOfFixture:
    @classmethod
    def setup_class(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        p = run_cli("report", "--verbose", "--no-plot", "--width", "0",
                    "--outdir", cls.tmp.name, S2, CAP)
        assert p.returncode == 0, p.stderr
        cls.out = p.stdout
        with open(os.path.join(cls.tmp.name, "report.md")) as f:
            cls.md = f.read()

    @classmethod
    def teardown_class(cls):
        cls.tmp.cleanup()

    def block(self):
        return self.out.rstrip("\n").split("\n\n")[-1].splitlines()

    def row(self, name):
        return [l for l in self.block() if l.startswith(name)]

    def test_printed_last_in_s_number_order(self):
        block = self.block()
        assert block[0].startswith("summary: "), block[0]
        assert block[1].split() == ["scenario", "numjobs", "ratio",
                                    "95%", "CI", "decided",
                                    "published", "verdict"]
        assert block[3].startswith("S2 buffer-new-randwrite ")
        assert block[4].startswith("rate-cap ")
        # the big-box line of the one job file that names its machine,
        # then, indented, the sentence on what limits its gain
        assert block[5].startswith(
            "S2 buffer-new-randwrite: on kunpeng-920-6426 nodes=0 at 16 "
            "CPUs: x"), block[5]
        # then the co-running line of the cell its jobs seldom shared
        # (the fixture's S2 jobs ran together about 20% of each run)
        assert block[-1].startswith("co-running, S2 buffer-new-randwrite "
                                    "at 2 jobs: the jobs ran together "), block
        why = " ".join(l.strip() for l in block[6:-1])
        assert all(l.startswith("  ") for l in block[6:-1]) and \
            why.startswith(block[5].split("CPUs: ")[1].split()[0] + ": ") \
            and why.endswith("."), block

    def test_decided_cell(self):
        # r1, r2, r3 of each variant: the pairs of the same repeat
        base = raw_iops(CAP, "rate-cap", "20000", 1)
        other = raw_iops(CAP, "rate-cap", "40000", 1)
        assert (len(base), len(other)) == (3, 3)
        pr = paired.paired([o / b for b, o in zip(base, other)])
        busy, n = busy_runs(CAP)
        assert (pr.ci[0] > 1), pr
        line, = self.row("rate-cap ")
        assert line.split()[:8] == [
            "rate-cap", "1", "40000/20000", "x%.3f" % pr.gain,
            "%.3f..%.3f" % pr.ci, "decided", "(pairs)", "-"]
        busy_note = "; the machine was busy in %d of %d runs" % (busy, n) \
            if busy else ""
        assert line.endswith("decided: 40000 faster" + busy_note), line

    def test_undecided_busy_cell(self):
        base = raw_iops(S2, "buffer-new-randwrite", "always", 2)
        other = raw_iops(S2, "buffer-new-randwrite", "test_first", 2)
        busy, n = busy_runs(S2)
        assert (busy, n) == (4, 4)
        pairs = [o / b for b, o in zip(base, other)]
        pr = paired.paired(pairs)
        ratio, ci = pr.gain, pr.ci
        line, = self.row("S2 buffer-new-randwrite ")
        together = corun_pct(S2)
        s2 = published.find("buffer-new-randwrite")
        assert s2.figure == "930 -> 958 MiB/s"
        assert " ".join(line.split()) == " ".join([
            "S2 buffer-new-randwrite", "2", "test_first/always",
            "x%.3f" % ratio, "%.3f..%.3f" % ci, "undecided",
            "x%.2f (930 -> 958 MiB/s, arm64 Kunpeng 920, 16 jobs)"
            % (958 / 930), "undecided: the 2 jobs ran together %.0f%% of"
            " the time: the line was seldom contended, so these runs cannot"
            " decide it (2 pairs, at least 3 needed); the machine was busy"
            " in 4 of 4 runs; stop the other load: more runs like these"
            " measure little contention" % together])

    def test_the_hog_kept_the_jobs_apart(self):
        # the undecided cell's jobs ran together less than SELDOM_PCT of
        # each run (its counters' corun): more repeats would not decide it
        assert corun_pct(S2) < corun.SELDOM_PCT

    def test_report_md_starts_with_it(self):
        parts = self.md.split("\n\n")
        assert parts[0] == "# flagcheck report"
        assert parts[1].startswith("### summary: "), parts[1]
        rows = parts[2].splitlines()
        assert len(rows) == 4
        assert rows[2].startswith("| S2 buffer-new-randwrite | 2 |")
        assert rows[3].startswith("| rate-cap | 1 |")

    def test_scenario_named_once_in_the_tables(self):
        assert "S2 buffer-new-randwrite, numjobs=2\n" in self.out
        assert "scaling: S2 buffer-new-randwrite " in self.out
        assert "\nbuffer-new-randwrite," not in self.out
        assert "scaling: buffer-new-randwrite" not in self.out


class TestPlots:
    """The plots read right: M IOPS, the published ratio, undecided and
    busy cells marked, every legend line explained (matplotlib's SVG keeps
    each text as a comment)."""

    def svg(self, directory, stem, kind, *args):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            pytest.skip("matplotlib not installed for this Python")
        with tempfile.TemporaryDirectory() as out:
            p = run_cli("report", "--outdir", out, directory,
                        *args)
            assert p.returncode == 0, p.stderr
            with open(os.path.join(out, "%s_%s.svg" % (stem, kind))) as f:
                return f.read()

    def test_undecided_busy_with_published(self):
        iops = self.svg(S2, "S2_buffer-new-randwrite", "iops")
        assert "M IOPS (sum over the jobs)" in iops
        for variant in ("always", "test_first"):
            assert "%s: mean ± stddev of its runs" % variant in iops
        assert ("red ring: the machine was busy (4 of 4 runs in these "
                "cells)") in iops
        ratio = self.svg(S2, "S2_buffer-new-randwrite", "ratio")
        for text in ("test_first / always, its 95% CI (over the pairs)",
                     "published x1.03: 930 -&gt; 958 "
                     "MiB/s, arm64 Kunpeng 920, 16 jobs", "1: no difference",
                     "red ring: the machine was busy (4 of 4 runs"):
            assert text in ratio
        # the hollow mark's legend gives the reasons that apply, the
        # summary's (issue 48, friction 9), and no other
        texts = re.findall(r"<!-- (.*?) -->", ratio)
        at = [i for i, t in enumerate(texts) if t.startswith("hollow: ")]
        assert len(at) == 1, texts
        legend = texts[at[0]]
        for t in texts[at[0] + 1:]:     # its lines after the first
            if not t.startswith("  "):
                break
            legend += " " + t.strip()
        assert legend == ("hollow: undecided: the 2 jobs ran together %.0f%% "
                          "of the time: the line was seldom contended; 2 "
                          "pairs, at least 3 needed" % corun_pct(S2)), legend
        assert "neither clear of 1" not in ratio

    def test_decided_without_published(self):
        ratio = self.svg(CAP, "rate-cap", "ratio", "--base", "20000")
        assert "40000 / 20000, its 95% CI (over the pairs)" in ratio
        assert "hollow" not in ratio
        assert "published" not in ratio


@pytest.mark.skipif(not os.path.exists(os.path.join(REPO, "build",
                                                    "fio-flagcheck.so")),
                    reason="needs the built engine")
class TestJobFileFigure(ResultsDirCase):
    """A job file with its own published figure (the catalogue's header
    line) puts it in the summary: the registry takes it from there."""

    def test_catalogue_job(self):
        job = os.path.join(REPO, "jobs", "catalogue", "gup-pin-fast.fio")
        p = run_cli("run", job, "--numjobs", "1", "--repeats", "1",
                    "--runtime", "1", "--ramp", "0", "--no-line-probe",
                    "--outdir", self.out, timeout=120)
        assert p.returncode == 0, p.stderr
        # run ends with the bottom line, the short answer's rows
        ran = p.stdout.splitlines()
        assert ran[1].startswith("bottom line: ") and ran[0] == "", ran
        p = run_cli("report", "--no-plot", "--outdir",
                    os.path.join(self.out, "short"), self.out)
        assert p.returncode == 0, p.stderr
        rows = ran[[i for i, l in enumerate(ran)
                    if l.startswith("gup-pin-fast at 1 job: ")][0]:]
        assert rows[0].startswith("gup-pin-fast at 1 job: test_first/always "
                                  "x"), ran
        assert p.stdout.endswith("\n".join(rows) + "\n"), (ran, p.stdout)
        p = run_cli("report", "--verbose", "--no-plot", "--width", "0",
                    self.out)
        assert p.returncode == 0, p.stderr
        fig = catalogue.read(job)
        block = p.stdout.rstrip("\n").split("\n\n")[-1].splitlines()
        assert block[0].startswith("summary: "), block[0]
        line, = [l for l in block if l.startswith("gup-pin-fast ")]
        assert "  x%.2f (%s)  " % (fig.gain, fig.what) in line
        assert published.find("gup-pin-fast") == None


def _d(ratio, lo, hi, n=5, reason="excludes_1"):
    return decide.Decision("test_first", reason, ratio, (lo, hi), n)


class TestVerdict:
    S1 = published.find("filemap-odirect-read")
    S2 = published.find("s2-buffer-new")

    def test_registry(self):
        assert self.S1.number == "S1"
        assert self.S1.ratio == 4.0 / 1.7
        assert self.S2.number == "S2"
        assert published.label("odirect-randread") == "S1 filemap-odirect-read"
        assert published.label("elsewhere") == "elsewhere"
        names = ["elsewhere", "S5 bh-lru-lookup", "S1 filemap-odirect-read",
                 "S2 buffer-new-randwrite"]
        assert sorted(names, key=published.order_key) == \
            names[2:] + names[1:2] + names[:1]

    def test_reproduced(self):
        v = summary.verdict(_d(1.68, 1.62, 1.75), self.S1, 2, 0, 10)
        assert v == ("reproduced: same direction; smaller, as "
                     "expected with 2 jobs sharing the line instead of "
                     "4 sockets")
        v = summary.verdict(_d(2.3, 2.2, 2.4), self.S1, 2, 0, 10)
        assert v == ("reproduced: same direction and size (published "
                     "inside the CI)")
        v = summary.verdict(_d(1.5, 1.4, 1.6), self.S2, 2, 3, 10)
        assert v == ("reproduced: same direction; larger than "
                     "published; the machine was busy in 3 of 10 runs")
        v = summary.verdict(_d(1.01, 1.005, 1.015, reason="narrow"),
                            self.S2, 16, 0, 10)
        assert v == ("reproduced: same direction; smaller than "
                     "published")

    def test_not_reproduced(self):
        v = summary.verdict(_d(0.9, 0.85, 0.95), self.S1, 2, 0, 10)
        assert v == "not reproduced: the opposite direction"
        v = summary.verdict(_d(1.0, 0.99, 1.01, reason="narrow"), self.S2,
                            2, 0, 10)
        assert v == ("not reproduced: no difference beyond ±2% "
                     "(published +3.0%)")

    def test_undecided(self):
        # half-width 0.2 against a distance of 0.1 to 1: 5 * 2^2 runs
        d = _d(1.1, 0.9, 1.3, n=5, reason="undecided")
        assert summary.verdict(d, self.S1, 2, 0, 10) == \
            ("undecided: the 95% CI still holds 1 after 5 runs "
             "per variant: rerun with more repeats "
             "(--max-repeats 20)")
        assert summary.verdict(d, self.S1, 2, 10, 10) == \
            ("undecided: the 95% CI still holds 1 after 5 runs "
             "per variant; the machine was busy in 10 of 10 runs: "
             "rerun idle or with more repeats "
             "(--max-repeats 20)")
        d = _d(1.1, 0.9, 1.3, n=2, reason="undecided")
        assert summary.verdict(d, None, 2, 0, 4, "REPRO_REPEATS") == \
            ("undecided: 2 runs per variant, at least 3 needed: "
             "rerun with more repeats (REPRO_REPEATS=8)")

    def test_without_a_published_ratio(self):
        s5 = published.find("bh-lru-lookup")
        assert s5.ratio is None
        d = decide.Decision("on", "excludes_1", 1.3, (1.2, 1.4), 3)
        assert summary.verdict(d, s5, 1, 0, 6) == ("decided: on "
                                                   "faster")
        assert summary.verdict(d, None, 1, 0, 6) == ("decided: on "
                                                     "faster")
