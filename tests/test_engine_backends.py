"""The real backends (psync, libaio, io_uring) under fio, on real files: every
depth with and without O_DIRECT, a block device, verify, injected and
kernel errors, short reads, each as fio's own engine of the kind does.

Data files live under the build directory (ctx.tmp, a real disk: tmpfs
has had O_DIRECT only since Linux 6.6) and are removed after each test. A
backend the kernel refuses (io_uring disabled, no aio, a seccomp filter)
is skipped with the engine's own reason, never passed; anything else that
stops a run fails the test.
"""
import contextlib
import os
import shutil
import subprocess

import pytest

import fiorun
from fiorun import ok

# the backends with real files: every one the engine lists but null
DISKLESS = ("null",)
VARIANTS = ("always", "test_first")

_refused = {}


@contextlib.contextmanager
def data_file(ctx, name):
    """A path under ctx.tmp for fio to create; removed afterwards."""
    path = os.path.join(ctx.tmp, f"data-{name}-{os.getpid()}")
    try:
        yield path
    finally:
        for p in (path, *(f"{path}.{i}" for i in range(4))):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(p)


def file_args(ctx, backend, path, **opts):
    o = {"name": "t", "ioengine": f"external:{ctx.engine}", "backend": backend,
         "filename": path, "size": "16m", "bs": "4k", "rw": "randread",
         "verify_state_save": "0"}
    o.update({k: str(v) for k, v in opts.items()})
    return [f"--{k}={v}" for k, v in o.items() if v != "None"]


def refusal(ctx, backend):
    """None when the kernel runs this backend, else the engine's reason."""
    if backend not in _refused:
        with data_file(ctx, "probe") as path:
            r = ctx.fio_run(file_args(ctx, backend, path, size="1m",
                                      io_size="64k"), stats=False)
        why = [line for line in r.err.splitlines()
               if f"flagcheck: backend={backend}: the kernel refuses" in line]
        if r.rc and not why:
            raise AssertionError(f"backend={backend} does not run, and not "
                                 f"because the kernel refuses it:\n{r.err}")
        _refused[backend] = why[0] if r.rc else None
    return _refused[backend]


def need(ctx, backend):
    why = refusal(ctx, backend)
    if why:
        pytest.skip(why)


def check(r, what, backend, jobs=1, errors=False):
    """fio ran clean, and the backend issued every I/O the model let by."""
    ok(r)
    for j in r.json()["jobs"]:
        assert errors or j["error"] == 0, f"{what}: job error {j['error']}"
    assert len(r.stats) == jobs, f"{what}: {len(r.stats)} stats lines"
    for s in r.stats:
        assert s["backend"] == backend, (what, s)
        assert s["issued"] == s["ios"] - s["errors_reported"], \
            f"{what}: issued {s['issued']} of {s['ios']} I/Os, " \
            f"{s['errors_reported']} failed by the model"


def pytest_generate_tests(metafunc):
    """Every real backend the engine lists (fc_backends[]): a new one is
    tested by itself."""
    marked = {n for m in metafunc.definition.iter_markers("parametrize")
              for n in m.args[0].split(",")}
    if "backend" in metafunc.fixturenames and "backend" not in marked:
        _, backends = fiorun.listed_for_collection(metafunc.config)
        metafunc.parametrize("backend",
                             [b for b in backends if b not in DISKLESS],
                             indirect=True)


@pytest.fixture
def backend(request, ctx):
    """Each real backend in turn, skipped where the kernel refuses it."""
    need(ctx, request.param)
    return request.param


# --- I/O of every kind --------------------------------------------------

