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
        return run_cli("report", "--verbose", "--no-plot", "--width", "0",
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

    def test_compare_names_every_recorded_difference(self):
        """issue 48, friction 4: the pinning, the ramp, the clock, a
        --set variable, the host: each field the manifests record
        differently is named, not only the runs' own fields"""
        def other_setup(mf):
            mf["conditions"].update(pinned=False, ramp_s=0,
                                    clocksource="gettimeofday")
            mf["vars"]["RUNTIME"] = "3"
            mf["host"]["usable_cpus"] = 64
            mf["conditions"]["new_knob"] = 7      # a field named later
            for e in mf["runs"]:
                e["settings"].update(pinned=False, ramp_s=0,
                                     clocksource="gettimeofday")
                e["settings"]["vars"]["RUNTIME"] = "3"
        a, b = self.copy("a"), self.copy("b", change_manifest=other_setup)
        p = self.report("--compare", a, b)
        assert p.returncode == 0, p.stderr
        line = p.stdout.splitlines()[2]
        assert line.startswith("B differs from A in: "), line
        said = line[len("B differs from A in: "):].split("; ")
        assert said == [
            "usable CPUs (A 2, B 64)", "pinning (A pinned, B not pinned "
            "(--no-pin))", "ramp (warm-up) (A 1 s, B 0 s)",
            "clock (A cpu, B gettimeofday)", "conditions.new_knob (A not "
            "recorded, B 7)", "variable RUNTIME (A 1, B 3)"], said

    def _job_files(self, header_b):
        """Two job files, B's header line @header_b in place of A's."""
        with open(os.path.join(os.path.dirname(RESULTS), "..",
                               "flagcheck-fixture.fio")) as f:
            text = f.read()
        paths = []
        for name, head in (("a.fio", "; published-figure: x1.50 my box"),
                           ("b.fio", header_b)):
            path = os.path.join(self.tmp, name)
            with open(path, "w") as f:
                f.write("; a header\n%s\n%s" % (head, text))
            paths.append(path)
        return paths

    def _with_job(self, name, path, recorded):
        from flagcheck_analysis.inputs import runrecord

        def job(mf):
            sha = runrecord.job_sha256(path)
            mf["matrix"]["jobs"] = {"flagcheck-fixture": path}
            mf["matrix"]["job_sha256"] = {"flagcheck-fixture": sha}
            if recorded:
                mf["matrix"]["job_body_sha256"] = {
                    "flagcheck-fixture": runrecord.job_body_sha256(path)}
                mf["matrix"]["job_headers"] = {
                    "flagcheck-fixture": runrecord.job_headers(path)}
            for e in mf["runs"]:
                e["job_sha256"] = sha
        return self.copy(name, change_manifest=job)

    def test_a_job_file_edited_in_its_headers_says_so(self):
        """issue 48, friction 4: two job files that differ in a header
        line are named by that line, not by two hashes; from the
        manifest's record, or from the files where an older manifest
        has none and the files are still the ones that ran"""
        pa, pb = self._job_files("; published-figure: x1.60 my box")
        for recorded in (True, False):
            a = self._with_job("a%d" % recorded, pa, recorded)
            b = self._with_job("b%d" % recorded, pb, recorded)
            p = self.report("--compare", a, b)
            assert p.returncode == 0, p.stderr
            line = p.stdout.splitlines()[2]
            assert line.endswith(
                "job file of flagcheck-fixture: only its header lines, "
                "published-figure (A 'x1.50 my box', B 'x1.60 my box')"), \
                line
            assert "sha256" not in line
        # an edit of the text fio reads: the two SHA-256s, shortened
        with open(pb, "a") as f:
            f.write("\n[another]\n")
        b = self._with_job("b2", pb, True)
        p = self.report("--compare", a, b)
        assert "job file of flagcheck-fixture (A sha256 " in p.stdout

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
        p = run_cli("report", "--verbose", "--compare", RESULTS, RESULTS,
                    RESULTS)
        assert p.returncode == 2
        assert "not both" in p.stderr
        p = run_cli("report")
        assert p.returncode == 2
        assert "not neither" in p.stderr
