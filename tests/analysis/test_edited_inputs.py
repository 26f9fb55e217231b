"""Files a user can edit, edited as an attacker would: a job file or counters
file that is not a regular file or too long is not read, each counters
file is counted once whatever the manifest's entries say, and no link or
entry leads outside the results directory."""

import contextlib
import io
import json
import os
import shutil

import pytest

from tests.analysis.helpers import RESULTS, message, run_cli

from flagcheck_analysis.cli import report
from flagcheck_analysis.inputs import fiojson

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
    """flagcheck report run here: (exit status, stdout, stderr with each
    message on one line); an exception (a traceback) fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = report.main(list(argv))
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), message(err.getvalue())


def report_of(out, tmp_path):
    return in_process("--no-plot", "--verbose", "--outdir",
                      str(tmp_path / "report"), out)


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
    p = run_cli("report", "--no-plot", out, timeout=60)
    assert p.returncode == 0, p.stderr
    p = run_cli("catalogue", out, timeout=60)
    assert p.returncode == 1
    said = "flagcheck catalogue: %s: not a regular file: a job file must " \
        "be one\n" % job
    assert message(p.stderr) == said
    p = run_cli("catalogue", "--job", job, out, timeout=60)
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
    assert "flagcheck report: %s: %s: json %r is not %s.json, the run's own " \
        "(run left out)" % (path, T1, A1 + ".json", T1) in err.splitlines()
    assert len(err.splitlines()) == 8, err      # 7 left out, and "wrote"
    assert "runs: 1 (always n=1)" in stdout


def test_a_duplicated_entry_is_read_once(tmp_path):
    out = results(tmp_path)
    edit_manifest(out, lambda m: m["runs"].append(dict(m["runs"][0])))
    rc, stdout, err = report_of(out, tmp_path)
    assert rc == 0, err
    assert "flagcheck report: %s/%s.json: the same run as %s/%s.json (the " \
        "same fio output: a copy, or named twice): counted once" % (
            out, A1, out, A1) in err.splitlines(), err
    assert "runs: 8 (always n=4, test_first n=4)" in stdout


def test_a_file_swapped_in_under_another_runs_name(tmp_path):
    out = results(tmp_path)
    for ext in (".json", ".flagcheck.jsonl"):
        shutil.copy(os.path.join(out, A1 + ext), os.path.join(out, T1 + ext))
    rc, stdout, err = report_of(out, tmp_path)
    # issue 49 item 6: a run is told by its content, a copy counted once
    assert "flagcheck report: %s/%s.json: the same run as %s/%s.json (the " \
        "same fio output: a copy, or named twice): counted once" % (
            out, T1, out, A1) in err.splitlines(), err
    assert "runs: 7 (always n=4, test_first n=3)" in stdout


def test_counters_of_another_job_file_under_the_runs_name(tmp_path):
    out = results(tmp_path)
    stats = os.path.join(out, A1 + ".flagcheck.jsonl")
    with open(stats) as f:
        text = f.read()
    with open(stats, "w") as f:
        f.write(text.replace('"job": "fixture"', '"job": "other"'))
    rc, stdout, err = report_of(out, tmp_path)
    assert "flagcheck report: %s/%s.json: its counters are of job(s) other, " \
        "its fio JSON ran fixture (manifest entry %s; run left out)" % (
            out, A1, A1) in err.splitlines(), err
    assert "runs: 7 (always n=3, test_first n=4)" in stdout


# ---- item 10: nothing read outside the results directory ----

def test_a_counters_link_without_a_manifest_is_not_followed(tmp_path):
    out = results(tmp_path)
    os.unlink(os.path.join(out, "manifest.json"))
    outside = str(tmp_path / "outside.jsonl")
    shutil.copy(os.path.join(out, A1 + ".flagcheck.jsonl"), outside)
    # 10 timed calls of 1e14 ns each: a share past 100% if it were read
    slow = [0] * 31 + [10]
    edit_jsonl(outside, 0, lambda r: r.update(
        timed_calls=10, timed_ns=10 ** 15, timed_log2=slow,
        timed_log2_ns=[0] * 31 + [10 ** 15]))
    stats = os.path.join(out, A1 + ".flagcheck.jsonl")
    os.unlink(stats)
    os.symlink(outside, stats)
    rc, stdout, err = report_of(out, tmp_path)
    assert rc == 0, err
    assert "flagcheck report: %s: a symbolic link (refused: nothing outside " \
        "the results directory is read; run left out)" % stats \
        in err.splitlines()
    assert "more than fio's job_runtime" not in err


def test_an_entry_naming_another_runs_counters(tmp_path):
    out = results(tmp_path)
    path = edit_manifest(out, lambda m: m["runs"][1].update(
        stats=A1 + ".flagcheck.jsonl"))
    rc, stdout, err = report_of(out, tmp_path)
    assert "flagcheck report: %s: %s: stats %r is not %s.flagcheck.jsonl, " \
        "the run's own (run left out)" % (
            path, T1, A1 + ".flagcheck.jsonl", T1) in err.splitlines(), err


# ---- item 11: every field a range; one line naming file, field, value ----
