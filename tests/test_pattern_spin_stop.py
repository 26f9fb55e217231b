"""A spin on a lock that stays held gives up when fio ends the job, under
the real fio: at the job's runtime, on fio's SIGTERM, when a SIGKILLed
flagcheck run takes fio down with it; the job fails with one line naming
the lock, and no fio is left spinning (docs/pattern.md, "Locks and
layouts"). Such a lock is refused before any I/O (test_pattern_locks.py):
the engine built without that check (fio-flagcheck-unchecked.so) lets
one through, as a job that stopped holding its lock would leave it."""

import os
import shutil
import signal
import subprocess
import sys

import pytest

from flagcheck_analysis.run import proctree
from tests.analysis.helpers import alive
from tests.analysis.test_resume import wait_for as waited_for

HERE = os.path.dirname(os.path.abspath(__file__))
FLAGCHECK = os.path.join(os.path.dirname(HERE), "analysis", "flagcheck")
# job 1 writes 1 on the lock word, job 2 (after it: stonewall) spins on it
STUCK = """[global]
ioengine=external:${FLAGCHECK_ENGINE}
model=pattern
filename=flagcheck-stuck
size=1g
rw=randread
backend=null
time_based=0
flagcheck_stats=${FLAGCHECK_STATS}
[writer]
pattern_words=c@0
pattern=WRITE_ONCE(c,1)
number_ios=1
[locker]
stonewall
pattern_words=lk@0
pattern=spin_lock(lk),spin_unlock(lk)
number_ios=10
"""
GAVE_UP = ("flagcheck: pattern: operation 1 'spin_lock(lk)': gave up when "
           "%s, lock lk still held: the job that holds it stopped or is "
           "stuck")
# a bound on waits for what must happen, never a measure of it
PATIENCE = 60


@pytest.fixture
def unchecked(build):
    path = os.path.join(build, "fio-flagcheck-unchecked.so")
    if not os.path.exists(path):
        pytest.fail(f"{path} missing: make {path}")
    return path


def locker_line(stats):
    return [s for s in stats if s["job"] == "locker"]


def test_the_checked_engine_refuses_it_first(ctx):
    r = ctx.fio_run([ctx.jobfile(STUCK)])
    assert r.rc != 0 and r.stats == [], r.err
    assert "writes byte 0 of the arena, where job 2's operation 1 " \
        "'spin_lock(lk)' takes lock lk" in r.err


def test_a_spin_gives_up_past_the_runtime(ctx, unchecked):
    r = ctx.fio_run([ctx.jobfile(STUCK + "runtime=1\n")], engine=unchecked,
                    timeout=PATIENCE)
    assert r.rc != 0, r.err
    assert GAVE_UP % "the job's runtime was over" in r.err.splitlines()
    (locker,) = locker_line(r.stats)
    assert locker["ios"] == 1 and locker["errors_reported"] == 1


def cpu_seconds(pid):
    """The CPU time of process @pid (utime + stime), 0 if it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def spinning_job(fio):
    """The pid of a job process of @fio that has spun 0.3 s of CPU: the
    locker, which has no other work (its writer did one I/O)."""
    for pid in proctree.descendants(fio):
        if cpu_seconds(pid) >= 0.3:
            return pid
    return None


def wait_for(what):
    return waited_for(what, PATIENCE)


def test_sigterm_ends_a_spinning_fio(ctx, unchecked):
    env = dict(os.environ, FLAGCHECK_ENGINE=unchecked,
               FLAGCHECK_STATS=os.path.join(ctx.tmp, "spin-stop.jsonl"))
    fio = subprocess.Popen([ctx.fio, ctx.jobfile(STUCK)], cwd=ctx.tmp,
                           env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           start_new_session=True)
    try:
        assert wait_for(lambda: spinning_job(fio.pid)), "no job spun"
        fio.send_signal(signal.SIGTERM)
        out, _ = fio.communicate(timeout=PATIENCE)
    finally:
        proctree.kill_tree(fio.pid)
        fio.wait()
        os.unlink(env["FLAGCHECK_STATS"])
    assert fio.returncode != 0
    assert GAVE_UP % "fio was ending the job" in out.splitlines(), out


# slow: a real flagcheck run, killed
@pytest.mark.slow
def test_a_sigkilled_flagcheck_run_leaves_no_fio_spinning(ctx, unchecked):
    out = ctx.scratch()
    job = ctx.jobfile(STUCK)
    runner = subprocess.Popen(
        [sys.executable, FLAGCHECK, "run", job, "--no-calibrate",
         "--variants", "always", "--numjobs", "1", "--repeats", "1",
         "--ramp", "0", "--no-line-probe", "--no-pin", "--quiet",
         "--set", "FLAGCHECK_ENGINE=" + unchecked, "--outdir", out],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    fio, job_pid = None, None
    try:
        job_pid = wait_for(lambda: spinning_job(runner.pid))
        assert job_pid, "no job spun"
        fio = [p for p in proctree.descendants(runner.pid)
               if job_pid in proctree.descendants(p)][0]
        runner.kill()
        runner.wait()
        assert wait_for(lambda: not alive(fio)), \
            "fio (pid %d) still runs after its runner was killed" % fio
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()
        for pid in (job_pid, fio):
            if pid and alive(pid):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(out)
