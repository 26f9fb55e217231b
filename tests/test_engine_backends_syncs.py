"""fsync, end_fsync and fsync_on_close are counted as fio counts them, in
jobs and in offload workers, on every backend; the syncs fio does not
count (fdatasync, sync_file_range) are refused before any I/O.
"""
import os

import pytest

from fiorun import ok

from test_engine_backends import data_file, file_args, need
# the backends to run on (as in test_engine_backends.py)
from test_engine_backends import backend, pytest_generate_tests  # noqa: F401


COUNTED_SYNCS = [{"fsync": 3}, {"end_fsync": 1}, {"fsync_on_close": 1},
                 {"fsync": 5, "end_fsync": 1, "fsync_on_close": 1}]


def sync_id(opts):
    return ",".join(f"{k}={v}" for k, v in opts.items())


def check_counts_as_fio(r, what, jobs=1):
    """The engine's ios per direction == fio's total_ios, exactly, and
    issued + errors_reported == ios."""
    ok(r)
    fio = {d: sum(j[d]["total_ios"] for j in r.json()["jobs"])
           for d in ("read", "write", "trim", "sync")}
    assert len(r.stats) == jobs, r.stats

    def total(key):
        return sum(s[key] for s in r.stats)
    assert (total("ios"), total("ios_read"), total("ios_write"),
            total("ios_other")) == \
        (sum(fio.values()), fio["read"], fio["write"],
         fio["trim"] + fio["sync"]), f"{what}: engine {r.stats}, fio {fio}"
    assert total("issued") + total("errors_reported") == total("ios"), \
        f"{what}: {r.stats}"


@pytest.mark.parametrize("depth", (1, 8))
@pytest.mark.parametrize("opts", COUNTED_SYNCS,
                         ids=[sync_id(o) for o in COUNTED_SYNCS])
def test_syncs_counted_as_fio_counts(ctx, backend, opts, depth):
    with data_file(ctx, "sync") as path:
        r = ctx.fio_run(file_args(ctx, backend, path, rw="write", size="1m",
                                  iodepth=depth, **opts))
    check_counts_as_fio(r, f"{backend} iodepth={depth} {opts}")
    if "fsync" in opts:
        assert r.json()["jobs"][0]["sync"]["total_ios"] > 0, r.out[:2000]


# the end syncs come from the job's own thread, the other I/Os from its
# submit workers (offload) or from other jobs; fsync=N with offload hangs
# fio 3.33 itself (its null engine too), so not here
SYNC_SETUPS = [{"io_submit_mode": "offload", "iodepth": 4},
               {"thread": 1, "numjobs": 2, "fsync": 7},
               {"numjobs": 2, "iodepth": 8, "fsync": 5}]


@pytest.mark.parametrize("setup", SYNC_SETUPS,
                         ids=[sync_id(o) for o in SYNC_SETUPS])
def test_end_syncs_counted_as_fio_counts_in_jobs_and_workers(ctx, backend,
                                                            setup):
    if backend == "io_uring" and "io_submit_mode" in setup:
        pytest.skip("backend=io_uring refuses offload (as fio's io_uring)")
    with data_file(ctx, "endsync") as path:
        r = ctx.fio_run(file_args(ctx, backend, path, rw="write", size="1m",
                                  end_fsync=1, fsync_on_close=1, **setup))
    check_counts_as_fio(r, f"{backend} {setup}", setup.get("numjobs", 1))


@pytest.mark.parametrize("opts", COUNTED_SYNCS,
                         ids=[sync_id(o) for o in COUNTED_SYNCS])
def test_syncs_counted_as_fio_counts_null(ctx, opts):
    r = ctx.fio_run(ctx.base_args(rw="write", time_based=0, runtime=0,
                                  size="1m", iodepth=4, **opts))
    check_counts_as_fio(r, f"null {opts}")


# fio 3.33 counts these in none of the total_ios it prints
REFUSED_SYNCS = [({"fdatasync": 1}, "fdatasync", 1),
                 ({"fdatasync": 4}, "fdatasync", 4),
                 ({"sync_file_range": "write:8"}, "sync_file_range", 8)]


@pytest.mark.parametrize("opts,name,every", REFUSED_SYNCS,
                         ids=[sync_id(o) for o, _, _ in REFUSED_SYNCS])
@pytest.mark.parametrize("backend", ["null", "psync", "libaio", "io_uring"])
def test_syncs_fio_does_not_count_are_refused(ctx, backend, opts, name,
                                               every):
    if backend != "null":
        need(ctx, backend)
    with data_file(ctx, "nosync") as path:
        r = ctx.fio_run(file_args(ctx, backend, path, rw="write", size="1m",
                                  **opts))
        assert not os.path.exists(path), f"{path}: laid out before refusal"
    assert r.rc != 0, r.out[:2000]
    lines = [ln for ln in r.err.splitlines() if ln.startswith("flagcheck:")]
    assert lines == [
        f"flagcheck: {name} (every {every} writes) is not supported: fio "
        "counts it in none of its total_ios, so the engine's I/O count could "
        f"not be checked against fio's; fsync={every} is counted"], r.err


@pytest.mark.parametrize("setup", SYNC_SETUPS,
                         ids=[sync_id(o) for o in SYNC_SETUPS])
def test_end_syncs_counted_as_fio_counts_null(ctx, setup):
    r = ctx.fio_run(ctx.base_args(rw="write", time_based=0, runtime=0,
                                  size="1m", end_fsync=1, fsync_on_close=1,
                                  **setup))
    check_counts_as_fio(r, f"null {setup}", setup.get("numjobs", 1))
