"""atomic_add_return, atomic_sub_return and WRITE_ONCE_MAX under the real
fio: one RMW or store per call counted exactly against fio's total_ios;
the watermark's test-first form stores once on one job; the example job
file (jobs/examples/page-counter-watermark.fio) runs under run-job and
predicts."""

import os
import subprocess

import pytest

from jobrun import JOBS, clean_env, load_fio_json, run_job
from tests.analysis import helpers

EXAMPLE = os.path.join(JOBS, "examples", "page-counter-watermark.fio")


def counts(ctx, variant, pattern, numjobs=1):
    r = ctx.fio_run(ctx.base_args(
        model="pattern", variant=variant, numjobs=numjobs, thread=1,
        backend="null", number_ios=1500, runtime="100ms",
        pattern_words="usage@0,watermark@0+8", pattern=pattern))
    assert r.rc == 0, r.err
    ios = sum(j["read"]["total_ios"] for j in r.json()["jobs"])
    assert ios > 0 and sum(s["ios"] for s in r.stats) == ios
    total = {k: sum(s[k] for s in r.stats)
             for k in ("rmw", "stores", "stores_skipped")}
    return ios, total


@pytest.mark.parametrize("variant", ["always", "test_first"])
def test_add_and_sub_return_are_one_rmw_a_call(ctx, variant):
    ios, c = counts(ctx, variant, "atomic_add_return(usage,4),"
                    "atomic_long_sub_return(usage,1)", numjobs=2)
    assert c == {"rmw": 2 * ios, "stores": 0, "stores_skipped": 0}


def test_the_watermark_always_stores_every_call(ctx):
    ios, c = counts(ctx, "always", "WRITE_ONCE_MAX(watermark,job)",
                    numjobs=2)
    assert c == {"rmw": 0, "stores": ios, "stores_skipped": 0}


def test_the_watermark_test_first_stores_once_on_one_job(ctx):
    # job 1's value over a word that starts at 0: stored once, then equal
    ios, c = counts(ctx, "test_first", "WRITE_ONCE_MAX(watermark,job)")
    assert c == {"rmw": 0, "stores": 1, "stores_skipped": ios - 1}


def test_the_example_runs_and_predicts(ctx):
    env = clean_env(VARIANT="test_first", NUMJOBS="2", RUNTIME="1",
                    SIZE="1m", BACKEND="null")
    p, lines = run_job(ctx, EXAMPLE, env)
    assert p.returncode == 0, p.stderr
    ios = sum(j["read"]["total_ios"]
              for j in load_fio_json(p.stdout)["jobs"])
    assert ios > 0 and sum(s["ios"] for s in lines) == ios
    assert sum(s["rmw"] for s in lines) == ios
    q = subprocess.run(
        ["/usr/bin/python3", helpers.FLAGCHECK, "predict",
         EXAMPLE, "--machine", "icelake-sp-2s", "--numjobs", "4",
         "--rest", "work", "--seeds", "1"], capture_output=True, text=True,
        timeout=120, env=dict(os.environ, FLAGCHECK_SIM=os.path.join(
            helpers.BUILD, "flagcheck-sim")))
    assert q.returncode == 0, q.stderr
    assert "line 0-1 (usage,watermark)" in q.stdout
