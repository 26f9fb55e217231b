"""The report's big-box answer is one row per scenario (report/bigbox.py):
--predict's machine and N where asked, with the header's published-rest;
the other rest, and the published machine where it is not the answer,
are a footnote saying why they differ; a failed check on this box puts a
caveat on the estimate, in the table and the summary."""

import argparse
import os

import pytest

from tests.analysis import helpers
from flagcheck_analysis.predict import explain, fiocost, jobspec, simulate
from flagcheck_analysis.report import bigbox, summary
from flagcheck_analysis.report.loadrecords import inputs_to_files, load_records
from flagcheck_analysis.machines import machine

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
    return load_records(files, None, ["always", "test_first"])[0]


def answer(tmp_path, n, caveats=None):
    path = tmp_path / "pat.fio"
    path.write_text(JOB)
    args = argparse.Namespace(predict=n, machine="icelake-sp-2s",
                              fio_ns=None, inputs=[])
    mf = [{"matrix": {"jobs": {"pat": str(path)}}}]
    warned, simulated = [], {}
    rows = bigbox.rows(args, mf, warned.append, records(), (), simulated,
                       None, caveats)
    assert warned == []
    return rows, simulated, jobspec.read(str(path))


def work_prediction(sp, n):
    mach = machine.load("icelake-sp-2s")
    rest = fiocost.rest_of("work", None, mach, sp.rest_ns)
    return simulate.predict(sp, mach, n, None, rest[0])


def test_predict_at_the_published_machine_is_one_answer(tmp_path):
    rows, simulated, sp = answer(tmp_path, 4)
    (row,) = rows
    assert row[:4] == ["pat", "icelake-sp-2s", "4", "work"]
    p = work_prediction(sp, 4)
    g = p["gain"]
    assert row[6] == "x%.2f (%.2f..%.2f)" % (g["value"], g["low"], g["high"])
    assert row[bigbox.WHY] == explain.sentence(p)
    # the fio rest is the footnote, with its own figures and why
    fio_row, _ = bigbox._predicted(
        argparse.Namespace(predict=4, fio_ns=None), "pat", sp, None,
        {"machine": machine.load("icelake-sp-2s"), "here": None,
         "records": records(), "warn": None})
    assert row[bigbox.OTHER] == (
        "with this fio job's rest (%s) in place of the header's "
        "published-rest (work: the job file's work(ns) alone): %s, D/C %s; "
        "fio's own cost per I/O spaces the accesses to the shared lines, "
        "which the header's published workload does not pay, so the answer "
        "follows its published-rest" % (fio_row[3], fio_row[6], fio_row[7]))
    assert fio_row[3].startswith("fio ") and \
        fio_row[3].endswith(" ns (one-job runs)")
    assert row[bigbox.CAVEAT] == "-"
    assert simulated == {"pat": row}


def test_predict_elsewhere_names_the_published_machine_in_the_footnote(
        tmp_path):
    rows, _, sp = answer(tmp_path, 8)
    (row,) = rows
    assert row[:4] == ["pat", "icelake-sp-2s", "8", "work"]
    g = work_prediction(sp, 4)["gain"]
    assert row[bigbox.OTHER].split("; ")[-1].startswith(
        "on the published machine (icelake-sp-2s at 4 CPUs, the header's "
        "rest): x%.2f (%.2f..%.2f), D/C " % (g["value"], g["low"], g["high"]))


def test_a_failed_check_is_a_caveat_in_the_table_and_the_summary(tmp_path):
    checked = [("t", bigbox.BESIDE_HEADER, [
        ["pat", "1", "always", "791", "2008243", "1114885 (1..2)", "1.80",
         "its rest"],
        ["pat", "2", "always", "791", "1303267", "1724328 (1..2)", "0.76",
         "no"],
        ["pat", "2", "test_first", "791", "1252582", "1805951 (1..2)",
         "0.69", "no"],
        ["other", "2", "always", "791", "1", "1 (1..1)", "1.00", "yes"]],
        set())]
    cav = bigbox.caveats(checked)
    assert cav == {"pat": (
        "checked on this box, the simulation missed the measured IOPS by "
        "more than 15% (meas./sim. 0.76 always at 2 jobs, 0.69 test_first at "
        "2 jobs): the model of this job misses this box, so the estimate "
        "may miss the big box as much")}
    (row,), simulated, _ = answer(tmp_path, 4, cav)
    assert row[bigbox.CAVEAT] == cav["pat"]
    text = bigbox.summary_lines(simulated)["pat"]
    assert text == "on icelake-sp-2s at 4 CPUs: %s\n  %s\n  caveat: %s" % (
        row[6], row[bigbox.WHY], cav["pat"])
    R = type("R", (), {"scenario": "pat", "corun": None, "numjobs": 2})
    assert summary.simulated_lines([R()], {"pat": text}) == ["pat: " + text]
