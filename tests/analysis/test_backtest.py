"""docs/backtest.md is what `make backtest` prints (but the line naming
the commit, which names the last commit of the back-test's inputs), then
the table before the last change of the physics, kept by hand under its
own heading (BEFORE): a change that moves any file's prediction, and so
any criterion it met, fails here until docs/backtest.md is regenerated
and the move explained. The back-test measures nothing, so this holds
on any machine."""

import os
import re

import pytest

from tests.analysis import helpers

DOC = os.path.join(helpers.REPO, "docs", "backtest.md")
COMMIT = re.compile(r"^Engine commit: (\S+) ")
BEFORE = "\n## Before: "


def _without_commit(text):
    return [line for line in text.splitlines() if not COMMIT.match(line)]


# one back-test for this test and test_backtest_criteria.py's
# slow: the whole back-test, every job file simulated
@pytest.mark.slow
@pytest.mark.xdist_group("backtest")
def test_docs_backtest_is_what_make_backtest_prints():
    p = helpers.backtest()
    assert p.returncode == 0, p.stderr
    with open(DOC) as f:
        doc = f.read()
    assert [l for l in doc.splitlines() if COMMIT.match(l)], \
        "docs/backtest.md names no engine commit"
    assert _without_commit(doc.split(BEFORE)[0]) == \
        _without_commit(p.stdout)


def test_backtest_measures_nothing():
    # no fio run, no calibration: profiles and job files only
    src = os.path.join(helpers.ANALYSIS, "flagcheck_analysis", "predict",
                       "backtest.py")
    with open(src) as f:
        text = f.read()
    assert "measure_fio_ns" not in text
    assert "calibrat" not in text


def test_a_top_with_nothing_to_back_test_is_one_line(tmp_path):
    """issue 49 item 13: no usable job file under --top: one line, exit 1,
    no traceback"""
    pattern = tmp_path / "jobs" / "pattern"
    pattern.mkdir(parents=True)
    (pattern / "a.fio").write_text("[global]\nmodel=pattern\n"
                                   "pattern=atomic_inc(x)\n[j]\n")
    for top, why in ((tmp_path / "none", "no such directory"),
                     (tmp_path, "1 pattern job files, none back-tested (no "
                      "published-figure line)")):
        p = helpers.run_cli("backtest", "--top", str(top))
        assert (p.returncode, p.stdout) == (1, ""), p.stderr
        assert helpers.message(p.stderr) == (
            "flagcheck backtest: --top %s: %s: nothing to back-test (a "
            "model=pattern job file with a published figure under "
            "jobs/pattern, jobs/catalogue, jobs/family)\n" % (top, why))
