"""Writing a file whole or not at all: the text goes to PATH.tmp, which
replaces PATH only once every byte is written.  On a full disk (or any
other failure) PATH keeps its old contents, PATH.tmp is removed, and the
OSError names PATH."""

import os


def write(path, text):
    tmp = path + ".tmp"
    try:
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise OSError(e.errno, e.strerror, path) from None
