"""Files a user can edit, edited as an attacker would, through the report
(and a resume through the runner): no traceback, no read outside the
results directory, no figure outside its range, one line naming the file,
the field and the value; a resume that would mix setups is refused."""

import contextlib
import io
import json
import os
import random
import re
import shutil

import pytest

from tests.analysis.helpers import FIO, FIXTURES, RESULTS, message, run_cli
from flagcheck_analysis.calibrate import calibration
from flagcheck_analysis.report import cli
from flagcheck_analysis.results import fiojson, manifest

S2 = os.path.join(FIXTURES, "summary", "s2")
WHY_CAL = os.path.join(FIXTURES, "why", "calibration.json")
A1 = "flagcheck-fixture_always_nj1_r1"
T1 = "flagcheck-fixture_test_first_nj1_r1"


def results(tmp_path, source=RESULTS):
    out = str(tmp_path / "results")
    shutil.copytree(source, out)
    return out


def load(path):
    with open(path) as f:
        return json.load(f)


def dump(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)


def edit_manifest(out, change):
    path = os.path.join(out, "manifest.json")
    doc = load(path)
    change(doc)
    dump(path, doc)
    return path


def edit_jsonl(path, line, change):
    with open(path) as f:
        lines = f.read().splitlines()
    rec = json.loads(lines[line])
    change(rec)
    lines[line] = json.dumps(rec)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def in_process(*argv):
    """flagcheck-report run here: (exit status, stdout, stderr with each
    message on one line); an exception (a traceback) fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = cli.main(list(argv))
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), message(err.getvalue())


def report_of(out, tmp_path):
    return in_process("--no-plot", "--outdir", str(tmp_path / "report"), out)


# ---- item 5: only regular files, with a bound ----

@pytest.mark.parametrize("kind", ["/dev/zero", "fifo"])
def test_a_job_file_that_is_no_regular_file_is_not_read(tmp_path, kind):
    out = results(tmp_path)
    job = kind
    if kind == "fifo":
        job = str(tmp_path / "job.fio")
        os.mkfifo(job)
    edit_manifest(out, lambda m: m["matrix"]["jobs"].update(
        {"flagcheck-fixture": job}))
    p = run_cli("flagcheck-report", "--no-plot", out, timeout=60)
    assert p.returncode == 0, p.stderr
    p = run_cli("flagcheck-catalogue", out, timeout=60)
    assert p.returncode == 1
    said = "flagcheck-catalogue: %s: not a regular file: a job file must " \
        "be one\n" % job
    assert message(p.stderr) == said
    p = run_cli("flagcheck-catalogue", "--job", job, out, timeout=60)
    assert message(p.stderr) == said


def test_a_file_above_the_bound_is_refused(tmp_path):
    path = str(tmp_path / "big.json")
    with open(path, "wb") as f:
        f.truncate(fiojson.MAX_BYTES + 1)
    with pytest.raises(fiojson.InputError) as e:
        fiojson.load_fio_json(path)
    assert str(e.value) == "%s: larger than %d bytes: not a fio JSON file" \
        % (path, fiojson.MAX_BYTES)


# ---- item 8: each entry's files are its run's, each read once ----

def test_every_entry_naming_one_json_counts_it_once(tmp_path):
    out = results(tmp_path)
    path = edit_manifest(out, lambda m: [
        e.update(json=A1 + ".json", stats=A1 + ".flagcheck.jsonl")
        for e in m["runs"]])
    rc, stdout, err = report_of(out, tmp_path)
    assert rc == 0, err
    assert "flagcheck-report: %s: %s: json %r is not %s.json, the run's own " \
        "(run left out)" % (path, T1, A1 + ".json", T1) in err.splitlines()
    assert len(err.splitlines()) == 8, err      # 7 left out, and "wrote"
    assert "runs: 1 (always n=1)" in stdout


def test_a_duplicated_entry_is_read_once(tmp_path):
    out = results(tmp_path)
    path = edit_manifest(out, lambda m: m["runs"].append(dict(m["runs"][0])))
    rc, stdout, err = report_of(out, tmp_path)
    assert rc == 0, err
    assert "flagcheck-report: %s/%s.json: named again (run %s of %s) " \
        "after run %s of %s: each " \
        "run's file is read once (run left out)" % (
            out, A1, A1, path, A1, path) in err.splitlines(), err
    assert "runs: 8 (always n=4, test_first n=4)" in stdout


def test_a_file_swapped_in_under_another_runs_name(tmp_path):
    out = results(tmp_path)
    for ext in (".json", ".flagcheck.jsonl"):
        shutil.copy(os.path.join(out, A1 + ext), os.path.join(out, T1 + ext))
    rc, stdout, err = report_of(out, tmp_path)
    assert "flagcheck-report: %s/%s.json: its fio JSON wrote counters " \
        "to %s.flagcheck.jsonl, " \
        "not to the entry's %s.flagcheck.jsonl (manifest entry %s; run left " \
        "out)" % (out, T1, A1, T1, T1) in err.splitlines(), err
    assert "runs: 7 (always n=4, test_first n=3)" in stdout


def test_counters_of_another_job_file_under_the_runs_name(tmp_path):
    out = results(tmp_path)
    stats = os.path.join(out, A1 + ".flagcheck.jsonl")
    with open(stats) as f:
        text = f.read()
    with open(stats, "w") as f:
        f.write(text.replace('"job": "fixture"', '"job": "other"'))
    rc, stdout, err = report_of(out, tmp_path)
    assert "flagcheck-report: %s/%s.json: its counters are of job(s) other, " \
        "its fio JSON ran fixture (manifest entry %s; run left out)" % (
            out, A1, A1) in err.splitlines(), err
    assert "runs: 7 (always n=3, test_first n=4)" in stdout


# ---- item 10: nothing read outside the results directory ----

def test_a_counters_link_without_a_manifest_is_not_followed(tmp_path):
    out = results(tmp_path)
    os.unlink(os.path.join(out, "manifest.json"))
    outside = str(tmp_path / "outside.jsonl")
    shutil.copy(os.path.join(out, A1 + ".flagcheck.jsonl"), outside)
    edit_jsonl(outside, 0, lambda r: r.update(timed_checks=10,
                                              timed_ns=10 ** 15))
    stats = os.path.join(out, A1 + ".flagcheck.jsonl")
    os.unlink(stats)
    os.symlink(outside, stats)
    rc, stdout, err = report_of(out, tmp_path)
    assert rc == 0, err
    assert "flagcheck-report: %s: a symbolic link (refused: nothing outside " \
        "the results directory is read; run left out)" % stats \
        in err.splitlines()
    assert "share of job time" not in stdout


def test_an_entry_naming_another_runs_counters(tmp_path):
    out = results(tmp_path)
    path = edit_manifest(out, lambda m: m["runs"][1].update(
        stats=A1 + ".flagcheck.jsonl"))
    rc, stdout, err = report_of(out, tmp_path)
    assert "flagcheck-report: %s: %s: stats %r is not %s.flagcheck.jsonl, " \
        "the run's own (run left out)" % (
            path, T1, A1 + ".flagcheck.jsonl", T1) in err.splitlines(), err


# ---- item 11: every field a range; one line naming file, field, value ----

def _run0(field, value):
    def change(m):
        e = m["runs"][0]
        e.setdefault("interference", {"run_cpus": {}})["run_cpus"].update(
            cpu_s=2.0)
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
    assert err.splitlines()[0] == "flagcheck-report: unusable manifest: " \
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


COUNTER_RANGES = [
    ("timed_ns", -5, "line 1: timed_ns is -5: want a whole number >= 0 <= "
     "18446744073709551615"),
    ("timed_calls", 10 ** 9, "line 1: timed_calls is 1000000000: want at "
     "most the model calls (5375157): a sample of them"),
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
    assert err.splitlines()[0] == "flagcheck-report: %s: %s (run left out)" \
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
    assert err.splitlines()[0] == "flagcheck-report: %s: %s" % (path, said)


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
    assert "flagcheck-report: %s: patterns.test_first[1].ns_per_op is 100, " \
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
        stopped="decided", decisions=[{"mode": "test_first",
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
    p = run_cli("flagcheck-catalogue", "--job", job, out)
    assert p.returncode == 1
    assert message(p.stderr).endswith("; no published-figure line in %s\n" % job)


# ---- item 7: a resume mixes no setups ----

def _job(tmp_path, reads):
    job = str(tmp_path / "reads.fio")
    with open(job, "w") as f:
        f.write("[global]\nioengine=null\nthread\nrw=randread\nbs=4k\n"
                "size=${SIZE}\ntime_based\nruntime=${RUNTIME}\n"
                "numjobs=${NUMJOBS}\ndescription=%s ${FLAG_CHECK}\n[j]\n"
                % reads)
    return job


def _run(job, out, *more, env=None, dry=False):
    return run_cli("flagcheck-run", job, "--modes", "always", "--numjobs",
                   "1", "--repeats", "1", "--ramp", "0", "--runtime", "1",
                   "--no-line-probe", "--quiet", "--outdir", out, *more,
                   *(("--dry-run",) if dry else ()),
                   env=dict(os.environ, **(env or {})), timeout=120)


needs_fio = pytest.mark.skipif(not FIO, reason="fio not installed")


@needs_fio
def test_a_job_variable_from_the_environment_is_recorded(tmp_path):
    job, out = _job(tmp_path, "${MYBS}"), str(tmp_path / "out")
    p = _run(job, out, env={"MYBS": "4k"})
    assert p.returncode == 0, p.stderr
    run = load(os.path.join(out, "manifest.json"))["runs"][0]
    assert run["job_env"] == {"MYBS": "4k"}
    p = _run(job, out, env={"MYBS": "1m"}, dry=True)
    assert p.returncode == 2
    assert message(p.stderr).splitlines()[-1] == (
        "flagcheck-run: error: $MYBS: %s has runs made with MYBS=4k "
        "(reads_always_nj1_r1), this command would use MYBS=1m: export "
        "MYBS=4k to resume it, or another --outdir" % out)
    assert _run(job, out, env={"MYBS": "4k"}, dry=True).returncode == 0


@needs_fio
def test_another_engine_build_is_refused(tmp_path):
    job, out = _job(tmp_path, "${FLAGCHECK_ENGINE}"), str(tmp_path / "out")
    engine = str(tmp_path / "engine.so")
    with open(engine, "wb") as f:
        f.write(b"build 1")
    p = _run(job, out, "--set", "FLAGCHECK_ENGINE=" + engine)
    assert p.returncode == 0, p.stderr
    with open(engine, "wb") as f:
        f.write(b"build 2")
    p = _run(job, out, "--set", "FLAGCHECK_ENGINE=" + engine, dry=True)
    assert p.returncode == 2
    assert re.search(r"error: FLAGCHECK_ENGINE: .* has runs made with an "
                     r"engine build of sha256 [0-9a-f]{12} \(reads_always_"
                     r"nj1_r1\), this command would use one of sha256 "
                     r"[0-9a-f]{12}: build or give", message(p.stderr)), \
        p.stderr


@needs_fio
def test_the_damaged_manifest_recovery_keeps_the_setup(tmp_path):
    job, out = _job(tmp_path, "x"), str(tmp_path / "out")
    p = _run(job, out)
    assert p.returncode == 0, p.stderr
    path = os.path.join(out, "manifest.json")
    os.rename(path, path + ".damaged")
    p = _run(job, out, "--runtime", "2", "--set", "SIZE=4g", dry=True)
    assert p.returncode == 2
    assert message(p.stderr).splitlines()[-1] == (
        "flagcheck-run: error: --runtime: %s has runs made with RUNTIME=1 "
        "(reads_always_nj1_r1), this command would use RUNTIME=2: give "
        "--runtime 1 to resume it, or another --outdir" % out)
    p = _run(job, out)                 # the same command: resumed, kept
    assert p.returncode == 0, p.stderr
    run = load(path)["runs"][0]
    assert (run["resumed"], run["settings"]["vars"]["RUNTIME"]) == (True, "1")


def test_runs_of_two_engine_builds_are_reported_apart(tmp_path):
    out = results(tmp_path)

    def two(m):
        for e in m["runs"]:
            e["engine_sha256"] = ("a" if e["repeat"] == 1 else "b") * 64
    edit_manifest(out, two)
    rc, stdout, err = report_of(out, tmp_path)
    assert "differ in engine: not averaged together" in err, err


# ---- the fuzz: generated hand-edits through the report ----

VALUES = [-1, 0, 1e308, -1e308, 1e-300, 10 ** 30, -50, 5000, "x", [],
          [["x", "y"]], {}, None, True, "\u00e9", [1, 2], {"a": 1}, 2 ** 64,
          -0.5, 1e9]
# columns whose figures have a range: (header, lowest, highest)
RANGED = {"others": (0, 100), "steal": (0, 100), "of the CPUs": (0, 100),
          "before ns": (0, 1e6), "after ns": (0, 1e6),
          "ns per check": (0, None), "share of job time": (0, None)}


def _leaves(doc, path=()):
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _leaves(v, path + (i,))
    if path:
        yield path


def _fuzz_dir(d):
    shutil.copytree(S2, d)
    shutil.copy(WHY_CAL, d)
    m = load(os.path.join(d, "manifest.json"))
    for e in m["runs"]:
        e["line_probe"] = {"cpus": [0, 1], "before_ns": 50.0,
                           "after_ns": 60.0}
        e["interference"]["run_cpus"].update(kthreads_s=0.1,
                                             kthreads=[["kworker", 0.1]])
    dump(os.path.join(d, "manifest.json"), m)


def _ranged_figures(markdown):
    """(header, text) of every cell of report.md's tables in RANGED."""
    header = None
    for line in markdown.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if header is None:
            header = cells
        elif not set(line) <= set("|-: "):
            for h, c in zip(header, cells):
                if h in RANGED:
                    yield h, c


