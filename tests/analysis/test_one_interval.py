"""One interval per ratio (issue 48, friction 3): the per-cell table, the
summary, the scaling table and plot, the CSV and the JSON give a cell's
IOPS ratio the same interval, the one its verdict reads (over the pairs
where the runs pair up, else unpaired, saying why), and no second
statistic's words contradict the verdict."""

import csv
import json
import os

import pytest

from tests.analysis.helpers import FIXTURES, RESULTS, run_cli
from flagcheck_analysis.report import conditions, loadrecords, summary
from flagcheck_analysis.stats import compare, interval, scaling

SUMMARY = os.path.join(FIXTURES, "summary")
INPUTS = [[RESULTS], [os.path.join(SUMMARY, "s2")],
          [os.path.join(SUMMARY, "rate-cap")]]


def _records(inputs):
    files, manifests = loadrecords.inputs_to_files(inputs)
    counts = conditions.cell_counts(conditions.ok_entries(manifests))
    return loadrecords.load_records(files, None)[0], counts


def _base(records):
    variants = sorted({r.variant for r in records})
    return "always" if "always" in variants else variants[0]


@pytest.mark.parametrize("inputs", INPUTS, ids=["results", "s2", "rate-cap"])
def test_every_part_shows_the_summarys_interval(inputs):
    records, counts = _records(inputs)
    base = _base(records)
    row, = summary.rows(records, counts, base)
    d = row.decision
    assert d.by == "pairs" and d.ci is not None
    # the per-cell table's IOPS row
    section, = [s for s in compare.compare(records, base)
                if (s.scenario, s.numjobs) == (row.scenario, row.numjobs)]
    iops, = [r for r in section.rows if r.key == "iops"]
    v = iops.others[0].verdict
    assert (v.interval.ratio, v.ci) == (d.ratio, d.ci)
    # the scaling table's ratio and the plot's error bar
    line, = [l for l in scaling.scaling(records, base)
             if (l.scenario, l.numjobs) == (row.scenario, row.numjobs)]
    point = line.points[row.variant]
    assert (point.ratio, point.ratio_ci) == (d.ratio, d.ci)


def _excludes_1(ci):
    return ci is not None and not ci[0] <= 1 <= ci[1]


@pytest.mark.parametrize("inputs", INPUTS, ids=["results", "s2", "rate-cap"])
def test_no_verdict_against_its_interval(inputs):
    records, _ = _records(inputs)
    for section in compare.compare(records, _base(records)):
        for row in section.rows:
            for c in row.others:
                v = c.verdict
                assert "disagrees" not in v.text, v.text
                if v.kind == "beyond":
                    assert _excludes_1(v.ci), (row.key, v)
                if v.kind == "noise" and v.interval.by == "pairs":
                    assert not _excludes_1(v.ci), (row.key, v)


def test_the_csv_and_the_json_give_the_summarys_interval(tmp_path):
    inputs = [os.path.join(SUMMARY, "s2")]
    p = run_cli("report", "--no-plot", "--format", "json", "--outdir",
                str(tmp_path), *inputs)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    s, = doc["summary"]
    c, = [c for c in doc["compare"] if c["metric"] == "iops"
          and c["numjobs"] == s["numjobs"]]
    o, = c["others"]
    assert (o["ratio"], o["ci"], o["by"], o["n"]) == \
        (s["ratio"], s["ci"], "pairs", s["n"])
    # a second statistic, where there is one, says it is not the verdict's
    assert o["second"] is None or "not the verdict's" in o["second"]["what"]
    with open(os.path.join(str(tmp_path), "compare.csv")) as f:
        row, = [r for r in csv.DictReader(f) if r["metric"] == "iops"]
    assert (float(row["ratio_ci_low"]), float(row["ratio_ci_high"])) == \
        pytest.approx(tuple(s["ci"]), rel=1e-9)
    assert row["ratio_over"] == "%d pairs" % s["n"]
    with open(os.path.join(str(tmp_path), "scaling.csv")) as f:
        row, = [r for r in csv.DictReader(f)
                if r["variant"] == s["variant"]]
    assert float(row["ratio_to_base"]) == pytest.approx(s["ratio"], rel=1e-9)


def test_runs_that_do_not_pair_up_say_why():
    # the same repeat twice on a side (two results directories pooled)
    iv = interval.of([(1, 100.0), (1, 101.0)], [(1, 120.0), (2, 119.0)])
    assert (iv.by, iv.unpaired) == (
        "unpaired", "a repeat number twice on a side (pooled results)")
    assert interval.of([(None, 100.0)], [(None, 120.0)]).unpaired == \
        "runs without a repeat number"
    assert interval.of([(1, 0.0), (2, 1.0)], [(1, 1.0), (2, 2.0)]).unpaired \
        == "a value of 0"
    v = interval.verdict(interval.of([(None, 100.0), (None, 101.0),
                                      (None, 99.0)],
                                     [(None, 150.0), (None, 151.0),
                                      (None, 149.0)]),
                         [100.0, 101.0, 99.0], [150.0, 151.0, 149.0])
    assert v.kind == "beyond"
    assert v.text.endswith("; unpaired: runs without a repeat number")
    # paired: the ratio is the pairs' geometric mean, the test their t-test
    iv = interval.of([(1, 100.0), (2, 200.0), (3, 50.0)],
                     [(1, 110.0), (2, 220.0), (3, 55.0)])
    assert iv.by == "pairs" and iv.n == 3 and iv.ci == pytest.approx(
        (1.1, 1.1))
