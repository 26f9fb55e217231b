"""model=pattern's forms beyond one word shared by all, under the real fio.

Each form runs on every backend at iodepth 1 and 32 (one job each, on a
file of its own: the job is alone with its state) in both variants, and
its counters must be exactly what the form says of fio's total_ios:

  obj(8,turn)   two set_bit() on two fields of 8 objects taken in turn:
                always 2 RMWs per I/O; test_first sets each object's bits
                once, 2 x min(8, ios) RMWs, the rest skipped
  obj(8,job)    the same on the one object of the job's number: test_first
                2 x min(1, ios) RMWs
  slot          two set_bit() on the job's own slot of a packed array: as
                obj(8,job); and 4 jobs on one file: test_first sets each
                job's slot once, exactly 4 RMWs (one word shared by all
                would take 1)
  if-test       test_bit() of one word guarding the RMWs on it and on
                another (/if_test=0): each runs once, the rest skipped
  cas           atomic_inc_not_zero(), atomic_add_unless(): one RMW per
                call alone on a word, no retries; 4 jobs on one word:
                every attempt an RMW, per path rmw - retries == the
                calls exactly
  value-job     WRITE_ONCE(last,job): test_first stores once per job
  64-ops        64 operations a call, each its own path
  alternatives  A|A|B: the I/Os take the sequences in turn (weight 2:1),
                each operation exactly on its alternative's I/Os
"""
import pytest

import fiorun
from test_engine_invariants import datadir, jobfile  # noqa: F401
from test_pattern import BACKENDS, DEPTHS, by_job, fio_ios

def every(ios):
    return ios


def once(ios):
    return min(1, ios)


def turn(k, n):
    """The I/Os of a job that take alternative k of n: i % n == k."""
    return lambda ios: (ios - k + n - 1) // n


# name: (pattern_words, pattern, pattern_fixed,
#        {variant: per path, the RMWs or stores a job's ios run; None: a load})
FORMS = {
    "obj-turn": ("m@0:obj(8,turn),n@1+8:obj(8,turn)",
                 "set_bit(m,1),set_bit(n,2)", "",
                 {"always": [every, every],
                  "test_first": [lambda ios: min(8, ios)] * 2}),
    "obj-job": ("m@0:obj(8,job),n@1+8:obj(8,job)",
                "set_bit(m,1),set_bit(n,2)", "",
                {"always": [every, every], "test_first": [once, once]}),
    "slot": ("c@1+8:slot", "set_bit(c,1),set_bit(c,2)", "",
             {"always": [every, every], "test_first": [once, once]}),
    # if (!test_bit(3, &state)) { set_bit(3, &state); atomic_inc(&count); }
    "if-test": ("state@0,count@2", "set_bit(state,3),atomic_inc(count)",
                "test_bit(state,3),set_bit(state,3)/if_test=0,"
                "atomic_inc(count)/if_test=0",
                {"always": [every, every], "test_first": [None, once, once]}),
    # a CAS loop alone on its word: one attempt per call, no retry
    "cas": ("ref@0=1", "atomic_inc_not_zero(ref),atomic_add_unless(ref,1,0)",
            "", {"always": [every, every], "test_first": [every, every]}),
    # the job's own number as the value: test_first stores it once
    "value-job": ("last@0", "WRITE_ONCE(last,job)", "",
                  {"always": [every], "test_first": [once]}),
    "64-ops": ("c@0", ",".join(["atomic_inc(c)"] * 64), "",
               {"always": [every] * 64, "test_first": [every] * 64}),
    # a charge and its uncharge in turn, the charge weighted 2:1; each
    # operation runs on its own alternative's I/Os: (ran, calls)
    "alternatives": ("cnt@0", "atomic_inc(cnt)|atomic_inc(cnt)|"
                     "atomic_dec(cnt),atomic_dec(cnt)", "",
                     {v: [(turn(0, 3), turn(0, 3)), (turn(1, 3), turn(1, 3)),
                          (turn(2, 3), turn(2, 3)), (turn(2, 3), turn(2, 3))]
                      for v in ("always", "test_first")}),
}


