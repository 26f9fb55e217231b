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
"""
import pytest

import fiorun
from test_engine_invariants import datadir, jobfile  # noqa: F401
from test_pattern import BACKENDS, DEPTHS, by_job, fio_ios

# name: (pattern_words, pattern, {variant: RMWs per path of a job's ios})
FORMS = {
    "obj-turn": ("m@0:obj(8,turn),n@1+8:obj(8,turn)",
                 "set_bit(m,1),set_bit(n,2)",
                 {"always": lambda ios: ios,
                  "test_first": lambda ios: min(8, ios)}),
    "obj-job": ("m@0:obj(8,job),n@1+8:obj(8,job)",
                "set_bit(m,1),set_bit(n,2)",
                {"always": lambda ios: ios,
                 "test_first": lambda ios: min(1, ios)}),
    "slot": ("c@1+8:slot", "set_bit(c,1),set_bit(c,2)",
             {"always": lambda ios: ios,
              "test_first": lambda ios: min(1, ios)}),
}


@pytest.mark.parametrize("variant", ["always", "test_first"])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("form", sorted(FORMS))
def test_form_counts_equal_fios(ctx, datadir, form, backend, variant):
    words, pattern, want = FORMS[form]
    opts = [("model", "pattern"), ("backend", backend), ("variant", variant),
            ("pattern_words", words), ("pattern", pattern),
            ("directory", datadir), ("size", "4m"), ("bs", "4k"),
            ("number_ios", 3000), ("rw", "randrw"), ("randrepeat", 0)]
    jobs = [(f"d{d}", [("iodepth", d), ("filename", f"{form}-{d}")])
            for d in DEPTHS]
    r = ctx.fio_run([jobfile(ctx, opts, jobs)], timeout=300)
    fiorun.ok(r)
    jobs, stats = by_job(r)
    for name, job in jobs.items():
        s, ios = stats[name], fio_ios(job)
        assert ios > 0 and s["ios"] == ios, f"{name}: engine vs fio total_ios"
        assert s["checks"] == ios and s["stores"] == 0, name
        for path, c in s["paths"].items():
            assert c["rmw"] == want[variant](ios), (name, path, c, ios)
            assert c["rmw"] + c["skipped"] == ios, (name, path, c, ios)
        assert s["rmw"] == sum(c["rmw"] for c in s["paths"].values())


@pytest.mark.parametrize("variant", ["always", "test_first"])
def test_slots_are_each_jobs_own(ctx, variant):
    """4 jobs on one file, each on its own slot of one packed line."""
    r = ctx.fio_run(ctx.base_args(
        model="pattern", variant=variant, numjobs=4,
        pattern_words="c@1:slot", pattern="set_bit(c,5)", runtime="300ms"))
    fiorun.ok(r)
    jobs = r.json()["jobs"]
    assert len(r.stats) == len(jobs) == 4
    ios = sum(fio_ios(j) for j in jobs)
    assert sum(s["ios"] for s in r.stats) == ios > 0
    rmw = sum(s["rmw"] for s in r.stats)
    assert rmw == (ios if variant == "always" else 4), (rmw, ios)
    assert rmw + sum(s["rmw_skipped"] for s in r.stats) == ios
