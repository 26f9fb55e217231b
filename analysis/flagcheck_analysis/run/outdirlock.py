"""The results directory's lock: held (flock) by flagcheck run and
inherited by every fio it starts, so that while any of them lives no
other flagcheck run uses the directory; the lock file names who holds
it, for the refusal."""

import fcntl
import json
import os

from ..inputs import outpath

LOCK_NAME = "flagcheck.lock"


class Busy(Exception):
    """The results directory is in use by another flagcheck run, or by a
    fio one started that outlived it."""


def lock(outdir):
    """The results directory's lock: an fd, held until flagcheck run and
    every fio it started have ended.  Raises Busy naming who holds it,
    outpath.OutPathError where the lock file may not be written."""
    path = os.path.join(outdir, LOCK_NAME)
    # by the rule for written paths (outpath.py): the holder's name is
    # written into it, never into a device or a FIFO planted there
    outpath.check(path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC |
                 os.O_NONBLOCK, 0o644)
    what = outpath.what_is_fd(fd)
    if what:
        os.close(fd)
        raise outpath.OutPathError(path, what)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            who = json.loads(os.pread(fd, 4096, 0) or b"{}")
        except ValueError:
            who = {}
        os.close(fd)
        pids = " ".join(str(who[k]) for k in ("runner", "fio")
                        if isinstance(who.get(k), int))
        raise Busy("--outdir %s: in use by another flagcheck run or a fio it "
                   "started%s%s: wait for it to end or stop it%s, then run "
                   "the same command again" % (
                       outdir, " (pid %s)" % pids if pids else "",
                       ", running %s" % who["run"]
                       if isinstance(who.get("run"), str) else "",
                       " (kill %s)" % pids if pids else ""))
    return fd


def note(fd, **who):
    """Who holds the lock, for the message of a flagcheck run refused."""
    data = json.dumps(dict(who, runner=os.getpid())).encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)
