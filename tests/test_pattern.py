"""model=pattern under the real fio: its counts against fio's own.

S1 written as a pattern (two test_and_clear_bit() on one word) runs
exactly 2 RMWs per fio I/O in always and none, 2 skipped, in test_first,
on every backend at iodepth 1 and 32; WRITE_ONCE counts plain stores
exactly; jobs past pattern_writers only read, counted apart; a bad pattern
makes fio exit non-zero before any I/O with one line naming the option,
the item and what is allowed.
"""
import os
import subprocess

import pytest

import fiorun
# the invariants' files for the real backends and their job-file writer
from test_engine_invariants import datadir, jobfile  # noqa: F401

BACKENDS = ["null", "psync", "libaio", "io_uring"]
DEPTHS = [1, 32]
S1_WORDS = "flags@0"
S1 = "test_and_clear_bit(flags,0),test_and_clear_bit(flags,1)"


def fio_ios(job):
    return sum(job[d]["total_ios"] for d in ("read", "write", "trim")) + \
        job.get("sync", {}).get("total_ios", 0)


def by_job(r):
    jobs = {j["jobname"]: j for j in r.json()["jobs"]}
    stats = {s["job"]: s for s in r.stats}
    assert sorted(stats) == sorted(jobs), "one counters line per fio job"
    return jobs, stats


