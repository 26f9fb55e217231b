"""Writing a file whole or not at all: the text goes to PATH.tmp, which
replaces PATH only once every byte is written.  On a full disk (or any
other failure) PATH keeps its old contents, PATH.tmp is removed, and the
OSError names PATH.  PATH is judged first by the one rule for every path
a tool writes (outpath.py): a device, a FIFO, a socket, a directory or a
symbolic link there is refused (OutPathError), never replaced; so is
PATH outside @within where the command names its output directory.  A
leftover PATH.tmp is removed when it is a regular file or a link (the
link, never its target) and refused when it is anything else."""

import os

from . import outpath


def write(path, text, within=None):
    outpath.check(path, within)
    tmp = path + ".tmp"
    if not os.path.islink(tmp):
        outpath.check(tmp, within)
    try:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL |
                     os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        with open(fd, "wb" if isinstance(text, bytes) else "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise OSError(e.errno, e.strerror, path) from None


def dir_error(option, path):
    """Why the directory `path` that `option` names can not be written
    into (no name, or a file is there), or None."""
    if not path:
        return "%s '': want a directory name" % option
    if os.path.exists(path) and not os.path.isdir(path):
        return "%s %s: exists and is not a directory" % (option, path)
    return None
