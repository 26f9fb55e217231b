"""What else used the machine during a run, sampled before and after each
fio run from /proc and /sys: others' CPU time and steal on the run's CPUs
(kernel threads named apart), the load average, the frequency governor,
and the run's mark, busy or quiet. What each figure counts:
docs/analysis.md, "On a busy machine"."""

import errno
import os
import resource
import time

from ..inputs import numbers, textfile

PROC = "/proc"
CPUFREQ = "/sys/devices/system/cpu"
FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq",
          "steal", "guest", "guest_nice")
BUSY_FIELDS = ("user", "nice", "system")
DEFAULT_THRESHOLD = 0.10
PF_KTHREAD = 0x00200000         # include/linux/sched.h: a kernel thread
KTHREADS_NAMED = 5              # the busiest kernel threads named


def clock_ticks():
    return os.sysconf("SC_CLK_TCK")


def read_proc_stat(proc=PROC):
    """{'all' or cpu number: {field: ticks}} from /proc/stat."""
    out = {}
    path = os.path.join(proc, "stat")
    text = textfile.read_system(path)
    if text is None:
        raise OSError(errno.EIO, "cannot read", path)
    for line in text.splitlines():
        words = line.split()
        if not words or not words[0].startswith("cpu"):
            continue
        name = words[0][3:]
        key = "all" if name == "" else int(name)
        out[key] = {k: int(v) for k, v in zip(FIELDS, words[1:])}
    return out


def read_loadavg(proc=PROC):
    """[1, 5, 15 minute load averages], or None if unreadable."""
    words = (textfile.read_system(os.path.join(proc, "loadavg")) or
             "").split()[:3]
    vals = [numbers.from_text(x) for x in words]
    return vals if len(vals) == 3 and None not in vals else None


def read_cpufreq(cpus, sysfs=CPUFREQ):
    """{'governor': {cpu: name}, 'cur_khz': {cpu: kHz}} for the CPUs whose
    cpufreq files are readable; None when none is (as in most VMs)."""
    gov, cur = {}, {}
    for cpu in cpus:
        d = os.path.join(sysfs, "cpu%d" % cpu, "cpufreq")
        name = textfile.read_system(os.path.join(d, "scaling_governor"))
        if name is not None:
            gov[str(cpu)] = name.strip()
        khz = numbers.from_text(textfile.read_system(
            os.path.join(d, "scaling_cur_freq")) or "", whole=True)
        if khz is not None:
            cur[str(cpu)] = khz
    if not gov and not cur:
        return None
    return {"governor": gov, "cur_khz": cur}


def read_processes(proc=PROC):
    """{pid: (comm, ppid, kernel thread?, CPU ticks, last CPU)} of every
    process readable in /proc; CPU ticks are its utime + stime + the
    cutime + cstime of the children it reaped (proc(5))."""
    out = {}
    try:
        names = os.listdir(proc)
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            text = textfile.read_system(os.path.join(proc, name, "stat"))
            if text is None:
                continue
            head, _, rest = text.rpartition(")")
            w = rest.split()
            # fields 4 ppid, 9 flags, 14-17 times, 39 processor
            out[int(name)] = (head.split("(", 1)[1], int(w[1]),
                              bool(int(w[6]) & PF_KTHREAD),
                              sum(int(x) for x in w[11:15]), int(w[36]))
        except (OSError, ValueError, IndexError):
            continue                    # gone, or not a process we can read
    return out


def _ours(pid, *maps):
    """This runner's pid and every descendant of it in the samples."""
    kids = {}
    for m in maps:
        for p, info in m.items():
            kids.setdefault(info[1], set()).add(p)
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        if p not in out:
            out.add(p)
            todo += kids.get(p, ())
    return out


def _process_seconds(before, after, cpus, hz):
    """(user-space others' seconds, {kernel thread name: seconds}) of the
    processes that last ran on one of @cpus, between two samples; None
    when the samples hold no processes (/proc unreadable)."""
    b, a = before["procs"], after["procs"]
    if not b or not a:
        return None
    ours = _ours(before.get("pid"), b, a)
    cpus, user, kthreads = set(cpus), 0, {}
    for pid, (comm, _, kthread, ticks, cpu) in a.items():
        old = b.get(pid)
        if pid in ours or (cpu not in cpus and
                           (old is None or old[4] not in cpus)):
            continue
        # by pid alone: a kworker's comm names the work it runs now
        delta = ticks - old[3] if old and old[3] <= ticks else ticks
        if delta <= 0:
            continue
        if kthread:
            kthreads[comm] = kthreads.get(comm, 0) + delta / hz
        else:
            user += delta
    return user / hz, kthreads


