"""Reading a file the user names or edits: a regular file only, and at
most a bound of bytes.  A device (/dev/zero never ends), a FIFO (its open
waits for a writer for ever), a directory or a file larger than the bound
is refused with one line naming it, never read."""

import os
import stat

# fio's JSON output of one run, a job file, a manifest, a calibration and
# an engine's counters file are each far below this: a manifest of 10000
# runs is about 30 MiB (about 3 KiB per run, tests/analysis/fixtures)
LIMIT = 256 << 20


class Refused(OSError):
    """Not a regular file, or larger than the bound; str() says which."""


def read_bytes(path, limit=LIMIT):
    """The bytes of the regular file at `path`; raises Refused for
    anything else or one larger than `limit` bytes, OSError (with
    FileNotFoundError) where it cannot be opened.  The file is opened
    without waiting (O_NONBLOCK), so that a FIFO is refused, not waited
    on."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused("not a regular file (a %s): only regular files "
                          "are read" % _kind(st.st_mode))
        if st.st_size > limit:
            raise Refused("%d bytes: more than the %d that a file read here "
                          "may hold" % (st.st_size, limit))
        with os.fdopen(fd, "rb") as f:
            fd = None
            data = f.read(limit + 1)
        if len(data) > limit:
            raise Refused("more than the %d bytes that a file read here may "
                          "hold" % limit)
        return data
    finally:
        if fd is not None:
            os.close(fd)


def read_text(path, limit=LIMIT):
    """read_bytes() decoded as UTF-8, a byte that is not UTF-8 replaced
    (fio reads such a file as bytes; no reader here needs more)."""
    return read_bytes(path, limit).decode("utf-8", "replace")


def why(e):
    """One-line reason of an OSError from read_bytes()."""
    return str(e) if isinstance(e, Refused) else \
        "cannot read: %s" % (e.strerror or e)


def _kind(mode):
    for test, name in ((stat.S_ISDIR, "directory"), (stat.S_ISCHR,
                       "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket")):
        if test(mode):
            return name
    return "special file"
