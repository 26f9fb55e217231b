"""The report's big-box answer is one row per scenario (predict/answer.py
computes it, report/bigbox.py renders it):
--numjobs's machine and N where asked, with the header's published-rest;
the other rest, and the published machine where it is not the answer,
are a footnote saying why they differ; a failed check on this box puts a
caveat on the estimate, in the table and the summary."""

import argparse
import os

import pytest

from tests.analysis import helpers
from flagcheck_analysis.predict import (band, explain, fiocost, jobspec,
                                        simulate)
from flagcheck_analysis.predict.answer import _fio_answer, big_box
from flagcheck_analysis.report import bigbox, summary
from flagcheck_analysis.report.loadrecords import inputs_to_files, load_records
from flagcheck_analysis.machines import loader

WHATIF = os.path.join(helpers.FIXTURES, "whatif")
SIM = os.path.join(helpers.BUILD, "flagcheck-sim")

# the page_counter shape: an add on usage, the watermark stored beside it
# on every charge; the fix stores it only when higher (never, here)
JOB = """; my patch
; published-figure: none: my own patch
; published-machine: icelake-sp-2s 4
; published-rest: work
[global]
model=pattern
pattern_words=usage@0,watermark@0+8
pattern=atomic_add(usage,1),WRITE_ONCE(watermark,1),work(100)
pattern_fixed=atomic_add(usage,1),work(100)
[pat]
"""


@pytest.fixture(autouse=True)
def sim_binary(monkeypatch):
    if not os.path.exists(SIM):
        pytest.fail("%s missing: run make" % SIM)
    monkeypatch.setenv("FLAGCHECK_SIM", SIM)
    monkeypatch.setattr(fiocost, "this_clock_ghz", lambda: (None, "t"))


def records():
    files, _ = inputs_to_files([WHATIF])
    return load_records(files, None)[0]


def answer(tmp_path, n, caveats=None):
    path = tmp_path / "pat.fio"
    path.write_text(JOB)
    args = argparse.Namespace(cpus=n, machine="icelake-sp-2s",
                              fio_ns=None, inputs=[])
    mf = [{"matrix": {"jobs": {"pat": str(path)}}}]
    warned = []
    answers = big_box(args, mf, warned.append, records(), curves=False)
    rows = [bigbox.scenario_rows(s, caveats)[0]
            for s in answers["scenarios"]]
    assert warned == []
    return rows, answers, jobspec.read(str(path))


def work_prediction(sp, n):
    mach = loader.load("icelake-sp-2s")
    rest = fiocost.rest_of("work", None, mach, sp.rest_ns)
    return simulate.predict(sp, mach, n, None, rest[0])


def the_band(sp, n):
    """The band over every unknown at @n CPUs of icelake-sp-2s: the
    published machine's at its N, else with N given (band.band_at)."""
    mach = loader.load("icelake-sp-2s")
    rest = fiocost.rest_of("work", None, mach, sp.rest_ns)[0]
    if n == sp.published.cpus:
        return band.band(sp, mach, rest)
    return band.band_at(sp, mach, n, None, rest)


