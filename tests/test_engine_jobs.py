"""The job files in jobs/ and their wrapper jobs/run-job, under the real fio.

Every job file runs in each of its variants, on the embedded default (null
backend, nothing opened) and on a small real file, and its counters must
show the RMWs per I/O its scenario is about (jobrun.check_run says what
each scenario's are). The wrapper's defaults, its backend switch,
its NUMA spreading and its refusal to write a block device are checked with
a stand-in fio that only records what it was given.
"""
import contextlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import time
import types

import pytest

from flagcheck_analysis.inputs import matrix
from flagcheck_analysis.run import config, proctree
from tests.analysis.helpers import alive
from jobrun import (JOB_VARS, OPTIONAL_VARS, RUN_JOB, RUN_VARS, S1, S2, S4,
                    TOP, check_run, clean_env, job_files, job_variants, job_vars,
                    run_job, section_args)

JOB_FILES = job_files()
JOB_IDS = [os.path.basename(j) for j in JOB_FILES]
# every job file in each of its variants
JOB_RUNS = [(j, m) for j in JOB_FILES for m in job_variants(j)]
JOB_RUN_IDS = [f"{os.path.basename(j)}-{m}" for j, m in JOB_RUNS]

# --- the files themselves ----------------------------------------------------

@pytest.mark.parametrize("path", JOB_FILES, ids=JOB_IDS)
def test_job_file_names_its_source_and_takes_every_var(path):
    name = os.path.basename(path)
    with open(path) as f:
        text = f.read()
    lines = text.splitlines()
    assert lines[0].startswith(";"), f"{name}: starts without a comment"
    head = "\n".join(line for line in lines if line.startswith(";"))
    for needed in ("Source:", "Published:", "Model", "run-job defaults:"):
        assert needed in head, f"{name}: header lacks {needed!r}"
    assert re.search(r"\b[0-9a-f]{12}\b", head) or \
        "Commit: none named" in head, f"{name}: no commit id"
    assert not re.search(r"^\s*include\s", text, re.M), \
        f"{name}: fio's include breaks client/server runs"
    missing = JOB_VARS - job_vars(path)
    assert not missing, f"{name}: lacks ${{{sorted(missing)}}}"


@pytest.mark.parametrize("path", JOB_FILES, ids=JOB_IDS)
def test_every_job_var_has_a_default_in_run_job_and_the_runner(ctx, path):
    runner_vars = set(config.DEFAULT_VARS) | set(matrix.MATRIX_VARS)
    used = job_vars(path) - OPTIONAL_VARS
    assert used <= runner_vars, \
        f"{os.path.basename(path)}: flagcheck run leaves " \
        f"{sorted(used - runner_vars)} empty"
    env, _ = fake_run(ctx, path, {})
    empty = sorted(v for v in used if not env.get(v))
    assert not empty, f"{os.path.basename(path)}: run-job leaves {empty} empty"


# --- run-job, with a stand-in fio ----------------------------------------------

FAKE_FIO = """#!/bin/sh
# stands in for fio: the backend probe succeeds, a run records itself
case "$1" in --parse-only) exit 0 ;; --showcmd) exec "$REAL_FIO" "$@" ;; esac
env > "$FAKE_DIR/env"
printf '%s\\n' "$@" > "$FAKE_DIR/args"
[ -n "$CREAT_DIR" ] && [ -d "$CREAT_DIR" ] && echo yes > "$FAKE_DIR/creat_dir_existed"
exit 0
"""


def fake_run(ctx, job, extra, args=()):
    """run-job with the stand-in fio: (its environment, its argv), or
    (None, stderr) when run-job refused to start it."""
    d = tempfile.mkdtemp(prefix="fakefio-", dir=ctx.tmp)
    fake = os.path.join(d, "fio")
    with open(fake, "w") as f:
        f.write(FAKE_FIO)
    os.chmod(fake, 0o755)
    env = clean_env(FIO=fake, FAKE_DIR=d, REAL_FIO=ctx.fio, **extra)
    try:
        p = subprocess.run([RUN_JOB, job] + list(args), cwd=d, env=env,
                           capture_output=True, text=True, timeout=30)
        if not os.path.exists(os.path.join(d, "env")):
            assert p.returncode != 0, "run-job neither ran fio nor failed"
            return None, p.stderr
        assert p.returncode == 0, p.stderr
        with open(os.path.join(d, "env")) as f:
            seen = dict(line.split("=", 1) for line in f.read().splitlines()
                        if "=" in line)
        with open(os.path.join(d, "args")) as f:
            argv = f.read().splitlines()
        return seen, argv
    finally:
        shutil.rmtree(d)


