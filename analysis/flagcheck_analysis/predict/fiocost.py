"""fio's own cost per I/O on this box, for the rest of a predicted I/O
(`--rest fio`): measured with fio's null engine or given, scaled by this
box's clock over the profile's. The one module of predict/ that measures;
the command line (predict/cli.py) only parses and prints.
"""

import json
import re
import subprocess


def this_clock_ghz():
    """This box's base clock from /sys (base_frequency, cpuinfo_max_freq)
    or /proc/cpuinfo's "@ X.XXGHz" model name: (GHz, where), or (None,
    why not)."""
    d = "/sys/devices/system/cpu/cpu0/cpufreq/"
    for f in ("base_frequency", "cpuinfo_max_freq"):
        try:
            with open(d + f) as fh:
                return int(fh.read()) / 1e6, d + f
        except (OSError, ValueError):
            pass
    try:
        with open("/proc/cpuinfo") as fh:
            m = re.search(r"model name.*@\s*([0-9.]+)\s*GHz", fh.read())
        if m:
            return float(m.group(1)), "/proc/cpuinfo model name"
    except OSError:
        pass
    return None, "this box's clock is not known"


def measure_fio_ns(fio="fio", runtime=1, repeats=3):
    """fio's own cost per I/O here, one job of fio's null engine run
    @repeats times: (median, lowest, highest) ns per I/O."""
    out = []
    for _ in range(repeats):
        p = subprocess.run([fio, "--name=null", "--ioengine=null",
                            "--size=1g", "--rw=randread", "--bs=4k",
                            "--thread", "--time_based",
                            "--runtime=%d" % runtime,
                            "--output-format=json"],
                           capture_output=True, text=True)
        if p.returncode:
            raise ValueError("fio's null engine failed: %s"
                             % p.stderr.strip())
        out.append(1e9 / json.loads(p.stdout)["jobs"][0]["read"]["iops"])
    out.sort()
    return out[len(out) // 2], out[0], out[-1]


def rest_of(mode, fio_ns, machine, work_ns=None):
    """(rest ns per I/O: one figure or (typ, low, high) measured, how it
    was sourced) for rest @mode; @work_ns: the header's "work NS"."""
    if mode == "work" and work_ns is not None:
        return work_ns, "work %.0f ns: the header's published-rest (the " \
            "pattern has no work())" % work_ns
    if mode == "work":
        return 0.0, "work: the job file's work(ns) is the whole rest"
    if fio_ns is None:
        fio = measure_fio_ns()
        src = "measured here, fio's null engine, 3 runs %.0f..%.0f" % (
            fio[1], fio[2])
    else:
        fio, src = (fio_ns,) * 3, "given (--fio-ns)"
    here, where = this_clock_ghz()
    if here and machine.clock_ghz:
        scale = here / machine.clock_ghz
        how = "x %.2f GHz here (%s) / %.2f GHz" % (here, where,
                                                   machine.clock_ghz)
    else:
        scale, how = 1.0, "not scaled: %s" % where
    ns = tuple(x * scale for x in fio)
    return (ns if fio_ns is None else ns[0],
            "fio: work(ns) + fio's %.0f ns per I/O (%s) %s"
            % (fio[0], src, how))
