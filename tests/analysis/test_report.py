"""flagcheck report on bad and plain inputs: one line per bad file, no
traceback, the rest still reported, exit status 1 only with nothing."""

import os
import shutil
import tempfile

import pytest

from tests.analysis.helpers import CLIENTSERVER, RESULTS, run_cli


class TestReportInputs:
    def setup_method(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "out")

    def teardown_method(self):
        shutil.rmtree(self.tmp)

    def copy(self, name, new):
        shutil.copy(os.path.join(RESULTS, name), os.path.join(self.tmp, new))
        return os.path.join(self.tmp, new)

    def report(self, *args):
        return run_cli("report", "--verbose", "--no-plot", "--outdir",
                       self.out,
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
        assert p.returncode == 0, p.stderr
        assert "Traceback" not in p.stderr
        # one message each (a long one goes on, indented, within 120
        # columns)
        errors = [l for l in p.stderr.splitlines()
                  if "wrote" not in l and not l.startswith(" ")]
        assert len(errors) == 3, p.stderr
        assert trunc + ": truncated JSON" in p.stderr
        assert garbage + ": malformed JSON" in p.stderr
        assert "runs: 1 (always n=1)" in p.stdout
        assert "flagcheck-fixture, numjobs=1" in p.stdout
        assert "test_first" not in p.stdout    # only one variant read

    def test_nothing_to_report(self):
        bad = os.path.join(self.tmp, "bad.json")
        with open(bad, "w") as g:
            g.write("[1, 2]\n")
        p = self.report(bad)
        assert p.returncode == 1
        assert "Traceback" not in p.stderr
        assert p.stdout == ""
        assert run_cli("report", self.tmp + "/none"
                       ).returncode == 1

    def test_plain_files_grouped_by_job_options(self):
        # names without the convention: variant from the variant job option
        a = self.copy("flagcheck-fixture_always_nj2_r1.json", "a.json")
        b = self.copy("flagcheck-fixture_test_first_nj2_r1.json", "b.json")
        p = self.report(a, b, CLIENTSERVER)
        assert p.returncode == 0, p.stderr
        assert "runs: 3 (always n=1, test_first n=2)" in p.stdout
        assert "fixture, numjobs=2" in p.stdout
        assert "n=1 vs 2: cannot tell" in p.stdout
        # --group-by another option: every run is one variant ("null" backend)
        p = self.report("--group-by", "backend", "--base", "null", a, b)
        assert "runs: 2 (null n=2)" in p.stdout

    def test_a_run_that_names_no_variant_is_named(self):
        # the variant is the run's record's, else its variant= job option:
        # a bare fio JSON without one (an older name, flag_check=, is no
        # exception) is named, never guessed from its file name
        a = self.copy("flagcheck-fixture_always_nj2_r1.json", "a.json")
        b = self.copy("flagcheck-fixture_test_first_nj2_r1.json", "b.json")
        with open(a) as f:
            text = f.read()
        assert text.count('"variant" :') == 1, text
        with open(a, "w") as f:
            f.write(text.replace('"variant" :', '"flag_check" :'))
        p = self.report(a, b)
        assert "Traceback" not in p.stderr
        said = " ".join(l.strip() for l in p.stderr.splitlines())
        assert (a + ": cannot tell the variant: no manifest entry and no "
                "variant job option; use --group-by") in said, p.stderr

    def test_group_by_missing_option(self):
        a = self.copy("flagcheck-fixture_always_nj2_r1.json", "a.json")
        p = self.report("--group-by", "no_such_option", a)
        assert p.returncode == 1
        assert "cannot tell the variant" in p.stderr

    def test_plots(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            pytest.skip("matplotlib not installed for this Python")
        p = run_cli("report", "--verbose", RESULTS, "--outdir", self.out)
        assert p.returncode == 0, p.stderr
        for kind in ("iops", "ratio"):
            for ext in ("png", "svg"):
                path = os.path.join(self.out, "flagcheck-fixture_%s.%s"
                                    % (kind, ext))
                assert os.path.getsize(path) > 1000, path

    def test_help(self):
        p = run_cli("report", "--help")
        assert p.returncode == 0
        for opt in ("--base", "--outdir", "--format", "--no-plot",
                    "--group-by", "exit status"):
            assert opt in p.stdout


class TestCountsCrossChecked:
    """Every run's counters file is checked against its fio JSON: a run
    whose engine counted other I/Os than fio (the doubled counts of the
    engine before the exactly-once fix) is named and left out; RMWs per
    I/O divide by fio's own count."""

    def setup_method(self):
        self.tmp = tempfile.mkdtemp()
        for name in os.listdir(RESULTS):
            if "_nj1_" in name:
                shutil.copy(os.path.join(RESULTS, name), self.tmp)

    def teardown_method(self):
        shutil.rmtree(self.tmp)

    def report(self):
        return run_cli("report", "--verbose", "--no-plot", "--outdir",
                       os.path.join(self.tmp, "out"), "--format", "markdown",
                       *sorted(os.path.join(self.tmp, n)
                               for n in os.listdir(self.tmp)
                               if n.endswith(".json")))

    def test_agreeing_runs_are_all_kept(self):
        p = self.report()
        assert p.returncode == 0, p.stderr
        assert "left out" not in p.stdout + p.stderr

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
        assert p.returncode == 0, p.stderr
        want = "flagcheck-fixture_always_nj1_r2.json: the engine counted " \
               "%d I/Os, fio %d" % (recs[0]["ios"], recs[0]["ios"] // 2)
        assert want in p.stderr
        assert "left out (counters disagree with fio's)" in p.stdout
        assert want in p.stdout
        # the always side keeps its one agreeing run: n=1
        with open(os.path.join(self.tmp, "out", "report.md")) as f:
            assert "left out" in f.read()
