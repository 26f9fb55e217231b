"""A resume never lies: fio ends with its runner, a directory in use is
refused, a run is redone only where its settings or job file changed,
narrower resumes keep the other runs.  Real fio (its null engine, or the
flagcheck engine on its null backend) wherever fio runs."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from tests.analysis.helpers import ANALYSIS, NULL_JOB, REPO, alive, run_cli
from tests.analysis.test_faults import Scratch, assert_one_line
from flagcheck_analysis.inputs import runrecord, runsetup


FIO = shutil.which("fio")
ENGINE = os.path.join(REPO, "build", "fio-flagcheck.so")
FIXTURE_JOB = os.path.join(REPO, "tests", "analysis", "flagcheck-fixture.fio")
QUICK = ("--variants", "always", "--numjobs", "1", "--repeats", "1",
         "--ramp", "0", "--no-line-probe", "--quiet")


def wait_for(what, seconds=20):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = what()
        if got:
            return got
        time.sleep(0.05)
    return None


def start_runner(*args):
    return subprocess.Popen(
        [sys.executable, os.path.join(ANALYSIS, "flagcheck"), "run",
         "--no-calibrate"] + list(args), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)


def fio_of(out):
    """The pid of a live fio writing its output into @out, or None."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                words = f.read().decode("utf-8", "replace").split("\0")
        except OSError:
            continue
        if any(w.startswith("--output=" + out + "/") for w in words) and \
                alive(int(pid)):
            return int(pid)
    return None


