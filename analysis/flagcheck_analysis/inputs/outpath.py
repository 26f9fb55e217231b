"""The one rule for every path a tool writes, or lets fio or the engine
write or remove: a regular file or absent, never a symbolic link, and
inside the output directory the command named; anything else is refused
before it is opened. docs/errors.md, "The rule for written paths"."""

import errno
import os
import stat

KINDS = ((stat.S_ISBLK, "a block device"),
         (stat.S_ISCHR, "a character device"),
         (stat.S_ISFIFO, "a FIFO"),
         (stat.S_ISSOCK, "a socket"),
         (stat.S_ISDIR, "a directory"))
ALLOWED = "a regular file or a new name is allowed, never a link"


class OutPathError(OSError):
    """One line: the path, what it is, and what is allowed."""

    def __init__(self, path, what):
        super().__init__(errno.EPERM, "%s is %s: refused (%s)"
                         % (path, what, ALLOWED), path)

    def __str__(self):
        return self.strerror


def _kind(mode):
    for test, what in KINDS:
        if test(mode):
            return what
    return None


def what_is(path):
    """What @path is where the rule refuses it ("a block device", "a
    symbolic link to a FIFO", ...), else None (a regular file, or
    nothing there)."""
    try:
        mode = os.lstat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISLNK(mode):
        try:
            target = _kind(os.stat(path).st_mode) or "a regular file"
        except (OSError, ValueError):
            target = "nothing"
        return "a symbolic link (to %s)" % target
    return _kind(mode)


def what_is_fd(fd):
    """What the file open at @fd is where the rule refuses it, else None:
    the check after an open, for a file replaced between the two."""
    mode = os.fstat(fd).st_mode
    return None if stat.S_ISREG(mode) else _kind(mode) or "not a regular file"


def outside(path, within):
    """@within (a directory) when @path does not lie inside it, else
    None; both are taken with every link in them resolved."""
    if within is None:
        return None
    top = os.path.realpath(within)
    where = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    if where == top or where.startswith(top.rstrip(os.sep) + os.sep):
        return None
    return within


def why_not(path, within=None):
    """Why @path may not be written (a phrase: "a FIFO", "outside DIR"),
    else None."""
    what = what_is(path)
    if what:
        return what
    if outside(path, within):
        return "outside %s, where this command's output goes" % within
    return None


def check(path, within=None):
    """Raises OutPathError where @path may not be written."""
    why = why_not(path, within)
    if why:
        raise OutPathError(path, why)
