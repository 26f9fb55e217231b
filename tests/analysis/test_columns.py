"""The 120-column rule counts terminal columns, not characters: a CJK
character takes two (Unicode's East Asian Width W and F, by
unicodedata.east_asian_width), a combining mark none; the wrap, the
tables and --list-machines keep to the columns.  A profile's description
is printed with its control characters escaped."""

import os
import re
import shutil
import unicodedata

import pytest

from tests.analysis import helpers
from tests.widthcheck import columns
from flagcheck_analysis.cli import predict as predict_cli
from flagcheck_analysis.report import render
from flagcheck_analysis import width
from flagcheck_analysis.inputs import textfile
from flagcheck_analysis.machines import profile

CJK = "\u6f22\u5b57\u306e\u540d\u524d"          # 5 wide characters


def test_columns_are_the_terminals():
    assert [unicodedata.east_asian_width(c) for c in CJK] == ["W"] * 5
    assert width.columns(CJK) == 10 == columns(CJK)
    assert width.columns("e\u0301") == 1 == columns("e\u0301")
    assert width.columns("abc") == 3
    assert width.pad(CJK, 12) == CJK + "  "
    assert width.pad(CJK, 12, right=True) == "  " + CJK
    assert width.cut(CJK, 5) == CJK[:2]


def test_the_wrap_counts_columns():
    line = " ".join([CJK] * 20)                 # 219 columns, 119 chars
    assert len(line) < 120 < width.columns(line)
    out = width.wrap(line).split("\n")
    assert [width.columns(l) for l in out] == [120, 2 + 98]
    assert out[1].startswith("  " + CJK)
    assert " ".join(l.strip() for l in out) == line


def test_a_table_of_wide_cells_lines_up_and_fits():
    rows = [[CJK * 3, "1"], ["a", "22"]]
    text = render.text_table("t", ["name", "n"], rows, {1}, width=60)
    lines = text.split("\n")[1:]
    assert [width.columns(l) for l in lines] == [34] * 4
    assert lines[2] == CJK * 3 + "   1"


def _report_of(tmp_path, name):
    d = tmp_path / "r"
    shutil.copytree(helpers.RESULTS, d)
    os.unlink(d / "manifest.json")
    for f in os.listdir(d):
        os.rename(d / f, d / f.replace("flagcheck-fixture", name))
    return helpers.run_cli("report", "--verbose", "--no-plot", "--outdir",
                           str(tmp_path / "o"), str(d))


def test_a_report_of_a_cjk_job_name_fits_120_columns(tmp_path):
    p = _report_of(tmp_path, CJK * 6)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert any(CJK * 6 in l for l in lines)
    assert max(columns(l) for l in lines) <= 120


def _profile(d, name, description):
    src = os.path.join(profile.MACHINES_DIR, "icelake-sp-2s.toml")
    with open(src, encoding="utf-8") as f:
        text = f.read()
    text = re.sub(r'^name = .*$', lambda m: 'name = "%s"' % name, text,
                  count=1, flags=re.M)
    text = re.sub(r'^description = .*$', lambda m: 'description = "%s"'
                  % description, text, count=1, flags=re.M)
    with open(os.path.join(d, name + ".toml"), "w", encoding="utf-8") as f:
        f.write(text)


def test_list_machines_escapes_and_cuts_by_columns(capsys, tmp_path):
    _profile(tmp_path, "esc", "two\\nlines \\u001b[31mred\\u001b[0m")
    _profile(tmp_path, "wide", CJK * 30)
    assert predict_cli.main(["--list-machines", "--machines-dir",
                             str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 5          # a profile's two lines each
    assert lines[2].endswith(" two\\nlines \\x1b[31mred\\x1b[0m")
    assert "\x1b" not in "".join(lines)
    assert lines[4].endswith("...") and columns(lines[4]) == 120


@pytest.mark.parametrize("text,want", [
    ("a\nb", "a\\nb"), ("\x1b[2J", "\\x1b[2J"), ("\u202etxt", "\\u202etxt"),
    ("B\udcff", "B\\xff"), (CJK, CJK)])
def test_printable_escapes_what_a_terminal_would_act_on(text, want):
    assert textfile.printable(text) == want
