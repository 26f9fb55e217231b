"""The expect line and the other headers in a run (issue 48): flagcheck run
and jobs/run-job read every header before fio starts (a bad one, or a
variant the job's model lacks, is one line and nothing runs), and hold each
run's counters to the expect line after it: a term they break fails the
run, in one line naming the file, the variant, the term, the count and the
operations. Real fio runs, each bounded by number_ios, not by time."""

import json
import os
import re
import subprocess

import pytest

from tests.analysis.helpers import ENGINE, FIO, REPO, ResultsDirCase, \
    message, run_cli

RUN_JOB = os.path.join(REPO, "jobs", "run-job")

# a pattern job of IOS I/Os a run: by default S1, always 2 RMWs an I/O,
# test_first none
JOB = """; %(head)s
[global]
ioengine=external:${FLAGCHECK_ENGINE}
backend=${BACKEND}
model=pattern
variant=${VARIANT}
%(patterns)s
flagcheck_stats=${FLAGCHECK_STATS}
filename=${FILENAME}
size=${SIZE}
rw=randread
bs=4k
number_ios=%(ios)d
numjobs=${NUMJOBS}
thread
[s1]
"""
S1 = "pattern_words=flags@0\n" \
    "pattern=test_and_clear_bit(flags,1),test_and_clear_bit(flags,0)"
RIGHT = "expect: always rmw/io=2 stores/io=0; test_first rmw/io=0"


def one_line(p, *needles, rc):
    """Exit status @rc, no traceback, and one stderr message holding every
    needle (its lines joined); that message."""
    assert p.returncode == rc, p.stderr
    text = message(p.stderr)
    assert "Traceback" not in text
    found = [l for l in text.splitlines() if all(n in l for n in needles)]
    assert len(found) == 1, p.stderr
    return found[0]


class Case(ResultsDirCase):
    def job(self, header, name="s1.fio"):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(JOB % dict(head=header, patterns=S1, ios=1000))
        return path

    def run(self, path, *args):
        return run_cli("run", path, "--numjobs", "1", "--repeats", "1",
                       "--ramp", "0", "--no-line-probe", "--outdir", self.out,
                       *args, timeout=120)


class TestBeforeTheRuns(Case):
    @pytest.mark.parametrize("header, needles", [
        ("expect: always rmw/io=2; test_first rmw/io=zero",
         ["s1.fio:1: expect", "'rmw/io=zero' is not valid"]),
        ("published-figure: +5%", ["s1.fio:1: published-figure '+5%'",
                                   "'+P% WHAT'"]),
        ("published-machine: nonesuch 4",
         ["s1.fio: published-machine: machine 'nonesuch'"]),
        ('assumed: cpus=4 (8..16): "x"', ["s1.fio:1: assumed"]),
    ])
    def test_a_bad_header_is_refused_before_any_run(self, header, needles):
        p = self.run(self.job(header), "--dry-run")
        one_line(p, *needles, rc=2)
        assert p.stdout == "" and not os.path.exists(self.out)

    def test_a_published_gain_in_percent_is_taken(self):
        p = self.run(self.job("published-figure: +5% OLTP throughput"),
                     "--dry-run")
        assert p.returncode == 0, p.stderr

    def test_an_expect_variant_the_model_lacks(self):
        path = self.job("expect: always rmw/io=2; on rmw/io=0")
        p = self.run(path, "--dry-run")
        line = one_line(p, "expect names variant on", rc=2)
        assert line.endswith("%s:1: expect names variant on: variant=on is "
                             "not valid for model=pattern: allowed values "
                             "are always, test_first" % path), line

    def test_a_variant_is_checked_before_the_first_run(self):
        # friction item 5: the dry run passed and the second variant failed
        # after the first had run; only the job's model's values are named
        p = self.run(self.job(RIGHT), "--variants", "always,test-first")
        line = one_line(p, "test-first", rc=2)
        assert line.endswith("(--variants test-first): variant=test-first "
                             "is not valid for model=pattern: allowed "
                             "values are always, test_first"), line
        assert not os.path.exists(self.out)