# iodepth 1 and 32, buffered and O_DIRECT, and between them every rw kind,
# every way to give block sizes, and fio's syncs
RUNS = [
    (1, 0, {"rw": "read"}),
    (1, 1, {"rw": "randwrite", "bsrange": "4k-64k", "fsync": 8,
            "end_fsync": 1}),
    (32, 0, {"rw": "randrw", "rwmixread": 70,
             "bssplit": "4k/50:16k/30:64k/20"}),
    (32, 1, {"rw": "write", "bs": "16k", "fsync": 16}),
    (32, 1, {"rw": "randread"}),
    (8, 0, {"rw": "randwrite", "iodepth_batch_submit": 4,
            "iodepth_batch_complete_min": 2}),
]


def run_id(depth, direct, opts):
    return "-".join([f"iodepth{depth}", f"direct{direct}"] +
                    [f"{k}={v}" for k, v in opts.items()])


@pytest.mark.parametrize("depth,direct,opts", RUNS,
                         ids=[run_id(*r) for r in RUNS])
def test_depths_and_direct(ctx, backend, depth, direct, opts):
    with data_file(ctx, "rw") as path:
        what = f"iodepth={depth} direct={direct} {opts}"
        r = ctx.fio_run(file_args(ctx, backend, path, iodepth=depth,
                                  direct=direct, io_size="4m", **opts))
        check(r, what, backend)
        j = r.json()["jobs"][0]
        ios = j["read"]["total_ios"] + j["write"]["total_ios"]
        assert ios > 0, f"{what}: no I/O"
        # fio's JSON counts fsyncs, but not end_fsync's: nor does the engine
        syncs = j["sync"]["total_ios"]
        if "fsync" in opts:
            assert syncs > 0, f"{what}: no fsync"
        assert r.stats[0]["ios"] == ios + syncs, \
            f"{what}: engine saw {r.stats[0]['ios']}, fio {ios}+{syncs}"


def test_block_device(ctx, backend):
    losetup = shutil.which("losetup")
    if not losetup or os.geteuid():
        pytest.skip("no loop device to test a block device on (needs root "
                    "and losetup)")
    with data_file(ctx, "loop") as img:
        with open(img, "wb") as f:
            f.truncate(16 << 20)
        p = subprocess.run([losetup, "-f", "--show", img], text=True,
                           capture_output=True)
        if p.returncode:
            pytest.skip(f"losetup cannot attach a loop device: {p.stderr.strip()}")
        dev = p.stdout.strip()
        try:
            r = ctx.fio_run(file_args(ctx, backend, dev, size=None, rw="randrw",
                                      direct=1, iodepth=8, verify="crc32c"))
            check(r, dev, backend)
            j = r.json()["jobs"][0]
            # the size is the device's, from fio's own get_file_size
            assert j["write"]["io_bytes"] + j["read"]["io_bytes"] >= 16 << 20, j
        finally:
            subprocess.run([losetup, "-d", dev])


# --- data integrity through fio's verify ------------------------------------

VERIFY_RUNS = [
    {"rw": "write", "verify": "crc32c", "iodepth": 1},
    {"rw": "randwrite", "verify": "md5", "iodepth": 32, "direct": 1},
    {"rw": "randrw", "verify": "crc32c", "iodepth": 16,
     "bssplit": "4k/60:16k/40"},
]


@pytest.mark.parametrize("opts", VERIFY_RUNS,
                         ids=["-".join(f"{k}={v}" for k, v in o.items())
                              for o in VERIFY_RUNS])
@pytest.mark.parametrize("variant", VARIANTS)
def test_verify_is_clean(ctx, backend, variant, opts):
    with data_file(ctx, "verify") as path:
        what = f"variant={variant} {opts}"
        r = ctx.fio_run(file_args(ctx, backend, path, size="8m",
                                  variant=variant, do_verify=1,
                                  verify_fatal=1, **opts))
        check(r, what, backend)
        j = r.json()["jobs"][0]
        written = j["write"]["io_bytes"]
        assert written > 0, what
        # the verify pass reads back every block written
        assert j["read"]["io_bytes"] >= written, \
            f"{what}: wrote {written}, verified {j['read']['io_bytes']}"


