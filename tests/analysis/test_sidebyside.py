"""flagcheck report --compare A B, and runs of different setups never
pooled without it, on copies of the committed results directory (real fio
runs) with one recorded field edited."""

import glob
import json
import os
import shutil
import tempfile

from tests.analysis.helpers import RESULTS, message, run_cli
from flagcheck_analysis.inputs import fiojson


def _edit(path, change):
    with open(path) as f:
        doc = json.load(f)
    change(doc)
    with open(path, "w") as f:
        json.dump(doc, f)


class TestSideBySide:
    def setup_method(self):
        self.tmp = tempfile.mkdtemp()

    def teardown_method(self):
        shutil.rmtree(self.tmp)

    def copy(self, name, change_json=None, change_manifest=None, runs=True):
        """A copy of the results directory; @runs: its runs made runs of
        their own (their start a millisecond later), not copies (a report
        counts a copied run once: test_a_copy_is_the_same_runs)."""
        d = shutil.copytree(RESULTS, os.path.join(self.tmp, name))
        if runs and name != "a":
            def later(doc, more=change_json):
                doc["timestamp_ms"] += 1
                if more:
                    more(doc)
            change_json = later
        if change_json:
            for path in glob.glob(os.path.join(d, "*_nj*_r*.json")):
                _edit(path, change_json)
        if change_manifest:
            _edit(os.path.join(d, "manifest.json"), change_manifest)
        return d

    def report(self, *args):
        return run_cli("report", "--no-plot", "--width", "0",
                       "--outdir", os.path.join(self.tmp, "report"), *args)

    @staticmethod
    def iops(d, variant, nj):
        """mean IOPS of a directory's runs of one cell, from fio's JSON"""
        vals = [sum(j["read"]["iops"] for j in fiojson.load_fio_json(p)["jobs"])
                for p in sorted(glob.glob(os.path.join(
                    d, "flagcheck-fixture_%s_nj%d_r*.json" % (variant, nj))))]
        return sum(vals) / len(vals)

    def newer_fio(self):
        def newer(doc):
            doc["fio version"] = "fio-3.36"
            for job in doc["jobs"]:
                job["read"]["iops"] *= 2
        return self.copy("b", change_json=newer)

    def test_fio_versions_are_never_pooled_without_compare(self):
        a, b = self.copy("a"), self.newer_fio()
        p = self.report("--format", "csv", a, b)
        assert p.returncode == 0, p.stderr
        assert ("the runs of flagcheck-fixture differ in fio version: "
                "not averaged together") in p.stderr
        got = {}
        for row in p.stdout.split("\n\n")[0].splitlines()[1:]:
            cells = row.split(",")
            if cells[2] == "iops":
                got[(cells[0], int(cells[1]))] = (float(cells[5]),
                                                  int(cells[4]))
        want = {}
        for d, v in ((a, "fio-3.33"), (b, "fio-3.36")):
            for nj in (1, 2):
                # as the CSV writes it: ten significant figures
                want[("flagcheck-fixture (fio version %s)" % v, nj)] = (
                    float(format(self.iops(d, "always", nj), ".10g")), 2)
        assert got == want

    def test_compare_labels_what_differs(self):
        a, b = self.copy("a"), self.newer_fio()
        p = self.report("--compare", a, b)
        assert p.returncode == 0, p.stderr
        lines = p.stdout.splitlines()
        assert lines[:3] == [
            "A: %s (8 runs)" % a, "B: %s (8 runs)" % b,
            "B differs from A in: fio version (A fio-3.33, B fio-3.36)"]
        rows = {}
        for line in lines:
            w = line.split()
            if w and w[0] in ("always", "test_first"):
                rows[(w[0], int(w[1]))] = line
        assert sorted(rows) == [("always", 1), ("always", 2),
                                ("test_first", 1),
                                ("test_first", 2)]
        for (variant, nj), line in rows.items():
            change = 100 * (self.iops(b, variant, nj) / self.iops(a, variant, nj)
                            - 1)
            assert " %+.1f%% " % change in line
            assert "n=2 vs 2" in line
        with open(os.path.join(self.tmp, "report", "sidebyside.md")) as f:
            assert "- B differs from A in: fio version" in f.read()

    def test_unknown_setup_is_a_setup_of_its_own(self):
        def unknown(mf):
            mf["engine_version"] = "unknown"
            for e in mf["runs"]:
                del e["engine_sha256"]
        a, b = self.copy("a"), self.copy("b", change_manifest=unknown)
        with open(os.path.join(a, "manifest.json")) as f:
            known = "sha256 %s" % json.load(f)["runs"][0]["engine_sha256"][:12]
        p = self.report(a, b)
        assert p.returncode == 0, p.stderr
        assert ("reported apart as flagcheck-fixture (engine %s);"
                " flagcheck-fixture (engine unknown)" % known) in p.stdout
        assert "runs: 16 (always n=8" not in p.stdout.split(
            "flagcheck-fixture (engine %s), numjobs=1" % known)[1]
        p = self.report("--compare", a, b)
        assert "B differs from A in: engine (A %s, B unknown)" % known \
            in p.stdout

    def test_same_setup(self):
        a, b = self.copy("a"), self.copy("b")
        p = self.report("--compare", a, b)
        assert p.returncode == 0, p.stderr
        assert "A and B: the same setup in every field" in p.stdout
        assert "+0.0%" in p.stdout

    def test_refused_with_the_reason(self):
        def bigger(doc):
            doc["global options"]["bs"] = "8k"
        a, b = self.copy("a"), self.copy("b", change_json=bigger)
        p = self.report("--compare", a, b)
        assert p.returncode == 1, p.stderr
        assert ("flagcheck-fixture: not compared, the job shape "
                "differs: A rw=randread bs=4k, B rw=randread bs=8k") in \
            p.stdout
        assert "nothing could be compared" in p.stderr

        def renamed(mf):
            for e in mf["runs"]:
                e["scenario"] = "other"
        c = self.copy("c", change_manifest=renamed)
        p = self.report("--compare", a, c)
        assert p.returncode == 1, p.stderr
        assert "flagcheck-fixture: only in A: not compared" in p.stdout
        assert "other: only in B: not compared" in p.stdout

        def one_variant(mf):
            mf["runs"] = [e for e in mf["runs"] if e["variant"] == "always"]
        d = self.copy("d", change_manifest=one_variant)
        p = self.report("--compare", a, d)
        assert p.returncode == 0, p.stderr
        for nj in (1, 2):
            assert ("flagcheck-fixture: test_first at numjobs=%d only "
                    "in A: not compared" % nj) in p.stdout

    def test_the_same_results_twice_are_named(self):
        a = self.copy("a")
        p = self.report("--compare", a, a)
        assert p.returncode == 0, p.stderr
        assert "flagcheck report: --compare: A and B are the same runs " \
            "(%s, %s: the same fio output): every difference reads none" \
            % (a, a) in message(p.stderr)
        p = self.report("--compare", a + "," + a, a)
        assert "flagcheck report: --compare %s,%s: %s named twice: read " \
            "once" % (a, a, a) in message(p.stderr)
        # read once: B's cells hold A's runs, not twice as many
        assert "+0.0%" in p.stdout

    def test_a_copy_is_the_same_runs(self):
        """issue 49 item 6: runs are told apart by content, not path: a
        copy of a results directory pooled with it counts once, and
        compared with it reads as the same runs"""
        a, b = self.copy("a"), self.copy("b", runs=False)
        alone = self.report("--format", "json", a)
        p = self.report("--format", "json", a, b)
        assert p.returncode == 0, p.stderr
        lines = [l for l in message(p.stderr).splitlines()
                 if "counted once" in l]
        assert lines == ["flagcheck report: %s: its 8 runs are the same as "
                         "runs in %s (the same fio output: a copy): each run "
                         "is counted once" % (b, a)]
        together = json.loads(p.stdout)
        assert together.pop("warnings") == [lines[0][len("flagcheck "
                                                          "report: "):]]
        doc = json.loads(alone.stdout)
        doc.pop("warnings")
        assert together == doc
        p = self.report("--compare", a, b)
        assert "flagcheck report: --compare: A and B are the same runs " \
            "(%s, %s: the same fio output): every difference reads none" \
            % (a, b) in message(p.stderr)
        run = glob.glob(os.path.join(b, "*_nj1_r1.json"))[0]
        p = self.report("--compare", a, run)
        assert "flagcheck report: --compare: B (%s) holds 1 of A's runs " \
            "(%s; the same fio output): they count on both sides" \
            % (run, a) in message(p.stderr)

    def test_usage(self):
        p = run_cli("report", "--compare", RESULTS, RESULTS,
                    RESULTS)
        assert p.returncode == 2
        assert "not both" in p.stderr
        p = run_cli("report")
        assert p.returncode == 2
        assert "not neither" in p.stderr
