"""A seeded fuzz over the files and directories the tools read: host
lists, the fio cost record, calibrations taken as profiles, the two sides
of --compare and job files of several sections.  Every answer is the
tool's (a value, or its error in one line naming the file or option);
never a traceback, a hang, a raw control character or byte that is not
UTF-8 on the screen, or NaN and infinity in JSON."""

import contextlib
import io
import json
import os
import random
import re
import shutil

import pytest

from tests.analysis import helpers
from tests.analysis.simcase import sim_binary  # noqa: F401
from tests.widthcheck import columns
from flagcheck_analysis.cli import predict as predict_cli
from flagcheck_analysis.predict import fiocost
from flagcheck_analysis.cli import report as report_cli
from flagcheck_analysis.machines import loader, machine
from flagcheck_analysis.run import hosts

WHY_CAL = os.path.join(helpers.FIXTURES, "why", "calibration.json")
GUP = os.path.join(helpers.REPO, "jobs", "catalogue", "gup-pin-fast.fio")
BIG = 10 ** 400
# leaves a hand edit puts in a JSON document
VALUES = [0, -1, 1, 2, 0.5, 1e308, -1e308, 1e-300, 2 ** 64, BIG, -BIG,
          "x", "", "\u00e9", "\x1b[2J", "a\nb", None, True, [], [0, 0], {},
          {"x": [0]}, {"99999": [0]}, float("nan"), float("inf")]
# what a screen may show: no control character but the newline, no
# surrogate (a byte that is not UTF-8)
SHOWABLE = re.compile(r"^[^\x00-\x09\x0b-\x1f\x7f\ud800-\udfff]*$")


def _one_line(err, prog):
    """@err (stderr) is messages of @prog, or argparse's usage."""
    msgs = [m for m in helpers.message(err).splitlines() if m.strip()]
    assert msgs and "Traceback" not in err, err
    assert all(re.match(r"^(%s: |usage: | )" % prog, m) for m in msgs), err
    assert SHOWABLE.match(err), repr(err)


def _json_ok(text):
    return json.loads(text, parse_constant=lambda c: pytest.fail(
        "JSON carries %s" % c))


# ---- host lists ----

HOST_LINES = [b"127.0.0.1", b"node1,8765", b"ip6:::1,9000", b"sock:/tmp/s",
              b"# comment", b"", b"   ", b"h,0", b"h,65536", b"h," +
              b"9" * 500, b"::1", b"sock:", b"n\xffode", b"\xef\xbb\xbfh",
              b"h\x1b[2J", b"a" * 300, b"h,\xd9\xa3", b"h\tx"]


def test_fuzz_host_lists(tmp_path):
    rnd = random.Random(4301)
    path = tmp_path / "hosts"
    for case in range(300):
        path.write_bytes(b"\n".join(rnd.choice(HOST_LINES) for _ in
                                    range(rnd.randint(0, 6))))
        try:
            got = hosts.read_list(str(path))
        except hosts.HostError as e:
            msg = str(e)
            assert msg.startswith(str(path)) and "\n" not in msg, msg
            assert len(msg) < 400, msg
            continue
        for h in got:
            assert "\udcff" not in h.spec and 0 <= h.port < 65536, h
            assert re.fullmatch(r"[A-Za-z0-9._-]*", h.label), h


# ---- the fio cost record ----

RECORD = {"fio_ns": 200.0, "low": 190.0, "high": 210.0, "clock_ghz": 2.0,
          "date": "2026-01-02", "host": "box", "cpu": "c", "fio": "fio-3.33"}


def test_fuzz_the_fio_cost_record(tmp_path):
    rnd = random.Random(4302)
    path = tmp_path / "fio-cost.json"
    prof = loader.load("icelake-sp-2s")
    for case in range(300):
        rec = dict(RECORD)
        for key in rnd.sample(sorted(rec), rnd.randint(1, 3)):
            rec[key] = rnd.choice(VALUES)
        path.write_text(json.dumps(rec))
        try:
            got = fiocost.recorded(str(path))
        except ValueError as e:
            msg = str(e)
            assert msg.startswith(str(path) + ": ") and "\n" not in msg, msg
            assert len(msg) < 300, msg
            continue
        ns, words = fiocost.recorded_rest(got, prof)
        assert all(1e-3 < x < 1e8 for x in ns), (rec, ns)
        assert SHOWABLE.match(words), words


# ---- calibrations taken as profiles ----

def _leaves(doc, path=()):
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _leaves(v, path + (i,))
    if path:
        yield path


def _edited(doc, rnd):
    doc = json.loads(json.dumps(doc))
    for _ in range(rnd.choice((1, 1, 2))):
        where = rnd.choice(list(_leaves(doc)))
        target = doc
        for key in where[:-1]:
            target = target[key]
        target[where[-1]] = rnd.choice(VALUES + [
            "AMD EPYC @ %dGHz" % BIG, "Intel @ 0GHz", "Intel @ 2.60GHz",
            "Intel @ 1.2.3GHz"])
    return doc