@pytest.mark.parametrize("job,numjobs,runtime,size", (
    (S1, str(len(os.sched_getaffinity(0))), "30", "1g"),
    (S2, "16", "60", "5g")), ids=("S1", "S2"))
def test_run_job_defaults(ctx, job, numjobs, runtime, size):
    env, argv = fake_run(ctx, job, {})
    got = {k: env.get(k) for k in sorted(RUN_VARS)}
    assert got == {
        "FLAGCHECK_ENGINE": os.path.join(TOP, "build", "fio-flagcheck.so"),
        "VARIANT": "test_first", "NUMJOBS": numjobs, "RUNTIME": runtime,
        "SIZE": size, "FILENAME": "flagcheck-null-target", "BACKEND": "null",
        "FLAGCHECK_STATS": os.path.join(env["FAKE_DIR"],
                                        os.path.basename(job)[:-4] +
                                        ".flagcheck.jsonl"),
    }, got
    assert argv[0] == job, argv
    # the environment wins; extra arguments reach fio after the job file
    env, argv = fake_run(ctx, job, {"NUMJOBS": 3, "VARIANT": "always",
                                    "BACKEND": "psync"}, ["--bs=8k"])
    assert (env["NUMJOBS"], env["VARIANT"], env["BACKEND"]) == \
        ("3", "always", "psync")
    assert argv == [job, "--bs=8k"], argv


def test_run_job_creat_dir_tmp_is_made_under_build_and_removed(ctx):
    s3 = os.path.join(TOP, "jobs", "aim7-creat-clo.fio")
    env, _ = fake_run(ctx, s3, {})
    assert env.get("CREAT_DIR") == "", env.get("CREAT_DIR")
    d = tempfile.mkdtemp(prefix="fakefio-", dir=ctx.tmp)
    fake = os.path.join(d, "fio")
    with open(fake, "w") as f:
        f.write(FAKE_FIO)
    os.chmod(fake, 0o755)
    try:
        p = subprocess.run([RUN_JOB, s3], cwd=d, capture_output=True, text=True,
                           env=clean_env(FIO=fake, FAKE_DIR=d, CREAT_DIR="tmp",
                                         REAL_FIO=ctx.fio),
                           timeout=30)
        assert p.returncode == 0, p.stderr
        with open(os.path.join(d, "env")) as f:
            seen = dict(line.split("=", 1) for line in f.read().splitlines()
                        if "=" in line)
        made = seen["CREAT_DIR"]
        assert made.startswith(os.path.join(TOP, "build", "creat-dir.")), made
        assert os.path.exists(os.path.join(d, "creat_dir_existed")), \
            "the directory did not exist while fio ran"
        assert not os.path.exists(made), f"{made} left behind"
    finally:
        shutil.rmtree(d)


# a fio that never ends: one that stops at SIGINT, one that ignores it
# (the guard's reading of the job file, --showcmd, is the real fio's)
SHOWCMD = 'case "$1" in --showcmd) exec "$REAL_FIO" "$@" ;; esac\n'
HANGING_FIO = {
    "stops at SIGINT": "#!/bin/sh\n" + SHOWCMD + "exec sleep 600\n",
    "ignores SIGINT": "#!/bin/sh\n" + SHOWCMD +
    "trap '' INT\nexec sleep 600\n",
}


