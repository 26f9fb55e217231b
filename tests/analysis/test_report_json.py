"""flagcheck report --format json: one object of the header, every table
and the lines under the summary, with the text's own figures: each JSON
table rendered as text is in the text report, cell for cell."""

import json
import os

import pytest

from tests.analysis.helpers import FIXTURES, RESULTS, run_cli
from flagcheck_analysis.report import render

SUMMARY = os.path.join(FIXTURES, "summary")


@pytest.mark.parametrize("inputs", [
    [RESULTS], [os.path.join(SUMMARY, "s2"),
                os.path.join(SUMMARY, "rate-cap")]],
    ids=["results", "summary"])
def test_the_json_has_the_texts_figures(inputs, tmp_path):
    def report(fmt):
        p = run_cli("report", "--no-plot", "--width", "0",
                    "--format", fmt, "--outdir", str(tmp_path), *inputs)
        assert p.returncode == 0, p.stderr
        return p.stdout
    text, doc = report("text"), json.loads(report("json"))
    assert set(doc) == {"header", "tables", "notes"}
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
