"""What a job's read_iolog= has fio replay, for the device guard
(jobguard.py): every write or trim action of the log, whatever rw= says,
onto the files it names or onto replay_redirect=, the log read as fio
3.33 reads one (iolog.c read_iolog). A log this module can not read is
reported as such: what it would write is not known. docs/analysis.md,
"A replayed log"."""

import os
import stat

from ..inputs import textfile

# the largest log read (a stated bound: a log of 4 KiB actions is about
# 30 bytes a line, so 16 MiB is half a million actions)
MAX_BYTES = 16 << 20
HEADERS = {"fio version 2 iolog": 2, "fio version 3 iolog": 3}
WRITE_ACTIONS = ("write", "trim")
FILE_FIELD = 256
LINE_BYTES = 4095


class Unknown(Exception):
    """Why a log can not be read here."""


def _lines(text):
    """The lines as fgets(buf, 4096) gives them."""
    for line in text.splitlines(keepends=True):
        for i in range(0, len(line), LINE_BYTES):
            yield line[i:i + LINE_BYTES]


def read_log(path):
    """(writes, files) of the iolog at @path: whether it holds a write or
    trim action, and every file it names.  Raises Unknown."""
    if path == "-":
        raise Unknown("fio reads it from stdin")
    try:
        if stat.S_ISSOCK(os.stat(path).st_mode):
            raise Unknown("a socket: fio replays what its peer sends")
    except OSError:
        pass
    try:
        text = textfile.read_text(path, "iolog", MAX_BYTES)
    except textfile.TextFileError as e:
        raise Unknown(str(e))
    lines = _lines(text)
    first = next(lines, "")
    version = next((v for h, v in HEADERS.items() if first.startswith(h)),
                   None)
    if version is None:
        raise Unknown("not a text iolog (its first line is not 'fio version "
                      "2 iolog' or 3): a blktrace names its devices by "
                      "number")
    writes, files = False, set()
    for line in lines:
        words = line.split()[version - 2:]
        if len(words) < 2:
            continue
        files.add(words[0][:FILE_FIELD])
        writes = writes or words[1] in WRITE_ACTIONS
    return writes, sorted(files)

