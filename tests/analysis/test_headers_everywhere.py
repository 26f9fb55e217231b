"""No subcommand ends in a traceback on any header line (issue 48, friction
item 2): a pattern job file with one bad line of each key, given to every
subcommand that reads job files (run --dry-run, predict, report, compare,
catalogue); flagcheck run refuses each in one line before anything runs,
and '+P%' is a published figure. In-process, through the one entry point
(cli/main.py)."""

import json
import os
import shutil

import pytest

from tests.analysis.helpers import RESULTS, message
from flagcheck_analysis.cli import main
from flagcheck_analysis.inputs import headers

JOB = """; a pattern job
; published-figure: x1.5 IOPS, a box
; published-machine: icelake-sp-2s 8
; published-rest: work
%s
[global]
ioengine=external:${FLAGCHECK_ENGINE}
model=pattern
variant=${VARIANT}
pattern_words=flags@0
pattern=test_and_clear_bit(flags,0),work(100)
flagcheck_stats=${FLAGCHECK_STATS}
filename=${FILENAME}
size=${SIZE}
rw=randread
time_based
runtime=${RUNTIME}
numjobs=${NUMJOBS}
[fixture]
"""
# one bad line of each key the header has
BAD = {"published-figure": "+5%",
       "published-machine": "icelake-sp-2s many",
       "published-rest": "sometimes",
       "rest-rule": "",
       "published-share": "150% f()",
       "published-stddev": "0%",
       "assumed": 'cpus=4 (8..16): "x"',
       "pattern-twin": "twin.txt",
       "expect": "always rmw/io"}


def test_every_key_has_a_bad_line_here():
    assert sorted(BAD) == sorted(headers.KEYS)


def job(tmp_path, key, value):
    text = JOB % ("; %s: %s" % (key, value))
    # the key's line replaces the good one of the same key
    lines = [l for l in text.splitlines()
             if not l.startswith("; %s:" % key) or l.endswith(value)]
    path = tmp_path / "fixture.fio"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def results(tmp_path, job_path):
    """The fixture results (flagcheck-fixture.fio's runs), their manifest
    naming @job_path as the job file."""
    out = tmp_path / "results"
    shutil.copytree(RESULTS, out)
    doc = json.loads((out / "manifest.json").read_text())
    doc["matrix"]["jobs"] = {"flagcheck-fixture": job_path}
    (out / "manifest.json").write_text(json.dumps(doc))
    return str(out)


def flagcheck(capsys, *argv):
    """(exit status, stderr) of one subcommand run in this process."""
    try:
        rc = main.main(list(argv))
    except SystemExit as e:
        rc = e.code
    return rc, message(capsys.readouterr().err)


def commands(tmp_path, path):
    out = results(tmp_path, path)
    return {"run": ["run", "--dry-run", "--numjobs", "1", "--outdir",
                    str(tmp_path / "r"), path],
            "predict": ["predict", path, "--published", "--seeds", "1"],
            "report": ["report", "--no-plot", "--outdir",
                       str(tmp_path / "rep"), out],
            "compare": ["compare", "--no-plot", "--outdir",
                        str(tmp_path / "cmp"), out, out],
            "catalogue": ["catalogue", out]}


@pytest.mark.parametrize("sub", ["run", "predict", "report", "compare",
                                 "catalogue"])
@pytest.mark.parametrize("key", sorted(BAD))
def test_a_bad_line_is_never_a_traceback(tmp_path, capsys, key, sub):
    """flagcheck run refuses every bad line before anything runs; the
    others say it in one line where they read it (an exception escaping
    main() fails the test as a traceback would end the command)."""
    path = job(tmp_path, key, BAD[key])
    rc, err = flagcheck(capsys, *commands(tmp_path, path)[sub])
    assert "Traceback" not in err
    lines = [l for l in err.splitlines() if path + ":" in l and key in l]
    if sub == "run":
        assert rc == 2 and len(lines) == 1, (rc, err)
    elif rc != 0 and lines:
        assert len(lines) == 1 and \
            lines[0].startswith("flagcheck %s: " % sub), err


def test_a_gain_in_percent_is_a_published_figure(tmp_path, capsys):
    path = job(tmp_path, "published-figure", "+5% OLTP throughput")
    rc, err = flagcheck(capsys, "run", "--dry-run", "--numjobs", "1",
                        "--outdir", str(tmp_path / "r"), path)
    assert rc == 0, err
