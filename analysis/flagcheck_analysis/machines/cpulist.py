"""The kernel's CPU list format and small /sys and /proc files: what the
runner's placement and the calibration both read of this machine (the
layer below both)."""
import os
import re

from ..inputs import textfile

SYSFS = "/sys/devices/system"


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


_SIZE_RE = re.compile(r"^(\d+)([KMG]?)$")


def l2_kib(cpu, sysfs=SYSFS):
    """The KiB of @cpu's level-2 cache (sysfs cache/indexN with level 2, a
    data or unified one), None where sysfs does not say."""
    base = os.path.join(sysfs, "cpu", "cpu%d" % cpu, "cache")
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return None
    for name in names:
        d = os.path.join(base, name)
        if read_text(os.path.join(d, "level")) != "2" or \
                read_text(os.path.join(d, "type")) not in ("Data",
                                                           "Unified"):
            continue
        m = _SIZE_RE.match(read_text(os.path.join(d, "size")) or "")
        if m:
            return int(m.group(1)) * {"": 1 / 1024, "K": 1, "M": 1024,
                                      "G": 1 << 20}[m.group(2)]
    return None


def topology(cpus, sysfs=SYSFS):
    """{"node": {cpu: node}, "siblings": {cpu: [SMT siblings, itself
    included]}, "package": {cpu: package}} of @cpus, from sysfs.  Without
    NUMA information every CPU is on node 0; without SMT information each
    CPU is its own core."""
    node = {}
    try:
        names = os.listdir(os.path.join(sysfs, "node"))
    except OSError:
        names = []
    for name in names:
        m = re.match(r"^node(\d+)$", name)
        text = read_text(os.path.join(sysfs, "node", name, "cpulist")) \
            if m else None
        for c in parse_cpulist(text or ""):
            node[c] = int(m.group(1))
    out = {"node": {}, "siblings": {}, "package": {}}
    for c in cpus:
        topo = os.path.join(sysfs, "cpu", "cpu%d" % c, "topology")
        sib = read_text(os.path.join(topo, "thread_siblings_list")) or \
            read_text(os.path.join(topo, "core_cpus_list"))
        pkg = read_text(os.path.join(topo, "physical_package_id"))
        out["node"][c] = node.get(c, 0)
        out["siblings"][c] = sorted(set(parse_cpulist(sib or "")) | {c})
        out["package"][c] = int(pkg) if pkg and pkg.lstrip("-").isdigit() \
            else 0
    return out
