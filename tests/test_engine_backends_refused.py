"""A backend the kernel refuses says so in one line naming the call and the
reason (a seccomp filter, aio-max-nr, O_DIRECT on tmpfs); a filename list
runs on every backend; the backend option lists every backend the engine
registered.
"""
import contextlib
import os
import subprocess

import pytest

import fiorun
from fiorun import Result

from test_engine_backends import check, data_file, file_args, need
# the backends to run on (as in test_engine_backends.py)
from test_engine_backends import backend, pytest_generate_tests  # noqa: F401

# the syscall each async backend sets up with: what a refusal names
SETUP_SYSCALL = {"libaio": "io_setup", "io_uring": "io_uring_setup"}


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