# slow: waits out RUN_TIMEOUT
@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(HANGING_FIO))
def test_run_job_stops_a_fio_that_runs_past_run_timeout(ctx, kind):
    d = tempfile.mkdtemp(prefix="hangfio-", dir=ctx.tmp)
    fake = os.path.join(d, "fio")
    with open(fake, "w") as f:
        f.write(HANGING_FIO[kind])
    os.chmod(fake, 0o755)
    try:
        p = subprocess.run([RUN_JOB, S1], cwd=d, capture_output=True,
                           text=True, timeout=60,
                           env=clean_env(FIO=fake, RUN_TIMEOUT="1",
                                         REAL_FIO=ctx.fio, BACKEND="null"))
    finally:
        shutil.rmtree(d)
    assert p.returncode == 124, (p.returncode, p.stderr)
    assert p.stderr.strip().splitlines()[-1] == (
        "run-job: fio ran past RUN_TIMEOUT=1s (RUNTIME=30): stopped (set "
        "RUN_TIMEOUT for a longer run)"), p.stderr


# one job process (fio forks it; it calls setsid()), runs for RUNTIME
PROCESS_JOB = """
[global]
ioengine=external:${FLAGCHECK_ENGINE}
backend=${BACKEND}
filename=${FILENAME}
size=${SIZE}
numjobs=${NUMJOBS}
variant=${VARIANT}
flagcheck_stats=${FLAGCHECK_STATS}
rw=randread
time_based=1
runtime=${RUNTIME}
[spin]
"""


def _comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return None