def _own_seconds():
    """CPU seconds of this process and of its reaped children."""
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    me = resource.getrusage(resource.RUSAGE_SELF)
    return ch.ru_utime + ch.ru_stime, me.ru_utime + me.ru_stime


def sample(cpus, proc=PROC, sysfs=CPUFREQ):
    """One sample, taken right before or right after a fio run."""
    children, me = _own_seconds()
    return {"t": time.monotonic(), "stat": read_proc_stat(proc),
            "procs": read_processes(proc), "pid": os.getpid(),
            "loadavg": read_loadavg(proc), "cpufreq": read_cpufreq(cpus,
                                                                   sysfs),
            "children_s": children, "self_s": me}


def _delta(before, after, keys):
    """{field: ticks} summed over `keys` (CPU numbers or 'all') between
    two /proc/stat readings."""
    out = dict.fromkeys(FIELDS, 0)
    for key in keys:
        b, a = before.get(key), after.get(key)
        if b is None or a is None:
            continue
        for f in FIELDS:
            out[f] += a.get(f, 0) - b.get(f, 0)
    return out


def _shares(ticks, ours_s, hz, procs=None):
    """The figures of some CPUs; @procs: _process_seconds of them."""
    capacity = sum(ticks[f] for f in FIELDS
                   if f not in ("guest", "guest_nice")) / hz
    busy = sum(ticks[f] for f in BUSY_FIELDS) / hz
    others = max(0.0, busy - ours_s)
    out = {"cpu_s": round(capacity, 3), "busy_s": round(busy, 3)}
    if procs is not None:
        user, kthreads = procs
        named = sorted(kthreads.items(), key=lambda kv: (-kv[1], kv[0]))
        # a kernel thread that last ran here is counted whole, though it
        # may have run on other CPUs too: at most these CPUs' own time
        # (the manifest's schema holds kthreads_s to cpu_s)
        out.update(not_ours_s=round(others, 3),
                   kthreads_s=round(min(sum(kthreads.values()),
                                        capacity), 3),
                   kthreads=[[n, round(v, 3)]
                             for n, v in named[:KTHREADS_NAMED]])
        others = min(others, user)
    out.update(
        others_s=round(others, 3), steal_s=round(ticks["steal"] / hz, 3),
        irq_s=round((ticks["irq"] + ticks["softirq"]) / hz, 3),
        others_share=round(others / capacity, 4) if capacity else None,
        steal_share=(round(ticks["steal"] / hz / capacity, 4)
                     if capacity else None))
    return out


def measure(before, after, cpus, threshold=DEFAULT_THRESHOLD, hz=None):
    """The manifest's "interference" of one run, from the samples taken
    before and after it; `cpus` are the run's CPUs."""
    hz = hz or clock_ticks()
    ours = (after["children_s"] - before["children_s"]) + \
        (after["self_s"] - before["self_s"])
    run = _shares(_delta(before["stat"], after["stat"], cpus), ours, hz,
                  _process_seconds(before, after, cpus, hz))
    machine = _shares(_delta(before["stat"], after["stat"], ["all"]), ours,
                      hz, _process_seconds(before, after, set(
                          k for k in after["stat"] if k != "all"), hz))
    reasons = []
    if run["others_share"] is not None and run["others_share"] > threshold:
        reasons.append("others used %.0f%% of CPUs %s"
                       % (100 * run["others_share"],
                          ",".join(map(str, cpus))))
    if run["steal_share"] is not None and run["steal_share"] > threshold:
        reasons.append("steal %.0f%% of CPUs %s"
                       % (100 * run["steal_share"],
                          ",".join(map(str, cpus))))
    return {"busy": bool(reasons), "reasons": reasons,
            "threshold": threshold, "cpus": list(cpus),
            "wall_s": round(after["t"] - before["t"], 3),
            "ours_s": round(ours, 3), "run_cpus": run, "machine": machine,
            "loadavg_before": before["loadavg"],
            "loadavg_after": after["loadavg"],
            "cpufreq_before": before["cpufreq"],
            "cpufreq_after": after["cpufreq"]}
