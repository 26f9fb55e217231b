"""Writing a file whole or not at all: PATH.tmp replaces PATH only once
every byte is written, else PATH keeps its contents and PATH.tmp goes;
PATH is judged first by outpath.py's rule. docs/errors.md, "The rule
for written paths"."""

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
        _remove(tmp)
        raise OSError(e.errno, e.strerror, path) from None
    except BaseException:
        # any other failure (text that cannot be encoded, Ctrl-C) leaves
        # no PATH.tmp either
        _remove(tmp)
        raise


def _remove(tmp):
    try:
        os.unlink(tmp)
    except OSError:
        pass


def dir_error(option, path):
    """Why the directory `path` that `option` names can not be written
    into (no name, or a file is there), or None."""
    if not path:
        return "%s '': want a directory name" % option
    if os.path.exists(path) and not os.path.isdir(path):
        return "%s %s: exists and is not a directory" % (option, path)
    return None
