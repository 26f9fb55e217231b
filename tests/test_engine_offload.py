"""io_submit_mode=offload: fio's submit workers queue the job's I/Os, each
with a copy of the engine of its own. On the null, psync and libaio
backends it works as with fio's own engines: the workers' I/Os are counted
into their job's one counters record, exactly fio's total_ios, and the
model's state is the job's (shared, or the job's own with mapping=private),
as in the inline mode. io_uring is refused, as fio refuses its own io_uring
engine (FIO_NO_OFFLOAD). Beyond iodepth 1, and with jobs as threads, fio's
workers stall now and then (fio 3.33's own engines too): refused (see also
test_engine_invariants.py)."""
import os
import shutil
import tempfile

import pytest

from fiorun import engine_backends

# Every backend of the engine, and whether fio's offload mode runs on it:
# a new backend says so here, or test_every_backend_is_listed fails.
OFFLOAD = {"null": True, "psync": True, "libaio": True, "io_uring": False}


@pytest.fixture(scope="module")
def datadir(ctx):
    d = tempfile.mkdtemp(prefix="offload-", dir=ctx.tmp)
    yield d
    shutil.rmtree(d)


def run(ctx, datadir, backend, mode, *extra, numjobs=2):
    return ctx.fio_run([
        "--name=t", f"--ioengine=external:{ctx.engine}",
        f"--backend={backend}", f"--directory={datadir}",
        "--filename=offload", "--size=16m", "--rw=randread", "--bs=4k",
        "--iodepth=1", f"--io_submit_mode={mode}", f"--numjobs={numjobs}",
        "--time_based", "--runtime=300ms"] + list(extra), timeout=60)


def test_every_backend_is_listed(ctx):
    assert sorted(engine_backends(ctx.fio, ctx.engine)) == sorted(OFFLOAD)


@pytest.mark.parametrize("backend", [b for b, ok in OFFLOAD.items() if ok])
def test_offload_counts_each_job_once_exactly(ctx, datadir, backend):
    r = run(ctx, datadir, backend, "offload", "--variant=always")
    what = f"backend={backend}"
    assert r.rc == 0, f"{what}: {r.err}"
    jobs = r.json()["jobs"]
    assert len(r.stats) == len(jobs) == 2, f"{what}: {r.stats}"
    fio_ios = [j["read"]["total_ios"] for j in jobs]
    ours = [s["ios"] for s in sorted(r.stats,
                                     key=lambda s: s["thread_number"])]
    assert ours == fio_ios, f"{what}: engine {ours}, fio {fio_ios}"
    assert min(ours) > 0, what
    for s in r.stats:
        assert s["checks"] == s["ios"] and s["rmw"] == 2 * s["ios"], s
        assert s["timed_calls"] > 0, s


@pytest.mark.parametrize("mapping", ("shared", "private"))
def test_offload_shares_the_model_state_as_inline(ctx, datadir, mapping):
    """set_buffer_uptodate test_first runs its RMWs once per state (the
    first transition of each buffer): the same count inline and offloaded,
    so the workers run on their job's state, not on states of their own."""
    rmw = {}
    for mode in ("inline", "offload"):
        r = run(ctx, datadir, "psync", mode, "--model=set_buffer_uptodate",
                "--variant=test_first", f"--mapping={mapping}")
        assert r.rc == 0, r.err
        assert sum(s["ios"] for s in r.stats) == \
            sum(j["read"]["total_ios"] for j in r.json()["jobs"])
        rmw[mode] = sum(s["rmw"] for s in r.stats)
    assert rmw["offload"] == rmw["inline"] > 0, rmw


def test_offload_on_io_uring_is_refused_as_fio_refuses(ctx, datadir):
    r = run(ctx, datadir, "io_uring", "offload")
    assert r.rc != 0
    assert ("backend=io_uring: can't be used with offloaded submit "
            "(io_submit_mode=offload)") in r.err, r.err
    assert r.stats == []
    assert sum(j["read"]["total_ios"] for j in r.json()["jobs"]) == 0


def test_offload_with_jobs_as_threads_is_refused(ctx, datadir):
    """fio's offload workers of jobs run as threads stall now and then,
    with fio's own null engine too: refused, never a hang."""
    r = run(ctx, datadir, "null", "offload", "--thread")
    assert r.rc != 0
    assert "io_submit_mode=offload with thread" in r.err, r.err
    assert r.stats == []


def test_offload_with_a_models_job_memory_is_refused(ctx, datadir):
    r = run(ctx, datadir, "null", "offload", "--model=bh_lru")
    assert r.rc != 0
    assert "model=bh_lru keeps memory of each job" in r.err, r.err
    assert r.stats == []
