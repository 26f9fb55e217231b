"""The report's "what would my patch gain?" (issue 26 point 6): --numjobs N
simulates each pattern job (predict/answer.py) with its band, on the
machine default_machine() names, with this fio job's rest taken from the
results' own one-job runs (run_rest()).

The fixtures (fixtures/whatif, one run each, group_reporting):
  pat (model=pattern)  always nj=1: 1.0M IOPS (1000 ns an I/O);
                       test_first nj=1: 1.25M IOPS (800 ns an I/O)
and a job file written here: one shared word, always an RMW
(test_and_clear_bit) or, test_first, a load first (the bit stays clear);
the machine a stand-in of the loader's interface with every cost the
test's own.  By hand, on one
CPU: always 1000 ns = rest + atomic_local 20 ns, so 980 ns; test_first
800 ns = rest + load_hit 2 ns, so 798 ns: the rest is (median 980, lowest
798, highest 980) of the two runs."""

import argparse
import json
import os
from collections import namedtuple

import pytest

from tests.analysis import helpers
from tests.analysis.standin_machine import Machine
from flagcheck_analysis.predict import jobspec
from flagcheck_analysis.predict import fiocost
from flagcheck_analysis.predict import answer
from flagcheck_analysis.machines import physics
from flagcheck_analysis.inputs import published
from flagcheck_analysis.report import bigbox
from flagcheck_analysis.report.loadrecords import inputs_to_files, load_records

WHATIF = os.path.join(helpers.FIXTURES, "whatif")
CAL = os.path.join(helpers.FIXTURES, "why", "calibration.json")
SIM = os.path.join(helpers.BUILD, "flagcheck-sim")