def test_predict_at_the_published_machine_is_one_answer(tmp_path):
    rows, simulated, sp = answer(tmp_path, 4)
    (row,) = rows
    assert row[:4] == ["pat", "icelake-sp-2s", "4", "work"]
    p = work_prediction(sp, 4)
    g, b = p["gain"], the_band(sp, 4)
    # THE band is the band over every unknown; the costs and seeds beside
    assert row[bigbox.GAIN] == "x%.2f (%.2f..%.2f)" % (g["value"], b["low"],
                                                       b["high"])
    assert row[bigbox.SPREAD] == "%.2f..%.2f" % (g["low"], g["high"])
    assert row[bigbox.WHY] == explain.sentence(p)
    # the fio rest is the footnote, with its own figures and why
    fio_row = bigbox.row("pat", _fio_answer(
        argparse.Namespace(cpus=4, fio_ns=None), "pat", sp, None,
        {"machine": loader.load("icelake-sp-2s"), "here": None,
         "records": records(), "warn": None}), None)
    assert row[bigbox.OTHER] == (
        "with this fio job's rest (%s) in place of the header's "
        "published-rest (work: the job file's work(ns) alone): %s, D/C %s; "
        "fio's own cost per I/O spaces the accesses to the shared lines, "
        "which the header's published workload does not pay, so the answer "
        "follows its published-rest" % (fio_row[3], fio_row[bigbox.GAIN],
                                         fio_row[bigbox.DC]))
    assert fio_row[3].startswith("fio ") and \
        fio_row[3].endswith(" ns (one-job runs)")
    assert row[bigbox.CAVEAT] == "-"
    (s,) = simulated["scenarios"]
    assert s["asked"] == s["published"]
    assert bigbox.row("pat", s["asked"], None)[:bigbox.OTHER] == \
        row[:bigbox.OTHER]
    assert bigbox.summary_lines(simulated)["pat"] == \
        "on icelake-sp-2s at 4 CPUs: %s\n  %s" % (row[bigbox.GAIN],
                                                  row[bigbox.WHY])


def test_predict_elsewhere_names_the_published_machine_in_the_footnote(
        tmp_path):
    rows, simulated, sp = answer(tmp_path, 8)
    (row,) = rows
    assert row[:4] == ["pat", "icelake-sp-2s", "8", "work"]
    g, b = work_prediction(sp, 4)["gain"], the_band(sp, 4)
    assert row[bigbox.OTHER].split("; ")[-1].startswith(
        "on the published machine (icelake-sp-2s at 4 CPUs, the header's "
        "rest): x%.2f (%.2f..%.2f), D/C " % (g["value"], b["low"], b["high"]))
    # at 8 CPUs THE band is band_at()'s: N given, every other unknown swept
    g8, b8 = work_prediction(sp, 8)["gain"], the_band(sp, 8)
    assert row[bigbox.GAIN] == "x%.2f (%.2f..%.2f)" % (g8["value"],
                                                       b8["low"], b8["high"])
    assert "cpus" not in b8["dims"] and "placement" not in b8["dims"]
    # the summary keeps the published machine's answer, --numjobs 8's
    # beside it
    text = bigbox.summary_lines(simulated)["pat"]
    assert text.startswith(
        "on icelake-sp-2s at 4 CPUs: x%.2f (%.2f..%.2f)\n  --numjobs 8: on "
        "icelake-sp-2s at 8 CPUs: %s\n" % (g["value"], b["low"], b["high"],
                                           row[bigbox.GAIN]))


def test_a_failed_check_is_a_caveat_in_the_table_and_the_summary(tmp_path):
    checked = [("t", bigbox.BESIDE_HEADER, [
        ["pat", "1", "always", "791", "2008243", "1114885 (1..2)", "1.80",
         "its rest", "-"],
        ["pat", "2", "always", "791", "1303267", "1724328 (1..2)", "0.76",
         "no", "29.0"],
        ["pat", "2", "test_first", "791", "1252582", "1805951 (1..2)",
         "0.69", "no", "29.0"],
        ["other", "2", "always", "791", "1", "1 (1..1)", "1.00", "yes",
         "29.0"]],
        set())]
    cav = bigbox.caveats(checked)
    assert cav == {"pat": (
        "checked on this box, the simulation missed the measured IOPS by "
        "more than 15% (meas./sim. 0.76 always at 2 jobs, 0.69 test_first at "
        "2 jobs): the model of this job misses this box, so the estimate "
        "may miss the big box as much")}
    (row,), simulated, _ = answer(tmp_path, 4, cav)
    assert row[bigbox.CAVEAT] == cav["pat"]
    text = bigbox.summary_lines(simulated, (), cav)["pat"]
    assert text == "on icelake-sp-2s at 4 CPUs: %s\n  %s\n  caveat: %s" % (
        row[bigbox.GAIN], row[bigbox.WHY], cav["pat"])
    R = type("R", (), {"scenario": "pat", "corun": None, "numjobs": 2})
    assert summary.simulated_lines([R()], {"pat": text}) == ["pat: " + text]
