"""When the jobs ran together (engine/corun.c, inputs/corun.py): the
engine's per-job stretches, their merge, and the verdict and co-running
line of a short S1 run at 2 jobs beside busy loops on every CPU."""

import contextlib
import json
import os
import random
import re
import subprocess
import sys
import time

import pytest

from tests.analysis.helpers import ENGINE, FIO, REPO, message, run_cli
from flagcheck_analysis.inputs import corun, fiojson
from flagcheck_analysis.report import summary
from flagcheck_analysis.stats import decide

S1_JOB = os.path.join(REPO, "jobs", "filemap-odirect-read.fio")
needs_fio = pytest.mark.skipif(not FIO or not os.path.exists(ENGINE),
                               reason="fio or the engine not built")


def _rec(*intervals):
    return {"corun": {"every": 128, "intervals": [list(i) for i in
                                                  intervals]}}


def test_share_is_the_time_two_jobs_ran_over_the_span():
    # together 50..100 of the span 0..150
    assert corun.share([_rec((0, 100)), _rec((50, 150))]) == \
        100.0 * 50 / 150
    # apart: touching ends are not together
    assert corun.share([_rec((0, 10), (20, 30)), _rec((10, 20))]) == 0.0
    assert corun.share([_rec((0, 10)), _rec((0, 10))]) == 100.0
    # one job, or none recorded: not applicable
    assert corun.share([_rec((0, 10))]) is None
    assert corun.share([{}, {}]) is None
    assert corun.jobs([_rec((0, 10)), {}]) == 1


def test_a_stretch_that_ends_before_it_starts_is_refused(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(dict(_rec((5, 4)), flagcheck=2)) + "\n")
    with pytest.raises(fiojson.InputError) as e:
        fiojson.load_counters(str(path))
    assert str(e.value) == "%s: line 1: corun.intervals[0] is [5, 4]: " \
        "want [start, end] with end >= start" % path


def test_a_cells_share_is_the_median_of_its_runs_counters(tmp_path):
    from flagcheck_analysis.inputs import matrix
    runs = [matrix.Run("s", variant, 2, rep) for rep in (1, 2)
            for variant in ("always", "test_first")]
    # shares 100, 50, 0 (touching ends), and one run with no counters
    stretches = [((0, 10), (0, 10)), ((0, 100), (50, 150)),
                 ((0, 10), (10, 20))]
    for run, (a, b) in zip(runs, stretches):
        with open(matrix.counters_path(str(tmp_path), run), "w") as f:
            for rec in (_rec(a), _rec(b)):
                f.write(json.dumps(dict(rec, flagcheck=2)) + "\n")
    assert decide.cell_corun(str(tmp_path), runs) == 100.0 * 50 / 150
    assert decide.cell_corun(str(tmp_path), runs[3:]) is None
    assert decide.seldom_together(2, 49.9) is True
    assert decide.seldom_together(2, corun.SELDOM_PCT) is False
    assert decide.seldom_together(1, 0.0) is False
    assert decide.seldom_together(2, None) is False


def _d(ratio, lo, hi, reason="excludes_1"):
    return decide.Decision("test_first", reason, ratio, (lo, hi), 5,
                           by="pairs")


def test_a_cell_whose_jobs_seldom_ran_together_is_never_decided():
    words = "the 2 jobs ran together 31% of the time: the line was " \
        "seldom contended"
    stop = "; stop the other load: more runs like these measure little " \
        "contention"
    # a CI clear of 1 does not decide runs that did not contend the line
    assert summary.verdict(_d(1.2, 1.1, 1.3), None, 2, 0, 10,
                           corun_pct=31.0) == \
        "undecided: " + words + ", so these runs cannot decide it (the " \
        "95% CI over 5 pairs excludes 1)" + stop
    assert summary.verdict(_d(1.0, 0.8, 1.3, "undecided"), None, 2, 0, 10,
                           corun_pct=31.0) == \
        "undecided: " + words + ", so these runs cannot decide it (the " \
        "95% CI over 5 pairs still holds 1)" + stop
    assert summary.verdict(_d(1.0, 0.8, 1.3, "undecided"), None, 2, 4, 10,
                           corun_pct=31.0) == \
        "undecided: " + words + ", so these runs cannot decide it (the " \
        "95% CI over 5 pairs still holds 1); the machine was busy in 4 " \
        "of 10 runs" + stop
    # together at least half the time, or one job: nothing said
    assert summary.verdict(_d(1.2, 1.1, 1.3), None, 2, 0, 10,
                           corun_pct=50.0) == "decided: test_first faster"
    assert summary.verdict(_d(1.2, 1.1, 1.3), None, 1, 0, 10,
                           corun_pct=0.0) == "decided: test_first faster"
    # the decision itself: apart() leaves it undecided, the share kept
    d, = decide.apart([_d(1.2, 1.1, 1.3)], 2, 31.0)
    assert (d.reason, d.why, d.corun) == ("undecided", "apart", 31.0)
    assert decide.text(d, "always") == "test_first/always x1.200 over 5 " \
        "pairs, 95% CI 1.100..1.300 excludes 1, but its jobs ran together " \
        "31% of the run (under 50%): not decided"
    assert decide.apart([_d(1.2, 1.1, 1.3)], 2, 50.0) == [_d(1.2, 1.1, 1.3)]
    assert decide.apart([_d(1.2, 1.1, 1.3)], 1, 0.0) == [_d(1.2, 1.1, 1.3)]
    assert corun.seldom(2, 49.9) and not corun.seldom(2, 50.0)