def lock_holder(out):
    """What the results directory's lock file says, or {}."""
    try:
        with open(os.path.join(out, "flagcheck.lock")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


# slow: real flagcheck runs, fio for whole seconds
@pytest.mark.slow
@pytest.mark.skipif(not FIO, reason="fio not installed")
class TestFioDiesWithItsRunner(Scratch):
    """item 1: fio never outlives flagcheck run; a directory in use is
    refused; a run whose counters another fio wrote into is not done"""

    def start(self, request, runtime="30", job=NULL_JOB, *more):
        p = start_runner(job, *QUICK, "--runtime", runtime,
                         "--outdir", self.out, *more)
        request.addfinalizer(lambda: p.poll() is None and p.kill())
        fio = wait_for(lambda: fio_of(self.out))
        assert fio is not None, "fio did not start"
        request.addfinalizer(lambda: alive(fio) and
                             os.kill(fio, signal.SIGKILL))
        return p, fio

    def test_sigkill_of_the_runner_ends_fio(self, request):
        p, fio = self.start(request)
        p.kill()
        p.wait()
        # fio runs 30 s: ended within 5 s, it was stopped
        assert wait_for(lambda: not alive(fio), 5), \
            "fio (pid %d) outlived flagcheck run" % fio
        again = run_cli("run", NULL_JOB, *QUICK, "--runtime", "1",
                        "--outdir", self.out)
        assert again.returncode == 0, again.stderr
        runs = [e for e in self.manifest()["runs"]]
        assert [e["status"] for e in runs] == ["ok"]

    def test_a_directory_in_use_is_refused(self, request):
        p, fio = self.start(request)
        assert wait_for(lambda: lock_holder(self.out).get("fio")) == fio
        again = run_cli("run", NULL_JOB, *QUICK, "--runtime", "1",
                        "--outdir", self.out)
        assert again.returncode == 1, again.stderr
        assert ("--outdir %s: in use by another flagcheck run"
                % self.out) in again.stderr
        assert "kill %d %d" % (p.pid, fio) in again.stderr
        p.kill()
        p.wait()

    @pytest.mark.skipif(not os.path.exists(ENGINE),
                        reason="engine not built (make)")
    def test_counters_written_by_two_fio_are_not_done(self, request):
        env = dict(os.environ, FLAGCHECK_ENGINE=ENGINE, BACKEND="null",
                   FILENAME="flagcheck-null", SIZE="1g", RUNTIME="1",
                   VARIANT="always", NUMJOBS="1")
        p, _ = self.start(request, "4", FIXTURE_JOB)
        env["FLAGCHECK_STATS"] = os.path.join(
            self.out, "flagcheck-fixture_always_nj1_r1.flagcheck.jsonl")
        # a second fio on the same counters file, as an orphan would be
        other = subprocess.run([FIO, "--output-format=json", FIXTURE_JOB],
                               env=env, capture_output=True, timeout=60)
        assert other.returncode == 0, other.stderr
        out, err = p.communicate(timeout=60)
        assert p.returncode == 1, err
        assert "the engine counted" in err
        entry = self.manifest()["runs"][0]
        assert entry["status"] == "failed"
        assert not os.path.exists(os.path.join(
            self.out, "flagcheck-fixture_always_nj1_r1.json"))

    def manifest(self):
        with open(os.path.join(self.out, "manifest.json")) as f:
            return json.load(f)


# slow: real flagcheck runs, fio for whole seconds
@pytest.mark.slow
@pytest.mark.skipif(not FIO, reason="fio not installed")
class TestResumeWithOtherSettings(Scratch):
    """item 3: every setting that changes what a run measures is recorded
    per run; resuming with another is refused naming the flag that
    matches; so is one after the job file or an include was edited
    (issue 49 item 7)"""

    def first(self, *more, job=NULL_JOB):
        p = run_cli("run", job, *QUICK, "--runtime", "1",
                    "--outdir", self.out, *more, timeout=120)
        assert p.returncode == 0, p.stderr

    def refused(self, flag, given, phrase, *more):
        p = run_cli("run", NULL_JOB, "--variants", "always",
                    "--numjobs", "1", "--repeats", "2", "--no-line-probe",
                    "--outdir", self.out, "--dry-run", *more)
        line = assert_one_line(p, "has runs made with", rc=2)
        assert "%s: %s has runs made with %s" % (flag, self.out,
                                                 given) in line
        assert ": %s to resume it" % phrase in line

    def test_each_setting_is_recorded_per_run(self):
        self.first()
        run = json.load(open(os.path.join(self.out, "manifest.json")))[
            "runs"][0]
        assert run["settings"]["ramp_s"] == 0
        assert run["settings"]["vars"]["RUNTIME"] == "1"
        assert len(run["job_sha256"]) == 64

    def test_no_pin_on_a_pinned_directory(self):
        self.first()
        self.refused("--no-pin", "pinned jobs", "leave out --no-pin",
                     "--runtime", "1", "--ramp", "0", "--no-pin")

    def test_other_runtime_and_ramp(self):
        self.first()
        self.refused("--ramp", "a warm-up of 0 s", "give --ramp 0",
                     "--runtime", "2", "--ramp", "1")
        self.refused("--runtime", "RUNTIME=1", "give --runtime 1",
                     "--runtime", "2", "--ramp", "0")
        self.refused("--set", "SIZE=1g", "give --set SIZE=1g",
                     "--runtime", "1", "--ramp", "0", "--set", "SIZE=2g")

    def test_same_settings_resume(self):
        self.first()
        p = run_cli("run", NULL_JOB, *QUICK, "--runtime", "1",
                    "--outdir", self.out, "--repeats", "2", timeout=120)
        assert p.returncode == 0, p.stderr

    def test_an_edited_job_file_is_refused(self):
        job, inc = self.path("edited.fio"), self.path("edited-inc.fio")
        with open(NULL_JOB) as f:
            text = f.read()
        with open(job, "w") as f:
            f.write(text.replace("bs=4k", "include edited-inc.fio"))
        with open(inc, "w") as f:
            f.write("bs=4k\n")
        self.first(job=job)
        before = runrecord.job_sha256(job)
        for path, old, new in ((inc, "bs=4k", "bs=64k"),
                               (job, "[", "; edited\n[")):
            with open(path) as f:
                text = f.read()
            with open(path, "w") as f:
                f.write(text.replace(old, new, 1))
            p = run_cli("run", job, *QUICK, "--runtime", "1", "--outdir",
                        self.out, "--repeats", "2", "--dry-run")
            line = assert_one_line(p, "has runs made with", rc=2)
            assert line == (
                "flagcheck run: error: %s: %s has runs made with a job file "
                "of sha256 %s (edited_always_nj1_r1), this command would use "
                "one of sha256 %s: restore the job file they were made with "
                "to resume it, or another --outdir" % (
                    job, self.out, before[:12],
                    runrecord.job_sha256(job)[:12]))


# slow: real flagcheck runs, fio for whole seconds
@pytest.mark.slow
class TestResumeByContent(Scratch):
    """A finished run is resumed only where its fio JSON is the one
    recorded under its name (its SHA-256): a copy of another run, or a file
    swapped in, is refused in one line and left as it is."""

    def test_a_copy_of_another_run_is_refused(self):
        p = run_cli("run", NULL_JOB, *QUICK, "--runtime", "1", "--repeats",
                    "2", "--outdir", self.out, timeout=120)
        assert p.returncode == 0, p.stderr
        r1, r2 = (self.path("results", "null-engine_always_nj1_r%d.json" % i)
                  for i in (1, 2))
        shutil.copy(r1, r2)
        with open(r2, "rb") as f:
            copied = f.read()
        p = run_cli("run", NULL_JOB, *QUICK, "--runtime", "1", "--repeats",
                    "2", "--outdir", self.out, timeout=120)
        line = assert_one_line(p, "not the run recorded as", rc=1)
        assert line.startswith("flagcheck run: %s: not the run recorded as "
                               "null-engine_always_nj1_r2 (its sha256 %s, "
                               "recorded " % (r2, runsetup.file_sha256(r1)[
                                   :12])), line
        assert line.endswith("a copy or another run's output; move its "
                             "files (null-engine_always_nj1_r2.*) away to "
                             "run it again, or use another --outdir"), line
        with open(r2, "rb") as f:
            assert f.read() == copied


# slow: real flagcheck runs, fio for whole seconds
@pytest.mark.slow
@pytest.mark.skipif(not FIO, reason="fio not installed")
class TestNarrowerResume(Scratch):
    """item 4: a resume with fewer numjobs keeps the other runs' records"""

    def run_nj(self, numjobs):
        p = run_cli("run", NULL_JOB, "--variants", "always",
                    "--numjobs", numjobs, "--repeats", "1", "--ramp", "0",
                    "--runtime", "1", "--no-line-probe", "--quiet",
                    "--outdir", self.out, timeout=120)
        assert p.returncode == 0, p.stderr
        with open(os.path.join(self.out, "manifest.json")) as f:
            return {e["name"]: e for e in json.load(f)["runs"]}

    def test_the_other_runs_keep_their_record(self):
        first = self.run_nj("1,2")["null-engine_always_nj2_r1"]
        assert "placement" in first
        narrow = self.run_nj("1")
        assert sorted(narrow) == ["null-engine_always_nj1_r1",
                                  "null-engine_always_nj2_r1"]
        again = self.run_nj("1,2")["null-engine_always_nj2_r1"]
        for key in ("command", "placement", "interference", "settings",
                    "started", "rc"):
            assert again[key] == first[key], key


class TestDuplicateValues(Scratch):
    """item 5: a value given twice in --numjobs or --variants is refused"""

    def test_refused_with_exit_2(self):
        for option, value, dup in (("--numjobs", "1,1", "1"),
                                   ("--numjobs", "1,2,1", "1"),
                                   ("--variants", "always,always", "always")):
            p = run_cli("run", NULL_JOB, option, value,
                        "--outdir", self.out, "--dry-run")
            assert_one_line(p, "argument %s: %r: %s given twice"
                            % (option, value, dup), rc=2)
            assert not os.path.exists(self.out)
