"""flagcheck report --format json: one object of the header, every table
and the lines under the summary, with the text's own figures: each JSON
table rendered as text is in the text report, cell for cell."""

import csv
import json
import os

import pytest

from tests.analysis.helpers import FIXTURES, RESULTS, message, run_cli
from flagcheck_analysis.report import render

SUMMARY = os.path.join(FIXTURES, "summary")


@pytest.mark.parametrize("inputs", [
    [RESULTS], [os.path.join(SUMMARY, "s2"),
                os.path.join(SUMMARY, "rate-cap")]],
    ids=["results", "summary"])
def test_the_json_has_the_texts_figures(inputs, tmp_path):
    stderr = {}

    def report(fmt):
        p = run_cli("report", "--verbose", "--no-plot", "--width", "0",
                    "--format", fmt, "--outdir", str(tmp_path), *inputs)
        assert p.returncode == 0, p.stderr
        stderr[fmt] = p.stderr
        return p.stdout
    text, doc = report("text"), json.loads(report("json"))
    assert set(doc) == {"header", "tables", "notes", "warnings", "compare",
                        "summary", "bigbox"}
    assert doc["tables"] and doc["header"]
    for h in doc["header"]:
        assert h + "\n" in text
    for t in doc["tables"]:
        assert render.text_table(t["title"], t["columns"], t["rows"],
                                 set(t["right"]), 10 ** 9) in text, t
    for line in doc["notes"]:
        assert line + "\n" in text
    summary = [t for t in doc["tables"]
               if t["title"].startswith("summary: ")]
    assert len(summary) == 1 and summary[0]["rows"]
    # the figures as numbers, the same as the text's: the summary's ratio,
    # CI and decided columns are made from them
    table = summary[0]
    col = {c: i for i, c in enumerate(table["columns"])}
    assert len(doc["summary"]) == len(table["rows"])
    for row, fig in zip(table["rows"], doc["summary"]):
        assert row[col["scenario"]] == fig["scenario"]
        assert row[col["verdict"]] == fig["verdict"]
        if fig["ratio"] is None:
            continue
        assert row[col["ratio"]] == "%s/%s x%.3f" % (
            fig["variant"], fig["base"], fig["ratio"])
        assert row[col["95% CI"]] == ("-" if fig["ci"] is None else
                                      "%.3f..%.3f" % tuple(fig["ci"]))
        assert row[col["decided"]].startswith("decided") == fig["decided"]
    # compare.csv's numbers, written with 10 significant figures
    with open(os.path.join(str(tmp_path), "compare.csv")) as f:
        body = list(csv.DictReader(f))
    mine = [(c["scenario"], str(c["numjobs"]), c["name"], o["variant"],
             render.csv_number(c["base"]["mean"]),
             render.csv_number(o["mean"]), render.csv_number(
                 o["pct_change"]), o["verdict_text"])
            for c in doc["compare"] for o in c["others"]]
    assert mine == [(r["scenario"], r["numjobs"], r["metric"], r["variant"],
                     r["base_mean"], r["mean"], r["pct_change"], r["verdict"])
                    for r in body]
    # every warning printed on stderr is in it, in order
    said = [l for l in message(stderr["json"]).splitlines()
            if not l.startswith("flagcheck report: wrote ")]
    assert ["flagcheck report: " + w for w in doc["warnings"]] == said
