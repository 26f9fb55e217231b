"""The small things a reviewer modelling their own patch tripped on: a
--numjobs above the CPUs said by the runner, the ratio plot's legend
beside its axes (never over an error bar), a cold first run named, the
runs' leftovers ignored by git, and flagcheck backtest --help saying what
it reads and prints."""

import os
import subprocess

from tests.analysis.helpers import REPO, run_cli
from flagcheck_analysis.cli import run as runcli
from flagcheck_analysis.report import conditions
from flagcheck_analysis.stats.compare import Record


def test_numjobs_above_the_cpus_is_said_by_the_runner():
    assert runcli.over_cpus([1, 2], 2) is None
    assert runcli.over_cpus([1, 2, 4, 8], 2) == (
        "flagcheck run: --numjobs 4,8: above this box's 2 usable CPUs: the "
        "jobs beyond them share CPUs and take turns, so those cells seldom "
        "run together and are never decided")
    # on fio servers their own CPUs count, not this box's
    assert runcli.over_cpus([8], 2, hosts=["a"]) is None


def test_the_legend_is_beside_the_axes():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from flagcheck_analysis.report import plot
    fig, ax = plt.subplots()
    ax.errorbar([1, 2], [1.2, 1.8], yerr=[[0.1, 0.3], [0.1, 0.3]],
                label="test_first/always")
    ax.axhline(1.0, label="1: no difference")
    plot._legend(ax)
    fig.canvas.draw()
    box = ax.get_legend().get_window_extent()
    assert box.x0 >= ax.get_window_extent().x1
    plt.close(fig)


def _rec(variant, repeat, iops, nj=1):
    return Record("s", variant, nj, repeat, {"iops": iops}, "x")


def test_a_cold_first_run_is_named():
    recs = [_rec("always", 1, 18200), _rec("always", 2, 34700),
            _rec("always", 3, 34100), _rec("always", 4, 35000),
            _rec("test_first", 1, 34000), _rec("test_first", 2, 34600),
            _rec("test_first", 3, 35100)]
    assert conditions.cold_first_runs(recs) == [
        "s always nj1 r1: 18200 IOPS against a median 34700 of its 3 other "
        "runs: a cold first run (a real file's first touch, the page "
        "cache, the clock); give flagcheck run --ramp S, or a warm-up run "
        "first, before reading the ratio"]
    # within x1.5 of the others, or too few others: nothing said
    recs[0] = _rec("always", 1, 23200)
    assert conditions.cold_first_runs(recs) == []
    assert conditions.cold_first_runs(recs[:2]) == []


def test_the_runs_leftovers_are_ignored_by_git():
    names = ["results/manifest.json", "results-mine/x.json",
             "gup-pin-fast.flagcheck.jsonl", "flagcheck-demo"]
    p = subprocess.run(["git", "check-ignore"] + names, cwd=REPO,
                       capture_output=True, text=True)
    assert p.stdout.split() == names
    # the job files and the results under docs are not
    p = subprocess.run(["git", "check-ignore", "jobs/catalogue/x.fio",
                        "docs/results/x.md"], cwd=REPO, capture_output=True,
                       text=True)
    assert p.stdout == ""


def test_backtest_help_says_what_it_reads_and_prints():
    p = run_cli("backtest", "--help")
    assert p.returncode == 0
    text = " ".join(p.stdout.split())
    # one line per option: the rest is docs/predict.md's, which it names
    for words in ("Reads every model=pattern job file under "
                  "jobs/pattern, jobs/catalogue, jobs/family",
                  "prints docs/backtest.md's table",
                  "Nothing is measured", "exit status: 0 printed, 1 a job "
                  "file could not be read or simulated", "docs/backtest.md"):
        assert words in text
    assert max(len(l) for l in p.stdout.splitlines()) <= 120
    with open(os.path.join(REPO, "docs", "predict.md")) as f:
        doc = " ".join(f.read().split())
    for words in ("`--fio-ns NS` fio's cost per I/O for the files whose "
                  "`published-rest` is fio", "Exit status: 0 printed, 1 a "
                  "job file could not be read or simulated"):
        assert words in doc
