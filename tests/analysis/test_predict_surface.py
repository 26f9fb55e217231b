"""flagcheck predict's surface under bad input: each case a refusal in one
message naming the option or file (exit 2, or 1 for a simulation that
cannot run), never a traceback, a hang or NaN in JSON; then a seeded fuzz
over options, profiles, headers and patterns with the same rule."""

import json
import os
import random
import re
import threading

import pytest

from tests.analysis import helpers
from tests.analysis.simcase import sim_binary  # noqa: F401
from flagcheck_analysis.cli.predict import main as predict_main

GUP = os.path.join(helpers.REPO, "jobs", "catalogue", "gup-pin-fast.fio")
S1 = os.path.join(helpers.REPO, "jobs", "pattern",
                  "s1-filemap-odirect-read.fio")
BASE = ["--machine", "icelake-sp-2s", "--numjobs", "2", "--rest", "work",
        "--seeds", "1"]


def predict(capsys, *args, width=True):
    """(exit status, stdout, stderr's messages joined) of flagcheck predict's main; every
    line within 120 columns unless @width is False (a value longer than
    that is echoed whole)."""
    try:
        rc = predict_main([str(a) for a in args])
    except SystemExit as e:
        rc = e.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    for line in (err if "--json" in args else out + err).splitlines():
        assert len(line) <= 120 or not width, line
    if "--json" in args and rc == 0:
        json.loads(out, parse_constant=lambda c: pytest.fail(
            "JSON carries %s" % c))
    return rc, out, helpers.message(err).strip()


def job(tmp_path, pattern, words="a@0", name="j.fio"):
    path = tmp_path / name
    path.write_text("[global]\nmodel=pattern\npattern_words=%s\n"
                    "pattern=%s\n[j]\n" % (words, pattern))
    return path


@pytest.mark.parametrize("cpus,want", [
    ("3000", "--numjobs '3000': allowed whole numbers from 1 to 1024"),
    ("\u0663", "--numjobs '\u0663': allowed N[,N...], whole numbers (ASCII "
     "digits)"),
    ("\U0001d7d0", "allowed N[,N...]"), ("99999999", "allowed N[,N...]")])
def test_cpus_is_bounded_before_anything_is_built(capsys, cpus, want):
    args = [GUP, "--machine", "epyc-2s-256", "--numjobs", cpus]
    rc, _, err = predict(capsys, *args)
    assert rc == 2 and want in err


@pytest.mark.parametrize("seeds", ["0", "-1"])
def test_seeds_are_checked_with_published(capsys, seeds):
    rc, _, err = predict(capsys, S1, "--published", "--seeds", seeds)
    assert (rc, err) == (2, "flagcheck predict: --seeds %s: allowed 1 or "
                         "more, at most 100" % seeds)


@pytest.mark.parametrize("pattern", ["work(0)", "smp_mb__before_atomic()"])
def test_an_io_of_no_time_is_refused(capsys, tmp_path, pattern):
    path = job(tmp_path, pattern)
    rc, _, err = predict(capsys, path, *BASE)
    assert rc == 1 and "an I/O takes no time on one CPU" in err


def test_a_pattern_fio_cuts_is_refused_as_run_job_does(capsys, tmp_path):
    path = job(tmp_path, "set_bit(a,0);work(1000)")
    rc, _, err = predict(capsys, path, *BASE)
    assert rc == 2 and "fio ends the line at ';' (a comment)" in err


def test_a_semicolon_through_a_variable_is_refused(capsys, tmp_path,
                                                    monkeypatch):
    monkeypatch.setenv("PAT", "set_bit(a,0);work(9)")
    path = job(tmp_path, "${PAT}")
    rc, _, err = predict(capsys, path, *BASE)
    assert rc == 2 and "';' and '#' are not operators" in err


@pytest.mark.parametrize("make", ["zero", "link", "fifo", "deep", "bytes"])
def test_a_profile_that_is_no_regular_toml_is_refused(capsys, tmp_path,
                                                      make):
    path = tmp_path / "p.toml"
    if make == "zero":
        path = "/dev/zero"
    elif make == "link":
        os.symlink("/dev/zero", path)
    elif make == "fifo":
        os.mkfifo(path)
    elif make == "deep":
        path.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    else:
        path.write_bytes(b"name = \"\xe9\"\n")
    got = {}
    t = threading.Thread(target=lambda: got.update(r=predict(
        capsys, GUP, "--machine", path, "--numjobs", "2")), daemon=True)
    t.start()
    t.join(20)
    assert not t.is_alive(), "flagcheck predict hung on %s" % make
    rc, _, err = got["r"]
    assert rc == 2 and str(path) in err and len(err.splitlines()) == 1


def test_predict_dir_fio_ns_nan_is_refused_naming_it():
    p = helpers.run_cli("predict", "/nonexistent", "--numjobs", "8",
                        "--fio-ns", "nan")
    assert p.returncode == 2
    assert "argument --fio-ns: 'nan': want a number of ns from 1 to" \
        in p.stderr


# ---- a seeded fuzz: every answer 0, 1 or 2 with one message ----

