"""The job files in jobs/ and their wrapper jobs/run-job, under the real fio.

Every job file runs in both modes, on the embedded default (null backend,
nothing opened) and on a small real file, and its counters must show the
RMWs per I/O its scenario is about: S1 2.0 (always) vs 0.0 (test_first),
S2 16 clear_buffer_new() RMWs per 4k write at 64K pages vs about none once
the pages are no longer new; S3 2.0 set_buffer_verified() RMWs per cycle
vs ~0; S4 3.0 set_buffer_uptodate() RMWs and barriers per operation
(always) vs ~0 (before, test_first); S5 hits at depth mod up to 16 and none
past it (on) vs every lookup slow (off). Each file runs in all its modes.
The wrapper's defaults, its backend switch,
its NUMA spreading and its refusal to write a block device are checked with
a stand-in fio that only records what it was given.
"""
import glob
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

from fiotests import Skip, load_fio_json, test

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JOBS = os.path.join(TOP, "jobs")
RUN_JOB = os.path.join(JOBS, "run-job")
S1 = os.path.join(JOBS, "filemap-odirect-read.fio")
S2 = os.path.join(JOBS, "buffer-new-randwrite.fio")
S3 = os.path.join(JOBS, "aim7-creat-clo.fio")
S4 = os.path.join(JOBS, "fxmark-dwtl-uptodate.fio")
S5 = os.path.join(JOBS, "bh-lru-lookup.fio")

# every job file takes these; run-job and the analysis runner set them all
JOB_VARS = {"FLAGCHECK_ENGINE", "FLAG_CHECK", "NUMJOBS", "RUNTIME", "SIZE",
            "FILENAME", "BACKEND"}
RUN_VARS = JOB_VARS | {"FLAGCHECK_STATS"}
MODES = ("always", "test_first")
# the modes (FLAG_CHECK values) of a job file whose variant has its own names
JOB_MODES = {S4: ("before", "always", "test_first"), S5: ("on", "off")}
# S5's sweep has 20 sections (stonewall); the tests run three of them
SECTIONS = {S5: ("mod3", "mod16", "mod17")}
# a job file may leave these empty: CREAT_DIR (S3) empty = no file operations
OPTIONAL_VARS = {"CREAT_DIR"}
S2_PAGES = 1024                 # 64m at 64k pages
S2_HEADS = 16                   # 64k / 4k


def job_files():
    files = sorted(glob.glob(os.path.join(JOBS, "*.fio")))
    assert S1 in files and S2 in files, files
    return files


def job_vars(path):
    with open(path) as f:
        text = f.read()
    body = "\n".join(line for line in text.splitlines()
                     if not line.lstrip().startswith((";", "#")))
    return set(re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", body))


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in RUN_VARS and not k.startswith("FLAGCHECK_")}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run_job(ctx, job, env, args=(), timeout=120):
    """run-job in an empty directory, which must stay empty; fio's JSON on
    stdout, the counters from FLAGCHECK_STATS."""
    cwd = ctx.scratch()
    stats = os.path.join(ctx.tmp, os.path.basename(cwd) + ".jsonl")
    env = dict(env, FLAGCHECK_ENGINE=ctx.engine, FLAGCHECK_STATS=stats)
    try:
        p = subprocess.run([RUN_JOB, job, "--output-format=json"] + list(args),
                           cwd=cwd, env=env, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"run-job {job} did not finish in {timeout}s")
    left = os.listdir(cwd)
    assert not left, f"the run wrote files in its directory: {left}"
    os.rmdir(cwd)
    lines = []
    if os.path.exists(stats):
        with open(stats) as f:
            lines = [json.loads(line) for line in f]
        os.unlink(stats)
    return p, lines


def job_modes(job):
    return JOB_MODES.get(job, MODES)


def section_args(job):
    return [f"--section={s}" for s in SECTIONS.get(job, ())]


