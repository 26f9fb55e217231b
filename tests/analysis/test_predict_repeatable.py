"""flagcheck predict gives the same bytes for the same inputs: fio's cost
per I/O comes from the figure --measure-fio recorded (named with its date
and host), never from a silent measurement; the header's published-rest is
followed without --published; --list-machines lists every profile."""

import json
import os
import subprocess
import tomllib

import pytest

from tests.analysis import helpers
from tests.analysis.simcase import SIM

PREDICT = [helpers.FLAGCHECK, "predict"]
GUP = os.path.join(helpers.REPO, "jobs", "catalogue", "gup-pin-fast.fio")
RECORD = {"fio_ns": 200.0, "low": 190.0, "high": 210.0, "clock_ghz": 2.0,
          "date": "2026-01-02", "host": "box", "cpu": "Some CPU",
          "fio": "fio-3.33"}


def predict(*args, record=None):
    env = dict(os.environ, FLAGCHECK_SIM=SIM)
    if record is not None:
        env["FLAGCHECK_FIO_COST"] = str(record)
    return subprocess.run(["/usr/bin/python3"] + PREDICT + list(args),
                          capture_output=True, text=True, timeout=300,
                          env=env)


@pytest.fixture
def record(tmp_path):
    path = tmp_path / "fio-cost.json"
    path.write_text(json.dumps(RECORD))
    return path


ARGS = (GUP, "--machine", "epyc-2s-256", "--numjobs", "4", "--rest", "fio",
        "--seeds", "1")


def test_the_same_inputs_give_the_same_bytes(record):
    for extra in ((), ("--json",)):
        a = predict(*(ARGS + extra), record=record)
        b = predict(*(ARGS + extra), record=record)
        assert a.returncode == 0, a.stderr
        assert (a.stdout, a.stderr) == (b.stdout, b.stderr)
    got = json.loads(a.stdout)
    # 200 ns recorded at 2.0 GHz, on the profile's clock
    mach = tomllib.load(open(os.path.join(helpers.REPO, "machines",
                                          "epyc-2s-256.toml"), "rb"))
    # the rest besides the pattern (its work() is in the pattern itself)
    assert got["rest"]["ns"] == pytest.approx(
        200.0 * 2.0 / mach["clock_ghz"], rel=1e-9)
    assert "recorded 2026-01-02 on box, fio-3.33" in got["rest"]["source"]


def test_without_a_record_it_says_how_to_make_one(tmp_path):
    p = predict(*ARGS, record=tmp_path / "none.json")
    assert p.returncode == 2
    assert "no recorded fio cost" in p.stderr
    assert "--measure-fio" in helpers.message(p.stderr)


@pytest.mark.parametrize("field,value", [("fio_ns", float("nan")),
                                         ("fio_ns", 0), ("low", "x"),
                                         ("host", ""), ("clock_ghz", 99)])
def test_a_bad_record_is_refused_naming_its_field(tmp_path, field, value):
    bad = dict(RECORD, **{field: value})
    path = tmp_path / "fio-cost.json"
    path.write_text(json.dumps(bad))
    p = predict(*ARGS, record=path)
    assert p.returncode == 2, p.stderr
    msg = helpers.message(p.stderr).strip()
    assert len(msg.splitlines()) == 1 and "Traceback" not in p.stderr
    assert msg.startswith("flagcheck predict: %s: %s is " % (path, field))


def test_a_record_that_is_a_device_is_not_read(tmp_path):
    link = tmp_path / "fio-cost.json"
    os.symlink("/dev/zero", link)
    p = predict(*ARGS, record=link)
    assert p.returncode == 2
    assert "not a regular file" in helpers.message(p.stderr)


def test_the_headers_published_rest_without_published(tmp_path, record):
    job = tmp_path / "h.fio"
    job.write_text("; published-rest: work 3990\n[global]\nmodel=pattern\n"
                   "pattern_words=a@0\npattern=atomic_inc(a)\n[j]\n")
    p = predict(str(job), "--machine", "icelake-sp-2s", "--numjobs", "2",
                "--seeds", "1", "--json", record=record)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["rest"]["ns"] == 3990.0


def test_fio_ns_is_checked_with_published():
    p = predict(os.path.join(helpers.REPO, "jobs", "pattern",
                             "s1-filemap-odirect-read.fio"), "--published",
                "--fio-ns", "0")
    assert p.returncode == 2
    assert "argument --fio-ns: '0': want a number of ns from 1 to 1e+06" \
        in p.stderr


# slow: fio's cost measured
@pytest.mark.slow
@pytest.mark.skipif(not helpers.FIO, reason="needs fio")
def test_measure_fio_records_a_valid_figure(tmp_path):
    path = tmp_path / "fio-cost.json"
    p = predict("--measure-fio", record=path)
    assert p.returncode == 0, p.stderr
    rec = json.loads(path.read_text())
    assert rec["low"] <= rec["fio_ns"] <= rec["high"]
    assert "recorded in %s" % path in helpers.message(p.stdout)


def test_list_machines_names_every_profile():
    p = predict("--list-machines")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert all(len(l) <= 120 for l in lines)
    d = os.path.join(helpers.REPO, "machines")
    names = sorted(f[:-5] for f in os.listdir(d) if f.endswith(".toml")
                   and f != "families.toml")
    # each profile's row, then its description indented below it
    rows = [l for l in lines[1:] if not l.startswith(" ")]
    assert len(rows) * 2 == len(lines) - 1
    assert [l.split()[0] for l in rows] == names
    for l in rows:
        name, cpus, sockets, kind = l.split()[:4]
        doc = tomllib.load(open(os.path.join(d, name + ".toml"), "rb"))
        t = doc["topology"]
        assert int(cpus) == t["sockets"] * t["cores_per_socket"] * \
            t["threads_per_core"]
        assert int(sockets) == t["sockets"]
        assert kind == ("generic" if doc["generic"] else "named")
