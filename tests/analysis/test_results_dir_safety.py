"""Nothing outside the results directory is read or written: no link in it
is followed, and every field of a hand-edited manifest or calibration is
validated, refused in one line that names it."""

import json
import os
import shutil

import pytest

from tests.analysis.helpers import REPO, run_cli
from tests.analysis.test_faults import Scratch, assert_one_line
from flagcheck_analysis.calibrate import calibration
from flagcheck_analysis.inputs import fiojson, manifest

FIO = shutil.which("fio")
ENGINE = os.path.join(REPO, "build", "fio-flagcheck.so")
FIXTURE_JOB = os.path.join(REPO, "tests", "analysis", "flagcheck-fixture.fio")
QUICK = ("--variants", "always", "--numjobs", "1", "--repeats", "1",
         "--ramp", "0", "--no-line-probe", "--quiet")


def assert_untouched(*victims):
    for v in victims:
        with open(v) as f:
            assert f.read() == "victim\n", v


class TestNoLinkFollowed(Scratch):
    """item 7: no link in a results directory is followed, no path a
    manifest names outside it is read"""

    def victim(self, name):
        path = self.path(name)
        with open(path, "w") as f:
            f.write("victim\n")
        return path

    @pytest.mark.skipif(not (FIO and os.path.exists(ENGINE)),
                        reason="needs fio and make")
    def test_runner_replaces_planted_links(self):
        os.makedirs(self.out)
        run = "flagcheck-fixture_always_nj1_r1"
        planted = ("manifest.json.tmp", run + ".json.partial",
                   run + ".flagcheck.jsonl")
        victims = [self.victim("v%d" % i) for i in range(len(planted))]
        for name, v in zip(planted, victims):
            os.symlink(v, os.path.join(self.out, name))
        p = run_cli("run", FIXTURE_JOB, *QUICK, "--runtime", "1",
                    "--set", "FLAGCHECK_ENGINE=" + ENGINE,
                    "--outdir", self.out, timeout=120)
        assert p.returncode == 0, p.stderr
        assert_untouched(*victims)
        assert not os.path.islink(os.path.join(
            self.out, run + ".flagcheck.jsonl"))

    def results(self):
        shutil.copytree(os.path.join(REPO, "tests", "analysis", "fixtures",
                                     "results"), self.out)
        return self.out

    def test_report_follows_no_link_out(self):
        out = self.results()
        elsewhere = self.path("elsewhere")
        os.makedirs(elsewhere)
        victim = self.victim("victim")
        os.symlink(victim, os.path.join(elsewhere, "report.md"))
        os.symlink(elsewhere, os.path.join(out, "report"))
        p = run_cli("report", "--no-plot", out)
        assert_one_line(p, os.path.join(out, "report"),
                        "is a symbolic link: refused", rc=1)
        assert_untouched(victim)
        # a link inside the report directory, given with --outdir
        os.unlink(os.path.join(out, "report"))
        p = run_cli("report", "--no-plot", "--outdir", elsewhere,
                    out)
        assert_one_line(p, "report.md is a symbolic link: refused", rc=1)
        assert_untouched(victim)

    def test_manifest_names_no_file_outside(self):
        out = self.results()
        outside = shutil.copy(os.path.join(
            out, "flagcheck-fixture_always_nj1_r1.json"), self.path("o.json"))
        path = os.path.join(out, "manifest.json")
        with open(path) as f:
            m = json.load(f)
        m["runs"] = [dict(m["runs"][0], json="../o.json"),
                     dict(m["runs"][1], json="/etc/passwd")]
        with open(path, "w") as f:
            json.dump(m, f)
        p = run_cli("report", "--no-plot", out)
        assert_one_line(p, "json '../o.json': not a file name in", rc=1)
        assert_one_line(p, "json '/etc/passwd': not a file name in", rc=1)
        assert "nothing to report" in p.stderr
        assert os.path.exists(outside)
        # a run file that is a link to one outside: not read either
        m["runs"] = [dict(m["runs"][0], json="planted.json")]
        with open(path, "w") as f:
            json.dump(m, f)
        os.symlink(outside, os.path.join(out, "planted.json"))
        p = run_cli("report", "--no-plot", out)
        assert_one_line(p, "planted.json: a symbolic link (refused", rc=1)


FIXTURE_RESULTS = os.path.join(REPO, "tests", "analysis", "fixtures",
                               "results")
WHY_CAL = os.path.join(REPO, "tests", "analysis", "fixtures", "why",
                       "calibration.json")


def edited(doc, path, value):
    """A copy of doc with the field at path (keys and indexes) set."""
    doc = json.loads(json.dumps(doc))
    obj = doc
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value
    return doc


