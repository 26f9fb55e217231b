"""No file loses a criterion it met: docs/backtest.md's table holds per
file which criteria it met (inside the band, target, x2, layout, x1.25);
`make backtest` is run again and every criterion of the doc must still be
met, whatever else moved. The doc's table is the one before its "## Before:"
heading (the table before the last change of the physics, kept by hand:
test_backtest.py)."""

import os

import pytest

from tests.analysis import helpers
from flagcheck_analysis.predict import backtest

DOC = os.path.join(helpers.REPO, "docs", "backtest.md")
BEFORE = "\n## Before: "


def met(text):
    """{file: set of criteria met} from the back-test's table."""
    out, col = {}, backtest.HEADER.index("met")
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == len(backtest.HEADER) and cells[0].endswith(".fio"):
            out[cells[0]] = {c.strip() for c in cells[col].split(",")
                             if c.strip() and c.strip() != "none" and
                             not c.startswith("not back-tested")}
    return out


def test_the_table_parses():
    with open(DOC) as f:
        doc = met(f.read().split(BEFORE)[0])
    assert len(doc) >= 15
    assert any("inside" in m for m in doc.values())


# one back-test for this test and test_backtest.py's
# slow: the whole back-test, every job file simulated
@pytest.mark.slow
@pytest.mark.xdist_group("backtest")
def test_no_file_loses_a_criterion_it_met():
    p = helpers.backtest()
    assert p.returncode == 0, p.stderr
    with open(DOC) as f:
        before = met(f.read().split(BEFORE)[0])
    now = met(p.stdout)
    lost = ["%s: %s" % (name, ", ".join(sorted(crit - now.get(name, set()))))
            for name, crit in sorted(before.items())
            if crit - now.get(name, set())]
    assert not lost, "criteria lost: " + "; ".join(lost)
