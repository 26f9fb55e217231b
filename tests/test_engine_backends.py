"""The real backends (psync, libaio, io_uring) under fio, on real files.

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
from fiorun import Result, ok

# the backends with real files: every one the engine lists but null
DISKLESS = ("null",)
MODES = ("always", "test_first")
# the syscall each async backend sets up with: what a refusal names
SETUP_SYSCALL = {"libaio": "io_setup", "io_uring": "io_uring_setup"}

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
@pytest.mark.parametrize("mode", MODES)
def test_verify_is_clean(ctx, backend, mode, opts):
    with data_file(ctx, "verify") as path:
        what = f"variant={mode} {opts}"
        r = ctx.fio_run(file_args(ctx, backend, path, size="8m",
                                  variant=mode, do_verify=1,
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
@pytest.mark.parametrize("mode", MODES)
def test_injection_issues_nothing(ctx, backend, mode, thread):
    """Injected errors are exact with a real backend, and an I/O the model
    fails never reaches the kernel, also in the middle of an async batch."""
    with data_file(ctx, "inject") as path:
        r = ctx.fio_run(file_args(
            ctx, backend, path, variant=mode, inject="eio",
            inject_every=7, numjobs=2, thread=thread, rw="randrw",
            iodepth=32, iodepth_batch_submit=16, io_size="4m",
            continue_on_error="io"))
        what = f"{mode} thread={thread}"
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

DENY_C = r"""
/* deny SYSCALL PROG ARGS...: run PROG with SYSCALL failing EPERM, as a
 * container's seccomp profile does */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = 4, .filter = f };

	if (argc < 3)
		return 2;
	if (!strcmp(argv[1], "io_uring_setup"))
		f[1].k = __NR_io_uring_setup;
	else if (!strcmp(argv[1], "io_setup"))
		f[1].k = __NR_io_setup;
	else
		return 2;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("seccomp");
		return 77;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
"""


def deny_tool(ctx):
    exe = ctx.build_c("deny-syscall", DENY_C)
    if not exe:
        pytest.skip("no C compiler to build the seccomp wrapper")
    return exe


def assert_refused(r, backend, reason, what):
    assert r.rc != 0, f"{what}: fio exited 0"
    assert r.rc > 0, f"{what}: fio died"
    want = f"flagcheck: backend={backend}: the kernel refuses {SETUP_SYSCALL[backend]}"
    line = [ln for ln in r.err.splitlines() if want in ln]
    assert line and reason in line[0], \
        f"{what}: want a line with {want!r} and {reason!r}:\n{r.err}"
    j = r.json()["jobs"][0] if '"jobs"' in r.out else None
    assert not j or j["read"]["total_ios"] == 0, f"{what}: I/O ran"
    assert all(s["issued"] == 0 for s in r.stats), r.stats


@pytest.mark.parametrize("backend,syscall", SETUP_SYSCALL.items(),
                         ids=list(SETUP_SYSCALL))
def test_backend_refused_by_seccomp(ctx, backend, syscall):
    # refused already (skipped with the kernel's reason): the filter adds
    # nothing to test
    need(ctx, backend)
    deny = deny_tool(ctx)
    with data_file(ctx, "deny") as path:
        argv = [deny, syscall, ctx.fio, "--output-format=json"] + \
            file_args(ctx, backend, path, size="1m", io_size="64k")
        p = subprocess.run(argv, cwd=ctx.tmp, capture_output=True,
                           text=True, timeout=60)
    if p.returncode == 77:
        pytest.skip(f"seccomp is not available: {p.stderr.strip()}")
    r = Result(p.returncode, p.stdout, p.stderr, [])
    assert_refused(r, backend, "Operation not permitted: a seccomp filter",
                   f"{syscall} denied")


def test_backend_libaio_refused_past_aio_max_nr(ctx):
    need(ctx, "libaio")
    with open("/proc/sys/fs/aio-max-nr") as f:
        limit = int(f.read())
    if limit >= 1 << 20:
        pytest.skip(f"fs.aio-max-nr is {limit}: an iodepth past it is too big "
                    "to try")
    with data_file(ctx, "aio-max-nr") as path:
        r = ctx.fio_run(file_args(ctx, "libaio", path, size="1m",
                                  iodepth=limit + 1))
    assert_refused(r, "libaio", "fs.aio-max-nr", f"iodepth={limit + 1}")


def test_backend_direct_on_tmpfs_is_clear(ctx):
    """tmpfs took O_DIRECT only in Linux 6.6: before, the open must fail
    with fio's message; since, the run must just work."""
    tmpfs = None
    with open("/proc/mounts") as f:
        for line in f:
            dev, mnt, fstype = line.split()[:3]
            if fstype == "tmpfs" and os.access(mnt, os.W_OK) and \
                    mnt in ("/dev/shm", "/tmp", "/run/user"):
                tmpfs = mnt
                break
    if not tmpfs:
        pytest.skip("no writable tmpfs mount")
    need(ctx, "psync")
    path = os.path.join(tmpfs, f"flagcheck-direct-{os.getpid()}")
    try:
        r = ctx.fio_run(file_args(ctx, "psync", path, size="1m", direct=1,
                                  io_size="64k"))
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
    if r.rc == 0:
        check(r, f"direct=1 on {tmpfs}", "psync")
    else:
        assert "does not support direct=1" in r.err, \
            f"direct=1 on {tmpfs} failed without saying why:\n{r.err}"


