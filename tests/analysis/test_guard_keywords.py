"""fio's keywords ($ncpus, $pagesize, $mb_memory) and the counters file
past the device guard: jobs/run-job and flagcheck run judge a value after
fio's own replacement, and every path the engine writes, against a scratch
loop device whose SHA-256 is the same before and after."""

import hashlib
import os
import shutil
import subprocess
import tempfile

import pytest

from tests.analysis.helpers import ENGINE, FIO, REPO, loop_device, message, \
    run_cli
from flagcheck_analysis.inputs import jobfile
from flagcheck_analysis.guard import jobguard

RUN_JOB = os.path.join(REPO, "jobs", "run-job")
S1 = os.path.join(REPO, "jobs", "filemap-odirect-read.fio")      # reads
S2 = os.path.join(REPO, "jobs", "buffer-new-randwrite.fio")     # writes
NCPUS = str(os.sysconf("SC_NPROCESSORS_CONF"))
PAGESIZE = str(os.sysconf("SC_PAGESIZE"))


class TestReplace:
    def test_values_as_fio_replaces_them(self):
        v = jobfile.keyword_values()
        assert v["$ncpus"] == NCPUS and v["$pagesize"] == PAGESIZE
        assert v["$mb_memory"] == str(os.sysconf("SC_PHYS_PAGES") *
                                      int(PAGESIZE) // 2**20)

    def test_plain_math_and_quoted(self):
        assert jobfile.replace_keywords("d$ncpus") == ("d" + NCPUS,
                                                       "keyword")
        assert jobfile.replace_keywords("d/$ncpus") == ("d/" + NCPUS, "bc")
        assert jobfile.replace_keywords("'d-$ncpus'") == (
            "'d-%s'" % NCPUS, "keyword")
        assert jobfile.replace_keywords("d$nothing") == ("d$nothing", "")

    def test_read_gives_the_replaced_value(self, tmp_path):
        job = tmp_path / "j.fio"
        job.write_text("[j]\nfilename=${F}\nnumjobs=$ncpus\n")
        _, opts = jobfile.read(str(job), {"F": "x$pagesize"})
        got = {o.key: (o.value, o.keyword) for o in opts}
        assert got == {"filename": ("x" + PAGESIZE, "keyword"),
                       "numjobs": (NCPUS, "keyword")}

    def test_math_on_a_watched_value_is_refused(self, tmp_path):
        job = tmp_path / "j.fio"
        job.write_text("[j]\nrw=write\nfilename=/tmp/d$ncpus\n")
        with pytest.raises(jobguard.Refused) as e:
            jobguard.check_devices(str(job), {})
        assert "computes the value with bc" in str(e.value)

    def test_a_server_replaces_keywords_with_its_own(self, tmp_path):
        job = tmp_path / "j.fio"
        job.write_text("[j]\nrw=write\nfilename=d$ncpus\n")
        with pytest.raises(jobguard.Refused) as e:
            jobguard.check_devices(str(job), {}, remote=True)
        assert "its own value" in str(e.value)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@pytest.fixture
def scratch():
    """A directory holding `d<ncpus>` and `d<pagesize>`, links to a
    scratch loop device, whose SHA-256 must be the same after the test."""
    d = tempfile.mkdtemp()
    try:
        with loop_device(os.path.join(d, "back.img"), 1 << 20) as dev:
            for n in (NCPUS, PAGESIZE):
                os.symlink(dev, os.path.join(d, "d" + n))
            before = sha256(dev)
            yield d, dev
            assert sha256(dev) == before, "the loop device was written"
    finally:
        shutil.rmtree(d)


needs_fio = pytest.mark.skipif(not (FIO and os.path.exists(ENGINE)),
                               reason="needs fio and the built engine")


def run_job(cwd, job, *args, **env):
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("FLAGCHECK_") and k not in (
                "FILENAME", "BACKEND", "VARIANT")}
    base.update(FIO=FIO, FLAGCHECK_ENGINE=ENGINE, RUNTIME="1", NUMJOBS="1",
                SIZE="1m", FLAGCHECK_NUMA="off",
                FLAGCHECK_STATS=os.path.join(cwd, "stats.jsonl"))
    base.update(env)
    return subprocess.run([RUN_JOB, job] + list(args), cwd=cwd, env=base,
                          capture_output=True, text=True, timeout=60)


def refused(p, what):
    assert p.returncode == 2, p.stderr
    assert what in message(p.stderr), p.stderr
    assert "run-job: VARIANT=" not in p.stderr     # fio not started


@needs_fio
def test_run_job_judges_the_value_after_fio_replaces_it(scratch, tmp_path):
    d, dev = scratch
    for env in ({"FILENAME": "d$ncpus"}, {"FILENAME": "d$pagesize"}):
        refused(run_job(d, S2, BACKEND="psync", **env), "is a block device")
    job = tmp_path / "f.fio"
    job.write_text("[j]\nioengine=psync\nrw=write\nsize=1m\n"
                   "filename=${F}\n")
    refused(run_job(d, str(job), F="d$ncpus"), "is a block device")


@needs_fio
def test_run_job_filename_format_under_directory(scratch, tmp_path):
    d, dev = scratch
    job = tmp_path / "fmt.fio"
    job.write_text("[j]\nioengine=psync\nrw=write\nsize=1m\n"
                   "directory=%s\nfilename_format=d$ncpus\n" % d)
    refused(run_job(d, str(job)), "is a block device")


@needs_fio
def test_flagcheck_run_set_with_a_keyword(scratch):
    d, dev = scratch
    p = run_cli("run", "--outdir", os.path.join(d, "out"),
                "--numjobs", "1", "--repeats", "1", "--runtime", "1",
                "--set", "FILENAME=d$ncpus", "--set", "BACKEND=psync",
                "--set", "SIZE=1m", S2, cwd=d, timeout=120)
    assert p.returncode != 0, p.stdout + p.stderr
    assert "is a block device" in message(p.stderr), p.stderr


@needs_fio
def test_counters_file_on_a_device_is_refused_for_a_reading_job(scratch,
                                                                  tmp_path):
    d, dev = scratch
    p = run_job(d, S1, BACKEND="null", FLAGCHECK_STATS=dev)
    refused(p, "flagcheck_stats=%s (from flagcheck_stats=%s in %s) is a "
            "block device" % (dev, dev, S1))
    # named in the job file itself: flagcheck run checks it the same way
    with open(S1) as f:
        text = f.read().replace("flagcheck_stats=${FLAGCHECK_STATS}",
                                "flagcheck_stats=" + dev)
    job = tmp_path / "s1-stats.fio"
    job.write_text(text)
    p = run_cli("run", "--outdir", os.path.join(d, "out"),
                "--numjobs", "1", "--repeats", "1", "--runtime", "1",
                "--set", "BACKEND=null", str(job), cwd=d, timeout=120)
    assert p.returncode != 0 and "block device" in message(p.stderr), \
        p.stderr


@needs_fio
def test_fio_output_on_a_device_is_refused(scratch):
    d, dev = scratch
    refused(run_job(d, S1, "--output=" + dev, BACKEND="null"),
            "--output=%s" % dev)
