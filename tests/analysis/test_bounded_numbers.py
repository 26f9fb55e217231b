"""The one bounded number parser (inputs/numbers.py) and every reader
routed through it: a whole number too big for a float (1 and 400 zeros)
in any file a tool reads is refused in one line naming the file and the
field, never an OverflowError; text is ASCII digits only; a long value is
cut in the message."""

import json
import os
import shutil

import pytest

from tests.analysis import helpers
from flagcheck_analysis.cli import predict as predict_cli
from flagcheck_analysis.predict import fiocost
from flagcheck_analysis.inputs import (calibfile, fiojson, jobheader,
                                      numbers)
from flagcheck_analysis.machines import loader, machine, profile

BIG = 10 ** 400
WHY_CAL = os.path.join(helpers.FIXTURES, "why", "calibration.json")


# ---- the parser itself ----

@pytest.mark.parametrize("text,whole,want", [
    ("12", False, 12), ("1.5", False, 1.5), ("-3e2", False, -300.0),
    (" 7 ", True, 7), ("1e400", False, None), ("nan", False, None),
    ("inf", False, None), ("1_000", False, None), ("\u0663", True, None),
    ("\u0663", False, None), ("1.5", True, None), ("", False, None),
    ("1" * 65, True, None), ("0x10", True, None)])
def test_text_is_ascii_finite_and_of_its_kind(text, whole, want):
    assert numbers.from_text(text, whole) == want


def test_a_huge_whole_number_is_out_of_range_not_an_overflow():
    assert not numbers.is_number(BIG)
    assert numbers.is_number(2 ** 1023)
    assert not numbers.in_range(BIG, high=1e6)
    with pytest.raises(numbers.NumberError) as e:
        numbers.number(BIG, "F: x", 1, 10)
    assert str(e.value) == ("F: x is a whole number of 401 digits: "
                            "want a finite number >= 1 and <= 10")


def test_a_long_value_is_cut_in_the_message():
    text = "9" * 401
    with pytest.raises(numbers.NumberError) as e:
        numbers.number(text, "--x", 1, 2, whole=True)
    assert str(e.value) == ("--x is '%s...(401 characters): want a whole "
                            "number >= 1 and <= 2" % ("9" * 36))


def test_a_bool_is_no_number():
    assert not numbers.in_range(True, 0, 1)
    with pytest.raises(numbers.NumberError):
        numbers.number(True, "F: x")


# ---- the five places that gave an OverflowError ----

def _big_json(doc, marker=123456.5):
    """json.dumps(@doc) with @marker written as 1 and 400 zeros."""
    return json.dumps(doc).replace(repr(marker), str(BIG))


def test_fio_cost_record_fio_ns(tmp_path):
    path = tmp_path / "fio-cost.json"
    path.write_text(_big_json({"fio_ns": 123456.5, "low": 1, "high": 2,
                               "clock_ghz": None, "date": "d", "host": "h",
                               "cpu": "c", "fio": "f"}))
    with pytest.raises(ValueError) as e:
        fiocost.recorded(str(path))
    assert str(e.value) == ("%s: fio_ns is a whole number of 401 "
                            "digits: want a number of ns from 1 to 1e+06"
                            % path)


def test_a_profiles_clock(tmp_path):
    src = os.path.join(profile.MACHINES_DIR, "icelake-sp-2s.toml")
    with open(src) as f:
        text = f.read()
    path = tmp_path / "icelake-sp-2s.toml"
    path.write_text(text.replace("clock_ghz = 2.6\n",
                                 "clock_ghz = %d\n" % BIG, 1))
    with pytest.raises(machine.MachineError) as e:
        loader.load(str(path))
    assert str(e.value) == ("%s: clock_ghz is a whole number of 401 "
                            "digits: want a finite number >= 0.1 and <= 10"
                            % path)


def test_a_calibrations_ns_per_op(tmp_path):
    with open(WHY_CAL) as f:
        doc = json.load(f)
    doc["patterns"]["always"][0]["ns_per_op"] = 123456.5
    path = tmp_path / "cal.json"
    path.write_text(_big_json(doc))
    with pytest.raises(calibfile.CalibrationError) as e:
        calibfile.load(str(path))
    assert str(e.value) == ("%s: patterns.always[0].ns_per_op is a whole "
                            "number of 401 digits: want a finite "
                            "number > 0 and <= 1e+06" % path)


def _fixture_run(tmp_path):
    d = tmp_path / "r"
    shutil.copytree(helpers.RESULTS, d)
    return d, "flagcheck-fixture_always_nj1_r1"