@pytest.mark.parametrize("variant", ["always", "test_first"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_s1_pattern_counts_equal_fios(ctx, datadir, backend, variant):
    opts = [("model", "pattern"), ("backend", backend), ("variant", variant),
            ("pattern_words", S1_WORDS), ("pattern", S1),
            ("directory", datadir), ("size", "4m"), ("bs", "4k"),
            ("number_ios", 3000), ("rw", "randrw"), ("randrepeat", 0)]
    jobs = [(f"d{d}", [("iodepth", d), ("filename", f"s1-{d}")])
            for d in DEPTHS]
    r = ctx.fio_run([jobfile(ctx, opts, jobs)], timeout=300)
    fiorun.ok(r)
    jobs, stats = by_job(r)
    for name, job in jobs.items():
        s, ios = stats[name], fio_ios(job)
        assert ios > 0 and s["ios"] == ios, f"{name}: engine vs fio total_ios"
        assert s["checks"] == ios and s["stores"] == 0, name
        paths = s["paths"]
        assert list(paths) == ["1:test_and_clear_bit(flags,0)",
                               "2:test_and_clear_bit(flags,1)"], paths
        if variant == "always":
            assert s["rmw"] == 2 * ios and s["rmw_skipped"] == 0, name
            assert all(p["rmw"] == ios for p in paths.values()), paths
        else:
            assert s["rmw"] == 0 and s["rmw_skipped"] == 2 * ios, name
            assert all(p["skipped"] == ios for p in paths.values()), paths


@pytest.mark.parametrize("thread", [1, 0], ids=["thread", "process"])
def test_write_once_counts_stores(ctx, thread):
    """WRITE_ONCE of the value the word holds: always stores every time
    (3 per I/O), test_first never, skipping each: no RMW either way."""
    for variant, stores in (("always", 3), ("test_first", 0)):
        r = ctx.fio_run(ctx.count_args(
            model="pattern", variant=variant, numjobs=2, thread=thread,
            pattern_words="napi_id@3=7", pattern="WRITE_ONCE(napi_id,7)*3"))
        fiorun.ok(r)
        jobs = r.json()["jobs"]
        assert len(r.stats) == len(jobs) == 2
        assert all(s["rmw"] == 0 for s in r.stats), r.stats
        ios = sum(fio_ios(j) for j in jobs)
        assert sum(s["ios"] for s in r.stats) == ios > 0
        assert sum(s["stores"] for s in r.stats) == stores * ios
        # a skipped store is no skipped RMW: counted apart
        assert sum(s["stores_skipped"] for s in r.stats) == \
            (3 - stores) * ios
        assert all(s["rmw_skipped"] == 0 for s in r.stats), r.stats
        path = "1:WRITE_ONCE(napi_id,7)*3"
        assert all(s["paths"][path]["stores"] == s["stores"] and
                   s["paths"][path]["stores_skipped"] == s["stores_skipped"]
                   and s["paths"][path]["skipped"] == 0 for s in r.stats)


def test_readers_are_counted_apart(ctx):
    """pattern_writers=1 of 3 jobs: job 1 runs S1 (2 RMWs per I/O), jobs 2
    and 3 only READ_ONCE the one word, once per I/O, and say so."""
    r = ctx.fio_run(ctx.count_args(
        model="pattern", variant="always", numjobs=3, pattern_writers=1,
        pattern_words=S1_WORDS, pattern=S1))
    fiorun.ok(r)
    jobs = r.json()["jobs"]
    assert len(r.stats) == len(jobs) == 3
    assert sum(s["ios"] for s in r.stats) == sum(fio_ios(j) for j in jobs)
    for s in r.stats:
        st = s["model_stats"]
        if s["thread_number"] == 1:
            assert s["rmw"] == 2 * s["ios"] > 0 and st["reader_calls"] == 0
        else:
            assert s["rmw"] == s["stores"] == s["rmw_skipped"] == 0, s
            assert st["reader_calls"] == st["reader_loads"] == s["ios"] > 0


@pytest.mark.parametrize("variant", ["always", "test_first"])
def test_flip_every_makes_test_first_do_the_rmw(ctx, variant):
    """One job, the bit set again every 8th of its I/Os (counted in flips):
    test_first clears it once per flip, always on every I/O."""
    r = ctx.fio_run(ctx.base_args(
        model="pattern", variant=variant, pattern_words="mask@5+16",
        pattern="clear_bit(mask,9)/flip_every=8", time_based=0,
        size="4m", runtime=60))
    fiorun.ok(r)
    (job,), (s,) = r.json()["jobs"], r.stats
    ios = fio_ios(job)
    assert s["ios"] == ios == 1024, (s["ios"], ios)
    assert s["model_stats"]["flips"] == ios // 8
    want = ios if variant == "always" else ios // 8
    assert s["rmw"] == want and s["rmw_skipped"] == ios - want, s


def test_words_after_the_pattern_in_a_job_file(ctx):
    """fio parses options in an order of its own: pattern may come first."""
    job = jobfile(ctx, [("model", "pattern"), ("variant", "always"),
                        ("pattern", S1),
                        ("pattern_words", S1_WORDS), ("filename", "x"),
                        ("size", "1m"), ("bs", "4k")], [("a", [])])
    r = ctx.fio_run([job])
    fiorun.ok(r)
    (job,), (s,) = r.json()["jobs"], r.stats
    assert s["rmw"] == 2 * fio_ios(job) > 0


TOO_LONG = ",".join(["set_bit(flags,1)"] * 65)
# (options, the item named, what is allowed)
BAD_PATTERNS = [
    ({"pattern": "set_bitx(flags,1)"}, "operation 1 'set_bitx(flags,1)'",
     "unknown operation 'set_bitx': allowed are READ_ONCE"),
    ({"pattern": "set_bit(flags,1),set_bit(flagz,2)"},
     "operation 2 'set_bit(flagz,2)'", "unknown word 'flagz'"),
    ({"pattern": "set_bit(flags,64)"}, "operation 1 'set_bit(flags,64)'",
     "allowed are bits 0 to 63"),
    ({"pattern": "set_bit(flags,1)/every=0"}, "/every=0",
     "a rate of 1 or more"),
    ({"pattern_fixed": "atomic_add(flags,1)/every_ns=0"}, "pattern_fixed",
     "a rate of 1 or more"),
    ({"pattern": TOO_LONG}, "operation 65",
     "the sequence is longer than the engine holds: at most 64 operations"),
    ({"pattern": "work(1)," * 600}, "pattern is longer than 4095 bytes", ""),
    ({"pattern": "set_bit(flags,1);set_bit(flags,2)"}, "';' at character 17",
     "separate items with ','"),
    ({"pattern": "?change_bit(flags,1)"}, "'?' is not allowed on change_bit",
     "allowed on WRITE_ONCE, atomic_set, __set_bit"),
    ({"pattern_words": "flags@0,other@0"}, "word 2 'other@0'",
     "two words may not overlap"),
    ({"pattern_words": "flags@64"}, "word 1 'flags@64'",
     "allowed are lines 0 to 63"),
    ({"pattern": "set_bit(flags,18446744073709551616)"},
     "argument 2, 18446744073709551616, is out of range",
     "allowed are bits 0 to 63"),
    ({"pattern_words": "flags@18446744073709551616"},
     "line 18446744073709551616 is out of range", "lines 0 to 63"),
    ({"pattern": "atomic_inc(flags)/every_ns=18446744073709551616"},
     "/every_ns=18446744073709551616 is out of range", "1 to "),
    ({"pattern": "work(1000000000000)"}, "work(1000000000000) is too long",
     "0 to 1000000 ns"),
    ({"pattern": "work(1000000)*65536"}, "65536000000 ns of work() in one "
     "I/O", "0 to 1000000 ns (1 ms) of work per I/O, *N and every work() of "
     "the alternative included"),
    ({"pattern": "work(600000),set_bit(flags,1),work(400001)"},
     "operation 3 'work(400001)': 1000001 ns", "per I/O"),
    ({"pattern": "set_bit(flags,\t1)"}, "control character 0x09",
     "only printable characters and spaces"),
    ({"pattern_words": "flags@0\v"}, "pattern_words: control character 0x0b",
     "only printable characters and spaces"),
    ({"pattern_words": "flags@0:obj(0,turn)"}, "word 1 'flags@0:obj(0,turn)'",
     "N objects from 1 to 65536, RULE turn"),
    ({"pattern_words": "flags@0:obj(4,sideways)"}, "obj needs (N,RULE)",
     "random, cpu (the job's CPU), job (the job's number) or offset(BYTES)"),
    ({"pattern_words": "flags@0:obj(4,offset(1000))"}, "obj needs (N,RULE)",
     "BYTES a power of two from 512 to 1099511627776"),
    ({"pattern_words": "flags@0:obj(4,offset(256))"}, "obj needs (N,RULE)",
     "BYTES a power of two from 512 to 1099511627776"),
    ({"pattern_words": "a@0:obj(4,offset(4096)),b@1:obj(4,offset(8192))"},
     "obj(4,offset(8192)) differs from the first obj word's "
     "obj(4,offset(4096))", "every obj word is a field of the same objects"),
    ({"pattern_words": "flags@0:obj(4,turn),b@1:obj(5,turn)"},
     "obj(5,turn) differs from the first obj word's obj(4,turn)",
     "every obj word is a field of the same objects"),
]


@pytest.mark.parametrize("opts,item,allowed", BAD_PATTERNS,
                         ids=[str(i) for i in range(len(BAD_PATTERNS))])
def test_bad_patterns_fail_before_io(ctx, opts, item, allowed):
    o = {"model": "pattern", "pattern_words": S1_WORDS,
         "pattern": "set_bit(flags,1)"}
    o.update(opts)
    r = ctx.fio_run(ctx.base_args(**o), stats=False)
    assert r.rc != 0, f"{opts}: fio exited 0"
    ours = [line for line in r.err.splitlines()
            if line.startswith("flagcheck:")]
    assert len(ours) == 1, f"one line, not {len(ours)}:\n{r.err}"
    assert item in ours[0] and allowed in ours[0], ours[0]
    assert '"jobs"' not in r.out, f"{opts}: fio ran jobs"


def test_undeclared_words_fail_at_job_start(ctx):
    """Never given pattern_words: refused at job start, before any I/O."""
    r = ctx.fio_run(ctx.base_args(model="pattern", pattern=S1), stats=False)
    assert r.rc != 0
    assert "operation 1 'test_and_clear_bit(flags,0)': unknown word " \
        "'flags': declare it in pattern_words first" in r.err, r.err
    for job in (r.json()["jobs"] if '"jobs"' in r.out else []):
        assert fio_ios(job) == 0, "the job did I/O"


def test_the_engine_line_says_stores_skipped(ctx):
    """fio's text output: the skipped stores apart from the skipped RMWs."""
    argv = [ctx.fio] + ctx.base_args(
        model="pattern", variant="test_first", pattern_words="w@3=7",
        pattern="WRITE_ONCE(w,7)*3", time_based=0, size="4m", runtime=60)
    cwd = ctx.scratch()
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                       timeout=60)
    os.rmdir(cwd)
    assert p.returncode == 0, p.stderr
    # 4m of 4k blocks: 1024 I/Os, 3 stores each, all skipped
    assert (" ios=1024 checks=1024 rmw=0 (0.00/io) rmw_skipped=0 "
            "errors_set=0 errors_reported=0 stores=0 stores_skipped=3072;"
            ) in p.stdout, p.stdout


def test_blank_pattern_fixed_is_named_at_job_start(ctx):
    """test_first runs pattern_fixed: a blank one is refused by its name."""
    r = ctx.fio_run(ctx.base_args(model="pattern", variant="test_first",
                                  pattern_words=S1_WORDS, pattern=S1,
                                  pattern_fixed=" "), stats=False)
    assert r.rc != 0
    assert "flagcheck: pattern_fixed is empty: model=pattern needs a " \
        "sequence of operations (docs/pattern.md); leave it out to run " \
        "pattern in its test-first form" in r.err, r.err
    for job in (r.json()["jobs"] if '"jobs"' in r.out else []):
        assert fio_ios(job) == 0, "the job did I/O"


def test_work_lasts_its_ns_on_the_engines_clock(ctx):
    """work(2048) spins 2048 ns on CLOCK_MONOTONIC, the clock the engine
    times its calls on. A timed call spans the spin and the clock reads on
    either side of it, less the least cost of one pair of reads, so every
    timed call is at least 2048 ns: the bucket [2048, 4096) of the
    counters' timed_log2 or above, none below. A loop that ran 3% short of
    its ns put calls below."""
    r = ctx.fio_run(ctx.base_args(model="pattern", variant="always",
                                  numjobs=1, pattern="work(2048)",
                                  time_based=0, number_ios=20000))
    fiorun.ok(r)
    (s,) = r.stats
    assert s["ios"] == fio_ios(r.json()["jobs"][0]) == 20000
    first = (2048).bit_length()
    assert s["timed_calls"] == sum(s["timed_log2"]) > 0, s
    assert sum(s["timed_log2"][:first]) == 0, s["timed_log2"]
