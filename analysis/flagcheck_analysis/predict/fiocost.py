"""fio's own cost per I/O on this box, for the rest of a predicted I/O
(--rest fio): measured once with fio's null engine by flagcheck predict
--measure-fio and recorded, or given, scaled by the clocks; the one module
of predict/ that measures. docs/predict.md, "The model" (the rest)."""

import json
import os
import platform
import re
import subprocess
import time

from ..inputs import fiojson, numbers, outpath, safewrite, textfile
from ..machines import profile

# the recorded file: a regular file of at most 4 KiB, ns per I/O in
# 1..1e6 (fio's null engine costs about 10^2..10^3 ns an I/O)
RECORD_MAX_BYTES = 4096
NS_RANGE = (1.0, 1e6)
# a clock read from this box: a profile's range (machines/profile.py)
CLOCK_GHZ = profile.CLOCK_GHZ
# --fio-ns of flagcheck-predict, flagcheck-report and flagcheck-backtest
fio_ns_arg = numbers.arg("want a number of ns from %g to %g" % NS_RANGE,
                         low=NS_RANGE[0], high=NS_RANGE[1])


def this_clock_ghz():
    """This box's base clock from /sys (base_frequency, cpuinfo_max_freq)
    or /proc/cpuinfo's "@ X.XXGHz" model name: (GHz, where), or (None,
    why not)."""
    d = "/sys/devices/system/cpu/cpu0/cpufreq/"
    for f in ("base_frequency", "cpuinfo_max_freq"):
        khz = numbers.from_text(textfile.read_system(d + f) or "",
                                whole=True)
        if numbers.in_range(khz, CLOCK_GHZ[0] * 1e6, CLOCK_GHZ[1] * 1e6):
            return khz / 1e6, d + f
    m = re.search(r"model name.*@\s*([0-9.]+)\s*GHz",
                  textfile.read_system("/proc/cpuinfo") or "")
    ghz = numbers.from_text(m.group(1)) if m else None
    if numbers.in_range(ghz, *CLOCK_GHZ):
        return float(ghz), "/proc/cpuinfo model name"
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
        out.append(1e9 / null_iops("%s --ioengine=null" % fio, p.stdout))
    out.sort()
    return out[len(out) // 2], out[0], out[-1]


def null_iops(what, stdout):
    """The IOPS of the fio JSON @stdout of one null-engine run, read by
    fiojson's one reader (its bounds); ValueError naming @what."""
    try:
        iops = fiojson.run_metrics(fiojson.parse_fio_json(what, stdout),
                                   None)["iops"]
    except fiojson.InputError as e:
        raise ValueError(str(e))
    if not iops:
        raise ValueError("%s: no I/O done" % what)
    return iops


def rest_of(variant, fio_ns, machine, work_ns=None):
    """(rest ns per I/O: one figure or (typ, low, high) measured, how it
    was sourced) for rest @variant; @work_ns: the header's "work NS"."""
    if variant == "work" and work_ns is not None:
        return work_ns, "work %.0f ns: the header's published-rest (the " \
            "pattern has no work())" % work_ns
    if variant == "work":
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


def fio_source(fio_ns):
    """Where fio_rest() takes fio's cost from: "given" (--fio-ns),
    "recorded" (record_path(), as flagcheck predict reads it) or
    "measured" (here, where there is no record)."""
    if fio_ns is not None:
        return "given"
    return "recorded" if os.path.lexists(record_path()) else "measured"


def fio_rest(fio_ns, machine):
    """rest_of("fio", ...) for the report, from fio_source(); ValueError
    for a record that is not valid."""
    if fio_source(fio_ns) == "recorded":
        return recorded_rest(recorded(record_path()), machine)
    return rest_of("fio", fio_ns, machine)


def record_path():
    """$FLAGCHECK_FIO_COST, else build/fio-cost.json of this tree (or
    beside the installed analysis)."""
    if os.environ.get("FLAGCHECK_FIO_COST"):
        return os.environ["FLAGCHECK_FIO_COST"]
    here = os.path.dirname(os.path.realpath(__file__))
    top = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    build = os.path.join(top, "build")
    return os.path.join(build if os.path.isdir(build) else top,
                        "fio-cost.json")


def _cpu_model():
    m = re.search(r"^model name\s*:\s*(.*)$",
                  textfile.read_system("/proc/cpuinfo") or "", re.M)
    return m.group(1).strip() if m else "unknown"


def record(path, fio="fio"):
    """Measure fio's cost per I/O here (measure_fio_ns) and write it with
    what it was measured on to @path (safewrite: judged by outpath's rule
    before fio is measured, and again as it is written); returns the
    record."""
    outpath.check(path)
    ns, low, high = measure_fio_ns(fio)
    ghz, _ = this_clock_ghz()
    version = subprocess.run([fio, "--version"], capture_output=True,
                             text=True).stdout.strip() or "unknown"
    rec = {"fio_ns": round(ns, 1), "low": round(low, 1),
           "high": round(high, 1), "clock_ghz": ghz,
           "date": time.strftime("%Y-%m-%d", time.gmtime()),
           "host": platform.node(), "cpu": _cpu_model(), "fio": version}
    safewrite.write(path, json.dumps(rec, indent=1, allow_nan=False) + "\n")
    return rec


def _field(rec, path, key, kind):
    v = rec.get(key)
    if kind is float:
        ok = numbers.in_range(v, *NS_RANGE)
        want = "a number of ns from %g to %g" % NS_RANGE
    else:
        ok = isinstance(v, str) and 0 < len(v) <= 200 and v.isprintable()
        want = "a line of text (1 to 200 printable characters)"
    if not ok:
        raise numbers.NumberError("%s: %s" % (path, key), v, want)
    return v


def recorded(path):
    """The record of @path (a user may edit it: every field checked),
    or ValueError with one line saying how to record one."""
    if not os.path.lexists(path):
        raise ValueError("no recorded fio cost (%s): record one with "
                         "flagcheck predict --measure-fio, or give --fio-ns "
                         "NS" % path)
    try:
        rec = json.loads(textfile.read_text(path, "fio cost record",
                                            RECORD_MAX_BYTES))
    except textfile.TextFileError as e:
        raise ValueError(str(e))
    except (ValueError, RecursionError) as e:
        raise ValueError("%s: not JSON (%s): record it again with "
                         "flagcheck predict --measure-fio" % (path, e))
    if not isinstance(rec, dict):
        raise ValueError("%s: want a JSON object" % path)
    ns, low, high = (_field(rec, path, k, float)
                     for k in ("fio_ns", "low", "high"))
    if not low <= ns <= high:
        raise ValueError("%s: want low <= fio_ns <= high, got %g, %g, %g"
                         % (path, low, ns, high))
    ghz = rec.get("clock_ghz")
    if ghz is not None:
        numbers.number(ghz, "%s: clock_ghz" % path, 0.1, 10,
                       want="null or a number of GHz from 0.1 to 10")
    for k in ("date", "host", "cpu", "fio"):
        _field(rec, path, k, str)
    return rec


def recorded_rest(rec, machine):
    """(ns (typ, low, high), words) of a recorded fio cost, scaled by the
    record's clock over the profile's: nothing read from this box now."""
    if rec.get("clock_ghz") and machine.clock_ghz:
        scale = rec["clock_ghz"] / machine.clock_ghz
        how = "x %.2f GHz there / %.2f GHz" % (rec["clock_ghz"],
                                               machine.clock_ghz)
    else:
        scale, how = 1.0, "not scaled: the record has no clock"
    ns = tuple(rec[k] * scale for k in ("fio_ns", "low", "high"))
    return ns, ("fio: work(ns) + fio's %.0f ns per I/O (recorded %s on %s, "
                "%s) %s" % (rec["fio_ns"], rec["date"], rec["host"],
                            rec["fio"], how))