def _fio_s1(tmp_path, numjobs, *args):
    stats = tmp_path / "s1.jsonl"
    env = dict(os.environ, FLAGCHECK_ENGINE=ENGINE, VARIANT="always",
               NUMJOBS=str(numjobs), RUNTIME="1", SIZE="1g",
               FILENAME="flagcheck-null-target", BACKEND="null",
               FLAGCHECK_STATS=str(stats))
    t0 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    p = subprocess.run([FIO, "--output-format=json"] + list(args) +
                       [S1_JOB], env=env,
                       cwd=str(tmp_path), capture_output=True, text=True,
                       timeout=60)
    t1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    assert p.returncode == 0, p.stderr
    return fiojson.load_counters(str(stats)), t0, t1


# serial: pins jobs and counts how long they ran together
@pytest.mark.serial
@needs_fio
def test_each_job_records_its_stretches_inside_the_run(tmp_path):
    records, t0, t1 = _fio_s1(tmp_path, 1)
    rec, = records
    c = rec["corun"]
    assert (c["every"], c["away_ns"]) == (128, 100000)
    flat = [t for iv in c["intervals"] for t in iv]
    assert flat == sorted(flat) and t0 <= flat[0] and flat[-1] <= t1
    # the thread's CPU time between samples: never more than the wall
    assert c["on_cpu_ns"] <= flat[-1] - flat[0]
    # one job: the share is not applicable
    assert corun.share(records) is None and corun.jobs(records) == 1


# serial: pins jobs and counts how long they ran together
@pytest.mark.serial
@needs_fio
def test_two_jobs_on_one_cpu_never_run_together(tmp_path):
    cpu = min(os.sched_getaffinity(0))
    records, _, _ = _fio_s1(tmp_path, 2, "--cpus_allowed=%d" % cpu)
    assert corun.jobs(records) == 2
    # they take turns, which each job's CPU-time clock says however the
    # scheduler cut them: together they ran no longer than the wall time
    # from the first stretch to the last (1 ms for the two clocks' reads)
    flat = [t for r in records for iv in r["corun"]["intervals"] for t in iv]
    on_cpu = sum(r["corun"]["on_cpu_ns"] for r in records)
    assert on_cpu <= max(flat) - min(flat) + 1000000
    # the stretches see a turn only where it was longer than away_ns (100
    # us): on a loaded CPU the turns are cut shorter, and a job away for
    # less is drawn as running, so the share is held to its range only
    assert 0 <= corun.share(records) <= 100


@contextlib.contextmanager
def busy_loops(seconds):
    """A busy loop on every CPU: bursts of 10-200 ms, pauses of 10-100 ms
    (about 70% of each CPU), each ending by itself after @seconds."""
    code = ("import os, random, time\n"
            "os.sched_setaffinity(0, {%d})\n"
            "end = time.monotonic() + %d\n"
            "while time.monotonic() < end:\n"
            "    t = time.monotonic() + random.uniform(0.01, 0.2)\n"
            "    while time.monotonic() < t:\n"
            "        pass\n"
            "    time.sleep(random.uniform(0.01, 0.1))\n")
    loops = [subprocess.Popen([sys.executable, "-c", code % (cpu, seconds)])
             for cpu in sorted(os.sched_getaffinity(0))]
    try:
        yield loops
    finally:
        for p in loops:
            p.kill()
            p.wait()


