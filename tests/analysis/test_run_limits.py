"""Every run ends and every number is bounded: runtimes, run timeouts, the
matrix's size, calibration seconds; the runner's and report's messages
name what is wrong; LRU records are validated; install quotes its paths."""

import json
import os
import shutil
import subprocess
import time

import pytest

from tests.analysis.helpers import NULL_JOB, REPO, alive, run_cli
from tests.analysis.test_faults import Scratch, assert_one_line
from flagcheck_analysis.calibrate import calibration
from flagcheck_analysis.run import lineprobe
from tests.analysis.test_results_dir_safety import FIXTURE_RESULTS

FIO = shutil.which("fio")
ENGINE = os.path.join(REPO, "build", "fio-flagcheck.so")
QUICK = ("--variants", "always", "--numjobs", "1", "--repeats", "1",
         "--ramp", "0", "--no-line-probe", "--quiet")


# slow: real flagcheck runs stopped by their timeout
@pytest.mark.slow
class TestRunsEnd(Scratch):
    """item 10: no run goes on for ever: RUNTIME is validated, and a local
    run is stopped after --run-timeout as a run on hosts is"""

    def test_negative_runtime_refused(self):
        for value in ("-1", "0", "1.5", "abc", ""):
            p = run_cli("run", NULL_JOB, "--set",
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

    # serial: the stop is timed
    @pytest.mark.serial
    @pytest.mark.skipif(not FIO, reason="fio not installed")
    def test_a_local_run_is_stopped_after_run_timeout(self):
        t0 = time.monotonic()
        p = run_cli("run", NULL_JOB, *QUICK, "--runtime", "30",
                    "--run-timeout", "2", "--outdir", self.out, timeout=60)
        assert time.monotonic() - t0 < 25
        assert p.returncode == 1, p.stderr
        assert "stopped after --run-timeout 2 s: fio did not finish" in \
            p.stderr
        with open(os.path.join(self.out, "manifest.json")) as f:
            assert json.load(f)["runs"][0]["status"] == "failed"


    # serial: the stop is timed
    @pytest.mark.serial
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
        p = run_cli("run", NULL_JOB, *QUICK, "--fio", fio,
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
if "--showcmd" in sys.argv:     # the guard's reading: the real fio's
    fio = os.environ.get("FLAGCHECK_TEST_FIO") or "fio"
    os.execvp(fio, [fio] + sys.argv[1:])
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
            p = run_cli("run", NULL_JOB, option, value,
                        "--outdir", self.out, "--dry-run", timeout=30)
            assert_one_line(p, "argument %s:" % option,
                            "want a whole number of 1 or more, at most "
                            "%d" % most, rc=2)


class TestCalibrateSeconds(Scratch):
    """item 15: --calibrate-seconds outside the program's range is refused
    at parse time"""

    def test_refused(self):
        for value in ("0.0001", "1e308", "nan", "0"):
            p = run_cli("run", NULL_JOB, "--calibrate-seconds",
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
        for tool, more in (("run", (NULL_JOB, "--dry-run")),
                           ("report", (FIXTURE_RESULTS,
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
        p = run_cli("report", "--no-plot", "--exclude-busy",
                    self.out)
        assert_one_line(p, "nothing to report: --exclude-busy left out "
                        "all 8 runs (each is marked busy)", rc=1)

    def test_group_by_and_base(self):
        one = os.path.join(FIXTURE_RESULTS,
                           "flagcheck-fixture_always_nj1_r1.json")
        p = run_cli("report", "--no-plot", "--outdir",
                    self.path("r"), "--group-by", "bogus", one)
        assert_one_line(p, one + ": cannot tell the variant: --group-by "
                        "bogus: no such job option in this run (its "
                        "options: ", rc=1)
        p = run_cli("report", "--no-plot", "--outdir",
                    self.path("r"), "--base", "bogus", FIXTURE_RESULTS)
        assert_one_line(p, "--base bogus: no runs of that variant; the "
                        "variants there are: always, test_first", rc=2)
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

    # serial: the stop is timed
    @pytest.mark.serial
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
    """item 13: flagcheck lru refuses a bh_lru record the engine would not
    write, in one line"""

    def record(self, **change):
        st = {"lookups": 1000, "hits": 990, "misses": 10, "lookup_ns": 5e4}
        st.update({"hit_idx%d" % i: 0 for i in range(1, 17)}, hit_idx1=990)
        rec = {"flagcheck": 2, "job": "mod1", "thread_number": 1,
               "model": "bh_lru", "variant": "on", "ios": 1,
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
                 "1000: every one of the lookups is counted once in hits "
                 "or misses"),
                ({"hit_idx2": 1}, "record 1: model_stats hit_idx1..16 sum "
                 "to 991, hits 990")):
            with open(path, "w") as f:
                f.write(json.dumps(self.record(**change)) + "\n")
            p = run_cli("lru", "--no-plot", "--outdir",
                        self.path("o"), path)
            assert_one_line(p, path + ": " + needle, rc=1)
        with open(path, "w") as f:
            f.write(json.dumps(self.record()) + "\n")
        p = run_cli("lru", "--no-plot", "--outdir", self.path("o"),
                    path)
        assert p.returncode == 0, p.stderr


# slow: make install and runs of the installed copy
@pytest.mark.slow
@pytest.mark.skipif(not (shutil.which("make") and os.path.exists(ENGINE)),
                    reason="needs make and the built engine")
class TestInstallQuoted(Scratch):
    """item 8: make install and uninstall under a PREFIX with a space;
    flagcheck lru installed and linked like the other commands"""

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
        link = os.path.join(prefix, "bin", "flagcheck")
        assert os.path.realpath(link) == \
            os.path.join(lib, "analysis", "flagcheck")
        for sub in ("run", "report", "calibrate", "lru", "catalogue",
                    "predict", "backtest", "compare"):
            p = subprocess.run([link, sub, "--help"], capture_output=True,
                               text=True, timeout=60)
            assert p.returncode == 0, sub + p.stderr
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
