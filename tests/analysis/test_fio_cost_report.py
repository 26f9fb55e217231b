"""The report's fio rest is the recorded fio cost where one is, as
flagcheck predict's: the same figure on every call; a measurement only
where no record is."""

import argparse
import json
import os

import pytest

from tests.analysis import helpers
from flagcheck_analysis.predict import answer, fiocost
from flagcheck_analysis.report import bigbox

JOB = os.path.join(helpers.REPO, "jobs", "catalogue",
                   "memcg-adjacent-lines.fio")
MANIFESTS = [{"matrix": {"jobs": {"memcg-adjacent-lines": JOB}}}]
RECORD = {"fio_ns": 400.0, "low": 380.0, "high": 420.0, "clock_ghz": None,
          "date": "2026-12-03", "host": "h", "cpu": "c", "fio": "fio-3.33"}


def rows(monkeypatch, tmp_path, record):
    path = tmp_path / "fio-cost.json"
    if record is not None:
        path.write_text(json.dumps(record))
    monkeypatch.setenv("FLAGCHECK_FIO_COST", str(path))
    measured = []
    monkeypatch.setattr(fiocost, "measure_fio_ns", lambda: measured.append(
        1) or (500.0, 490.0, 510.0))
    monkeypatch.setattr(fiocost, "this_clock_ghz", lambda: (None, "t"))
    args = argparse.Namespace(cpus=8, machine="icelake-8380-2s",
                              fio_ns=None, inputs=[])
    warned = []
    answers = answer.big_box(args, MANIFESTS, warned.append, curves=False)
    out = bigbox.table(answers)[0][2]
    assert warned == []
    return out, measured


# slow: reports predicted at many CPU counts
@pytest.mark.slow
def test_the_record_is_the_rest_and_nothing_is_measured(monkeypatch,
                                                        tmp_path):
    first, measured = rows(monkeypatch, tmp_path, RECORD)
    assert measured == []
    fio = first[0][bigbox.OTHER].split("; on the published ")[0]
    assert fio.startswith("with this fio job's rest (fio 400 ns (recorded)) ")
    assert rows(monkeypatch, tmp_path, RECORD)[0] == first


# slow: fio's cost measured, reports predicted
@pytest.mark.slow
def test_without_a_record_fio_is_measured_once(monkeypatch, tmp_path):
    first, measured = rows(monkeypatch, tmp_path, None)
    assert measured == [1]
    fio = first[0][bigbox.OTHER].split("; on the published ")[0]
    assert fio.startswith("with this fio job's rest (fio 500 ns (null "
                          "engine)) ")
