"""fio under a deadline, stopped as flagcheck run stops it: SIGINT at the
deadline, SIGKILL to fio's job processes and fio GRACE seconds later;
Ctrl-C passed on, a second one kills at once. jobs/run-job runs fio
through it (cli/deadline.py). docs/errors.md (a run past RUN_TIMEOUT)."""

import os
import signal
import subprocess
import time

from . import proctree

PROG = "run-job"
GRACE = 10              # seconds from SIGINT to SIGKILL (flagcheck run's)
TIMED_OUT = 124         # the exit status past the deadline, as timeout(1)


class _Stopper:
    """SIGINT to fio at the first signal or the deadline, SIGKILL to fio's
    tree at the next."""

    def __init__(self, proc):
        self.proc, self.stops, self.signum = proc, 0, None

    def stop(self):
        self.stops += 1
        if self.proc.poll() is not None:
            return
        if self.stops == 1:
            self.proc.send_signal(signal.SIGINT)
        else:
            proctree.kill_tree(self.proc.pid)

    def on_signal(self, signum, frame):
        self.signum = self.signum or signum
        self.stop()


def run(argv, seconds, grace=GRACE):
    """Run argv (fio) until it ends: its exit status (128 + N when killed
    by signal N), TIMED_OUT when it ran past @seconds, 128 + N when signal
    N (Ctrl-C: SIGINT) stopped it."""
    proc = subprocess.Popen(argv, start_new_session=True,
                            preexec_fn=proctree.die_with(os.getpid()))
    stopper = _Stopper(proc)
    old = {s: signal.signal(s, stopper.on_signal)
           for s in (signal.SIGINT, signal.SIGTERM)}
    deadline, timed_out = time.monotonic() + seconds, False
    try:
        while True:
            try:
                rc = proc.wait(timeout=max(deadline - time.monotonic(), 0.01))
                break
            except subprocess.TimeoutExpired:
                if not timed_out:
                    stopper.stops = 0
                timed_out = True
                stopper.stop()
                deadline = time.monotonic() + grace
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
    if timed_out:
        return TIMED_OUT
    if stopper.signum:
        return 128 + stopper.signum
    return 128 - rc if rc < 0 else rc
