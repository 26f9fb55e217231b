"""The catalogue's published figures (flagcheck_analysis.catalogue): the
published-figure forms, their refusals, every file of jobs/catalogue/, and
flagcheck catalogue on the why fixtures (s1 at numjobs 2: always 1.8M and
2.2M IOPS, mean 2.0M; test_first 4.0M: x2.00 by hand)."""

import glob
import os
import shutil
import tempfile

import pytest

from tests.analysis.helpers import FIXTURES, REPO, message, run_cli

from flagcheck_analysis.report import catalogue

CATALOGUE = sorted(glob.glob(os.path.join(REPO, "jobs", "catalogue",
                                          "*.fio")))


class TestParse:
    def test_forms(self):
        f = catalogue.parse("25617 -> 1194790 higher pin_fast, 256 CPUs", "w")
        assert (f.form, f.what) == ("before -> after",
                                    "pin_fast, 256 CPUs")
        assert round(f.gain - 1194790 / 25617, 12) == 0
        assert catalogue.parse("4.5 -> 4.2 lower s", "w").gain == 4.5 / 4.2
        assert catalogue.parse("x1.95 hackbench", "w").gain == 1.95
        assert round(catalogue.parse("-22.7% page_fault2",
                                     "w").gain - 1 / 0.773, 12) == 0
        assert round(catalogue.parse("+5% OLTP throughput",
                                     "w").gain - 1.05, 12) == 0

    def test_refusals_name_the_place_value_and_forms(self):
        for bad in ("1.7M -> 4.0M higher IOPS", "1 -> 2 better x",
                    "0 -> 2 higher x", "2 -> 0 lower x", "x0 gain",
                    "-100% all", "-150% x", "x1.95", "1 -> 2 higher",
                    "+0% x", "+3%", ""):
            with pytest.raises(catalogue.FigureError) as e:
                catalogue.parse(bad, "f.fio:7")
            msg = str(e.value)
            assert msg.startswith("f.fio:7: published-figure "), msg
            assert repr(bad.strip()) in msg
            assert "'A -> B higher|lower WHAT'" in msg

    def test_one_line_in_the_header(self):
        d = tempfile.mkdtemp()
        try:
            path = os.path.join(d, "j.fio")
            with open(path, "w") as f:
                f.write("; published-figure: x2 a\n; published-figure: x3 b"
                        "\n[global]\n")
            with pytest.raises(catalogue.FigureError) as e:
                catalogue.read(path)
            assert "j.fio:2: a second published-figure line" in \
                str(e.value)
            with open(path, "w") as f:
                f.write("; none here\n[global]\n")
            assert catalogue.read(path) is None
            # below the first section: refused, as the docstring says
            with open(path, "w") as f:
                f.write("; none here\n[global]\n; published-figure: x2 a\n")
            with pytest.raises(catalogue.FigureError) as e:
                catalogue.read(path)
            assert str(e.value) == (
                "%s:3: a published-figure line below [global]: it belongs "
                "in the header, the comments before the first section"
                % path)
        finally:
            shutil.rmtree(d)

    def test_every_catalogue_file_has_a_valid_figure(self):
        assert len(CATALOGUE) >= 6
        for path in CATALOGUE:
            fig = catalogue.read(path)
            assert fig is not None, path
            assert fig.gain > 1.0, path   # each fix gained


class TestCli:
    def setup_method(self):
        self.tmp = tempfile.mkdtemp()
        self.res = os.path.join(self.tmp, "res")
        shutil.copytree(os.path.join(FIXTURES, "why"), self.res)
        self.job = os.path.join(self.tmp, "s1.fio")
        with open(self.job, "w") as f:
            f.write("; published-figure: 1.7 -> 4.0 higher IOPS, 4 sockets\n"
                    "[global]\n")

    def teardown_method(self):
        shutil.rmtree(self.tmp)

    def test_ratio_beside_the_published(self):
        p = run_cli("catalogue", "--job", self.job, self.res)
        assert p.returncode == 0, p.stderr
        row, = [l.split() for l in p.stdout.splitlines()
                if l.startswith("s1 ")]
        # 2 runs against 1, one pair: no CI, undecided (the summary's)
        assert row[:8] == ["s1", "2", "2000000", "4000000", "2+1",
                           "x2.00", "-", "x2.35"]
        assert "undecided: 1 pair, at least 3 needed: rerun with more "\
            "repeats (--max-repeats 3)" in \
            " ".join(p.stdout.split())

    def test_nothing_to_report(self):
        p = run_cli("catalogue", self.res)     # no job file named
        assert p.returncode == 1
        assert "no runs of both variants" in p.stderr

    def test_bad_figure_is_one_line(self):
        with open(self.job, "w") as f:
            f.write("; published-figure: lots faster\n[global]\n")
        p = run_cli("catalogue", "--job", self.job, self.res)
        assert p.returncode == 1
        # one message: a line and those it goes on over within 120 columns
        assert len(message(p.stderr).strip().splitlines()) == 1, p.stderr
        assert ("s1.fio:1: published-figure 'lots faster' is not "
                "valid") in message(p.stderr)