def _gone_within(pid, seconds):
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def _fio_job_process(pid, timeout=60):
    """The job process fio (under pid) forked: a fio whose parent is fio."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in proctree.descendants(pid):
            if _comm(p) == "fio" and _comm(proctree._parent(p)) == "fio":
                return p
        time.sleep(0.05)
    raise AssertionError("fio started no job process")


@contextlib.contextmanager
def _run_job_with_a_job_process(ctx, new_session=False, **env):
    """run-job on PROCESS_JOB (RUNTIME 60 s, one job) until fio has forked
    its job process: a namespace with p (run-job), spin (the job process),
    text() (run-job's output so far) and pids (p's and spin's; a test adds
    others), every one of them still alive at the end SIGKILLed."""
    job = ctx.jobfile(PROCESS_JOB)
    d = tempfile.mkdtemp(prefix="spin-", dir=ctx.tmp)
    env = clean_env(FIO=ctx.fio, FLAGCHECK_ENGINE=ctx.engine, RUNTIME=60,
                    NUMJOBS=1, FLAGCHECK_STATS=os.path.join(d, "s.jsonl"),
                    **env)
    out = open(os.path.join(d, "out"), "w+")
    p = subprocess.Popen([RUN_JOB, job], cwd=d, env=env, stdout=out,
                         stderr=subprocess.STDOUT,
                         start_new_session=new_session)

    def text():
        out.seek(0)
        return out.read()
    run = types.SimpleNamespace(p=p, spin=None, text=text, pids=[p.pid])
    try:
        run.spin = _fio_job_process(p.pid)
        run.pids.insert(0, run.spin)
        yield run
    finally:
        for pid in run.pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        p.wait()
        out.close()
        shutil.rmtree(d)


# slow: waits out RUN_TIMEOUT
@pytest.mark.slow
def test_run_job_stops_fios_job_processes_past_run_timeout(ctx):
    """A job process that does not stop when fio tells it to (stopped here
    with SIGSTOP, as one spinning in a long work() does not look): past
    RUN_TIMEOUT fio gets SIGINT, then fio and its job processes SIGKILL;
    none is left behind. (RUN_TIMEOUT 5 s: time for a loaded machine to
    start fio's job process before the deadline.)"""
    with _run_job_with_a_job_process(ctx, RUN_TIMEOUT=5) as run:
        os.kill(run.spin, signal.SIGSTOP)
        rc = run.p.wait(timeout=60)
        text = run.text()
        assert rc == 124, (rc, text)
        assert _gone_within(run.spin, 5), \
            f"fio's job process {run.spin} was left:\n{text}"


# serial: the stop is timed
@pytest.mark.serial
def test_run_job_second_ctrl_c_stops_fios_job_processes(ctx):
    """Ctrl-C (SIGINT to run-job's process group, as a terminal sends it)
    reaches fio; a second one kills fio and a job process that would not
    stop, at once: run-job exits 130, nothing left."""
    with _run_job_with_a_job_process(ctx, new_session=True) as run:
        os.kill(run.spin, signal.SIGSTOP)
        t0 = time.monotonic()
        for _ in range(2):
            os.killpg(run.p.pid, signal.SIGINT)
            time.sleep(0.5)
        rc = run.p.wait(timeout=60)
        took = time.monotonic() - t0
        text = run.text()
        assert rc == 130 and took < 5, (rc, took, text)
        assert _gone_within(run.spin, 5), \
            f"fio's job process {run.spin} was left:\n{text}"


def test_run_job_sigkilled_takes_fio_with_it(ctx):
    """run-job's fio runner SIGKILLed (fio is in a session of its own, so
    nothing else would stop it): fio gets SIGTERM and ends, its job
    processes with it."""
    with _run_job_with_a_job_process(ctx) as run:
        fio = proctree._parent(run.spin)
        run.pids.insert(1, fio)
        runner = proctree._parent(fio)
        assert _comm(runner) != "bash", "fio runs straight under run-job"
        os.kill(runner, signal.SIGKILL)
        run.p.wait(timeout=60)
        assert _gone_within(fio, 15) and _gone_within(run.spin, 5), \
            f"fio ({fio}) or its job ({run.spin}) outlived their runner"


@pytest.mark.parametrize("bad", ("0", "-5", "1.5", "10s", "abc"))
def test_run_job_refuses_a_bad_run_timeout(ctx, bad):
    env, err = fake_run(ctx, S1, {"RUN_TIMEOUT": bad})
    assert env is None
    assert err.strip() == (f"run-job: RUN_TIMEOUT={bad}: want a whole number "
                           "of seconds, 1 or more"), err


@pytest.mark.parametrize("job", (S1, S2), ids=("S1", "S2"))
def test_run_job_switches_to_a_real_backend_for_a_named_target(ctx, job):
    target = os.path.join(ctx.tmp, "named-target")
    env, _ = fake_run(ctx, job, {"FILENAME": target})
    assert env["BACKEND"] == "libaio", env["BACKEND"]
    env, _ = fake_run(ctx, job, {"FILENAME": "flagcheck-null-target"})
    assert env["BACKEND"] == "null"
    assert not os.path.exists(target)


def test_run_job_refuses_to_write_a_block_device(ctx):
    node = os.path.join(ctx.tmp, "fake-blockdev")
    if os.path.lexists(node):
        os.unlink(node)
    try:
        # a node for a loop device nobody set up: harmless if ever opened
        os.mknod(node, 0o600 | stat.S_IFBLK, os.makedev(7, 250))
    except OSError as e:
        pytest.skip(f"cannot make a block device node to test with: {e}")
    try:
        for backend in ("psync", ""):
            env, err = fake_run(ctx, S2, {"FILENAME": node, "BACKEND": backend})
            # the message is wrapped within 120 columns: read it joined
            assert env is None and "FLAGCHECK_DESTROY=yes" in err and \
                "block device" in " ".join(err.split()), err
        env, err = fake_run(ctx, S2, {"FILENAME": f"other:{node}"})
        assert env is None, "a device later in a filename list was written"
        env, _ = fake_run(ctx, S2, {"FILENAME": node, "FLAGCHECK_DESTROY": "yes"})
        assert env and env["FILENAME"] == node
        env, _ = fake_run(ctx, S1, {"FILENAME": node})   # reads only
        assert env and env["BACKEND"] == "libaio"
        env, _ = fake_run(ctx, S2, {"FILENAME": node, "BACKEND": "null"})
        assert env, "the null backend writes nothing: no reason to refuse"
    finally:
        os.unlink(node)


def test_run_job_spreads_s1_over_numa_nodes(ctx):
    d = tempfile.mkdtemp(prefix="nodes-", dir=ctx.tmp)
    try:
        for n, cpus in ((0, "0-3,8-11"), (1, "4-7,12-15")):
            os.makedirs(os.path.join(d, f"node{n}"))
            with open(os.path.join(d, f"node{n}", "cpulist"), "w") as f:
                f.write(cpus + "\n")
        _, argv = fake_run(ctx, S1, {"FLAGCHECK_NODE_DIR": d, "NUMJOBS": 6})
        assert argv[:2] == ["--cpus_allowed=0,1,2,4,5,6",
                            "--cpus_allowed_policy=split"], argv
        _, argv = fake_run(ctx, S1, {"FLAGCHECK_NODE_DIR": d, "NUMJOBS": 6,
                                     "FLAGCHECK_NUMA": "off"})
        assert argv[0] == S1, argv
        if shutil.which("numactl"):
            env, argv = fake_run(ctx, S2, {"FLAGCHECK_NODE_DIR": d})
            assert argv[0] == S2 and env, argv
        # one node: nothing added
        os.rename(os.path.join(d, "node1"), os.path.join(d, "gone"))
        _, argv = fake_run(ctx, S1, {"FLAGCHECK_NODE_DIR": d, "NUMJOBS": 6})
        assert argv[0] == S1, argv
    finally:
        shutil.rmtree(d)


# --- the job files under fio ----------------------------------------------------

# slow: a job file through run-job for its RUNTIME
@pytest.mark.slow
@pytest.mark.parametrize("job,variant", JOB_RUNS, ids=JOB_RUN_IDS)
def test_job_file_runs_on_the_embedded_default(ctx, job, variant):
    p, stats = run_job(ctx, job, clean_env(
        VARIANT=variant, NUMJOBS=2, RUNTIME=1, SIZE="64m"),
        section_args(job))
    check_run(p, stats, job, variant, 2, "null")


def engine_has_backend(ctx, name):
    p = subprocess.run([ctx.fio, "--parse-only", "--name=probe",
                        f"--ioengine=external:{ctx.engine}", f"--backend={name}",
                        "--filename=probe", "--size=1m"],
                       capture_output=True, text=True, timeout=30)
    return p.returncode == 0


def direct_io_works(d):
    path = os.path.join(d, "odirect-probe")
    try:
        fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_DIRECT, 0o600)
        os.close(fd)
        return True
    except OSError:
        return False
    finally:
        if os.path.exists(path):
            os.unlink(path)