def test_generated_edits(tmp_path):
    rnd = random.Random(29)
    base = str(tmp_path / "base")
    _fuzz_dir(base)
    names = sorted(n for n in os.listdir(base) if n.endswith("json")
                   or n.endswith(".jsonl"))
    for case in range(60):
        d = str(tmp_path / "r")
        shutil.copytree(base, d)
        for _ in range(rnd.choice((1, 1, 2, 3))):
            name = rnd.choice(names)
            path = os.path.join(d, name)
            with open(path) as f:
                lines = f.read().splitlines()
            i = rnd.randrange(len(lines)) if name.endswith(".jsonl") else 0
            text = lines[i] if name.endswith(".jsonl") else "\n".join(lines)
            doc = json.JSONDecoder().raw_decode(text[text.index("{"):])[0]
            where = rnd.choice(list(_leaves(doc)))
            target = doc
            for key in where[:-1]:
                target = target[key]
            target[where[-1]] = rnd.choice(VALUES)
            if name.endswith(".jsonl"):
                lines[i] = json.dumps(doc)
            else:
                lines = json.dumps(doc, indent=1).splitlines()
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
        rc, stdout, err = in_process("--no-plot", "--outdir",
                                     str(tmp_path / "o"), d)
        assert rc in (0, 1, 2), (case, err)     # 2: no --base runs left
        assert not re.search(r"(?<![\w.])(inf|nan)(?!\w)", stdout), \
            (case, stdout)
        md = os.path.join(str(tmp_path / "o"), "report.md")
        if rc == 0:
            with open(md) as f:
                for header, text in _ranged_figures(f.read()):
                    m = re.match(r"^-?[0-9.]+", text)
                    if not m:
                        continue
                    low, high = RANGED[header]
                    v = float(m.group())
                    assert v >= low and (high is None or v <= high), \
                        (case, header, text)
        shutil.rmtree(d)
        shutil.rmtree(str(tmp_path / "o"), ignore_errors=True)


def test_one_bad_counters_file_leaves_the_bh_lru_table(tmp_path, capsys):
    from tests.analysis.test_lru import line
    d = str(tmp_path)
    for name, mode in (("s_on_nj1_r1", "on"), ("s_off_nj1_r1", "off")):
        with open(os.path.join(d, name + ".flagcheck.jsonl"), "w") as f:
            f.write(json.dumps(line(mode, 1, 1000, 10000)) + "\n")
    bad = os.path.join(d, "s_on_nj1_r2.flagcheck.jsonl")
    with open(bad, "w") as f:
        f.write('{"flagcheck": 1, "ios": -1}\n')
    points = cli._lru_points([d])
    assert sorted((p.mode, p.mod, p.n) for p in points) == \
        [("off", 1, 1), ("on", 1, 1)]
    assert message(capsys.readouterr().err) == (
        "flagcheck-report: %s: line 1: ios is -1: not a whole number of 0 "
        "or more (left out of the bh_lru table)\n" % bad)
    cli._lru_points([d], {os.path.realpath(bad)})  # named already
    assert capsys.readouterr().err == ""
