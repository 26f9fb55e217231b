"""The kernel's CPU list format and small /sys and /proc files: what the
runner's placement and the calibration both read of this machine (the
layer below both)."""
import re

from ..inputs import textfile


def parse_cpulist(text):
    """'0-3,8,10-11' -> [0, 1, 2, 3, 8, 10, 11] (the kernel's list format)."""
    out = []
    for part in text.strip().split(","):
        if not part:
            continue
        m = re.match(r"^(\d+)(?:-(\d+))?$", part.strip())
        if not m:
            raise ValueError("bad CPU list %r" % text)
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        if hi < lo:
            raise ValueError("bad CPU list %r" % text)
        out += range(lo, hi + 1)
    return sorted(set(out))


def format_cpulist(cpus):
    """[0, 1, 2, 5] -> '0-2,5'."""
    out, cpus = [], sorted(cpus)
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else "%d-%d" % (cpus[i], cpus[j]))
        i = j + 1
    return ",".join(out)


def read_text(path):
    """A small /sys or /proc file's text, stripped; None if unreadable."""
    text = textfile.read_system(path)
    return None if text is None else text.strip()
