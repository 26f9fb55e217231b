"""atomic_sub, atomic_dec_and_test (include/linux/atomic) under the real
fio and in the simulator: each is one RMW a call, counted exactly against
fio's total_ios (any number of jobs, either variant: neither has a
test-first form), and the simulator counts the same RMWs per I/O."""

import json
import os
import subprocess

import pytest

from tests.analysis import helpers

SIM = os.path.join(helpers.BUILD, "flagcheck-sim")
TWO_CPUS = "2\n0 100\n100 0\n0 0\n"


def counts(ctx, variant, pattern, numjobs=1, words="ref@0"):
    r = ctx.fio_run(ctx.base_args(
        model="pattern", variant=variant, numjobs=numjobs, thread=1,
        backend="null", number_ios=1500, runtime="100ms",
        pattern_words=words, pattern=pattern))
    assert r.rc == 0, r.err
    ios = sum(j["read"]["total_ios"] for j in r.json()["jobs"])
    assert ios > 0 and sum(s["ios"] for s in r.stats) == ios
    total = {k: sum(s[k] for s in r.stats)
             for k in ("rmw", "rmw_skipped", "stores", "stores_skipped")}
    return ios, total, r.stats


def sim(pattern, words="ref@0", variant="always"):
    p = subprocess.run([SIM, "--words", words, "--pattern", pattern,
                        "--variant", variant, "--ios", "50"],
                       input=TWO_CPUS, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize("variant", ["always", "test_first"])
def test_sub_and_dec_and_test_are_one_rmw_a_call(ctx, variant):
    ios, c, stats = counts(ctx, variant, "atomic_sub(ref,3),"
                           "atomic_dec_and_test(ref)", numjobs=2)
    assert c == {"rmw": 2 * ios, "rmw_skipped": 0, "stores": 0,
                 "stores_skipped": 0}
    assert list(stats[0]["paths"]) == ["1:atomic_sub(ref,3)",
                                       "2:atomic_dec_and_test(ref)"]


def test_the_long_and_64_spellings_count_as_the_rows(ctx):
    ios, c, _ = counts(ctx, "always", "atomic_long_sub(ref,1),"
                       "atomic64_dec_and_test(ref)")
    assert c["rmw"] == 2 * ios and c["rmw_skipped"] == 0


def test_the_simulator_counts_one_rmw_a_call():
    for variant in ("always", "test_first"):
        r = sim("atomic_sub(ref,3),atomic_dec_and_test(ref),work(50)",
                variant=variant)
        assert (r["rmw_per_io"], r["stores_per_io"],
                r["retries_per_io"]) == (2, 0, 0)


def test_neither_has_a_test_first_form(ctx):
    for call in ("?atomic_sub(ref,1)", "?atomic_dec_and_test(ref)"):
        r = ctx.fio_run(ctx.base_args(
            model="pattern", pattern_words="ref@0", pattern=call,
            time_based=0, number_ios=4), stats=False)
        assert r.rc != 0 and "has no test-first form" in r.err, r.err


# ----- spin_lock(), spin_unlock(): a lock word -----

LOCK = "spin_lock(lock),work(10),spin_unlock(lock)"


def lock_counts(ctx, variant, numjobs):
    ios, c, stats = counts(ctx, variant, LOCK, numjobs, words="lock@0")
    retries = sum(s.get("model_stats", {}).get("retries", 0) for s in stats)
    paths = [s["paths"] for s in stats]
    return ios, c, retries, paths


@pytest.mark.parametrize("variant", ["always", "test_first"])
def test_one_job_takes_the_lock_with_one_rmw_and_no_retry(ctx, variant):
    ios, c, retries, _ = lock_counts(ctx, variant, 1)
    assert c == {"rmw": ios, "rmw_skipped": 0, "stores": ios,
                 "stores_skipped": 0}
    assert retries == 0


def test_two_jobs_count_each_failed_cmpxchg_a_retry(ctx):
    ios, c, retries, paths = lock_counts(ctx, "always", 2)
    assert c["rmw"] == ios + retries
    assert (c["rmw_skipped"], c["stores"], c["stores_skipped"]) == \
        (0, ios, 0)
    assert retries == sum(p["1:spin_lock(lock)"]["retries"] for p in paths)
    assert all(p["3:spin_unlock(lock)"]["retries"] == 0 for p in paths)


def test_the_simulator_takes_the_lock_as_the_engine():
    # two CPUs on one lock: each failed cmpxchg is a retry, the unlock a
    # store; on one CPU's own :job lock, one RMW and no retry
    r = sim(LOCK, words="lock@0")
    assert r["rmw_per_io"] == pytest.approx(1 + r["retries_per_io"])
    assert r["stores_per_io"] == 1
    r = sim(LOCK, words="lock@0:job")
    assert (r["rmw_per_io"], r["stores_per_io"],
            r["retries_per_io"]) == (1, 1, 0)


@pytest.mark.parametrize("pattern,words,why", [
    ("spin_lock(lock),work(10)", "lock@0",
     "operation 1 'spin_lock(lock)': takes lock lock and never releases"),
    ("spin_unlock(lock)", "lock@0", "which it does not hold"),
    ("spin_lock(lock),spin_lock(lock),spin_unlock(lock)", "lock@0",
     "operation 2 'spin_lock(lock)': takes lock lock, which it holds"),
    ("spin_lock(lock)*2,spin_unlock(lock)", "lock@0", "a guard or *N"),
    ("spin_lock(lock)/every=2,spin_unlock(lock)", "lock@0", "a guard"),
    ("atomic_inc(lock),spin_lock(lock),spin_unlock(lock)", "lock@0",
     "writes lock lock"),
    ("spin_lock(lock),spin_unlock(lock)|atomic_inc(lock)", "lock@0",
     "operation 3 'atomic_inc(lock)': writes lock lock"),
    # the write in an alternative before the one that locks it
    ("atomic_inc(lock)|spin_lock(lock),spin_unlock(lock)", "lock@0:job",
     "operation 1 'atomic_inc(lock)': writes lock lock"),
    ("spin_lock(lock),spin_unlock(lock)", "lock@0=1", "starts at 1"),
])
def test_a_lock_never_released_is_refused(ctx, pattern, words, why):
    """A job would spin forever on it: refused, in one line."""
    r = ctx.fio_run(ctx.base_args(
        model="pattern", pattern_words=words, pattern=pattern,
        time_based=0, number_ios=4), stats=False)
    assert r.rc != 0 and why in r.err, r.err
    p = subprocess.run([SIM, "--words", words, "--pattern", pattern,
                        "--ios", "10"], input=TWO_CPUS, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode != 0 and why in p.stderr, p.stderr
