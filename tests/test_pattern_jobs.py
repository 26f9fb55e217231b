"""The five scenarios written as patterns (jobs/pattern/), under the real fio.

Each pattern job file runs through jobs/run-job in both variants with its
counters checked against fio's own I/O count, keeps the job files'
conventions (its source cited, every variable taken), and gives exactly
the RMWs of the C model it mirrors: the same job shape, the same number of
I/Os (time_based taken out, `loops` in), both variants, RMWs compared per
fio I/O and in total.
"""
import glob
import os

import pytest

from jobrun import JOBS, clean_env, load_fio_json, run_job
# the job files' own header and variable checks, run on these files too
from test_engine_jobs import \
    test_job_file_names_its_source_and_takes_every_var as check_header

PATTERN_JOBS = sorted(glob.glob(os.path.join(JOBS, "pattern", "*.fio")))
IDS = [os.path.basename(j) for j in PATTERN_JOBS]
VARIANTS = ("always", "test_first")
LOOPS = 200                     # of SIZE=64k at bs=4k: 3200 I/Os a job


def c_rmw_s2(s):
    """S2's pattern is the clear_buffer_new() path of the C model."""
    return s["paths"]["clear_buffer_new"]["rmw"]


def total_rmw(s):
    return s["rmw"]


# pattern file -> (its C model's job file, the C file's variant for each
# variant, the C model's RMWs the pattern mirrors, the section to run)
MIRRORS = {
    "s1-filemap-odirect-read.fio": ("filemap-odirect-read.fio", {},
                                    total_rmw, None),
    "s2-buffer-new-randwrite.fio": ("buffer-new-randwrite.fio", {},
                                    c_rmw_s2, None),
    "s3-aim7-creat-clo.fio": ("aim7-creat-clo.fio", {}, total_rmw, None),
    "s4-fxmark-dwtl-uptodate.fio": ("fxmark-dwtl-uptodate.fio", {},
                                    total_rmw, None),
    "s5-bh-lru-lookup.fio": ("bh-lru-lookup.fio",
                             {"always": "off", "test_first": "on"},
                             total_rmw, "mod1"),
}


def test_every_pattern_job_mirrors_a_c_model():
    assert IDS == sorted(MIRRORS), "a pattern job file without its C model"


@pytest.mark.parametrize("path", PATTERN_JOBS, ids=IDS)
def test_pattern_job_names_its_source_and_takes_every_var(path):
    check_header(path)
    with open(path) as f:
        text = f.read()
    assert "model=pattern" in text and "variant=${VARIANT}" in text
    assert "cannot express" in text, "the header says what it leaves out"
    assert MIRRORS[os.path.basename(path)][0] in text, "cites its C model"


def counted(p, stats, what):
    """fio's I/O count, checked against the engine's, and the records."""
    assert p.returncode == 0, f"{what}: exit {p.returncode}\n{p.stderr}"
    out = load_fio_json(p.stdout)
    assert all(j["error"] == 0 for j in out["jobs"]), what
    fio = sum(j[d]["total_ios"] for j in out["jobs"]
              for d in ("read", "write", "trim", "sync") if d in j)
    assert sum(s["ios"] for s in stats) == fio > 0, what
    return fio


# slow: a job file through run-job for its RUNTIME
@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("path", PATTERN_JOBS, ids=IDS)
def test_pattern_job_runs_through_run_job(ctx, path, variant):
    section = MIRRORS[os.path.basename(path)][3]
    p, stats = run_job(ctx, path, clean_env(
        VARIANT=variant, NUMJOBS=2, RUNTIME=1, SIZE="64m"),
        [f"--section={section}"] if section else [])
    ios = counted(p, stats, f"{os.path.basename(path)} {variant}")
    assert len(stats) == 2
    assert {s["model"] for s in stats} == {"pattern"}
    assert {s["variant"] for s in stats} == {variant}
    assert sum(s["checks"] for s in stats) == ios


def counted_shape(ctx, path):
    """The job file with a fixed number of I/Os: no time_based nor
    runtime, LOOPS passes over SIZE, so both files of a pair do the same
    I/Os."""
    with open(path) as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        if line.strip() == "time_based" or line.startswith("runtime="):
            continue
        out.append(line)
        if line.strip() == "[global]":
            out.append(f"loops={LOOPS}")
    copy = os.path.join(ctx.tmp, "shape-" + os.path.basename(path))
    with open(copy, "w") as f:
        f.write("\n".join(out) + "\n")
    return copy


# slow: job files under the real fio, both models
@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("path", PATTERN_JOBS, ids=IDS)
def test_pattern_gives_its_c_models_rmws(ctx, path, variant):
    """One job (the first calls of two jobs may race and both run the
    RMW), 64k: one page of S2's, the same I/Os for both files."""
    name = os.path.basename(path)
    c_file, c_variants, c_rmw, section = MIRRORS[name]
    args = [f"--section={section}"] if section else []
    env = dict(NUMJOBS=1, RUNTIME=1, SIZE="64k")
    runs = {}
    for kind, job, its in (("pattern", path, variant),
                           ("c", os.path.join(JOBS, c_file),
                            c_variants.get(variant, variant))):
        shaped = counted_shape(ctx, job)
        try:
            p, stats = run_job(ctx, shaped, clean_env(VARIANT=its, **env),
                               args)
        finally:
            os.unlink(shaped)
        ios = counted(p, stats, f"{name} {kind} {its}")
        (s,) = stats
        runs[kind] = (ios, total_rmw(s) if kind == "pattern" else c_rmw(s))
    (p_ios, p_rmw), (c_ios, c_rmw_) = runs["pattern"], runs["c"]
    assert p_ios == c_ios == 16 * LOOPS, runs
    assert p_rmw == c_rmw_, \
        f"{name} {variant}: pattern {p_rmw / p_ios:.4f} RMWs/io, " \
        f"C model {c_rmw_ / c_ios:.4f}"


