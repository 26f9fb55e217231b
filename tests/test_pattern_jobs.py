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


# pattern file -> (its C model's job file, the C file's mode for each
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


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("path", PATTERN_JOBS, ids=IDS)
def test_pattern_gives_its_c_models_rmws(ctx, path, variant):
    """One job (the first calls of two jobs may race and both run the
    RMW), 64k: one page of S2's, the same I/Os for both files."""
    name = os.path.basename(path)
    c_file, c_modes, c_rmw, section = MIRRORS[name]
    args = [f"--section={section}"] if section else []
    env = dict(NUMJOBS=1, RUNTIME=1, SIZE="64k")
    runs = {}
    for kind, job, mode in (("pattern", path, variant),
                            ("c", os.path.join(JOBS, c_file),
                             c_modes.get(variant, variant))):
        shaped = counted_shape(ctx, job)
        try:
            p, stats = run_job(ctx, shaped, clean_env(VARIANT=mode, **env),
                               args)
        finally:
            os.unlink(shaped)
        ios = counted(p, stats, f"{name} {kind} {mode}")
        (s,) = stats
        runs[kind] = (ios, total_rmw(s) if kind == "pattern" else c_rmw(s))
    (p_ios, p_rmw), (c_ios, c_rmw_) = runs["pattern"], runs["c"]
    assert p_ios == c_ios == 16 * LOOPS, runs
    assert p_rmw == c_rmw_, \
        f"{name} {variant}: pattern {p_rmw / p_ios:.4f} RMWs/io, " \
        f"C model {c_rmw_ / c_ios:.4f}"
