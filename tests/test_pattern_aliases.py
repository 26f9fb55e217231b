"""The kernel's atomic_long_* and atomic64_* spellings of the atomic_*
operations: the parser takes each as the same table row, so the engine
counts them exactly as atomic_*, the simulator runs them alike, and a name
that no atomic_* row carries is refused as before."""

import json
import os
import subprocess

import pytest

from tests.analysis import helpers

SIM = os.path.join(helpers.BUILD, "flagcheck-sim")
OPS = os.path.join(helpers.BUILD, "flagcheck-pattern-ops")


def sim(pattern, variant="always"):
    return subprocess.run([SIM, "--words", "u@0", "--pattern", pattern,
                           "--variant", variant, "--ios", "50"],
                          input="2\n0 100\n100 0\n0 0\n", capture_output=True,
                          text=True, timeout=60)


def atomic_rows():
    p = subprocess.run([OPS], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    rows = rows["operations"] if isinstance(rows, dict) else rows
    return [r for r in rows if r["name"].startswith("atomic_")]


def call(row):
    args = row["args"].split(",")
    vals = {"word": "u", "n": "1", "value": "1", "old": "0", "new": "1",
            "u": "0", "bit": "1"}
    return "%s(%s)" % (row["name"], ",".join(vals[a] for a in args))


@pytest.mark.parametrize("prefix", ["atomic_long_", "atomic64_"])
def test_every_atomic_row_has_both_spellings(prefix):
    rows = atomic_rows()
    assert rows
    for row in rows:
        plain = sim(call(row))
        alias = sim(prefix + call(row)[len("atomic_"):])
        assert plain.returncode == 0, plain.stderr
        assert alias.returncode == 0, alias.stderr
        a, b = json.loads(plain.stdout), json.loads(alias.stdout)
        for key in ("iops", "rmw_per_io", "stores_per_io",
                    "retries_per_io", "events"):
            assert a[key] == b[key], (row["name"], key)


@pytest.mark.parametrize("name", ["atomic_long_bogus", "atomic64_set_bit",
                                  "atomic_long_", "atomic64_"])
def test_a_spelling_of_no_row_is_refused(name):
    p = sim("%s(u)" % name)
    assert p.returncode != 0
    assert "unknown operation '%s'" % name in p.stderr
    assert "(each atomic_* also as atomic_long_* and atomic64_*)" in p.stderr


def test_the_engine_counts_the_spellings_as_the_row(ctx):
    """Under the real fio: atomic_long_inc and atomic64_add are one RMW
    each per I/O, exactly 2 x fio's total_ios, named as written."""
    r = ctx.fio_run(ctx.base_args(
        model="pattern", variant="always", numjobs=2, thread=1,
        backend="null", number_ios=2000, runtime="100ms",
        pattern_words="usage@0",
        pattern="atomic_long_inc(usage),atomic64_add(usage,2)"))
    assert r.rc == 0, r.err
    jobs = r.json()["jobs"]
    ios = sum(j["read"]["total_ios"] for j in jobs)
    assert ios > 0
    assert sum(s["ios"] for s in r.stats) == ios
    assert sum(s["rmw"] for s in r.stats) == 2 * ios
    paths = r.stats[0]["paths"]
    assert list(paths) == ["1:atomic_long_inc(usage)",
                           "2:atomic64_add(usage,2)"], paths