# slow: real flagcheck runs beside busy loops
@pytest.mark.slow
# serial: pins jobs and counts how long they ran together
@pytest.mark.serial
@needs_fio
def test_s1_beside_busy_loops_names_how_much_the_jobs_ran_together(
        tmp_path):
    out = str(tmp_path / "results")
    random.seed()
    with busy_loops(90):
        p = run_cli("run", S1_JOB, "--numjobs", "2", "--repeats",
                    "3", "--runtime", "1", "--ramp", "0", "--outdir", out,
                    "--quiet", timeout=120)
    assert p.returncode == 0, p.stderr
    r = run_cli("report", "--verbose", out, timeout=120)
    assert r.returncode == 0, r.stderr
    # the merge, from the counters files the runs left
    with open(os.path.join(out, "manifest.json")) as f:
        runs = json.load(f)["runs"]
    shares = [corun.share(fiojson.load_counters(os.path.join(out, e["stats"])))
              for e in runs if e["status"] == "ok"]
    assert len(shares) == 6 and all(0 <= s <= 100 for s in shares)
    median = corun.cell_share(shares)
    line, = [l for l in r.stdout.splitlines()
             if l.startswith("co-running, S1 ")]
    assert line == "co-running, S1 filemap-odirect-read at 2 jobs: the " \
        "jobs ran together %.0f%% of the run (median over its runs)" % median
    # the verdict names it exactly when the jobs seldom ran together
    seldom = "the 2 jobs ran together %.0f%% of the time: the line was " \
        "seldom contended" % median
    text = re.sub(r"\s+", " ", r.stdout)
    assert (seldom in text) == (median < corun.SELDOM_PCT)


ONE_CPU_JOB = """; published-figure: x1.30 a test input: the fix faster
[global]
ioengine=external:${FLAGCHECK_ENGINE}
backend=null
model=pattern
variant=${VARIANT}
pattern_words=w@0
pattern=atomic_inc(w),atomic_dec(w),atomic_inc(w),atomic_dec(w)
pattern_fixed=READ_ONCE(w)
flagcheck_stats=${FLAGCHECK_STATS}
filename=${FILENAME}
size=${SIZE}
rw=randread
bs=4k
thread
numjobs=${NUMJOBS}
time_based
runtime=${RUNTIME}
cpus_allowed=%d
cpus_allowed_policy=shared

[one-cpu]
"""


# slow: real flagcheck runs, fio for whole seconds
@pytest.mark.slow
# serial: pins jobs and counts how long they ran together
@pytest.mark.serial
@needs_fio
def test_a_cell_whose_jobs_never_ran_together_is_never_decided(tmp_path):
    # two jobs on one CPU take turns: no line is contended.  The forms
    # still differ (four locked RMWs against one load per I/O, a gap a
    # 1 s run resolves), so a CI may well exclude 1: the cell must stop
    # after --repeats as undecided all the same, and the report's
    # summary, its per-numjobs table and the catalogue must agree
    job = tmp_path / "one-cpu.fio"
    job.write_text(ONE_CPU_JOB % min(os.sched_getaffinity(0)))
    out = str(tmp_path / "results")
    p = run_cli("run", str(job), "--numjobs", "2", "--no-pin",
                "--until-decided", "--repeats", "3", "--max-repeats", "6",
                "--runtime", "1", "--ramp", "0", "--no-calibrate",
                "--outdir", out, timeout=180)
    assert p.returncode == 0, p.stderr
    with open(os.path.join(out, "manifest.json")) as f:
        doc = json.load(f)
    cell, = doc["cells"]
    shares = [corun.share(fiojson.load_counters(os.path.join(out, e["stats"])))
              for e in doc["runs"] if e["status"] == "ok"]
    assert len(shares) == 6
    median = corun.cell_share(shares)
    assert median < corun.SELDOM_PCT
    assert (cell["repeats"], cell["stopped"]) == (3, "seldom_together")
    assert cell["corun_pct"] == median
    assert [(d["reason"], d["why"]) for d in cell["decisions"]] == \
        [("undecided", "apart")]
    said = [l for l in message(p.stdout + p.stderr).splitlines()
            if "one-cpu nj2" in l]
    assert said[-2].startswith("flagcheck run: one-cpu nj2: undecided (its "
                               "jobs seldom ran together) after 3 repeats")
    assert said[-2].endswith(", but its jobs ran together %.0f%% of the run "
                             "(under 50%%): not decided" % median)
    assert said[-1] == (
        "flagcheck run: one-cpu nj2: the 2 jobs ran together %.0f%% of the "
        "run (median over its runs): the line was seldom contended, more "
        "repeats of the same would not decide it; stop the other load"
        % median)
    r = run_cli("report", "--verbose", out, "--no-plot", timeout=180)
    assert r.returncode == 0, r.stderr
    text = re.sub(r"\s+", " ", r.stdout)
    words = "undecided: the 2 jobs ran together %.0f%% of the time: the " \
        "line was seldom contended, so these runs cannot decide it" % median
    assert words in text
    # the summary's row: scenario, numjobs, ratio, its CI, decided or not
    row, = [l.split() for l in r.stdout.splitlines()
            if l.split()[:3] == ["one-cpu", "2", "test_first/always"]]
    assert row[5] == "undecided"
    assert "beyond noise" not in text
    c = run_cli("catalogue", out, timeout=120)
    assert c.returncode == 0, c.stderr
    assert words in re.sub(r"\s+", " ", c.stdout)
