"""A resume never lies and nothing is written outside the results
directory: issue 21's runner and report items.  Real fio (its null engine,
or the flagcheck engine on its null backend) wherever fio runs."""

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
from flagcheck_analysis.calibrate import calibration
from flagcheck_analysis.results import fiojson, manifest
from flagcheck_analysis.run import lineprobe

FIO = shutil.which("fio")
ENGINE = os.path.join(REPO, "build", "fio-flagcheck.so")
FIXTURE_JOB = os.path.join(REPO, "tests", "analysis", "flagcheck-fixture.fio")
QUICK = ("--modes", "always", "--numjobs", "1", "--repeats", "1",
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
        [sys.executable, os.path.join(ANALYSIS, "flagcheck-run"),
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
        with open(os.path.join(out, "flagcheck-run.lock")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


@pytest.mark.skipif(not FIO, reason="fio not installed")
class TestFioDiesWithItsRunner(Scratch):
    """item 1: fio never outlives flagcheck-run; a directory in use is
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
            "fio (pid %d) outlived flagcheck-run" % fio
        again = run_cli("flagcheck-run", NULL_JOB, *QUICK, "--runtime", "1",
                        "--outdir", self.out)
        assert again.returncode == 0, again.stderr
        runs = [e for e in self.manifest()["runs"]]
        assert [e["status"] for e in runs] == ["ok"]

    def test_a_directory_in_use_is_refused(self, request):
        p, fio = self.start(request)
        assert wait_for(lambda: lock_holder(self.out).get("fio")) == fio
        again = run_cli("flagcheck-run", NULL_JOB, *QUICK, "--runtime", "1",
                        "--outdir", self.out)
        assert again.returncode == 1, again.stderr
        assert ("--outdir %s: in use by another flagcheck-run"
                % self.out) in again.stderr
        assert "kill %d %d" % (p.pid, fio) in again.stderr
        p.kill()
        p.wait()

    @pytest.mark.skipif(not os.path.exists(ENGINE),
                        reason="engine not built (make)")
    def test_counters_written_by_two_fio_are_not_done(self, request):
        env = dict(os.environ, FLAGCHECK_ENGINE=ENGINE, BACKEND="null",
                   FILENAME="flagcheck-null", SIZE="1g", RUNTIME="1",
                   FLAG_CHECK="always", NUMJOBS="1")
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


@pytest.mark.skipif(not FIO, reason="fio not installed")
class TestResumeWithOtherSettings(Scratch):
    """item 3: every setting that changes what a run measures is recorded
    per run; resuming with another is refused naming the flag that
    matches; runs of an edited job file are reported apart"""

    def first(self, *more, job=NULL_JOB):
        p = run_cli("flagcheck-run", job, *QUICK, "--runtime", "1",
                    "--outdir", self.out, *more, timeout=120)
        assert p.returncode == 0, p.stderr

    def refused(self, flag, given, phrase, *more):
        p = run_cli("flagcheck-run", NULL_JOB, "--modes", "always",
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
        p = run_cli("flagcheck-run", NULL_JOB, *QUICK, "--runtime", "1",
                    "--outdir", self.out, "--repeats", "2", timeout=120)
        assert p.returncode == 0, p.stderr

    def test_an_edited_job_file_is_reported_apart(self):
        job = self.path("edited.fio")
        shutil.copy(NULL_JOB, job)
        self.first(job=job)
        with open(job) as f:
            text = f.read()
        with open(job, "w") as f:
            f.write(text.replace("bs=4k", "bs=64k"))
        p = run_cli("flagcheck-run", job, *QUICK, "--runtime", "1",
                    "--outdir", self.out, "--repeats", "2", timeout=120)
        assert p.returncode == 0, p.stderr
        p = run_cli("flagcheck-report", "--no-plot", self.out)
        assert p.returncode == 0, p.stderr
        assert "WARNING: the runs of edited differ in job file" in p.stdout


@pytest.mark.skipif(not FIO, reason="fio not installed")
class TestNarrowerResume(Scratch):
    """item 4: a resume with fewer numjobs keeps the other runs' records"""

    def run_nj(self, numjobs):
        p = run_cli("flagcheck-run", NULL_JOB, "--modes", "always",
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
    """item 5: a value given twice in --numjobs or --modes is refused"""

    def test_refused_with_exit_2(self):
        for option, value, dup in (("--numjobs", "1,1", "1"),
                                   ("--numjobs", "1,2,1", "1"),
                                   ("--modes", "always,always", "always")):
            p = run_cli("flagcheck-run", NULL_JOB, option, value,
                        "--outdir", self.out, "--dry-run")
            assert_one_line(p, "argument %s: %r: %s given twice"
                            % (option, value, dup), rc=2)
            assert not os.path.exists(self.out)


def assert_untouched(*victims):
    for v in victims:
        with open(v) as f:
            assert f.read() == "victim\n", v


class TestNoLinkFollowed(Scratch):
    """item 7: no link in a results directory is followed, no path a
    manifest names outside it is read"""

    def victim(self, name):
        path = self.path(name)
        with open(path, "w") as f:
            f.write("victim\n")
        return path

    @pytest.mark.skipif(not (FIO and os.path.exists(ENGINE)),
                        reason="needs fio and make")
    def test_runner_replaces_planted_links(self):
        os.makedirs(self.out)
        run = "flagcheck-fixture_always_nj1_r1"
        planted = ("manifest.json.tmp", run + ".json.partial",
                   run + ".flagcheck.jsonl")
        victims = [self.victim("v%d" % i) for i in range(len(planted))]
        for name, v in zip(planted, victims):
            os.symlink(v, os.path.join(self.out, name))
        p = run_cli("flagcheck-run", FIXTURE_JOB, *QUICK, "--runtime", "1",
                    "--set", "FLAGCHECK_ENGINE=" + ENGINE,
                    "--outdir", self.out, timeout=120)
        assert p.returncode == 0, p.stderr
        assert_untouched(*victims)
        assert not os.path.islink(os.path.join(
            self.out, run + ".flagcheck.jsonl"))

    def results(self):
        shutil.copytree(os.path.join(REPO, "tests", "analysis", "fixtures",
                                     "results"), self.out)
        return self.out

    def test_report_follows_no_link_out(self):
        out = self.results()
        elsewhere = self.path("elsewhere")
        os.makedirs(elsewhere)
        victim = self.victim("victim")
        os.symlink(victim, os.path.join(elsewhere, "report.md"))
        os.symlink(elsewhere, os.path.join(out, "report"))
        p = run_cli("flagcheck-report", "--no-plot", out)
        assert_one_line(p, os.path.join(out, "report"),
                        "is a symbolic link: refused", rc=1)
        assert_untouched(victim)
        # a link inside the report directory, given with --outdir
        os.unlink(os.path.join(out, "report"))
        p = run_cli("flagcheck-report", "--no-plot", "--outdir", elsewhere,
                    out)
        assert_one_line(p, "report.md is a symbolic link: refused", rc=1)
        assert_untouched(victim)

    def test_manifest_names_no_file_outside(self):
        out = self.results()
        outside = shutil.copy(os.path.join(
            out, "flagcheck-fixture_always_nj1_r1.json"), self.path("o.json"))
        path = os.path.join(out, "manifest.json")
        with open(path) as f:
            m = json.load(f)
        m["runs"] = [dict(m["runs"][0], json="../o.json"),
                     dict(m["runs"][1], json="/etc/passwd")]
        with open(path, "w") as f:
            json.dump(m, f)
        p = run_cli("flagcheck-report", "--no-plot", out)
        assert_one_line(p, "json '../o.json': not a file name in", rc=1)
        assert_one_line(p, "json '/etc/passwd': not a file name in", rc=1)
        assert "nothing to report" in p.stderr
        assert os.path.exists(outside)
        # a run file that is a link to one outside: not read either
        m["runs"] = [dict(m["runs"][0], json="planted.json")]
        with open(path, "w") as f:
            json.dump(m, f)
        os.symlink(outside, os.path.join(out, "planted.json"))
        p = run_cli("flagcheck-report", "--no-plot", out)
        assert_one_line(p, "planted.json: a symbolic link (refused", rc=1)


FIXTURE_RESULTS = os.path.join(REPO, "tests", "analysis", "fixtures",
                               "results")
WHY_CAL = os.path.join(REPO, "tests", "analysis", "fixtures", "why",
                       "calibration.json")


def edited(doc, path, value):
    """A copy of doc with the field at path (keys and indexes) set."""
    doc = json.loads(json.dumps(doc))
    obj = doc
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value
    return doc


class TestHandEditedFiles(Scratch):
    """item 12: every field read from manifest.json and calibration.json
    is validated: one line naming the file, the field and the value"""

    MANIFEST = (
        (("runs", 0, "scenario"), None, "runs[0].scenario is null"),
        (("runs", 0, "mode"), 5, "runs[0].mode is 5"),
        (("runs", 0, "numjobs"), "x", 'runs[0].numjobs is "x"'),
        (("conditions",), "s", 'conditions is "s": want an object'),
        (("host",), "s", 'host is "s"'),
        (("matrix",), "s", 'matrix is "s"'),
        (("matrix", "modes"), [1], "matrix.modes[0] is 1"),
        (("runs", 0, "placement"), "s", 'runs[0].placement is "s"'),
        (("runs", 0, "interference"), "s", 'runs[0].interference is "s"'),
        (("runs", 0, "interference"), {"busy": "yes"},
         'runs[0].interference.busy is "yes": want true or false'),
        (("runs", 0, "line_probe"), {"cpus": [0, 1], "before_ns": "x"},
         'runs[0].line_probe.before_ns is "x": want a finite number'),
        (("runs", 0, "hosts"), {"a": {"status": 1}},
         "runs[0].hosts.a.status is 1"),
        (("cells",), [{"decisions": "x"}], 'cells[0].decisions is "x"'),
        (("cells",), [5], "cells[0] is 5"),
    )

    def manifest_doc(self):
        with open(os.path.join(FIXTURE_RESULTS, "manifest.json")) as f:
            return json.load(f)

    def test_manifest_fields(self):
        doc = self.manifest_doc()
        path = self.path("manifest.json")
        for where, value, needle in self.MANIFEST:
            with open(path, "w") as f:
                json.dump(edited(doc, where, value), f)
            with pytest.raises(fiojson.InputError) as cm:
                manifest.load(path)
            assert path + ": " + needle in str(cm.value)
        del doc["runs"][0]["mode"]
        with open(path, "w") as f:
            json.dump(doc, f)
        with pytest.raises(fiojson.InputError) as cm:
            manifest.load(path)
        assert "runs[0].mode is missing: want a string" in str(cm.value)

    def test_report_says_it_in_one_line(self):
        shutil.copytree(FIXTURE_RESULTS, self.out)
        path = os.path.join(self.out, "manifest.json")
        for where, value, needle in self.MANIFEST[:3]:
            with open(path, "w") as f:
                json.dump(edited(self.manifest_doc(), where, value), f)
            p = run_cli("flagcheck-report", "--no-plot", self.out)
            assert_one_line(p, path + ": " + needle, rc=0)

    CALIBRATION = (
        (("summary", "same_node", "median_ns"), "fast",
         'summary.same_node.median_ns is "fast"'),
        (("summary", "same_node", "median_ns"), 0,
         "summary.same_node.median_ns is 0: want a finite number > 0"),
        (("summary", "same_node", "median_ns"), None,
         "summary.same_node.median_ns is null"),
        (("summary", "same_node", "median_ns"), -100,
         "summary.same_node.median_ns is -100"),
        (("summary", "same_node", "median_ns"), float("nan"),
         "summary.same_node.median_ns is NaN"),
        (("summary", "same_node", "median_ns"), 1e308,
         "summary.same_node.median_ns is 1e+308"),
        (("summary",), [], "summary is []: want an object"),
        (("patterns", "always", 0, "ops_per_s"), 0,
         "patterns.always[0].ops_per_s is 0"),
        (("transfer_ns", 0, 1), "x", 'transfer_ns[0][1] is "x"'),
    )

    def test_calibration_fields(self):
        with open(WHY_CAL) as f:
            doc = json.load(f)
        path = self.path("calibration.json")
        for where, value, needle in self.CALIBRATION:
            with open(path, "w") as f:
                json.dump(edited(doc, where, value), f)
            with pytest.raises(calibration.CalibrationError) as cm:
                calibration.load(path)
            assert path + ": " + needle in str(cm.value)

    def test_a_bad_calibration_program_leaves_no_file(self):
        with open(WHY_CAL) as f:
            doc = edited(json.load(f), ("transfer_ns", 0, 1), "fast")
        prog = self.path("cal")
        with open(prog, "w") as f:
            f.write("#!/bin/sh\ncat <<'EOF'\n%s\nEOF\n" % json.dumps(doc))
        os.chmod(prog, 0o755)
        os.makedirs(self.out)
        said = []
        assert calibration.ensure(self.out, 0.1, prog, said.append) is None
        assert len(said) == 1, said
        assert '%s: transfer_ns[0][1] is "fast"' % prog in said[0]
        assert os.listdir(self.out) == []


class TestRunsEnd(Scratch):
    """item 10: no run goes on for ever: RUNTIME is validated, and a local
    run is stopped after --run-timeout as a run on hosts is"""

    def test_negative_runtime_refused(self):
        for value in ("-1", "0", "1.5", "abc", ""):
            p = run_cli("flagcheck-run", NULL_JOB, "--set",
                        "RUNTIME=" + value, "--outdir", self.out,
                        "--dry-run")
            assert_one_line(p, "--set RUNTIME=%s: want a whole number "
                            "of seconds, 1 or more" % value, rc=2)

    def test_run_job_refuses_it_too(self):
        p = subprocess.run([os.path.join(REPO, "jobs", "run-job"),
                            os.path.join(REPO, "jobs",
                                         "filemap-odirect-read.fio")],
                           env=dict(os.environ, RUNTIME="-1"),
                           capture_output=True, text=True, timeout=60)
        assert_one_line(p, "run-job: RUNTIME=-1: want a whole number of "
                        "seconds, 1 or more", rc=2)

    @pytest.mark.skipif(not FIO, reason="fio not installed")
    def test_a_local_run_is_stopped_after_run_timeout(self):
        t0 = time.monotonic()
        p = run_cli("flagcheck-run", NULL_JOB, *QUICK, "--runtime", "30",
                    "--run-timeout", "2", "--outdir", self.out, timeout=60)
        assert time.monotonic() - t0 < 25
        assert p.returncode == 1, p.stderr
        assert "stopped after --run-timeout 2 s: fio did not finish" in \
            p.stderr
        with open(os.path.join(self.out, "manifest.json")) as f:
            assert json.load(f)["runs"][0]["status"] == "failed"


    def test_a_job_process_that_outlives_fio_is_stopped_too(self, request):
        """fio's job processes are each in a session of their own: one that
        ignores SIGINT and SIGTERM, left by a SIGKILLed fio, would hold
        fio's stdout open for ever. Killed with fio (a stand-in here: fio
        hangs so only by a bug of its own)."""
        fio, pidfile = self.path("fio"), self.path("job.pid")
        with open(fio, "w") as f:
            f.write(STUBBORN_FIO % pidfile)
        os.chmod(fio, 0o755)
        request.addfinalizer(lambda: subprocess.run(["pkill", "-KILL", "-f",
                                                     fio]))
        t0 = time.monotonic()
        p = run_cli("flagcheck-run", NULL_JOB, *QUICK, "--fio", fio,
                    "--run-timeout", "1", "--outdir", self.out, timeout=60)
        assert time.monotonic() - t0 < 40
        assert p.returncode == 1, p.stderr
        assert "stopped after --run-timeout 1 s: fio did not finish" in \
            p.stderr
        with open(pidfile) as f:
            job = int(f.read())
        for _ in range(50):
            if not alive(job):
                break
            time.sleep(0.1)
        assert not alive(job), "the job process is left"


# a fio that ignores SIGINT, with a job process in a session of its own
# that ignores SIGINT and SIGTERM and writes its pid to the file given
STUBBORN_FIO = """#!/usr/bin/python3
import os, signal, sys, time
if "--version" in sys.argv:
    print("fio-3.33")
    sys.exit(0)
signal.signal(signal.SIGINT, signal.SIG_IGN)
if os.fork() == 0:
    os.setsid()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with open(%r, "w") as f:
        f.write(str(os.getpid()))
time.sleep(600)
"""


class TestBoundedMatrix(Scratch):
    """item 11: a matrix too large to hold is refused at parse time"""

    def test_huge_values_refused(self):
        for option, value, most in (
                ("--repeats", "99999999999999999999", 10000),
                ("--max-repeats", "10001", 10000),
                ("--numjobs", "1,4097", 4096)):
            p = run_cli("flagcheck-run", NULL_JOB, option, value,
                        "--outdir", self.out, "--dry-run", timeout=30)
            assert_one_line(p, "argument %s:" % option,
                            "want a whole number of 1 or more, at most "
                            "%d" % most, rc=2)


class TestCalibrateSeconds(Scratch):
    """item 15: --calibrate-seconds outside the program's range is refused
    at parse time"""

    def test_refused(self):
        for value in ("0.0001", "1e308", "nan", "0"):
            p = run_cli("flagcheck-run", NULL_JOB, "--calibrate-seconds",
                        value, "--outdir", self.out, "--dry-run")
            assert_one_line(p, "argument --calibrate-seconds: %r is not "
                            "valid: a number of seconds from 0.01 to 3600"
                            % value, rc=2)


class TestMessages(Scratch):
    """item 16: each message names the option, the value and what is
    allowed"""

    def test_outdir(self):
        afile = self.path("afile")
        open(afile, "w").close()
        for tool, more in (("flagcheck-run", (NULL_JOB, "--dry-run")),
                           ("flagcheck-report", (FIXTURE_RESULTS,
                                                 "--no-plot"))):
            p = run_cli(tool, *more, "--outdir", "")
            assert_one_line(p, "--outdir '': want a directory name", rc=2)
            p = run_cli(tool, *more, "--outdir", afile)
            assert_one_line(p, "--outdir %s: exists and is not a "
                            "directory" % afile, rc=2)

    def busy_results(self):
        shutil.copytree(FIXTURE_RESULTS, self.out)
        path = os.path.join(self.out, "manifest.json")
        with open(path) as f:
            m = json.load(f)
        for e in m["runs"]:
            e["interference"] = {"busy": True, "reasons": ["test"]}
        with open(path, "w") as f:
            json.dump(m, f)

    def test_exclude_busy_leaving_nothing(self):
        self.busy_results()
        p = run_cli("flagcheck-report", "--no-plot", "--exclude-busy",
                    self.out)
        assert_one_line(p, "nothing to report: --exclude-busy left out "
                        "all 8 runs (each is marked busy)", rc=1)

    def test_group_by_and_base(self):
        one = os.path.join(FIXTURE_RESULTS,
                           "flagcheck-fixture_always_nj1_r1.json")
        p = run_cli("flagcheck-report", "--no-plot", "--outdir",
                    self.path("r"), "--group-by", "bogus", one)
        assert_one_line(p, one + ": cannot tell the mode: --group-by "
                        "bogus: no such job option in this run (its "
                        "options: ", rc=1)
        p = run_cli("flagcheck-report", "--no-plot", "--outdir",
                    self.path("r"), "--base", "bogus", FIXTURE_RESULTS)
        assert_one_line(p, "--base bogus: no runs of that mode; the "
                        "modes there are: always, test_first", rc=2)
        assert not os.path.exists(self.path("r", "report.md"))

    def program(self, body):
        path = self.path("prog")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body)
        os.chmod(path, 0o755)
        return path

    def test_a_calibration_program_killed_by_a_signal(self):
        prog = self.program("kill -SEGV $$\n")
        with pytest.raises(calibration.CalibrationError) as cm:
            calibration.run_program(prog, 0.1)
        assert str(cm.value) == ("%s was killed by SIGSEGV: no "
                                 "message" % prog)

    def test_a_hung_line_probe_is_stopped(self):
        # the program starts a child that holds its output open too
        prog = self.program("sleep 300 &\nsleep 300\n")
        t0 = time.monotonic()
        with pytest.raises(calibration.CalibrationError) as cm:
            lineprobe.probe([0, 0], prog, seconds=0.1)
        assert time.monotonic() - t0 < 10
        assert str(cm.value) == ("%s did not finish within 2 s "
                                 "(a 0.1 s measurement): stopped" % prog)


class TestLruRecords(Scratch):
    """item 13: flagcheck-lru refuses a bh_lru record the engine would not
    write, in one line"""

    def record(self, **change):
        st = {"lookups": 1000, "hits": 990, "misses": 10, "lookup_ns": 5e4}
        st.update({"hit_idx%d" % i: 0 for i in range(1, 17)}, hit_idx1=990)
        rec = {"flagcheck": 1, "job": "mod1", "thread_number": 1,
               "model": "bh_lru", "flag_check": "on", "ios": 1,
               "options": {"bh_lru": "on", "mod": 1, "lookups_per_io": 1000},
               "model_stats": st}
        for key, value in change.items():
            if key == "no_options":
                del rec["options"]
            elif key in st:
                st[key] = value
            else:
                rec["options"][key] = value
        return rec

    def test_bad_records(self):
        path = self.path("x_on_nj1_r1.flagcheck.jsonl")
        for change, needle in (
                ({"mod": "abc"}, 'record 1: options.mod is "abc": want a '
                 'whole number >= 1'),
                ({"lookups": "x"}, 'record 1: model_stats.lookups is "x"'),
                ({"no_options": True}, "record 1: options is missing"),
                ({"lookups": -5}, "record 1: model_stats.lookups is -5"),
                ({"lookup_ns": float("nan")},
                 "record 1: model_stats.lookup_ns is NaN"),
                ({"hits": 2000, "hit_idx1": 2000},
                 "record 1: model_stats hits 2000 + misses 10 != lookups "
                 "1000"),
                ({"hit_idx2": 1}, "record 1: model_stats hit_idx1..16 sum "
                 "to 991, hits 990")):
            with open(path, "w") as f:
                f.write(json.dumps(self.record(**change)) + "\n")
            p = run_cli("flagcheck-lru", "--no-plot", "--outdir",
                        self.path("o"), path)
            assert_one_line(p, path + ": " + needle, rc=1)
        with open(path, "w") as f:
            f.write(json.dumps(self.record()) + "\n")
        p = run_cli("flagcheck-lru", "--no-plot", "--outdir", self.path("o"),
                    path)
        assert p.returncode == 0, p.stderr


@pytest.mark.skipif(not (shutil.which("make") and os.path.exists(ENGINE)),
                    reason="needs make and the built engine")
class TestInstallQuoted(Scratch):
    """item 8: make install and uninstall under a PREFIX with a space;
    flagcheck-lru installed and linked like the other commands"""

    def make(self, *args):
        # -o: install what is built, never rebuild here
        return subprocess.run(
            ["make", "-s", "-C", REPO, "-o", "build/fio-flagcheck.so", "-o",
             "build/flagcheck-calibrate"] + list(args)
            + ["DESTDIR=" + self.path("dest"), "PREFIX=/opt/my fc"],
            capture_output=True, text=True, timeout=300)

    def test_install_and_uninstall(self):
        neighbour = self.path("dest", "opt", "my", "keep")
        os.makedirs(os.path.dirname(neighbour))
        open(neighbour, "w").close()
        p = self.make("install")
        assert p.returncode == 0, p.stdout + p.stderr
        prefix = self.path("dest", "opt", "my fc")
        lib = os.path.join(prefix, "lib", "flagcheck")
        for tool in ("flagcheck-run", "flagcheck-report",
                     "flagcheck-calibrate", "flagcheck-lru",
                     "flagcheck-catalogue"):
            link = os.path.join(prefix, "bin", tool)
            assert os.path.realpath(link) == \
                os.path.join(lib, "analysis", tool)
            p = subprocess.run([link, "--help"], capture_output=True,
                               text=True, timeout=60)
            assert p.returncode == 0, tool + p.stderr
        src = os.path.join(REPO, "analysis", "flagcheck_analysis")
        for d, _, names in os.walk(src):
            for n in names:
                if n.endswith(".py"):
                    assert os.path.isfile(os.path.join(
                        lib, "analysis", os.path.relpath(
                            os.path.join(d, n), os.path.join(REPO,
                                                             "analysis"))))
        p = self.make("uninstall")
        assert p.returncode == 0, p.stdout + p.stderr
        assert os.path.exists(neighbour)
        assert sorted(os.listdir(self.path("dest", "opt"))) == ["my", "my fc"]
        assert os.listdir(os.path.join(prefix, "bin")) == []
        assert not os.path.exists(lib)