# each job file in each of its variants on psync, and once with no BACKEND
# (None): run-job picks a real one for a named file
REAL_RUNS = JOB_RUNS + [(j, None) for j in JOB_FILES]
REAL_RUN_IDS = JOB_RUN_IDS + [f"{os.path.basename(j)}-no-backend"
                              for j in JOB_FILES]


# slow: a job file through run-job for its RUNTIME
@pytest.mark.slow
@pytest.mark.parametrize("job,variant", REAL_RUNS, ids=REAL_RUN_IDS)
def test_job_file_runs_on_a_small_real_file(ctx, job, variant):
    if not engine_has_backend(ctx, "psync"):
        pytest.skip("the engine has no psync backend yet")
    d = tempfile.mkdtemp(prefix="realfile-", dir=ctx.tmp)
    try:
        if job in (S1, S4) and not direct_io_works(d):
            pytest.skip(f"{ctx.tmp} does not take O_DIRECT: "
                        f"{os.path.basename(job)} ran on the null target only")
        target = os.path.join(d, os.path.basename(job)[:-4] + ".dat")
        if variant:
            p, stats = run_job(ctx, job, clean_env(
                VARIANT=variant, NUMJOBS=2, RUNTIME=1, SIZE="16m",
                FILENAME=target, BACKEND="psync"), section_args(job))
            check_run(p, stats, job, variant, 2, "psync")
            assert os.path.getsize(target) == 16 << 20
        else:
            variant = job_variants(job)[0]
            p, stats = run_job(ctx, job, clean_env(
                VARIANT=variant, NUMJOBS=1, RUNTIME=1, SIZE="16m",
                FILENAME=target), section_args(job))
            want = "libaio" if engine_has_backend(ctx, "libaio") else "psync"
            check_run(p, stats, job, variant, 1, want)
    finally:
        shutil.rmtree(d)


# --- make install: a PREFIX fio or a shell would misread, run-job installed --