def test_a_counters_files_ios(tmp_path):
    d, run = _fixture_run(tmp_path)
    path = d / (run + ".flagcheck.jsonl")
    recs = [json.loads(l) for l in path.read_text().splitlines()]
    recs[0]["ios"] = 123456.5
    path.write_text("".join(_big_json(r) + "\n" for r in recs))
    with pytest.raises(fiojson.InputError) as e:
        fiojson.load_counters(str(path))
    assert str(e.value) == ("%s: line 1: ios is a whole number of 401 "
                            "digits: want a whole number >= 0 <= "
                            "18446744073709551615" % path)


def test_a_fio_jsons_iops(tmp_path):
    d, run = _fixture_run(tmp_path)
    path = d / (run + ".json")
    doc = json.loads(path.read_text())
    doc["jobs"][0]["read"]["iops"] = 123456.5
    path.write_text(_big_json(doc))
    with pytest.raises(fiojson.InputError) as e:
        fiojson.load_fio_json(str(path))
    assert str(e.value) == ("%s: jobs[0].read.iops is a whole number of "
                            "401 digits: more than 1.84467e+22, the "
                            "most fio can write there" % path)


# ---- a calibration used as a profile ----

def _calibration(tmp_path, **host):
    with open(WHY_CAL) as f:
        doc = json.load(f)
    doc.setdefault("host", {}).update(host)
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize("host,want", [
    ({"nodes": {"x": [0]}}, "host.nodes key is \"x\": want a NUMA node "
     "number, 0 to 1023"),
    ({"nodes": {"99999": [0]}}, "host.nodes key is \"99999\": want a NUMA "
     "node number, 0 to 1023"),
    ({"cpu_model": "AMD EPYC @ 0GHz"}, "host.cpu_model's clock is '0': "
     "want a clock of 0.1 to 10 GHz"),
    ({"cpu_model": "AMD EPYC @ 1.2.3GHz"}, "host.cpu_model's clock is "
     "'1.2.3': want a clock of 0.1 to 10 GHz"),
    ({"cpu_model": "AMD EPYC @ %dGHz" % BIG}, "host.cpu_model's clock is "
     "'%s...(401 characters): want a clock of 0.1 to 10 GHz" % ("1" +
                                                              "0" * 35))])
def test_a_calibration_as_a_profile_is_refused_naming_the_field(
        tmp_path, host, want):
    path = _calibration(tmp_path, **host)
    with pytest.raises(machine.MachineError) as e:
        loader.load(path)
    assert str(e.value) == "%s: %s" % (path, want)


def test_a_calibrations_stated_clock_is_read(tmp_path):
    path = _calibration(tmp_path, cpu_model="Intel Xeon @ 2.60GHz")
    assert loader.load(path).clock_ghz == 2.6


# ---- a published figure whose gain overflows ----

TINY, HUGE = "0." + "0" * 299 + "1", "1" + "0" * 300


@pytest.mark.parametrize("figure", [
    "%s -> %s higher IOPS, x" % (TINY, HUGE),
    "%s -> %s lower s, x" % (HUGE, TINY),
    "%s -> %s higher IOPS, x" % (HUGE, TINY),
    "1 -> 1000001 higher IOPS, x", "x1000001 x", "1e3 -> 2e3 higher x"],
    ids=["tiny-huge", "huge-tiny-lower", "huge-tiny", "1e6+1", "x1e6+1",
         "exponent"])
def test_a_published_gain_beyond_a_million_fold_is_refused(figure):
    with pytest.raises(jobheader.FigureError) as e:
        jobheader.parse(figure, "f.fio:1")
    assert str(e.value).startswith("f.fio:1: published-figure ")
    assert str(e.value).endswith("is not valid: allowed %s"
                                 % jobheader.USAGE)
    assert "a gain from x1e-06 to x1e+06" in jobheader.USAGE


def test_a_published_gain_at_the_bound_is_taken():
    assert jobheader.parse("1 -> 1000000 higher IOPS, x", "w").gain == 1e6
    assert jobheader.parse("1000000 -> 1 higher IOPS, x", "w").gain == 1e-6


def test_predict_published_json_of_an_overflowing_figure(capsys, tmp_path):
    src = os.path.join(helpers.REPO, "jobs", "pattern",
                       "s1-filemap-odirect-read.fio")
    with open(src) as f:
        text = f.read()
    path = tmp_path / "s1.fio"
    path.write_text(text.replace(
        "1700000 -> 4000000 higher", "%s -> %s higher" % (TINY, HUGE), 1))
    try:
        rc = predict_cli.main([str(path), "--published", "--json",
                               "--seeds", "1"])
    except SystemExit as e:
        rc = e.code
    out, err = capsys.readouterr()
    assert (rc, out) == (2, "") and "Traceback" not in err
    assert "%s:8: published-figure '0.000" % path in helpers.message(err)