def test_fuzz_calibrations_as_profiles(capsys, tmp_path, sim_binary):
    rnd = random.Random(4303)
    with open(WHY_CAL) as f:
        base = json.load(f)
    path = tmp_path / "cal.json"
    for case in range(80):
        path.write_text(json.dumps(_edited(base, rnd)))
        try:
            m = loader.load(str(path))
        except machine.MachineError as e:
            msg = str(e)
            assert msg.startswith(str(path)) and "\n" not in msg, msg
            continue
        assert m.clock_ghz is None or 0.1 <= m.clock_ghz <= 10, m.clock_ghz
        if case % 4:
            continue
        args = [GUP, "--machine", str(path), "--numjobs", "2", "--rest",
                "work", "--seeds", "1", "--json"]
        try:
            rc = predict_cli.main(args)
        except SystemExit as e:
            rc = e.code
        out, err = capsys.readouterr()
        assert rc in (0, 1, 2), (case, err)
        if rc:
            _one_line(err, "flagcheck predict")
        else:
            _json_ok(out)


# ---- the two sides of --compare ----

NAMES = [b"B", b"B\xff", b"B\x1b[31m", b"B\nx", b"\xe6\xbc\xa2\xe5\xad\x97",
         b"a,b", b"B\xc3", b"-B", b"B " * 30]


def _report(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = report_cli.main(list(argv))
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def test_fuzz_compare_directories(tmp_path):
    rnd = random.Random(4304)
    root = os.fsencode(str(tmp_path))
    for case in range(12):
        d = os.path.join(root, b"c%d" % case)
        os.mkdir(d)
        sides = []
        for i in range(2):
            name = os.path.join(d, rnd.choice(NAMES) + b"%d" % i)
            shutil.copytree(helpers.RESULTS, os.fsdecode(name))
            sides.append(os.fsdecode(name))
        if rnd.random() < 0.3:
            sides[1] = sides[0]
        fmt = rnd.choice(["text", "markdown", "json", "csv"])
        out_dir = os.fsdecode(os.path.join(d, b"out"))
        rc, out, err = _report("--compare", *sides, "--format", fmt,
                               "--outdir", out_dir)
        assert rc in (0, 1), (case, err)
        assert "Traceback" not in err
        assert SHOWABLE.match(out.replace("\t", "")), repr(out)
        if fmt == "json":
            doc = _json_ok(out)
            assert doc["header"][0].startswith("A: ")
        elif fmt == "text":
            assert out.startswith("A: ")
        assert sorted(os.listdir(out_dir)) == ["sidebyside.md"]
        with open(os.path.join(out_dir, "sidebyside.md"),
                  encoding="utf-8") as f:
            assert SHOWABLE.match(f.read())


# ---- job files of several sections ----

SECTION_OPTS = ["pattern=atomic_inc(a),work(100)", "pattern=set_bit(a,0)",
                "pattern=work(10)", "pattern=test_bit(a,0),work(50)",
                "pattern=set_bit(b,0)", "pattern_words=a@0",
                "pattern_words=a@0,b@8", "numjobs=2", "numjobs=99999",
                "model=pattern", "model=filemap_check_errors", "stonewall",
                "new_group", "rw=randread", "pattern=work(1e400)",
                "pattern=atomic_inc(a)/every=0", "; comment", "thread"]
NAMES_OF_SECTIONS = ["a", "b", "\u6f22\u5b57", "global", "x y", "j" * 200]


def test_fuzz_job_files_of_several_sections(capsys, tmp_path, sim_binary):
    rnd = random.Random(4305)
    for case in range(40):
        text = "[global]\nmodel=pattern\npattern_words=a@0\n"
        for s in range(rnd.randint(2, 4)):
            text += "[%s]\n" % rnd.choice(NAMES_OF_SECTIONS)
            text += "".join(o + "\n" for o in rnd.sample(
                SECTION_OPTS, rnd.randint(0, 3)))
        path = tmp_path / ("f%d.fio" % case)
        path.write_text(text)
        args = [str(path), "--machine", "icelake-sp-2s", "--numjobs",
                rnd.choice(["2", "1,2", "4"]), "--rest", "work", "--seeds",
                "1"] + rnd.choice([[], ["--json"]])
        try:
            rc = predict_cli.main(args)
        except SystemExit as e:
            rc = e.code
        out, err = capsys.readouterr()
        assert rc in (0, 1, 2), (text, err)
        if rc:
            _one_line(err, "flagcheck predict")
        elif "--json" in args:
            _json_ok(out)
        else:
            assert out and SHOWABLE.match(out), (text, out)
            assert max(columns(l) for l in out.splitlines()) <= 120