def make_install(dest, prefix):
    # -o: install what is built, never rebuild here
    return subprocess.run(
        ["make", "-s", "-C", TOP, "-o", "build/fio-flagcheck.so", "-o",
         "build/flagcheck-calibrate", "install", "DESTDIR=" + dest,
         "PREFIX=" + prefix], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("prefix", (
    "/opt/a;b", "/opt/a#b", "/opt/a`touch {mark}`", "/opt/$(shell touch {mark})",
    "/opt/a$$HOME", "/opt/a\tb", "/opt/a\nb", "/opt/a\"b", "opt/relative", "",
    "/opt/fc,x"),
    ids=("semicolon", "hash", "backtick", "make-shell", "dollar", "tab",
         "newline", "quote", "relative", "empty", "comma"))
def test_make_install_refuses_a_prefix_fio_or_a_shell_misreads(ctx, prefix):
    if not shutil.which("make"):
        pytest.skip("no make")
    d = tempfile.mkdtemp(prefix="install-", dir=ctx.tmp)
    mark = os.path.join(d, "ran")
    prefix = prefix.replace("{mark}", mark)
    try:
        p = make_install(os.path.join(d, "dest"), prefix)
        assert p.returncode != 0, p.stdout + p.stderr
        lines = p.stderr.strip().splitlines()
        assert len(lines) == (prefix.count("\n") + 1) and \
            f"PREFIX={prefix}: refused, nothing installed: want an absolute " \
            "path of letters, digits, spaces and / . _ - + : @ ~ = (fio " \
            "cuts a value at ';' or '#' and splits it at ','" \
            in p.stderr, p.stderr
        assert os.listdir(d) == [], f"made or ran: {os.listdir(d)}"
    finally:
        shutil.rmtree(d)


@pytest.mark.parametrize("dest,prefix", (("stage", "/../x"),
                                         ("stage/..", "/opt/fc"),
                                         ("stage", "/opt/fc/../../..")))
def test_make_install_stays_in_its_staging_directory(ctx, dest, prefix):
    """issue 49 item 14: a '..' in DESTDIR or PREFIX would install
    outside DESTDIR: one line, nothing installed"""
    if not shutil.which("make"):
        pytest.skip("no make")
    d = tempfile.mkdtemp(prefix="install-", dir=ctx.tmp)
    try:
        os.mkdir(os.path.join(d, "stage"))
        p = make_install(os.path.join(d, dest), prefix)
        assert p.returncode != 0, p.stdout + p.stderr
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].endswith(
            "*** DESTDIR=%s PREFIX=%s: refused, nothing installed: a '..' "
            "component would install outside DESTDIR, the staging "
            "directory.  Stop." % (os.path.join(d, dest), prefix)), lines
        for top, dirs, files in os.walk(d):
            assert (dirs, files) == ([], []) or top == d, (top, dirs, files)
    finally:
        shutil.rmtree(d)


# slow: make install and a run of the installed copy
@pytest.mark.slow
def test_installed_run_job_runs_the_installed_engine(ctx):
    if not shutil.which("make"):
        pytest.skip("no make")
    d = tempfile.mkdtemp(prefix="install-", dir=ctx.tmp)
    try:
        p = make_install(d, "/opt/my fc")
        assert p.returncode == 0, p.stdout + p.stderr
        prefix = os.path.join(d, "opt", "my fc")
        share = os.path.join(prefix, "share", "flagcheck", "jobs")
        assert sorted(os.listdir(os.path.join(share, "pattern"))) == \
            sorted(os.listdir(os.path.join(TOP, "jobs", "pattern")))
        stats = os.path.join(d, "s1.jsonl")
        env = clean_env(FIO=ctx.fio, RUNTIME=1, NUMJOBS=1,
                        FLAGCHECK_STATS=stats)
        p = subprocess.run([os.path.join(share, "run-job"),
                            os.path.join(share, os.path.basename(S1)),
                            "--output-format=json"], cwd=d, env=env,
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        engine = os.path.join(prefix, "lib", "flagcheck", "fio-flagcheck.so")
        assert f'"ioengine" : "external:{engine}"' in p.stdout, p.stdout
        with open(stats) as f:
            assert [json.loads(line)["ios"] > 0 for line in f] == [True]
    finally:
        shutil.rmtree(d)