OPTS = {"--numjobs": ["1", "2", "0", "-1", "1,", ",2", "2,2", "x", "1e3",
                   "\u00b2", "3000", "4"],
        "--seeds": ["1", "0", "x", "-3", "1e9", "99999999999999999999"],
        "--rest": ["work", "fio", "none", ""],
        "--fio-ns": ["100", "0", "nan", "inf", "-1", "1e308", "x"],
        "--placement": ["nodes=0", "nodes=0,1", "nodes=9", "nodes=", "x",
                        "nodes=\u0661"],
        "--machine": ["icelake-sp-2s", "kunpeng-920-6426", "nope", "../x",
                      "/dev/null", "", "a" * 90]}
PATTERNS = ["atomic_inc(a)", "set_bit(a,0),work(100)", "set_bit(a,99)",
            "work(-1)", "work(1e400)", "atomic_inc(b)", "test_bit(a,0)",
            "atomic_inc_not_zero(a),work(50)", "set_bit(a,0)/every=0",
            "set_bit(a,0)/every=65534,work(10)", "READ_ONCE(a)*3",
            "clear_bit(a,\u0661)", "work(10)#x", ""]
HEADERS = ["", "; published-machine: icelake-sp-2s 2\n",
           "; published-machine: icelake-sp-2s 99999\n",
           "; published-rest: work 100\n", "; published-rest: work nan\n",
           "; published-rest: fio\n",
           "; published-figure: 100 -> 200 higher IOPS, x\n",
           "; assumed: cpus=2 (1..4): \"x\"\n",
           "; assumed: cpus=2 (4..1): \"x\"\n"]


def test_fuzz_the_predict_surface(capsys, tmp_path):
    rnd = random.Random(20261202)
    for i in range(60):
        path = tmp_path / ("f%d.fio" % i)
        path.write_text(rnd.choice(HEADERS) + rnd.choice(HEADERS) +
                        "[global]\nmodel=pattern\npattern_words=a@0\n"
                        "pattern=%s\n[j]\n" % rnd.choice(PATTERNS))
        args = [path, "--machine", "icelake-sp-2s", "--numjobs", "2",
                "--rest", "work", "--seeds", "1"]
        for opt in rnd.sample(sorted(OPTS), rnd.randint(0, 3)):
            args += [opt, rnd.choice(OPTS[opt])]
        args += rnd.choice([[], ["--json"], ["--published"]])
        rc, out, err = predict(capsys, *args)
        assert rc in (0, 1, 2), (args, err)
        if rc:
            msgs = [m for m in err.splitlines() if m]
            assert len(msgs) >= 1 and re.match(
                r"^(flagcheck predict: |usage: )", msgs[0]), (args, err)
        else:
            assert out, args


def calibration(tmp_path, **change):
    with open(os.path.join(helpers.REPO, "tests", "analysis", "fixtures",
                           "why", "calibration.json")) as f:
        doc = json.load(f)
    doc.update(change)
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_calibration_without_pairs_or_with_a_cpu_twice(capsys, tmp_path):
    path = calibration(tmp_path, transfer_ns=[[None, None], [None, None]])
    rc, _, err = predict(capsys, GUP, "--machine", path, "--numjobs", "2",
                         "--rest", "work")
    assert (rc, err) == (2, "flagcheck predict: %s: transfer_ns: no pair of "
                         "CPUs measured: want a number for at least one "
                         "pair" % path)
    path = calibration(tmp_path, cpus=[0, 0])
    rc, _, err = predict(capsys, GUP, "--machine", path, "--numjobs", "2",
                         "--rest", "work")
    assert (rc, err) == (2, "flagcheck predict: %s: cpus [0, 0]: a CPU "
                         "twice: want each CPU once" % path)


def test_one_cpu_has_no_line_capacity_to_print(capsys):
    rc, out, _ = predict(capsys, GUP, "--machine", "epyc-2s-256", "--numjobs",
                         "1", "--rest", "work", "--seeds", "1")
    assert rc == 0 and "no C: no other CPU" in out and "inf" not in out


@pytest.mark.parametrize("n", ["\u00b2", "\u0663", "9" * 5000])
def test_a_published_machine_count_is_ascii_and_bounded(capsys, tmp_path,
                                                        n):
    path = tmp_path / "h.fio"
    path.write_text("; published-machine: icelake-sp-2s %s\n[global]\n"
                    "model=pattern\npattern_words=a@0\npattern=atomic_inc(a)"
                    ",work(10)\n[j]\n" % n)
    rc, _, err = predict(capsys, path, "--published", "--seeds", "1",
                         width=len(n) < 100)
    assert rc == 2 and "published-machine" in err and \
        "is not valid: allowed 'PROFILE N [nodes=A[,B...]]'" in err


def test_a_calibration_relation_key_of_three_cpus(capsys, tmp_path):
    with open(os.path.join(helpers.REPO, "tests", "analysis", "fixtures",
                           "why", "calibration.json")) as f:
        doc = json.load(f)
    doc.setdefault("host", {})["relation"] = {"0,1,2": "same_core"}
    path = tmp_path / "cal.json"
    path.write_text(json.dumps(doc))
    rc, _, err = predict(capsys, GUP, "--machine", path, "--numjobs", "2",
                         "--rest", "work")
    assert (rc, err) == (2, "flagcheck predict: %s: host.relation key "
                         "'0,1,2': want 'CPU,CPU'" % path)