def check_run(p, stats, job, mode, numjobs, backend):
    what = f"{os.path.basename(job)} FLAG_CHECK={mode} BACKEND={backend}"
    assert p.returncode == 0, f"{what}: exit {p.returncode}\n{p.stderr}"
    out = load_fio_json(p.stdout)
    groups = len(SECTIONS.get(job, ())) or 1
    assert len(out["jobs"]) == groups, \
        f"{what}: group_reporting gives one entry per section"
    assert all(j["error"] == 0 for j in out["jobs"]), f"{what}: {out['jobs']}"
    assert len(stats) == numjobs * groups, f"{what}: {len(stats)} stats lines"
    assert {s["flag_check"] for s in stats} == {mode}, what
    assert {s["backend"] for s in stats} == {backend}, what
    ios = sum(s["ios"] for s in stats)
    assert ios > 0, what
    if job == S1:
        assert {s["model"] for s in stats} == {"filemap_check_errors"}, what
        rmw = sum(s["rmw"] for s in stats)
        want = 2 * ios if mode == "always" else 0
        assert rmw == want, f"{what}: {rmw / ios:.3f} RMWs/io"
    elif job == S2:
        assert {s["model"] for s in stats} == {"block_commit_write"}, what
        assert {s["options"]["clear_new"] for s in stats} == {mode}, what
        assert {s["options"]["page_size"] for s in stats} == {"64k"}, what
        new = sum(s["paths"]["clear_buffer_new"]["rmw"] for s in stats)
        rmw = sum(s["rmw"] for s in stats)
        if mode == "always":
            assert new == S2_HEADS * ios, \
                f"{what}: {new / ios:.3f} clear_buffer_new RMWs/io, not 16"
        else:
            # every head is new once (racing first commits may both clear)
            assert 0 < new <= 2 * S2_HEADS * S2_PAGES, f"{what}: {new}"
            assert rmw / ios < 0.5, f"{what}: {rmw / ios:.3f} RMWs/io"
    elif job in FAMILY_CHECKS:
        FAMILY_CHECKS[job](what, stats, mode, ios)
    return ios


def check_s3(what, stats, mode, ios):
    assert {s["model"] for s in stats} == {"set_buffer_verified"}, what
    rmw = sum(s["paths"]["set_buffer_verified"]["rmw"] for s in stats)
    if mode == "always":
        assert rmw == 2 * ios, f"{what}: {rmw / ios:.3f} RMWs/io, not 2"
    else:       # the first cycle sets the bit; racing first ones may both
        assert 1 <= rmw <= len(stats), f"{what}: {rmw} RMWs"


def check_s4(what, stats, mode, ios):
    assert {s["model"] for s in stats} == {"set_buffer_uptodate"}, what
    assert {s["options"]["metadata_bhs"] for s in stats} == {3}, what
    rmw = sum(s["paths"]["set_buffer_uptodate"]["rmw"] for s in stats)
    mb = sum(s["model_stats"]["smp_mb__before_atomic"] for s in stats)
    if mode == "always":
        assert rmw == mb == 3 * ios, f"{what}: {rmw / ios:.3f} RMWs/io"
    else:       # one per buffer, or a few more when first calls race
        assert 3 <= rmw <= 3 * len(stats), f"{what}: {rmw} RMWs"
        assert mb == (rmw if mode == "test_first" else 0), f"{what}: {mb}"


def check_s5(what, stats, mode, ios):
    assert {s["model"] for s in stats} == {"bh_lru"}, what
    for s in stats:
        st, mod = s["model_stats"], s["options"]["mod"]
        assert st["lookups"] == s["ios"] * 1000 == s["checks"], what
        assert st["hits"] + st["misses"] == st["lookups"], what
        assert st["lookup_ns"] > 0, what
        depth = [st[f"hit_idx{i}"] for i in range(1, 17)]
        assert sum(depth) == st["hits"], what
        if mode == "off" or mod > 16:
            assert st["hits"] == 0, f"{what} mod={mod}: {st}"
        else:   # one miss per block, then every hit at index mod
            assert st["misses"] == mod and depth[mod - 1] == st["hits"], \
                f"{what} mod={mod}: {st}"


FAMILY_CHECKS = {S3: check_s3, S4: check_s4, S5: check_s5}


# --- the files themselves ----------------------------------------------------

@test
def job_files_name_their_source_and_take_every_var(ctx):
    for path in job_files():
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


@test
def every_job_var_has_a_default_in_run_job_and_the_runner(ctx):
    sys.path.insert(0, os.path.join(TOP, "analysis"))
    try:
        from flagcheck_analysis import matrix, runcli
    finally:
        sys.path.pop(0)
    runner_vars = set(runcli.DEFAULT_VARS) | set(matrix.MATRIX_VARS)
    for path in job_files():
        used = job_vars(path) - OPTIONAL_VARS
        assert used <= runner_vars, \
            f"{os.path.basename(path)}: flagcheck-run leaves " \
            f"{sorted(used - runner_vars)} empty"
        env, _ = fake_run(ctx, path, {})
        empty = sorted(v for v in used if not env.get(v))
        assert not empty, f"{os.path.basename(path)}: run-job leaves {empty} empty"


# --- run-job, with a stand-in fio ----------------------------------------------

