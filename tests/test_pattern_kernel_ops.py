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
