"""The job files in jobs/ and their wrapper jobs/run-job: what the tests of
them share (test_engine_jobs.py, test_engine_family.py). The scenarios'
files, the variables every job file takes, a run of run-job in an empty
directory, and the check of a run's counters against its scenario: S1 2.0
RMWs per I/O (always) vs 0.0 (test_first), S2 16 clear_buffer_new() RMWs
per 4k write at 64K pages vs about none once the pages are no longer new;
S3 2.0 set_buffer_verified() RMWs per cycle vs ~0; S4 3.0
set_buffer_uptodate() RMWs and barriers per operation (always) vs ~0
(before, test_first); S5 hits at depth mod up to 16 and none past it (on)
vs every lookup slow (off).
"""
import glob
import json
import os
import re
import subprocess

from fiorun import load_fio_json

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JOBS = os.path.join(TOP, "jobs")
RUN_JOB = os.path.join(JOBS, "run-job")
S1 = os.path.join(JOBS, "filemap-odirect-read.fio")
S2 = os.path.join(JOBS, "buffer-new-randwrite.fio")
S3 = os.path.join(JOBS, "aim7-creat-clo.fio")
S4 = os.path.join(JOBS, "fxmark-dwtl-uptodate.fio")
S5 = os.path.join(JOBS, "bh-lru-lookup.fio")

# every job file takes these; run-job and the analysis runner set them all
JOB_VARS = {"FLAGCHECK_ENGINE", "VARIANT", "NUMJOBS", "RUNTIME", "SIZE",
            "FILENAME", "BACKEND"}
RUN_VARS = JOB_VARS | {"FLAGCHECK_STATS"}
VARIANTS = ("always", "test_first")
# the variants (VARIANT values) of a job file whose variant has its own names
JOB_VARIANTS = {S4: ("before", "always", "test_first"), S5: ("on", "off")}
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
    env = dict(env, FIO=ctx.fio, FLAGCHECK_ENGINE=ctx.engine,
               FLAGCHECK_STATS=stats)
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


def job_variants(job):
    return JOB_VARIANTS.get(job, VARIANTS)


def section_args(job):
    return [f"--section={s}" for s in SECTIONS.get(job, ())]


def check_run(p, stats, job, variant, numjobs, backend):
    what = f"{os.path.basename(job)} VARIANT={variant} BACKEND={backend}"
    assert p.returncode == 0, f"{what}: exit {p.returncode}\n{p.stderr}"
    out = load_fio_json(p.stdout)
    groups = len(SECTIONS.get(job, ())) or 1
    assert len(out["jobs"]) == groups, \
        f"{what}: group_reporting gives one entry per section"
    assert all(j["error"] == 0 for j in out["jobs"]), f"{what}: {out['jobs']}"
    assert len(stats) == numjobs * groups, f"{what}: {len(stats)} stats lines"
    assert {s["variant"] for s in stats} == {variant}, what
    assert {s["backend"] for s in stats} == {backend}, what
    ios = sum(s["ios"] for s in stats)
    fio_ios = sum(j[d]["total_ios"] for j in out["jobs"]
                  for d in ("read", "write", "trim", "sync") if d in j)
    assert ios == fio_ios > 0, f"{what}: engine {ios} vs fio {fio_ios} I/Os"
    if job == S1:
        assert {s["model"] for s in stats} == {"filemap_check_errors"}, what
        rmw = sum(s["rmw"] for s in stats)
        want = 2 * ios if variant == "always" else 0
        assert rmw == want, f"{what}: {rmw / ios:.3f} RMWs/io"
    elif job == S2:
        assert {s["model"] for s in stats} == {"block_commit_write"}, what
        assert {s["options"]["variant"] for s in stats} == {variant}, what
        assert {s["options"]["page_size"] for s in stats} == {"64k"}, what
        new = sum(s["paths"]["clear_buffer_new"]["rmw"] for s in stats)
        rmw = sum(s["rmw"] for s in stats)
        if variant == "always":
            assert new == S2_HEADS * ios, \
                f"{what}: {new / ios:.3f} clear_buffer_new RMWs/io, not 16"
        else:
            # every head is new once (racing first commits may both clear)
            assert 0 < new <= 2 * S2_HEADS * S2_PAGES, f"{what}: {new}"
            assert rmw / ios < 0.5, f"{what}: {rmw / ios:.3f} RMWs/io"
    elif job in FAMILY_CHECKS:
        FAMILY_CHECKS[job](what, stats, variant, ios)
    return ios


def check_s3(what, stats, variant, ios):
    assert {s["model"] for s in stats} == {"set_buffer_verified"}, what
    rmw = sum(s["paths"]["set_buffer_verified"]["rmw"] for s in stats)
    if variant == "always":
        assert rmw == 2 * ios, f"{what}: {rmw / ios:.3f} RMWs/io, not 2"
    else:       # the first cycle sets the bit; racing first ones may both
        assert 1 <= rmw <= len(stats), f"{what}: {rmw} RMWs"


def check_s4(what, stats, variant, ios):
    assert {s["model"] for s in stats} == {"set_buffer_uptodate"}, what
    assert {s["options"]["metadata_bhs"] for s in stats} == {3}, what
    rmw = sum(s["paths"]["set_buffer_uptodate"]["rmw"] for s in stats)
    mb = sum(s["model_stats"]["smp_mb__before_atomic"] for s in stats)
    if variant == "always":
        assert rmw == mb == 3 * ios, f"{what}: {rmw / ios:.3f} RMWs/io"
    else:       # one per buffer, or a few more when first calls race
        assert 3 <= rmw <= 3 * len(stats), f"{what}: {rmw} RMWs"
        assert mb == (rmw if variant == "test_first" else 0), f"{what}: {mb}"


def check_s5(what, stats, variant, ios):
    assert {s["model"] for s in stats} == {"bh_lru"}, what
    for s in stats:
        st, mod = s["model_stats"], s["options"]["mod"]
        assert st["lookups"] == s["ios"] * 1000 == s["checks"], what
        assert st["hits"] + st["misses"] == st["lookups"], what
        assert st["lookup_ns"] > 0, what
        depth = [st[f"hit_idx{i}"] for i in range(1, 17)]
        assert sum(depth) == st["hits"], what
        if variant == "off" or mod > 16:
            assert st["hits"] == 0, f"{what} mod={mod}: {st}"
        else:   # one miss per block, then every hit at index mod
            assert st["misses"] == mod and depth[mod - 1] == st["hits"], \
                f"{what} mod={mod}: {st}"


FAMILY_CHECKS = {S3: check_s3, S4: check_s4, S5: check_s5}