FAKE_FIO = """#!/bin/sh
# stands in for fio: the backend probe succeeds, a run records itself
case "$1" in --parse-only) exit 0 ;; esac
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
    env = clean_env(FIO=fake, FAKE_DIR=d, **extra)
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


@test
def run_job_defaults(ctx):
    cpus = str(len(os.sched_getaffinity(0)))
    for job, numjobs, runtime, size in ((S1, cpus, "30", "1g"),
                                        (S2, "16", "60", "5g")):
        env, argv = fake_run(ctx, job, {})
        got = {k: env.get(k) for k in sorted(RUN_VARS)}
        assert got == {
            "FLAGCHECK_ENGINE": os.path.join(TOP, "build", "fio-flagcheck.so"),
            "FLAG_CHECK": "test_first", "NUMJOBS": numjobs, "RUNTIME": runtime,
            "SIZE": size, "FILENAME": "flagcheck-null-target", "BACKEND": "null",
            "FLAGCHECK_STATS": os.path.join(env["FAKE_DIR"],
                                            os.path.basename(job)[:-4] +
                                            ".flagcheck.jsonl"),
        }, got
        assert argv[0] == job, argv
        # the environment wins; extra arguments reach fio after the job file
        env, argv = fake_run(ctx, job, {"NUMJOBS": 3, "FLAG_CHECK": "always",
                                        "BACKEND": "psync"}, ["--bs=8k"])
        assert (env["NUMJOBS"], env["FLAG_CHECK"], env["BACKEND"]) == \
            ("3", "always", "psync")
        assert argv == [job, "--bs=8k"], argv


@test
def run_job_creat_dir_tmp_is_made_under_build_and_removed(ctx):
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
                           env=clean_env(FIO=fake, FAKE_DIR=d, CREAT_DIR="tmp"),
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


@test
def run_job_switches_to_a_real_backend_for_a_named_target(ctx):
    target = os.path.join(ctx.tmp, "named-target")
    for job in (S1, S2):
        env, _ = fake_run(ctx, job, {"FILENAME": target})
        assert env["BACKEND"] == "libaio", env["BACKEND"]
        env, _ = fake_run(ctx, job, {"FILENAME": "flagcheck-null-target"})
        assert env["BACKEND"] == "null"
    assert not os.path.exists(target)


@test
def run_job_refuses_to_write_a_block_device(ctx):
    node = os.path.join(ctx.tmp, "fake-blockdev")
    if os.path.lexists(node):
        os.unlink(node)
    try:
        # a node for a loop device nobody set up: harmless if ever opened
        os.mknod(node, 0o600 | stat.S_IFBLK, os.makedev(7, 250))
    except OSError as e:
        raise Skip(f"cannot make a block device node to test with: {e}")
    try:
        for backend in ("psync", ""):
            env, err = fake_run(ctx, S2, {"FILENAME": node, "BACKEND": backend})
            assert env is None and "FLAGCHECK_DESTROY=yes" in err and \
                "block device" in err, err
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


@test
def run_job_spreads_s1_over_numa_nodes(ctx):
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

@test
def job_files_run_on_the_embedded_default(ctx):
    for job in job_files():
        for mode in job_modes(job):
            p, stats = run_job(ctx, job, clean_env(
                FLAG_CHECK=mode, NUMJOBS=2, RUNTIME=1, SIZE="64m"),
                section_args(job))
            check_run(p, stats, job, mode, 2, "null")


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


@test
def job_files_run_on_a_small_real_file(ctx):
    if not engine_has_backend(ctx, "psync"):
        raise Skip("the engine has no psync backend yet")
    d = tempfile.mkdtemp(prefix="realfile-", dir=ctx.tmp)
    odirect = direct_io_works(d)
    try:
        for job in job_files():
            if job in (S1, S4) and not odirect:
                continue
            target = os.path.join(d, os.path.basename(job)[:-4] + ".dat")
            for mode in job_modes(job):
                p, stats = run_job(ctx, job, clean_env(
                    FLAG_CHECK=mode, NUMJOBS=2, RUNTIME=1, SIZE="16m",
                    FILENAME=target, BACKEND="psync"), section_args(job))
                check_run(p, stats, job, mode, 2, "psync")
                assert os.path.getsize(target) == 16 << 20
            # no BACKEND: run-job picks a real one for a named file
            mode = job_modes(job)[0]
            p, stats = run_job(ctx, job, clean_env(
                FLAG_CHECK=mode, NUMJOBS=1, RUNTIME=1, SIZE="16m",
                FILENAME=target), section_args(job))
            want = "libaio" if engine_has_backend(ctx, "libaio") else "psync"
            check_run(p, stats, job, mode, 1, want)
            os.unlink(target)
    finally:
        shutil.rmtree(d)
    if not odirect:
        raise Skip(f"{ctx.tmp} does not take O_DIRECT: S1 ran on the null "
                   "target only")