JOB = """; a test job
[global]
model=pattern
pattern_words=x@0
pattern=test_and_clear_bit(x,0)
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


def job(tmp_path):
    path = tmp_path / "pat.fio"
    path.write_text(JOB)
    return str(path)


def test_the_rest_comes_from_the_one_job_runs(tmp_path):
    m = Machine(atomic_local=(20.0,) * 3, load_hit=(2.0,) * 3)
    sp = jobspec.read(job(tmp_path))
    runs = answer.one_job_iops(records(), "pat")
    assert sorted(runs) == [("always", 1e6), ("test_first", 1.25e6)]
    (typ, low, high), how = answer.run_rest(sp, m, None, runs)
    assert typ == pytest.approx(980.0, rel=1e-9)
    assert low == pytest.approx(798.0, rel=1e-9)
    assert high == pytest.approx(980.0, rel=1e-9)
    assert how.startswith("fio: work(ns) + 980 ns per I/O from this "
                          "results' 2 one-job runs (798..980")
    assert answer.run_rest(sp, m, None, []) is None


def test_the_generic_profile_takes_this_boxs_calibrated_costs():
    from flagcheck_analysis.machines import loader
    here = loader.load(CAL)
    generic = loader.load("milan-2s")
    m, used = answer.with_calibrated_costs(generic, here)
    assert used == ["same_llc"]
    assert m.costs["same_llc"] == [100.0, 100.0, 100.0]
    assert m.costs["other_socket"] == generic.costs["other_socket"]
    assert generic.costs["same_llc"] != [100.0, 100.0, 100.0]
    assert physics.generic_profile("AMD EPYC 7763 64-Core Processor") == \
        "milan-2s"
    assert physics.generic_profile("Intel(R) Xeon(R) CPU E5-2699 v4 @ "
                                 "2.20GHz") == "broadwell-ep-2s"
    assert physics.generic_profile("AMD EPYC") is None


def _results(tmp_path, name, scale=1.0, model="AMD EPYC 7763 64-Core"):
    d = tmp_path / name
    d.mkdir()
    with open(CAL) as f:
        doc = json.load(f)
    doc["transfer_ns"] = [[None if v is None else v * scale for v in row]
                          for row in doc["transfer_ns"]]
    doc["host"]["cpu_model"] = model
    for k in ("same_node", "all"):
        doc["summary"][k] = {kk: (v * scale if kk.endswith("_ns") else v)
                             for kk, v in doc["summary"][k].items()}
    (d / "calibration.json").write_text(json.dumps(doc))
    return str(d)


def _probe(ns):
    return {"line_probe": {"cpus": [0, 1], "before_ns": ns,
                           "after_ns": ns}}


def _predict(tmp_path, results, n, entries, machine=None):
    args = argparse.Namespace(cpus=n, machine=machine, fio_ns=None,
                              inputs=[results])
    mf = [{"matrix": {"jobs": {"pat": job(tmp_path)}}}]
    warned = []
    answers = answer.big_box(args, mf, warned.append, records(), entries,
                             curves=False)
    rows = [r for t in bigbox.table(answers) for r in t[2]]
    return rows, warned, [n for n in [answers["note"]] if n]


# slow: reports predicted twice
@pytest.mark.slow
def test_two_reports_of_the_same_results_give_the_same_band(tmp_path):
    """Issue 26, done when: --numjobs 64 twice, the same band."""
    res = _results(tmp_path, "r")
    first = _predict(tmp_path, res, 64, [_probe(100.0)])
    assert first[1] == []
    assert [r[:3] for r in first[0]] == [["pat", "milan-2s", "64"]]
    assert first[2] == [
        "--numjobs 64 on milan-2s, the generic profile of this box's "
        "family (AMD EPYC 7763 64-Core; 64 > its 2 calibrated CPUs), with "
        "this box's calibrated same_llc costs"]
    assert first[0][0][3].endswith(" ns (one-job runs)")
    assert _predict(tmp_path, res, 64, [_probe(100.0)]) == first
    # within the calibration's CPUs: the calibration itself
    two = _predict(tmp_path, res, 2, [_probe(100.0)])
    assert [r[:3] for r in two[0]] == [["pat", "calibration", "2"]]


# slow: predictions at many CPU counts
@pytest.mark.slow
def test_two_calibrations_x4_apart_one_estimate_or_a_refusal(tmp_path):
    """Issue 26, done when: two calibrations of one box that differ by x4
    (100 and 400 ns) beside the same runs (line probes 110 ns): one is
    used, the other refused, naming the cause."""
    probes = [_probe(110.0), _probe(105.0)]
    ok = _predict(tmp_path, _results(tmp_path, "a"), 64, probes)
    far = _predict(tmp_path, _results(tmp_path, "b", 4.0), 64, probes)
    assert ok[1] == [] and len(ok[0]) == 1
    assert far[0] == [] and far[2] == []
    assert far[1] == [
        "the calibration (calibration) puts 400 ns between the runs' CPUs, "
        "their line probes 110 ns (median of 4): more than x2 apart, the "
        "calibration is not used (--numjobs 64 is refused: name a profile "
        "with --machine, or calibrate again)"]


# slow: predictions at many CPU counts
@pytest.mark.slow
def test_a_box_of_no_known_family_is_refused_beyond_its_cpus(tmp_path):
    res = _results(tmp_path, "r", model="AMD EPYC")
    rows, warned, _ = _predict(tmp_path, res, 64, [])
    assert rows == []
    assert warned == [
        "--numjobs 64: beyond this box's 2 calibrated CPUs, and its CPU "
        "'AMD EPYC' is of no family with a generic profile (machines/): "
        "name one with --machine"]
    rows, warned, notes = _predict(tmp_path, res, 64, [], "icelake-8380-2s")
    assert warned == [] and notes == ["--numjobs 64 on --machine "
                                      "icelake-8380-2s"]
    assert [r[:3] for r in rows] == [["pat", "icelake-8380-2s", "64"]]


def prediction(machine, placement, cpus, gain, band=None):
    """A stored prediction (predict/answer.py's) of the figures the
    summary shows: @gain (value, low, high), the costs' spread 1..1."""
    return {"machine": machine, "placement": placement, "cpus": cpus,
            "rest": {"shown": "work", "ns": 0.0}, "why": "-",
            "variants": {v: {"iops": 1.0, "low": 1.0, "high": 1.0}
                         for v in ("always", "test_first")},
            "gain": {"value": gain[0], "low": gain[1], "high": gain[2],
                     "costs_seeds": {"low": 1.0, "high": 1.0}},
            "demand": [{"ratio": 1.28}], "band": band or {}}


def published_answer(label, p, gain=None):
    """big_box()'s answers of one scenario answered at its published
    machine alone."""
    return {"note": None, "scenarios": [{
        "label": label, "gain_published": gain, "answer": "published",
        "published": p, "asked": None, "fio": None, "curve": None}]}


def test_the_summary_names_the_published_machine():
    from flagcheck_analysis.report import summary
    R = namedtuple("R", "scenario")
    p = prediction("xeon-4s-2014", "nodes=0,1", 16, (1.24, 1.01, 5.67))
    lines = summary.simulated_lines(
        [R("S1 filemap-odirect-read"), R("other")],
        bigbox.summary_lines(published_answer("S1 filemap-odirect-read", p,
                                              2.35)))
    assert lines == ["S1 filemap-odirect-read: on xeon-4s-2014 nodes=0,1 "
                     "at 16 CPUs: x1.24 (1.01..5.67)"]
    assert max(len(l) for l in lines) <= 120


def test_runs_of_differing_setups_are_the_scenarios_too():
    """A C model and its twin run together: the report labels each
    setup's runs "LABEL (job file sha256 ...)"."""
    labels = {"S1 x", "S1 x (job file sha256 ab)", "S1 xy", "S2 x"}
    assert published.of_scenario("S1 x", labels) == {
        "S1 x", "S1 x (job file sha256 ab)"}
    p = prediction("m", None, 4, (2.0, 1.9, 2.1))
    assert bigbox.summary_lines(published_answer("S1 x", p, 2.0),
                                labels) == {
        "S1 x": "on m at 4 CPUs: x2.00 (1.90..2.10)",
        "S1 x (job file sha256 ab)": "on m at 4 CPUs: x2.00 (1.90..2.10)"}
