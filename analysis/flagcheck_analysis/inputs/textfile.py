"""A text file a user gave, read safely: only a regular file (a FIFO, a
device or /dev/zero is refused before it is read), at most a stated number
of bytes, its bytes kept whatever they are (surrogateescape): fio reads
bytes, so a byte that is not UTF-8 must not stop the reading."""

import os
import stat

# the largest job file read (a stated bound, not fio's: the repository's
# job files are under 8 KiB; 1 MiB is 128 times that)
MAX_BYTES = 1 << 20


class TextFileError(Exception):
    """One line: the file and why it can not be read."""


def read_text(path, what="job file", max_bytes=MAX_BYTES):
    """The text of @path, a regular file of at most @max_bytes."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise TextFileError("%s: not a regular file: a %s must be one"
                                % (path, what))
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY |
                     os.O_CLOEXEC)
        with open(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise TextFileError("%s: not a regular file: a %s must be "
                                    "one" % (path, what))
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise TextFileError("%s: cannot read: %s" % (path, e.strerror or e))
    if len(data) > max_bytes:
        raise TextFileError("%s: larger than %d bytes: not a %s"
                            % (path, max_bytes, what))
    return data.decode("utf-8", "surrogateescape")


# the largest kernel file read (/proc, /sys): /proc/cpuinfo of Linux's
# most CPUs (8192) at about 1.5 KiB each is 12 MiB
SYSTEM_MAX_BYTES = 16 << 20


def read_system(path, max_bytes=SYSTEM_MAX_BYTES):
    """The text of a kernel file (/proc, /sys: regular files whose size
    reads 0), or None where it can not be read (absent, not a regular
    file, past @max_bytes)."""
    try:
        return read_text(path, "kernel file", max_bytes)
    except TextFileError:
        return None


def to_bytes(text):
    """The bytes of text read_text() gave (for writing it back)."""
    return text.encode("utf-8", "surrogateescape")


def printable(text):
    """@text as a terminal or a Markdown file may show it: a byte that is
    not UTF-8 (read through surrogateescape: a directory's name) as
    \\xNN, a character that is not printable (a newline, ESC, a
    bidirectional control) as its Python escape; the rest as it is."""
    out = []
    for c in str(text):
        if "\udc80" <= c <= "\udcff":
            out.append("\\x%02x" % (ord(c) - 0xdc00))
        elif c.isprintable():
            out.append(c)
        else:
            out.append(c.encode("unicode_escape").decode("ascii"))
    return "".join(out)
