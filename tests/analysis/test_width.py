"""The screen fits a terminal: flagcheck report's text output is at most
120 columns wide; a long note in a table becomes a numbered footnote under
it (one number per distinct text), names and numbers stay whole, a table
that still does not fit breaks its headers and then splits its columns,
each part with the key columns; report.md keeps the full text; the
summary stays last."""

import os
import re

import pytest

from tests.analysis.helpers import FIXTURES, RESULTS, run_cli
from flagcheck_analysis.report import render

SUMMARY = os.path.join(FIXTURES, "summary")
WHY = os.path.join(FIXTURES, "why")
MARK = re.compile(r" ?\[(\d+)\]$")


def _check_fits(out, width=120):
    lines = out.splitlines()
    too_long = [l for l in lines if len(l) > width]
    assert not too_long, too_long
    return lines


@pytest.mark.parametrize("inputs", [
    [RESULTS], [os.path.join(SUMMARY, "s2"), os.path.join(SUMMARY,
                                                          "rate-cap")],
    [WHY]], ids=["results", "summary", "why"])
def test_report_fits_120_columns_and_md_keeps_the_text(inputs, tmp_path):
    p = run_cli("report", "--verbose", "--no-plot", "--outdir", str(tmp_path),
                *inputs)
    assert p.returncode == 0, p.stderr
    lines = _check_fits(p.stdout)
    with open(tmp_path / "report.md") as f:
        md = f.read()
    # every footnote mark has its footnote under the table, and the text
    # in full is in report.md
    blocks = p.stdout.split("\n\n")
    for block in blocks:
        notes = {}
        for l in block.splitlines():
            m = re.match(r"^\[(\d+)\] (.*)$", l)
            if m:
                notes[m.group(1)] = m.group(2)
        for l in block.splitlines():
            for n in re.findall(r"\S \[(\d+)\](?:  |$)", l):
                assert n in notes, (n, block)
        for text in notes.values():
            assert text[:60] in md, text
    assert blocks[-1].startswith("summary: "), blocks[-1]
    # its last line is the summary's own, or goes on, indented, from one
    # of its lines (a big-box answer's sentence)
    assert lines[-1]
    assert not lines[-1].startswith(" ") or \
        blocks[-1].splitlines()[-1] == lines[-1]


def test_width_0_is_no_limit(tmp_path):
    p = run_cli("report", "--verbose", "--no-plot", "--width", "0", "--outdir",
                str(tmp_path), RESULTS)
    assert p.returncode == 0, p.stderr
    assert max(len(l) for l in p.stdout.splitlines()) > 120
    assert not re.search(r"(?m)^\[1\] ", p.stdout)


def test_bad_width_is_one_line(tmp_path):
    p = run_cli("report", "--width", "20", RESULTS)
    assert p.returncode == 2
    assert "--width: '20' is not valid: a width in columns, 60 to 10000, " \
        "or 0 (no limit)" in p.stderr


def test_notes_become_footnotes_names_stay_whole():
    long_a = "undecided: the 95% CI still holds 1 after 5 runs per variant"
    long_b = "reproduced: same direction; smaller than published"
    name = "flagcheck.a_metric_name_that_is_long_but_one_word"
    rows = [["1.000", long_a, name], ["2.000", long_b, name],
            ["3.000", long_a, name]]
    out = render.text_table("t", ["n", "verdict", "metric"], rows, {0},
                            width=80)
    lines = _check_fits(out, 80)
    assert lines[3].split() == ["1.000", "undecided", "[1]", name]
    assert lines[4].split() == ["2.000", "reproduced", "[2]", name]
    assert lines[5].split() == ["3.000", "undecided", "[1]", name]
    assert lines[6:] == ["[1] " + long_a, "[2] " + long_b]


def test_a_table_too_wide_for_notes_is_split_with_its_keys():
    header = ["scenario", "numjobs"] + ["column %d" % i for i in range(12)]
    rows = [["S1 filemap-odirect-read", "2"] +
            ["%d.000000" % i for i in range(12)]]
    out = render.text_table("wide", header, rows, set(range(1, 14)),
                            width=80)
    lines = _check_fits(out, 80)
    data = [l for l in lines if l.startswith("S1 ")]
    assert len(data) >= 2
    assert all(l.split()[:3] == ["S1", "filemap-odirect-read", "2"]
               for l in data)
    # every value once, in order
    values = [v for l in data for v in l.split()[3:]]
    assert values == ["%d.000000" % i for i in range(12)]


def test_prose_in_a_figures_column_becomes_a_footnote_not_a_wrapped_row():
    # the why table's "accounted" column: figures, right-aligned, but a
    # cell of prose where there is no figure; a figure with its spread
    # ("±" and a blank) stays whole
    prose = ("beyond 100% (x16.8): the runs' RMWs cost less than the "
             "calibration's, as when the jobs seldom ran at once")
    header = ["scenario", "numjobs", "always", "accounted", "ceiling IOPS"]
    rows = [["S2 buffer-new-randwrite", "2", "10188908 ±  7%", prose,
             "13570198"],
            ["S1 filemap-odirect-read", "1", "2547227 ± 10%", "28.1%",
             "226557107"]]
    out = render.text_table("why", header, rows, {1, 2, 3, 4}, width=80)
    lines = out.splitlines()
    assert max(len(l) for l in lines) <= 80
    assert " ".join(l.strip() for l in lines[-2:]) == "[1] " + prose
    body = lines[3:5]
    assert body[0].split() == ["S2", "buffer-new-randwrite", "2", "10188908",
                               "±", "7%", "beyond", "100%", "[1]",
                               "13570198"]
    assert body[1].split()[-2:] == ["28.1%", "226557107"]