# --- errors ----------------------------------------------------------------

@pytest.mark.parametrize("thread", (1, 0), ids=("thread", "process"))
@pytest.mark.parametrize("variant", VARIANTS)
def test_injection_issues_nothing(ctx, backend, variant, thread):
    """Injected errors are exact with a real backend, and an I/O the model
    fails never reaches the kernel, also in the middle of an async batch."""
    with data_file(ctx, "inject") as path:
        r = ctx.fio_run(file_args(
            ctx, backend, path, variant=variant, inject="eio",
            inject_every=7, numjobs=2, thread=thread, rw="randrw",
            iodepth=32, iodepth_batch_submit=16, io_size="4m",
            continue_on_error="io"))
        what = f"{variant} thread={thread}"
        check(r, what, backend, jobs=2, errors=True)
        setn, rep = r.sum("errors_set"), r.sum("errors_reported")
        assert setn > 0, what
        assert setn == rep == r.total_err(), \
            f"{what}: set {setn} reported {rep} total_err {r.total_err()}"
        assert r.sum("issued") == r.sum("ios") - rep, what


def test_kernel_error_reaches_fio(ctx, backend):
    """O_DIRECT with a block size the device cannot take: the kernel's
    EINVAL is each I/O's error, as fio's own engines report it."""
    with data_file(ctx, "einval") as path:
        r = ctx.fio_run(file_args(ctx, backend, path, size="1m", bs=1000,
                                  direct=1, iodepth=4, number_ios=40,
                                  continue_on_error="all",
                                  ignore_error="EINVAL,EINVAL"))
        ok(r)
        j = r.json()["jobs"][0]
        s = r.stats[0]
        assert s["errors_reported"] == 0, s
        assert j["total_err"] == s["issued"] == s["ios"] > 0, \
            f"total_err {j['total_err']}, engine {s}"
        assert j["first_error"] == 22, j["first_error"]

    # a failing fsync (/dev/null has none) ends the job as with fio's own
    # engine: EINVAL for psync and libaio (fio syncs in ->queue), nothing
    # for io_uring (fio drops the error of a sync reaped as an event)
    def fsync_null(engine):
        r = ctx.fio_run(["--name=t", *engine, "--filename=/dev/null",
                         "--size=1m", "--rw=write", "--bs=4k", "--fsync=4",
                         "--iodepth=8"], timeout=30, stats=False)
        j = r.json()["jobs"][0]
        return r.rc, j["error"], j["write"]["total_ios"] > 0
    want = fsync_null([f"--ioengine={backend}"])
    got = fsync_null([f"--ioengine=external:{ctx.engine}",
                      f"--backend={backend}"])
    assert got == want, f"fsync on /dev/null: flagcheck {got}, fio's {want}"


def test_short_read_as_fio(ctx, backend):
    """A file that shrinks under the job: the short read sets resid, and fio
    sees exactly what it sees with its own engine."""
    def run(engine_opts, path):
        job = ctx.jobfile(f"""
[global]
filename={path}
size=1m
bs=4k
[shrink]
ioengine=ftruncate
rw=write
offset=526336
size=4k
number_ios=1
[reader]
stonewall
rw=read
iodepth=8
{engine_opts}
""")
        r = ctx.fio_run([job], stats=False)
        os.unlink(job)
        reader = r.json()["jobs"][1]["read"]
        return r.rc, {k: reader[k] for k in ("io_bytes", "short_ios", "total_ios")}

    with data_file(ctx, "short") as path:
        want = run(f"ioengine={backend}", path)
        os.unlink(path)
        got = run(f"ioengine=external:{ctx.engine}\nbackend={backend}", path)
    assert want[1]["short_ios"] == 1, f"fio's {backend} saw no short read: {want}"
    assert got == want, f"flagcheck {got}, fio's own {backend} {want}"


# --- refusals ---------------------------------------------------------------
