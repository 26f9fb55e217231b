"""docs/backtest.md is what `make backtest` prints (but the line naming
the commit, which names the last commit of the back-test's inputs): a
change that moves any file's prediction, and so any criterion it met,
fails here until docs/backtest.md is regenerated and the move explained.
The back-test measures nothing, so this holds on any machine."""

import os
import re
import subprocess

from tests.analysis import helpers

DOC = os.path.join(helpers.REPO, "docs", "backtest.md")
COMMIT = re.compile(r"^Engine commit: (\S+) ")


def _without_commit(text):
    return [line for line in text.splitlines() if not COMMIT.match(line)]


def test_docs_backtest_is_what_make_backtest_prints():
    sim = os.path.join(helpers.BUILD, "flagcheck-sim")
    assert os.path.exists(sim), "%s missing: run make" % sim
    p = subprocess.run(["/usr/bin/python3",
                        os.path.join(helpers.ANALYSIS, "flagcheck"), "backtest"],
                       capture_output=True, text=True, timeout=600,
                       env=dict(os.environ, FLAGCHECK_SIM=sim))
    assert p.returncode == 0, p.stderr
    with open(DOC) as f:
        doc = f.read()
    assert [l for l in doc.splitlines() if COMMIT.match(l)], \
        "docs/backtest.md names no engine commit"
    assert _without_commit(doc) == _without_commit(p.stdout)


def test_backtest_measures_nothing():
    # no fio run, no calibration: profiles and job files only
    src = os.path.join(helpers.ANALYSIS, "flagcheck_analysis", "predict",
                       "backtest.py")
    with open(src) as f:
        text = f.read()
    assert "measure_fio_ns" not in text
    assert "calibrat" not in text
