"""Every field a user can edit (manifest, calibration, counters, fio's JSON)
is checked against its range through the report: one line naming the
file, the field and the value, never a traceback or a figure outside it."""

import json
import os
import re
import shutil

import pytest

from tests.analysis.helpers import FIXTURES, RESULTS, message, run_cli
from flagcheck_analysis.calibrate import calibration
from flagcheck_analysis.inputs import fiojson, manifest
from tests.analysis.test_edited_inputs import (
    dump, edit_jsonl, edit_manifest, in_process, load, report_of, results)

S2 = os.path.join(FIXTURES, "summary", "s2")
WHY_CAL = os.path.join(FIXTURES, "why", "calibration.json")
A1 = "flagcheck-fixture_always_nj1_r1"


def _run0(field, value):
    def change(m):
        e = m["runs"][0]
        e.setdefault("interference", {})["run_cpus"] = {"cpu_s": 2.0}
        target = e
        for key in field[:-1]:
            target = target.setdefault(key, {})
        target[field[-1]] = value
    return change


MANIFEST_RANGES = [
    (("interference", "run_cpus", "kthreads_s"), 1000.0,
     "runs[0].interference.run_cpus.kthreads_s is 1000.0: want at most "
     "cpu_s (2.0): a part of it"),
    (("interference", "run_cpus", "others_share"), -5,
     "runs[0].interference.run_cpus.others_share is -5: want a finite "
     "number >= 0 and <= 1"),
    (("interference", "run_cpus", "others_share"), 50,
     "runs[0].interference.run_cpus.others_share is 50: want a finite "
     "number >= 0 and <= 1"),
    (("interference", "run_cpus", "kthreads"), [["x", "y"]],
     'runs[0].interference.run_cpus.kthreads[0][1] is "y": want a finite '
     "number >= 0"),
    (("line_probe", "before_ns"), -50,
     "runs[0].line_probe.before_ns is -50: want a finite number > 0 and "
     "<= 1e+06"),
    (("numjobs",), 10 ** 30,
     "runs[0].numjobs is 1000000000000000000000000000000: want a whole "
     "number >= 1 <= 4096"),
]


@pytest.mark.parametrize("field,value,said", MANIFEST_RANGES)
def test_manifest_ranges(tmp_path, field, value, said):
    out = results(tmp_path)
    path = edit_manifest(out, _run0(field, value))
    with pytest.raises(fiojson.InputError) as e:
        manifest.load(path)
    assert str(e.value) == "%s: %s" % (path, said)
    rc, stdout, err = report_of(out, tmp_path)
    assert err.splitlines()[0] == "flagcheck report: unusable manifest: " \
        "%s: %s; reading the JSON files instead" % (path, said)


CALIBRATION_RANGES = [
    (("always", 0, "ops_per_s"), 1e-300,
     "patterns.always[0].ops_per_s is 1e-300: want from threads x 1e9 / "
     "ns_per_op (1.25e+08) to threads x 1e9 / ns_per_op_min (inf): the "
     "threads' rates summed"),
]


@pytest.mark.parametrize("field,value,said", CALIBRATION_RANGES)
def test_calibration_ranges(tmp_path, field, value, said):
    doc = load(WHY_CAL)
    point = doc["patterns"][field[0]][field[1]]
    point[field[2]] = value
    path = str(tmp_path / "calibration.json")
    dump(path, doc)
    with pytest.raises(calibration.CalibrationError) as e:
        calibration.load(path)
    assert str(e.value) == "%s: %s" % (path, said)


def _first_ios(name):
    """The ios of the first counters line of fixture run @name."""
    with open(os.path.join(RESULTS, name + ".flagcheck.jsonl")) as f:
        return json.loads(f.readline())["ios"]


COUNTER_RANGES = [
    ("timed_ns", -5, "line 1: timed_ns is -5: want a whole number >= 0 <= "
     "18446744073709551615"),
    ("timed_calls", 10 ** 9, "line 1: timed_calls is 1000000000: want at "
     "most the model calls (%d): a sample of them" % _first_ios(A1)),
    ("backend", ["null"], 'line 1: backend is ["null"]: want a string'),
    ("options", ["x"], 'line 1: options is ["x"]: want an object'),
    ("options", "x", 'line 1: options is "x": want an object'),
    ("errors_set", 2 ** 64, "line 1: errors_set is 18446744073709551616: "
     "want a whole number >= 0 <= 18446744073709551615"),
    ("paths", {"p": {"rmw": 3, "retries": -1}}, "line 1: paths.p.retries "
     "is -1: want a whole number >= 0 <= 18446744073709551615"),
    ("paths", {"p": {"rmw": 3, "retries": 4}}, "line 1: paths.p.retries "
     "is 4: want at most the path's rmw (3): each retry is one of its "
     "attempts"),
]


