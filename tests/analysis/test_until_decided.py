"""flagcheck run --until-decided with a stand-in fio whose IOPS the test
knows: which cells stop when, resume, and what the report says of them."""

import glob
import json
import os
import shutil
import tempfile

import pytest

from tests.analysis.helpers import FIO, HERE, NULL_JOB, REPO, run_cli
from flagcheck_analysis.stats import paired

FAKE_FIO = os.path.join(HERE, "fake-fio")
# the stand-in leaves the reading of the job file (--showcmd) to fio
pytestmark = pytest.mark.skipif(not FIO, reason="needs fio")


def means(xs):
    return sum(xs) / len(xs)


# slow: flagcheck runs of many runs
@pytest.mark.slow
class TestUntilDecided:
    def setup_method(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "results")
        self.args = [NULL_JOB, "--fio", FAKE_FIO, "--numjobs", "1,2,3",
                     "--until-decided", "--max-repeats", "5", "--ramp", "0",
                     "--outdir", self.out, "--quiet"]

    def teardown_method(self):
        shutil.rmtree(self.tmp)

    def manifest(self):
        with open(os.path.join(self.out, "manifest.json")) as f:
            return json.load(f)

    def jsons(self):
        return {os.path.basename(p): os.stat(p).st_mtime_ns
                for p in glob.glob(os.path.join(self.out, "null-engine_*"
                                                ".json"))}

    def test_cells_stop_as_their_values_say_and_resume(self):
        p = run_cli("run", *self.args)
        assert p.returncode == 0, p.stderr
        m = self.manifest()
        assert m["complete"]
        assert m["conditions"]["max_repeats"] == 5
        cells = [(c["numjobs"], c["repeats"], c["stopped"],
                  [d["reason"] for d in c["decisions"]])
                 for c in m["cells"]]
        # fake-fio's table: x1.5 (decided at 3), x1.0 tight (decided at 3),
        # noise (runs to --max-repeats)
        assert cells == [(1, 3, "decided", ["excludes_1"]),
                         (2, 3, "decided", ["narrow"]),
                         (3, 5, "max_repeats", ["undecided"])]
        # the pairs decide: the geometric mean of each repeat's ratio
        assert [d["by"] for c in m["cells"]
                for d in c["decisions"]] == ["pairs"] * 3
        assert round(m["cells"][0]["decisions"][0]["ratio"] -
                     paired.paired([150 / 100, 153 / 102,
                                    147 / 98]).gain, 12) == 0
        assert round(m["cells"][2]["decisions"][0]["ratio"] -
                     paired.paired([120 / 100, 60 / 150, 170 / 50,
                                    90 / 120, 110 / 80]).gain, 12) == 0
        # ABBA: the variants in reverse order in even repeats
        want = ["null-engine_%s_nj%d_r%d" % (variant, nj, r)
                for nj, n in ((1, 3), (2, 3), (3, 5))
                for r in range(1, n + 1)
                for variant in (("always", "test_first") if r % 2 else
                             ("test_first", "always"))]
        assert [e["name"] for e in m["runs"]] == want
        assert sorted(self.jsons()) == sorted(n + ".json" for n in want)

        # again: nothing to do, the same cells
        before = self.jsons()
        p = run_cli("run", *self.args)
        assert p.returncode == 0, p.stderr
        assert self.jsons() == before
        again = self.manifest()
        assert again["cells"] == m["cells"]
        assert all(e["resumed"] for e in again["runs"])

        # an interrupted matrix that had not yet run repeat 5 of nj3
        for variant in ("always", "test_first"):
            os.unlink(os.path.join(self.out, "null-engine_%s_nj3_r5.json"
                                   % variant))
        p = run_cli("run", *self.args)
        assert p.returncode == 0, p.stderr
        after = self.jsons()
        assert sorted(n for n in after
                      if after[n] != before.get(n)) == \
            ["null-engine_always_nj3_r5.json",
             "null-engine_test_first_nj3_r5.json"]
        assert self.manifest()["cells"] == m["cells"]

        p = run_cli("report", "--verbose", self.out, "--no-plot",
                    "--width", "0")
        assert p.returncode == 0, p.stderr
        lines = p.stdout.splitlines()
        row = [l for l in lines if l.startswith("null-engine ") and
               "decided: CI excludes 1" in l]
        assert len(row) == 1
        assert "test_first/always x1.500" in row[0]
        assert len([l for l in lines if "undecided at "
                    "--max-repeats" in l]) == 1
        assert len([l for l in lines if "decided: CI narrower "
                    "than ±2%" in l]) == 1
        assert ("repeats: until decided (the IOPS ratio's 95% CI "
                "excludes 1, or is narrower than ±2%), at most 5 per "
                "variant") in lines

    def test_fixed_repeats(self):
        p = run_cli("run", NULL_JOB, "--fio", FAKE_FIO,
                    "--numjobs", "3", "--repeats", "2", "--outdir", self.out,
                    "--quiet")
        assert p.returncode == 0, p.stderr
        m = self.manifest()
        assert [(c["repeats"], c["stopped"]) for c in m["cells"]] == \
            [(2, "repeats")]
        assert len(self.jsons()) == 4
        assert not m["conditions"]["until_decided"]

    def test_bad_bounds(self):
        p = run_cli("run", NULL_JOB, "--until-decided",
                    "--repeats", "4", "--max-repeats", "3", "--dry-run")
        assert p.returncode == 2
        assert "--max-repeats 3 is less than --repeats 4" in p.stderr
        assert "Traceback" not in p.stderr
        for opt, bad, allowed in (
                ("--busy-threshold", "0", "a percentage above 0 and below "
                 "100"),
                ("--precision", "100", "a percentage above 0 and below 100"),
                ("--ramp", "-1", "whole seconds, 0 or more"),
                ("--ramp", "0.5", "whole seconds, 0 or more")):
            p = run_cli("run", NULL_JOB, opt, bad, "--dry-run")
            assert p.returncode == 2, opt
            assert p.stderr.splitlines()[-1] == \
                ("flagcheck run: error: argument %s: '%s': "
                 "allowed %s %s" % (opt, bad, "are" if opt ==
                                    "--ramp" else "is", allowed))

    def test_dry_run_shows_pin_and_ramp(self):
        p = run_cli("run", NULL_JOB, "--numjobs", "1",
                    "--repeats", "1", "--until-decided", "--max-repeats",
                    "4", "--dry-run", "--outdir", "/nonexistent")
        assert p.returncode == 0, p.stderr
        assert ("then one more repeat of every variant at a time, up to "
                "4") in p.stdout
        cmds = [l for l in p.stdout.splitlines() if not l.startswith("#")]
        cpu = min(os.sched_getaffinity(0))
        for c in cmds:
            assert " --ramp_time=1 --clocksource=" in c
            assert (" --cpus_allowed=%d --cpus_allowed_policy=split "
                    % cpu) in c
        p = run_cli("run", NULL_JOB, "--numjobs", "1",
                    "--repeats", "1", "--no-pin", "--ramp", "0",
                    "--dry-run", "--outdir", "/nonexistent")
        assert "cpus_allowed" not in p.stdout
        assert "ramp_time" not in p.stdout


class TestHelp:
    def test_every_new_option_is_explained(self):
        p = run_cli("run", "--help")
        for opt in ("--until-decided", "--max-repeats", "--precision",
                    "--no-pin", "--ramp", "--busy-threshold",
                    "--clocksource", "pinning, clock, line probe, warm-up, "
                    "interference", "docs/analysis.md (flagcheck run)"):
            assert opt in p.stdout
        # the explanations --help names, in full
        with open(os.path.join(REPO, "docs", "analysis.md")) as f:
            doc = f.read()
        for words in ("### flagcheck run", "**pins** each job",
                      "**gives every run one fio clock**", "**warms up**",
                      "**records interference**", "## Repeats until decided"):
            assert words in doc
        p = run_cli("report", "--help")
        assert "--exclude-busy" in p.stdout