# --- several files ------------------------------------------------------------

@pytest.mark.parametrize("serialize", (1, 0),
                         ids=("create_serialize1", "create_serialize0"))
def test_backend_filename_list(ctx, backend, serialize):
    """filename=a:b in a job file's [global] section, two jobs: both files
    are sized, laid out and opened through fio's hooks, and injection stays
    exact. (That jobs on one file name share its mapping is the glue's, the
    same for every backend: test_jobs_share_one_mapping tests it on null,
    where I/O is fast enough to hit the window between one job's set and
    check.)
    """
    with data_file(ctx, "a") as a, data_file(ctx, "b") as b:
        # create_serialize=0: the job sizes its files after its init. The
        # files exist already then: two job processes laying out the same
        # new files at once race in fio 3.33 itself (a read of a file the
        # other process has just truncated returns 0 bytes, fio puts the
        # io_u back still marked in flight and dies on its own assertion
        # "td_io_queue: (io_u->flags & IO_U_F_FLIGHT) == 0"; its own psync
        # engine does the same with this job).
        if not serialize:
            for path in (a, b):
                with open(path, "wb") as f:
                    f.truncate(4 << 20)
        job = ctx.jobfile(f"""
[global]
ioengine=external:{ctx.engine}
backend={backend}
create_serialize={serialize}
filename={a}:{b}
size=8m
bs=4k
rw=randrw
iodepth=4
time_based=1
runtime=300ms
verify_state_save=0
continue_on_error=io
flagcheck_stats=${{FLAGCHECK_STATS}}
[injector]
inject=eio
inject_every=5
[reader]
inject=none
""")
        r = ctx.fio_run([job])
        os.unlink(job)
        what = f"{backend} create_serialize={serialize}"
        check(r, what, backend, jobs=2, errors=True)
        assert os.path.getsize(a) == os.path.getsize(b) == 4 << 20, what
    assert r.sum("errors_set") == r.sum("errors_reported") == \
        r.total_err() > 0, what


def test_backend_option_lists_every_backend(ctx):
    r = ctx.fio_run(ctx.base_args(backend="spdk"), stats=False)
    assert r.rc != 0
    listed = fiorun.engine_backends(ctx.fio, ctx.engine)
    assert "backend=spdk" in r.err and ", ".join(listed) in r.err, r.err


# --- fio's syncs: counted as fio counts them, or refused ------------------

# what fio counts in total_ios: fsync=N (sync); end_fsync=1 and
# fsync_on_close=1 run at the job's end (TD_FSYNCING), counted nowhere
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