class TestHandEditedFiles(Scratch):
    """item 12: every field read from manifest.json and calibration.json
    is validated: one line naming the file, the field and the value"""

    MANIFEST = (
        (("runs", 0, "scenario"), None, "runs[0].scenario is null"),
        (("runs", 0, "variant"), 5, "runs[0].variant is 5"),
        (("runs", 0, "numjobs"), "x", 'runs[0].numjobs is "x"'),
        (("conditions",), "s", 'conditions is "s": want an object'),
        (("host",), "s", 'host is "s"'),
        (("matrix",), "s", 'matrix is "s"'),
        (("matrix", "variants"), [1], "matrix.variants[0] is 1"),
        (("runs", 0, "placement"), "s", 'runs[0].placement is "s"'),
        (("runs", 0, "interference"), "s", 'runs[0].interference is "s"'),
        (("runs", 0, "interference"), {"busy": "yes"},
         'runs[0].interference.busy is "yes": want true or false'),
        (("runs", 0, "line_probe"), {"cpus": [0, 1], "before_ns": "x"},
         'runs[0].line_probe.before_ns is "x": want a finite number'),
        (("runs", 0, "hosts"), {"a": {"status": 1}},
         "runs[0].hosts.a.status is 1"),
        (("cells",), [{"decisions": "x"}], 'cells[0].decisions is "x"'),
        (("cells",), [5], "cells[0] is 5"),
    )

    def manifest_doc(self):
        with open(os.path.join(FIXTURE_RESULTS, "manifest.json")) as f:
            return json.load(f)

    def test_manifest_fields(self):
        doc = self.manifest_doc()
        path = self.path("manifest.json")
        for where, value, needle in self.MANIFEST:
            with open(path, "w") as f:
                json.dump(edited(doc, where, value), f)
            with pytest.raises(fiojson.InputError) as cm:
                manifest.load(path)
            assert path + ": " + needle in str(cm.value)
        del doc["runs"][0]["variant"]
        with open(path, "w") as f:
            json.dump(doc, f)
        with pytest.raises(fiojson.InputError) as cm:
            manifest.load(path)
        assert "runs[0].variant is missing: want a string" in str(cm.value)

    def test_report_says_it_in_one_line(self):
        shutil.copytree(FIXTURE_RESULTS, self.out)
        path = os.path.join(self.out, "manifest.json")
        for where, value, needle in self.MANIFEST[:3]:
            with open(path, "w") as f:
                json.dump(edited(self.manifest_doc(), where, value), f)
            p = run_cli("report", "--no-plot", self.out)
            assert_one_line(p, path + ": " + needle, rc=0)

    CALIBRATION = (
        (("summary", "same_node", "median_ns"), "fast",
         'summary.same_node.median_ns is "fast"'),
        (("summary", "same_node", "median_ns"), 0,
         "summary.same_node.median_ns is 0: want a finite number > 0"),
        (("summary", "same_node", "median_ns"), None,
         "summary.same_node.median_ns is null"),
        (("summary", "same_node", "median_ns"), -100,
         "summary.same_node.median_ns is -100"),
        (("summary", "same_node", "median_ns"), float("nan"),
         "summary.same_node.median_ns is NaN"),
        (("summary", "same_node", "median_ns"), 1e308,
         "summary.same_node.median_ns is 1e+308"),
        (("summary",), [], "summary is []: want an object"),
        (("patterns", "always", 0, "ops_per_s"), 0,
         "patterns.always[0].ops_per_s is 0"),
        (("transfer_ns", 0, 1), "x", 'transfer_ns[0][1] is "x"'),
    )

    def test_calibration_fields(self):
        with open(WHY_CAL) as f:
            doc = json.load(f)
        path = self.path("calibration.json")
        for where, value, needle in self.CALIBRATION:
            with open(path, "w") as f:
                json.dump(edited(doc, where, value), f)
            with pytest.raises(calibration.CalibrationError) as cm:
                calibration.load(path)
            assert path + ": " + needle in str(cm.value)

    def test_a_bad_calibration_program_leaves_no_file(self):
        with open(WHY_CAL) as f:
            doc = edited(json.load(f), ("transfer_ns", 0, 1), "fast")
        prog = self.path("cal")
        with open(prog, "w") as f:
            f.write("#!/bin/sh\ncat <<'EOF'\n%s\nEOF\n" % json.dumps(doc))
        os.chmod(prog, 0o755)
        os.makedirs(self.out)
        said = []
        assert calibration.ensure(self.out, 0.1, prog, said.append) is None
        assert len(said) == 1, said
        assert '%s: transfer_ns[0][1] is "fast"' % prog in said[0]
        assert os.listdir(self.out) == []
