"""Stopping a calibration: Ctrl-C (SIGINT, once or twice) stops
flagcheck-calibrate and flagcheck run's calibration at once, not after the
whole budget; a SIGKILLed runner leaves no calibration program measuring on
(it runs in a session of its own, where neither reaches it by itself)."""

import os
import signal
import subprocess
import tempfile
import shutil
import time

import pytest

from tests.analysis.helpers import BUILD, FIO, NULL_JOB, alive, cli_argv

from flagcheck_analysis.run import proctree

# serial: a calibration measures on every CPU, and the stop is timed
pytestmark = pytest.mark.serial

PROGRAM = os.path.join(BUILD, "flagcheck-calibrate")
BUDGET = "60"           # seconds: the calibration's, never waited for
PROMPT = 5.0            # seconds a stop may take on a loaded machine


def program_of(pid):
    """The calibration program under pid, once it has started."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for p in proctree.descendants(pid):
            try:
                with open("/proc/%d/cmdline" % p, "rb") as f:
                    argv0 = os.fsdecode(f.read().split(b"\0")[0])
            except OSError:
                continue
            if os.path.realpath(argv0) == os.path.realpath(PROGRAM):
                return p
        time.sleep(0.05)
    raise AssertionError("the calibration program never started")


def gone_within(pid, seconds):
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


@pytest.fixture
def tmp():
    d = tempfile.mkdtemp()
    yield d
    shutil.rmtree(d)


def start(name, tmp, *extra):
    if name == "calibrate":
        argv = cli_argv(name, "--outdir", tmp, "--seconds", BUDGET,
                        "--no-plot", *extra)
    else:
        if not FIO:
            pytest.skip("fio not installed")
        argv = cli_argv(name, NULL_JOB, "--variants", "always", "--numjobs",
                        "1", "--repeats", "1", "--runtime", "1", "--ramp",
                        "0", "--outdir", tmp, "--calibrate-seconds", BUDGET,
                        *extra, calibrate=True)
    return subprocess.Popen(argv, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.mark.skipif(not os.path.exists(PROGRAM), reason="run make first")
@pytest.mark.parametrize("presses", (1, 2))
@pytest.mark.parametrize("name", ("calibrate", "run"))
def test_ctrl_c_stops_the_calibration_at_once(tmp, name, presses):
    p = start(name, tmp)
    prog = None
    try:
        prog = program_of(p.pid)
        t0 = time.monotonic()
        for _ in range(presses):
            p.send_signal(signal.SIGINT)
            time.sleep(0.1)
        _, err = p.communicate(timeout=PROMPT + 30)
        took = time.monotonic() - t0
        assert took < PROMPT, "%s took %.1f s to stop: %s" % (name, took, err)
        assert not alive(prog), "the calibration program measures on"
        assert "Traceback" not in err, err
        last = err.strip().splitlines()[-1]
        if name == "calibrate":
            assert p.returncode == 130, (p.returncode, err)
            assert last == "flagcheck calibrate: %s stopped: interrupted by " \
                "SIGINT; nothing written" % PROGRAM, err
            assert os.listdir(tmp) == []
        else:
            assert p.returncode != 0, err
            assert "interrupted by SIGINT: 0 of 1 runs done; the same " \
                "command resumes" in last, err
            assert not os.path.exists(os.path.join(tmp, "calibration.json"))
    finally:
        for pid in (p.pid, prog):
            if pid and alive(pid):
                os.kill(pid, signal.SIGKILL)
        p.wait()


@pytest.mark.skipif(not os.path.exists(PROGRAM), reason="run make first")
@pytest.mark.parametrize("name", ("calibrate", "run"))
def test_a_sigkilled_runner_leaves_no_calibration_running(tmp, name):
    # --quiet: no progress lines, whose writes to a pipe nobody reads
    # would end the program by SIGPIPE at the next step
    p = start(name, tmp, "--quiet")
    prog = None
    try:
        prog = program_of(p.pid)
        p.kill()
        p.communicate(timeout=30)
        assert gone_within(prog, PROMPT), \
            "the calibration program outlived its SIGKILLed %s" % name
    finally:
        if prog and alive(prog):
            os.kill(prog, signal.SIGKILL)