# S2's twin on the C model's own job: the file flagcheck run writes (1g,
# 16384 pages of 64K), random 4k writes at fio's fixed seed, so both files
# write the same offsets
S2_TWIN = os.path.join(JOBS, "pattern", "s2-buffer-new-randwrite.fio")
S2_C = os.path.join(JOBS, "buffer-new-randwrite.fio")
S2_IOS = 20000
S2_PAGE = 65536


def s2_shaped(ctx, path, tail, extra=()):
    """@path with a fixed number of I/Os and seed, no time_based, and
    @tail (job sections) in place of its own [randwrite] section."""
    with open(path) as f:
        text = f.read()
    body, _ = text.split("\n[randwrite]", 1)
    out = []
    for line in body.splitlines():
        if line.strip() == "time_based" or line.startswith("runtime="):
            continue
        out.append(line)
        if line.strip() == "[global]":
            out += [f"number_ios={S2_IOS}", "randseed=7"] + list(extra)
    copy = os.path.join(ctx.tmp, "s2-" + os.path.basename(path))
    with open(copy, "w") as f:
        f.write("\n".join(out) + "\n" + tail)
    return copy


def s2_run(ctx, path, variant, tail, numjobs, log=None):
    """{thread_number: (ios, the twin's RMWs or the C model's
    clear_buffer_new RMWs, the C model's set_buffer_uptodate RMWs)}"""
    shaped = s2_shaped(ctx, path, tail)
    args = [f"--write_iolog={log}"] if log else []
    try:
        p, stats = run_job(ctx, shaped, clean_env(
            VARIANT=variant, NUMJOBS=numjobs, SIZE="1g"), args)
    finally:
        os.unlink(shaped)
    counted(p, stats, f"{os.path.basename(path)} {variant}")
    c = "clear_buffer_new" in stats[0]["paths"]
    return {s["thread_number"]: (
        s["ios"], c_rmw_s2(s) if c else total_rmw(s),
        s["paths"]["set_buffer_uptodate"]["rmw"] if c else None)
        for s in stats}


def logged(log, unit):
    """The distinct offset // @unit that fio's write_iolog (v3: time, file,
    action, offset, length) recorded writes at: fio's own record."""
    seen = set()
    with open(log) as f:
        for line in f:
            x = line.split()
            if len(x) == 5 and x[2] == "write":
                seen.add(int(x[3]) // unit)
    return seen


# slow: job files under the real fio
@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_s2_twin_commits_the_page_of_each_write(ctx, variant):
    """One job on the same 20000 offsets: the twin's RMWs are the C model's
    clear_buffer_new RMWs exactly, 16 a write in always, 16 per page first
    written in test_first, the pages counted from fio's own I/O log; the C
    model's set_buffer_uptodate (what the twin leaves out) runs once per 4k
    block first written."""
    log = os.path.join(ctx.tmp, f"s2-{variant}.iolog")
    twin = s2_run(ctx, S2_TWIN, variant, "[randwrite]\n", 1, log)
    pages, blocks = logged(log, S2_PAGE), logged(log, 4096)
    os.unlink(log)
    c = s2_run(ctx, S2_C, variant, "[randwrite]\n", 1)
    ((ios, rmw, _),), ((c_ios, c_rmw, c_uptodate),) = twin.values(), \
        c.values()
    assert ios == c_ios == S2_IOS
    assert rmw == c_rmw == (16 * S2_IOS if variant == "always"
                            else 16 * len(pages)), (variant, len(pages))
    assert c_uptodate == len(blocks)
    assert len(pages) < S2_IOS < 16384 * 2, "the writes spread over pages"


# slow: job files under the real fio
@pytest.mark.slow
def test_s2_twin_shares_a_page_only_when_two_jobs_meet_on_it(ctx):
    """Two jobs on halves of the file (the upper half first, so its job
    makes the state for the whole file): no page is written by both, so in
    test_first each job clears the 16 new heads of each of its own pages
    (fio's log of each job), the twin exactly as the C model, job by job.
    A twin that put every job on one page (the heads shared by all) gives
    the second job none."""
    logs = {1: os.path.join(ctx.tmp, "s2-hi.iolog"),
            2: os.path.join(ctx.tmp, "s2-lo.iolog")}
    tail = (f"[hi]\noffset=512m\nsize=512m\nwrite_iolog={logs[1]}\n"
            f"[lo]\nstonewall\noffset=0\nsize=512m\nwrite_iolog={logs[2]}\n")
    twin = s2_run(ctx, S2_TWIN, "test_first", tail, 1)
    pages = {job: logged(log, S2_PAGE) for job, log in logs.items()}
    c = s2_run(ctx, S2_C, "test_first", tail, 1)
    for log in logs.values():
        os.unlink(log)
    assert min(pages[1]) >= 8192 > max(pages[2]), "the halves"
    assert sorted(twin) == sorted(c) == [1, 2]
    for job in (1, 2):
        ios, rmw, _ = twin[job]
        assert ios == c[job][0] == S2_IOS
        assert rmw == c[job][1] == 16 * len(pages[job]), (job, twin, c)