@pytest.mark.parametrize("variant", ["always", "test_first"])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("form", sorted(FORMS))
def test_form_counts_equal_fios(ctx, datadir, form, backend, variant):
    words, pattern, fixed, want = FORMS[form]
    opts = [("model", "pattern"), ("backend", backend), ("variant", variant),
            ("pattern_words", words), ("pattern", pattern),
            ("directory", datadir), ("size", "4m"), ("bs", "4k"),
            ("number_ios", 3000), ("rw", "randrw"), ("randrepeat", 0)]
    if fixed:
        opts.append(("pattern_fixed", fixed))
    jobs = [(f"d{d}", [("iodepth", d), ("filename", f"{form}-{d}")])
            for d in DEPTHS]
    r = ctx.fio_run([jobfile(ctx, opts, jobs)], timeout=300)
    fiorun.ok(r)
    jobs, stats = by_job(r)
    for name, job in jobs.items():
        s, ios = stats[name], fio_ios(job)
        assert ios > 0 and s["ios"] == ios, f"{name}: engine vs fio total_ios"
        assert s["checks"] == ios, name
        paths = sorted(s["paths"].items(),
                       key=lambda kv: int(kv[0].split(":", 1)[0]))
        assert len(paths) == len(want[variant]), paths
        for (path, c), ran in zip(paths, want[variant]):
            got = c["rmw"] + c["stores"]
            # a skipped store is counted apart from a skipped RMW
            skipped = c["skipped"] + c["stores_skipped"]
            assert not (c["skipped"] and c["stores_skipped"]) and \
                not (c["rmw"] and c["stores_skipped"]) and \
                not (c["stores"] and c["skipped"]), (name, path, c)
            if ran is None:
                assert got == skipped == 0, (name, path, c)
                continue
            ran, calls = ran if isinstance(ran, tuple) else (ran, every)
            assert got == ran(ios), (name, path, c, ios)
            assert got + skipped == calls(ios), (name, path, c, ios)
        # one job alone on its words: no CAS attempt fails, on any path
        assert all(c["retries"] == 0 for _, c in paths), paths
        assert s["rmw"] == sum(c["rmw"] for _, c in paths)
        assert s["model_stats"]["retries"] == 0, s["model_stats"]


@pytest.mark.parametrize("variant", ["always", "test_first"])
def test_slots_are_each_jobs_own(ctx, variant):
    """4 jobs on one file, each on its own slot of one packed line."""
    r = ctx.fio_run(ctx.count_args(
        model="pattern", variant=variant, numjobs=4,
        pattern_words="c@1:slot", pattern="set_bit(c,5)"))
    fiorun.ok(r)
    jobs = r.json()["jobs"]
    assert len(r.stats) == len(jobs) == 4
    ios = sum(fio_ios(j) for j in jobs)
    assert sum(s["ios"] for s in r.stats) == ios > 0
    rmw = sum(s["rmw"] for s in r.stats)
    assert rmw == (ios if variant == "always" else 4), (rmw, ios)
    assert rmw + sum(s["rmw_skipped"] for s in r.stats) == ios


def test_cas_retries_are_exact_under_contention(ctx):
    """4 jobs on one word, two CAS loops a call: for each job and each
    path, rmw - retries == ios, however many attempts failed; the
    record's retries are the sum of its paths'."""
    r = ctx.fio_run(ctx.base_args(
        model="pattern", variant="always", numjobs=4, thread=1,
        pattern_words="ref@0=1",
        pattern="atomic_inc_not_zero(ref),atomic_add_unless(ref,1,0)",
        runtime="500ms"))
    fiorun.ok(r)
    assert len(r.stats) == 4
    for s in r.stats:
        assert s["ios"] > 0 and s["rmw_skipped"] == 0, s
        assert len(s["paths"]) == 2, s["paths"]
        for path, c in s["paths"].items():
            assert c["skipped"] == 0, (path, c)
            assert c["rmw"] - c["retries"] == s["ios"], (path, c, s["ios"])
        assert s["model_stats"]["retries"] == \
            sum(c["retries"] for c in s["paths"].values()), s
        assert s["rmw"] - s["model_stats"]["retries"] == 2 * s["ios"], s
    assert sum(fio_ios(j) for j in r.json()["jobs"]) == \
        sum(s["ios"] for s in r.stats)