class TestAfterEachRun(Case):
    def test_counters_that_hold(self):
        p = self.run(self.job(RIGHT))
        assert p.returncode == 0, p.stderr

    def test_a_broken_term_fails_the_run_in_one_line(self):
        path = self.job("expect: always rmw/io=2; test_first rmw/io=1")
        p = self.run(path)
        assert p.returncode == 1, p.stderr
        one_line(p, "%s: expect test_first: rmw/io=1 failed: counted 0/io "
                 "(0 rmw in 1000 I/Os); from 1:test_and_clear_bit(flags,1) "
                 "0 (0/io; 1000 skipped), 2:test_and_clear_bit(flags,0) 0 "
                 "(0/io; 1000 skipped)" % path, rc=1)
        with open(os.path.join(self.out, "manifest.json")) as f:
            status = {r["variant"]: r["status"] for r in json.load(f)["runs"]}
        assert status == {"always": "ok", "test_first": "failed"}


def run_job(tmp, job, variant):
    stats = os.path.join(tmp, "stats.jsonl")
    env = dict(os.environ, FIO=FIO, FLAGCHECK_ENGINE=ENGINE, VARIANT=variant,
               NUMJOBS="1", FLAGCHECK_STATS=stats)
    p = subprocess.run([RUN_JOB, job], cwd=tmp, env=env, capture_output=True,
                       text=True, timeout=120)
    return p, stats


class TestRunJob(Case):
    def test_a_bad_header_is_refused_before_fio(self):
        p, stats = run_job(self.tmp, self.job("expect: always rmw/io"),
                           "always")
        one_line(p, "run-job: ", "s1.fio:1: expect", rc=2)
        assert not os.path.exists(stats)

    def test_a_broken_term_fails_the_run(self):
        path = self.job("expect: always rmw/io=1 stores/io=0")
        p, _ = run_job(self.tmp, path, "always")
        line = one_line(p, "run-job: %s: expect always: rmw/io=1 failed: "
                        "counted 2/io (2000 rmw in 1000 I/Os)" % path, rc=1)
        assert "1:test_and_clear_bit(flags,1) 1000 (1/io)" in line
        p, _ = run_job(self.tmp, path, "test_first")    # no group: no check
        assert p.returncode == 0, p.stderr

    def test_counters_that_hold(self):
        p, _ = run_job(self.tmp, self.job(RIGHT), "test_first")
        assert p.returncode == 0, p.stderr
        assert not re.search(r"run-job: .*expect", p.stderr)


# The newcomer's trap (issue 48): sched/fair's sched_balance_running
# cmpxchg skipped when balancing is not due (3324b2180c17). The release
# written with /if_test=0 after the rate-limited test runs with it, one I/O
# in 4000 (docs/pattern.md); written without the guard it stores on every
# I/O, and the expect line says so in the first run.
TRAP = "pattern_words=running@0\n" \
    "pattern=test_and_set_bit(running,0),atomic_set(running,0)/if_test=0\n" \
    "pattern_fixed=test_and_set_bit(running,0)/every=4000,%s"
TRAP_EXPECT = "expect: always rmw/io=1 stores/io=1; test_first rmw/io<0.001 " \
    "stores/io<0.001"


class TestTheTrap(ResultsDirCase):
    def job(self, release):
        path = os.path.join(self.tmp, "balance.fio")
        with open(path, "w") as f:
            f.write(JOB % dict(head=TRAP_EXPECT, patterns=TRAP % release,
                               ios=8000))
        return path

    def test_the_guarded_release_runs_with_its_test(self):
        for variant in ("always", "test_first"):
            p, _ = run_job(self.tmp, self.job(
                "atomic_set(running,0)/if_test=0"), variant)
            assert p.returncode == 0, p.stderr

    def test_an_unguarded_release_is_caught_by_the_first_run(self):
        path = self.job("atomic_set(running,0)")
        p, _ = run_job(self.tmp, path, "test_first")
        one_line(p, "run-job: %s: expect test_first: stores/io<0.001 failed: "
                 "counted 1/io (8000 stores in 8000 I/Os); from "
                 "2:atomic_set(running,0) 8000 (1/io)" % path, rc=1)