@pytest.mark.parametrize("field,value,said", COUNTER_RANGES)
def test_counters_ranges(tmp_path, field, value, said):
    out = results(tmp_path)
    stats = os.path.join(out, A1 + ".flagcheck.jsonl")
    edit_jsonl(stats, 0, lambda r: r.update({field: value,
                                             "timed_calls": 0}
                                            if field == "timed_ns" else
                                            {field: value}))
    rc, stdout, err = report_of(out, tmp_path)
    assert rc == 0
    assert err.splitlines()[0] == "flagcheck report: %s: %s (run left out)" \
        % (stats, said)
    assert "(engine options unknown)" not in stdout + err
    assert "differ in" not in stdout + err


FIO_RANGES = [
    (("jobs", 0, "usr_cpu"), 1e9, "jobs[0].usr_cpu is 1000000000.0: more "
     "than 819200, the most fio can write there"),
    (("jobs", 0, "read", "iops"), 1e308, "jobs[0].read.iops is 1e+308: more "
     "than 1.84467e+22, the most fio can write there"),
    (("jobs", 0, "read", "clat_ns", "mean"), 1e308,
     "jobs[0].read.clat_ns.mean is 1e+308: more than 1.84467e+19, the most "
     "fio can write there"),
    (("jobs", 0, "read", "iops"), 1e-300, "jobs[0].read.iops is 1e-300: not "
     "0 and less than 1 / (2^64 - 1), the least fio can write there"),
    (("fio version",), ["fio-3.33"],
     'fio version is ["fio-3.33"]: want a string'),
]


@pytest.mark.parametrize("field,value,said", FIO_RANGES)
def test_fio_json_ranges(tmp_path, field, value, said):
    out = results(tmp_path)
    path = os.path.join(out, A1 + ".json")
    doc = load(path)
    target = doc
    for key in field[:-1]:
        target = target[key]
    target[field[-1]] = value
    dump(path, doc)
    rc, stdout, err = report_of(out, tmp_path)
    assert rc == 0
    assert err.splitlines()[0] == "flagcheck report: %s: %s" % (path, said)


def test_a_calibration_where_test_first_costs_more(tmp_path):
    """measured so on a busy machine, or edited: no cost per RMW at that
    thread count, said in one line, never a negative share"""
    out = results(tmp_path, os.path.join(FIXTURES, "why"))
    path = os.path.join(out, "calibration.json")
    doc = load(path)
    point = doc["patterns"]["test_first"][1]
    point.update(ns_per_op=100.0, ops_per_s=2 * 1e9 / 100.0)
    point.pop("ns_per_op_min", None)
    dump(path, doc)
    rc, stdout, err = report_of(out, tmp_path)
    assert rc == 0, err
    assert "flagcheck report: %s: patterns.test_first[1].ns_per_op is 100, " \
        "not below always's 60 at 2 threads: no calibrated cost per RMW at " \
        "2 jobs (measured on a busy machine?)" % path in err.splitlines()
    rows = [line.split() for line in stdout.splitlines()
            if re.match(r"^s1 +2 ", line)]
    # ns/RMW calibrated, accounted: none; the ceiling is always's alone
    assert ["s1", "2", "1000.0", "500.0", "500.0", "2.000", "0.000", "-",
            "-", "250.0", "-", "-"] in rows, stdout
    assert ["s1", "2", "20000000", "10.0%"] in rows, stdout


# ---- item 12: no traceback ----

def test_a_latin1_byte_in_a_counters_line(tmp_path):
    out = results(tmp_path)
    stats = os.path.join(out, A1 + ".flagcheck.jsonl")
    with open(stats, "rb") as f:
        data = f.read()
    with open(stats, "wb") as f:
        f.write(data.replace(b'"mapping": "shared"', b'"mapping": "sh\xe9red"',
                             1))
    rc, stdout, err = report_of(out, tmp_path)
    assert rc == 0, err
    assert "runs: 8 (always n=4, test_first n=4)" in stdout


def test_a_cell_decided_without_precision(tmp_path):
    out = results(tmp_path, S2)
    edit_manifest(out, lambda m: m["cells"][0].update(
        stopped="decided", decisions=[{"variant": "test_first",
                                       "reason": "narrow"}]))
    rc, stdout, err = report_of(out, tmp_path)
    assert rc == 0, err
    assert "decided: CI narrower than the precision (not in the manifest)" \
        in stdout


# ---- item 16 ----

def test_compare_takes_a_directory_whose_name_holds_a_comma(tmp_path):
    a = results(tmp_path)
    b = str(tmp_path / "b,c")
    shutil.copytree(RESULTS, b)
    rc, stdout, err = in_process("--compare", a, b, "--outdir",
                                 str(tmp_path / "cmp"))
    assert rc == 0, err
    assert "flagcheck-fixture: only in" not in stdout


def test_a_missing_figure_line_names_the_file(tmp_path):
    out = results(tmp_path)
    job = str(tmp_path / "flagcheck-fixture.fio")
    with open(job, "w") as f:
        f.write("; no figure\n[global]\n")
    p = run_cli("catalogue", "--job", job, out)
    assert p.returncode == 1
    assert message(p.stderr).endswith(
        "; no published-figure line in %s\n" % job)


# ---- item 7: a resume mixes no setups ----
