"""fio and its job processes, as one tree to stop.

fio forks a process per job (without `thread`), and each job calls
setsid(): a job process is in neither fio's process group nor its session,
so a signal to fio's group does not reach it, and one that outlives a
SIGKILLed fio keeps fio's stdout open (a reader waits for ever). Its
parent is fio until fio dies: its processes are found through the parent
links in /proc while fio lives."""

import ctypes
import os
import signal

from ..inputs import numbers, textfile

PR_SET_PDEATHSIG = 1        # <linux/prctl.h>


def _parent(pid):
    """The parent of pid (/proc/PID/stat's 4th field), or None if gone."""
    stat = textfile.read_system("/proc/%d/stat" % pid)
    if stat is None or ")" not in stat:
        return None
    # the name (2nd field) is in parentheses and may hold spaces
    ppid = stat[stat.rindex(")") + 2:].split()[1:2]
    return numbers.from_text(ppid[0], whole=True) if ppid else None


def descendants(pid):
    """The ids of pid's children, their children and so on."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            ppid = _parent(int(name))
            if ppid is not None:
                parents.setdefault(ppid, []).append(int(name))
    found, todo = [], [pid]
    while todo:
        kids = parents.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def kill_tree(pid, sig=signal.SIGKILL):
    """sig to pid's descendants first (found while pid lives), then pid."""
    for p in descendants(pid) + [pid]:
        try:
            os.kill(p, sig)
        except ProcessLookupError:
            pass


def die_with(parent, sig=signal.SIGTERM):
    """A preexec_fn for fio, between fork and exec: @sig (SIGTERM: fio
    stops its jobs) when @parent dies, SIGKILLed included; exit at once
    when it already has."""
    def preexec():
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) or \
                os.getppid() != parent:
            os._exit(127)
    return preexec
