"""The buffer_head family under the real fio: S3's real creat/close/unlink
cycles in a directory of the job's own, S4's three columns in one
stats file, the string option and the per-model counters (model_stats) in
the stats file and in fio's text output. The job files' own runs are in
test_engine_jobs.py."""
import os
import shutil
import subprocess
import tempfile

import pytest

from jobrun import S3, check_run, clean_env, run_job


# slow: a job file through run-job for its RUNTIME
@pytest.mark.slow
def test_s3_real_cycles_in_a_directory_of_their_own(ctx):
    d = tempfile.mkdtemp(prefix="creat-", dir=ctx.tmp)
    try:
        p, stats = run_job(ctx, S3, clean_env(
            VARIANT="always", NUMJOBS=2, RUNTIME=1, SIZE="16m",
            CREAT_DIR=d))
        ios = check_run(p, stats, S3, "always", 2, "null")
        for s in stats:
            assert s["options"]["creat_dir"] == d, s["options"]
            st = s["model_stats"]
            assert st["files_created"] == st["files_unlinked"] == s["ios"], st
        assert ios > 100, f"only {ios} cycles in 1 s"
        assert os.listdir(d) == [], f"left in {d}: {os.listdir(d)}"
    finally:
        shutil.rmtree(d)


def fio_parse(ctx, *args):
    return subprocess.run(
        [ctx.fio, "--parse-only", "--name=p", f"--ioengine=external:{ctx.engine}",
         "--filename=p", "--size=1m"] + list(args),
        capture_output=True, text=True, timeout=30)


BAD_OPTIONS = (
    (["--model=set_buffer_verified", "--creat_dir=/nonexistent/x"],
     "creat_dir=/nonexistent/x: cannot create files there"),
    (["--creat_dir=" + "a" * 4200], "creat_dir is longer than 4095"),
    (["--model=bh_lru", "--mod=4097"],
     "mod=4097 is not valid: a whole number from 1 to 4096"),
    (["--model=bh_lru", "--variant=always"],
     "variant=always is not valid for model=bh_lru: allowed values are on, "
     "off"),
    # the job's model's values only, where model= came first (issue 48)
    (["--model=set_buffer_uptodate", "--variant=sometimes"],
     "variant=sometimes is not valid for model=set_buffer_uptodate: "
     "allowed values are always, test_first, before\n"),
    (["--model=pattern", "--variant=test-first"],
     "variant=test-first is not valid for model=pattern: allowed values "
     "are always, test_first\n"),
    # no model yet: every model's
    (["--variant=sometimes"],
     "variant=sometimes is not valid: allowed values are always, "
     "test_first, before, on, off"),
)


@pytest.mark.parametrize("args,msg", BAD_OPTIONS,
                         ids=[" ".join(a)[:60] for a, _ in BAD_OPTIONS])
def test_family_option_is_checked_while_parsing(ctx, args, msg):
    p = fio_parse(ctx, *args)
    assert p.returncode != 0 and msg in p.stderr, (args, p.stderr)


def test_family_option_good_creat_dir_parses(ctx):
    p = fio_parse(ctx, "--model=set_buffer_verified", "--creat_dir=" + ctx.tmp)
    assert p.returncode == 0, p.stderr


def test_model_stats_in_the_text_line(ctx):
    cwd = ctx.scratch()
    try:
        p = subprocess.run(
            [ctx.fio, "--name=t", f"--ioengine=external:{ctx.engine}",
             "--model=bh_lru", "--variant=on", "--mod=2", "--lookups_per_io=10",
             "--filename=t", "--size=1m", "--rw=read", "--number_ios=5",
             "--thread"], cwd=cwd, capture_output=True, text=True, timeout=30)
        assert p.returncode == 0, p.stderr
        line = [l for l in p.stdout.splitlines() if l.startswith("flagcheck:")]
        assert len(line) == 1, p.stdout
        assert "bh_lru variant=on" in line[0], line[0]
        for want in ("lookups=50 ", "hits=48 ", "misses=2 ", "hit_idx2=48 ",
                     "hit_idx1=0 ", "lookup_ns="):
            assert want in line[0], (want, line[0])
        assert os.listdir(cwd) == []
    finally:
        shutil.rmtree(cwd)
