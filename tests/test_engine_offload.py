"""io_submit_mode=offload: fio's submit workers queue the job's I/Os, each
with a copy of the engine of its own. On the null, psync and libaio
backends it works as with fio's own engines, at any iodepth and with jobs
as processes or threads: the workers' I/Os are counted into their job's
one counters record, exactly fio's total_ios, and the model's state is the
job's (shared, or the job's own with mapping=private), as in the inline
mode. io_uring is refused, as fio refuses its own io_uring engine
(FIO_NO_OFFLOAD).

fio before 3.42 hangs now and then as an offloaded job starts (a worker's
SW_F_RUNNING clobbered by its starter: fio's commit 736c2015); the engine's
workers wait for their starter (fc_offload_worker_wait_started), and a
pthread_create() that returns late, which makes that race certain, shows
it."""
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from fiorun import engine_backends, fio_version, stop_hung

# Every backend of the engine, and whether fio's offload mode runs on it:
# a new backend says so here, or test_every_backend_is_listed fails.
OFFLOAD = {"null": True, "psync": True, "libaio": True, "io_uring": False}
ON = [b for b, ok in OFFLOAD.items() if ok]

# pthread_create() that returns 20 ms after the thread started: fio's
# start_worker() then sets the worker's flags after the worker has run
LATE_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

int pthread_create(pthread_t *t, const pthread_attr_t *a,
		   void *(*fn)(void *), void *arg)
{
	int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
		    void *) = dlsym(RTLD_NEXT, "pthread_create");
	struct timespec late = { 0, 20 * 1000 * 1000 };
	int ret = real(t, a, fn, arg);

	nanosleep(&late, NULL);
	return ret;
}
"""


@pytest.fixture(scope="module")
def datadir(ctx):
    d = tempfile.mkdtemp(prefix="offload-", dir=ctx.tmp)
    yield d
    shutil.rmtree(d)


def run(ctx, datadir, backend, mode, *extra, numjobs=2, iodepth=1,
        env=None):
    return ctx.fio_run([
        "--name=t", f"--ioengine=external:{ctx.engine}",
        f"--backend={backend}", f"--directory={datadir}",
        "--filename=offload", "--size=16m", "--rw=randread", "--bs=4k",
        f"--iodepth={iodepth}", f"--io_submit_mode={mode}",
        f"--numjobs={numjobs}", "--time_based", "--runtime=300ms"]
        + list(extra), timeout=60, env=env)


@pytest.fixture(scope="module")
def late_create(ctx):
    """LD_PRELOAD: a pthread_create() that returns late."""
    so = ctx.build_c("late-pthread-create.so", LATE_C, "-shared", "-fPIC",
                     "-ldl")
    if not so:
        pytest.skip("no C compiler to build the late pthread_create")
    return dict(os.environ, LD_PRELOAD=so)


def assert_counts_exact(r, what):
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


def test_every_backend_is_listed(ctx):
    assert sorted(engine_backends(ctx.fio, ctx.engine)) == sorted(OFFLOAD)


@pytest.mark.parametrize("thread", (0, 1), ids=("processes", "threads"))
@pytest.mark.parametrize("iodepth", (1, 16))
@pytest.mark.parametrize("backend", ON)
def test_offload_counts_each_job_once_exactly(ctx, datadir, backend,
                                              iodepth, thread):
    r = run(ctx, datadir, backend, "offload", "--variant=always",
            f"--thread={thread}", iodepth=iodepth)
    assert_counts_exact(r, f"backend={backend} iodepth={iodepth} "
                        f"thread={thread}")


@pytest.mark.parametrize("backend", ON)
def test_offload_starts_when_fios_worker_race_is_certain(ctx, datadir,
                                                         late_create,
                                                         backend):
    r = run(ctx, datadir, backend, "offload", "--variant=always",
            iodepth=4, env=late_create)
    assert_counts_exact(r, f"backend={backend}, pthread_create late")


# slow: waits out a hang of fio's own engine
@pytest.mark.slow
def test_fios_own_engine_hangs_there_before_3_42(ctx, late_create):
    """What the test above guards against: fio's own null engine, offloaded
    with the same late pthread_create(), never starts before fio 3.42 and
    runs from 3.42 on (fio's commit 736c2015)."""
    v = fio_version(ctx.fio)
    m = re.match(r"fio-(\d+)\.(\d+)", v)
    assert m, f"fio --version: {v!r}"
    fixed = (int(m[1]), int(m[2])) >= (3, 42)
    p = subprocess.Popen([ctx.fio, "--name=t", "--ioengine=null",
                          "--size=16m", "--rw=randread", "--bs=4k",
                          "--iodepth=4", "--io_submit_mode=offload",
                          "--time_based", "--runtime=300ms"],
                         env=late_create, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        rc = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        stop_hung(p.pid)
        p.wait(timeout=60)
        rc = None
    assert (rc == 0) if fixed else (rc is None), \
        f"{v}: exit {rc} (None: still running after 10 s)"


@pytest.mark.parametrize("mapping", ("shared", "private"))
def test_offload_shares_the_model_state_as_inline(ctx, datadir, mapping):
    """set_buffer_uptodate test_first runs its RMWs once per state (the
    first transition of each buffer): the same count inline and offloaded,
    so the workers run on their job's state, not on states of their own."""
    # both jobs (and the offload workers they start) on one CPU: two jobs
    # that test a shared buffer at once would both set it, as two CPUs do
    # in the kernel, and the count would follow the scheduler
    one_cpu = "--cpus_allowed=%d" % min(os.sched_getaffinity(0))
    rmw = {}
    for mode in ("inline", "offload"):
        r = run(ctx, datadir, "psync", mode, "--model=set_buffer_uptodate",
                "--variant=test_first", f"--mapping={mapping}", one_cpu,
                "--cpus_allowed_policy=shared")
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


def test_offload_with_a_models_job_memory_is_refused(ctx, datadir):
    r = run(ctx, datadir, "null", "offload", "--model=bh_lru")
    assert r.rc != 0
    assert "model=bh_lru keeps memory of each job" in r.err, r.err
    assert r.stats == []
