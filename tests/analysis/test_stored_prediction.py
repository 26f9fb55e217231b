"""The big-box answer is computed once and stored: flagcheck predict DIR
writes DIR/prediction.json (inputs/predictionfile.py) and prints it as the
report does (report/bigbox.py, the one renderer)."""

import json
import os
import shutil

import pytest

from tests.analysis import helpers
from tests.analysis.test_one_answer import JOB
from flagcheck_analysis.inputs import fiojson, predictionfile

SIM = os.path.join(helpers.BUILD, "flagcheck-sim")
# what flagcheck run needs of the job beside its pattern: each run ends at
# its I/O count
RUN = """ioengine=external:${FLAGCHECK_ENGINE}
backend=${BACKEND}
variant=${VARIANT}
flagcheck_stats=${FLAGCHECK_STATS}
filename=${FILENAME}
size=${SIZE}
rw=randread
bs=4k
thread
numjobs=${NUMJOBS}
number_ios=20000
group_reporting
"""


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A results directory of flagcheck run: the pattern job of
    test_one_answer (published machine icelake-sp-2s at 4 CPUs), one
    repeat at 1 and 2 jobs, each run bounded by its I/O count."""
    tmp = tmp_path_factory.mktemp("stored")
    job = tmp / "pat.fio"
    job.write_text(JOB.replace("[pat]\n", RUN + "[pat]\n"))
    out = str(tmp / "res")
    p = helpers.run_cli("run", str(job), "--numjobs", "1,2", "--repeats",
                        "1", "--runtime", "1", "--ramp", "0",
                        "--no-line-probe", "--outdir", out, "--quiet",
                        timeout=180)
    assert p.returncode == 0, p.stderr
    return out


def predict(d, *args):
    env = dict(os.environ, FLAGCHECK_SIM=SIM)
    return helpers.run_cli("predict", d, *args, env=env, timeout=300)


@pytest.fixture(scope="module")
def predicted(results, tmp_path_factory):
    """(the results with their prediction.json, flagcheck predict's
    CompletedProcess)."""
    d = str(tmp_path_factory.mktemp("p") / "res")
    shutil.copytree(results, d)
    return d, predict(d)


def test_predict_stores_the_answer_and_prints_it(predicted):
    d, p = predicted
    assert p.returncode == 0, p.stderr
    assert p.stderr.splitlines()[-1] == "flagcheck predict: wrote %s" % \
        os.path.join(d, "prediction.json")
    doc = predictionfile.read(d)
    (s,) = doc["scenarios"]
    assert (s["label"], s["answer"], s["asked"]) == ("pat", "published",
                                                     None)
    pub = s["published"]
    assert (pub["machine"], pub["cpus"], pub["placement"]) == \
        ("icelake-sp-2s", 4, None)
    assert doc["cpus"] is None and doc["beside"] == []
    row = [l for l in p.stdout.splitlines() if l.startswith("pat ")][0]
    assert row.split()[1:4] == ["icelake-sp-2s", "4", "work"]


@pytest.mark.parametrize("args, want", [
    (["--placement", "nodes=0"], "--placement: a job file's option, not a "
     "results directory's"),
    (["--json"], "--json: a job file's option, not a results directory's"),
    (["--numjobs", "4,8"], "--numjobs '4,8': with a results directory, one N "
     "from 2 to 1024"),
    (["--numjobs", "1"], "--numjobs '1': with a results directory, one N from 2 "
     "to 1024")])
def test_a_job_files_option_is_refused_with_a_directory(results, args,
                                                         want):
    p = predict(results, *args)
    assert (p.returncode, p.stderr) == (2, "flagcheck predict: %s\n" % want)
    assert not os.path.exists(os.path.join(results, "prediction.json"))


@pytest.mark.parametrize("text, want", [
    ("{", "not JSON"),
    ('{"format": "flagcheck prediction 0"}',
     "format \"flagcheck prediction 0\", not \"flagcheck prediction 1\""),
    ('[1]', "format null, not"),
    ('{"format": "flagcheck prediction 1", "cpus": null, "note": null, '
     '"warnings": [], "beside": [], "scenarios": [{"label": "x", '
     '"jobfile": "x", "gain_published": null, "answer": "asked", '
     '"asked": null, "published": null, "fio": null, "curve": null}]}',
     "scenarios[0].asked is null: want the answer it names")])
def test_a_damaged_prediction_is_one_line(tmp_path, text, want):
    (tmp_path / "prediction.json").write_text(text)
    with pytest.raises(fiojson.InputError) as e:
        predictionfile.read(str(tmp_path))
    line = str(e.value)
    assert line.startswith(str(tmp_path / "prediction.json") + ": ")
    assert want in line and "\n" not in line
    assert line.endswith("flagcheck predict %s writes it again" % tmp_path)


def test_what_predict_wrote_reads_back(predicted):
    d, _ = predicted
    with open(os.path.join(d, "prediction.json")) as f:
        assert json.load(f)["format"] == predictionfile.FORMAT
    assert predictionfile.read(str(os.path.dirname(d))) is None


def report(d, tmp_path, *args):
    """flagcheck report of @d with a flagcheck-sim that only leaves a mark:
    (CompletedProcess, whether the simulator was started)."""
    mark = tmp_path / "sim-started"
    sim = tmp_path / "sim"
    sim.write_text("#!/bin/sh\ntouch %s\nexit 1\n" % mark)
    sim.chmod(0o755)
    env = dict(os.environ, FLAGCHECK_SIM=str(sim))
    p = helpers.run_cli("report", "--verbose", d, "--outdir",
                        str(tmp_path / "out"), *args, env=env, timeout=120)
    return p, mark.exists()


def test_the_report_renders_the_stored_answer_and_simulates_nothing(
        predicted, tmp_path):
    d, pred = predicted
    p, simulated = report(d, tmp_path)
    assert p.returncode == 0, p.stderr
    assert not simulated
    # one renderer: the report's big-box table is the one predict printed
    title = "the big-box answer, an ESTIMATE"
    table = pred.stdout[pred.stdout.index(title):].split("\n\n")[0]
    assert table in p.stdout
    assert os.path.exists(tmp_path / "out" / "pat_bigbox.png")


def test_a_report_without_the_stored_answer_names_the_command(results,
                                                              tmp_path):
    p, simulated = report(results, tmp_path, "--no-plot")
    assert p.returncode == 0 and not simulated
    assert "big-box answer, an ESTIMATE" not in p.stdout
    assert helpers.message(p.stderr).splitlines()[0] == (
        "flagcheck report: no prediction.json in %s: the big-box answer is "
        "left out (flagcheck predict %s computes it)" % (results, results))


def test_a_damaged_stored_answer_is_one_line_and_the_rest_reported(
        results, tmp_path):
    d = str(tmp_path / "res")
    shutil.copytree(results, d)
    with open(os.path.join(d, "prediction.json"), "w") as f:
        f.write('{"format": "flagcheck prediction 0"}')
    p, _ = report(d, tmp_path, "--no-plot")
    assert p.returncode == 0 and "scaling: pat" in p.stdout
    assert helpers.message(p.stderr).splitlines()[0] == (
        "flagcheck report: %s/prediction.json: format \"flagcheck prediction "
        "0\", not \"flagcheck prediction 1\": flagcheck predict %s writes it "
        "again (the big-box answer is left out)" % (d, d))
