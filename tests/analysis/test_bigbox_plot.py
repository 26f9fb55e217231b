"""The big-box answer's plot (predict/curve.py's data, report/plot.py's
bigbox_curve()): flagcheck predict --plot
FILE and the report's <scenario>_bigbox.png are PNG files whose plotted
data are the predictions' own figures at 1, 2, 4, ... N CPUs, the
measured IOPS of the runs and the published gain."""

import argparse
import os

import pytest

from tests.analysis import helpers
from tests.analysis.test_one_answer import JOB, records
from flagcheck_analysis.cli import predict
from flagcheck_analysis.predict import (answer, curve, fiocost, jobspec,
                                        simulate)
from flagcheck_analysis.report import bigbox, plot
from flagcheck_analysis.machines import loader

SIM = os.path.join(helpers.BUILD, "flagcheck-sim")
THRESHOLD = os.path.join(helpers.REPO, "jobs", "catalogue",
                         "memcg-flush-threshold.fio")
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def sim_binary(monkeypatch):
    if not os.path.exists(SIM):
        pytest.fail("%s missing: run make" % SIM)
    monkeypatch.setenv("FLAGCHECK_SIM", SIM)
    monkeypatch.setattr(fiocost, "this_clock_ghz", lambda: (None, "t"))


@pytest.fixture
def drawn(monkeypatch):
    """What each plot.bigbox_curve() call plotted (its return value)."""
    got, real = [], plot.bigbox_curve

    def spy(d, path, title):
        got.append((real(d, path, title), path))
        return got[-1][0]
    monkeypatch.setattr(plot, "bigbox_curve", spy)
    return got


def is_png(path):
    with open(path, "rb") as f:
        return f.read(8) == PNG


def test_counts_double_up_to_n():
    assert curve.counts(16) == [1, 2, 4, 8, 16]
    assert curve.counts(6) == [1, 2, 4, 6]
    assert curve.counts(1) == [1]


def test_predict_plot_is_the_predictions(tmp_path, drawn, capsys):
    out = str(tmp_path / "curve.png")
    assert predict.main([THRESHOLD, "--machine", "icelake-sp-2s", "--numjobs", "4",
                     "--rest", "work", "--seeds", "1", "--plot", out]) == 0
    capsys.readouterr()
    assert is_png(out)
    ((d, path),) = drawn
    assert path == out and d["cpus"] == [1, 2, 4]
    spec = jobspec.read(THRESHOLD)
    mach = loader.load("icelake-sp-2s")
    rest = fiocost.rest_of("work", None, mach, spec.rest_ns)
    for i, n in enumerate(d["cpus"]):
        p = simulate.predict(spec, mach, n, None, rest[0], 1)
        for variant in simulate.VARIANTS:
            assert [d[variant][k][i] for k in ("iops", "low", "high")] == \
                [p["variants"][variant][k] for k in ("iops", "low", "high")]
        assert [d["gain"][k][i] for k in ("value", "low", "high")] == \
            [p["gain"][k] for k in ("value", "low", "high")]
    # the figure published on another machine is not drawn beside this
    # one's curve (cli/predict.py's published_here())
    assert spec.published.profile != "icelake-sp-2s"
    assert d["published"] is None
    assert d["measured"] == {}


def test_the_report_plots_its_answer_beside_the_runs(tmp_path, drawn):
    path = tmp_path / "pat.fio"
    path.write_text(JOB.replace("none: my own patch", "x2 on my box"))
    args = argparse.Namespace(cpus=None, machine=None, fio_ns=None,
                              inputs=[])
    mf = [{"matrix": {"jobs": {"pat": str(path)}}}]
    warned = []
    answers = answer.big_box(args, mf, warned.append, records())
    (row,) = bigbox.table(answers)[0][2]
    assert warned == []
    (d,) = bigbox.draw(answers, records(), str(tmp_path))
    png = str(tmp_path / "pat_bigbox.png")
    assert drawn[0][1] == png and is_png(png)
    # the answer (the published machine, 4 CPUs) is the curve's last point
    assert d["cpus"] == [1, 2, 4]
    # the table's band is the plot's bar at N, its spread the grey fill
    (n, value, low, high), = d["band"]
    assert n == 4 and row[bigbox.GAIN] == "x%.2f (%.2f..%.2f)" % (
        value, low, high)
    assert row[bigbox.SPREAD] == "%.2f..%.2f" % tuple(
        d["gain"][k][-1] for k in ("low", "high"))
    # one run of each variant and numjobs (fixtures/whatif): its IOPS
    assert d["measured"] == {variant: sorted(
        (r.numjobs, r.metrics["iops"]) for r in records()
        if r.scenario == "pat" and r.variant == variant)
        for variant in simulate.VARIANTS}
    assert d["measured"]["always"][0] == (1, 1e6)
    assert d["published"] == [4, jobspec.published_gain(str(path))]


S1 = os.path.join(helpers.REPO, "jobs", "pattern",
                  "s1-filemap-odirect-read.fio")


def test_the_published_plot_draws_the_band_the_text_prints(tmp_path, drawn,
                                                           capsys):
    out = str(tmp_path / "s1.png")
    assert predict.main([S1, "--published", "--json", "--plot", out]) == 0
    pred = __import__("json").loads(capsys.readouterr().out)
    ((d, path),) = drawn
    b, g = pred["band"], pred["gain"]
    # the bar at the published N is the band over every unknown, the grey
    # spread the costs and seeds alone, and the star where the text says
    assert d["band"] == [[pred["cpus"], g["value"], b["low"], b["high"]]]
    assert [d["gain"][k][-1] for k in ("low", "high")] == \
        [g["costs_seeds"]["low"], g["costs_seeds"]["high"]]
    n, gain_pub = d["published"]
    assert n == pred["cpus"] and gain_pub == b["published"]
    assert (b["low"] <= gain_pub <= b["high"]) == (b["where"] == "inside")
    assert "published x%.2f lies %s the band" % (gain_pub, b["where"]) in \
        b["lines"]
