"""The report's big-box answer (docs/predict.md): each model=pattern
scenario whose job file a results directory's manifest names, simulated
by predict/simulate.py with its band:

  --predict N   on --machine PROFILE at N CPUs; without --machine on this
                box's calibration (the results directory's
                calibration.json, a profile too) where N fits in it
  published     on the job file's published-machine line, with its
                published-rest (as make backtest predicts it)

The rest of each I/O for --predict is this fio job's (--rest fio): fio's
cost per I/O from --fio-ns, else measured once with fio's null engine.
Each row says which profile and rest it used.

Checked on this box (measured()): where the results hold calibration.json,
each pattern job at every numjobs it ran, simulated on that calibration as
the profile with this fio job's rest, beside the measured IOPS of each
mode; within WITHIN of each other or not, per row. A calibration whose
transfer between the runs' CPUs is more than DISAGREE from the runs' own
line probes (their median) is named and not used."""

import os

from ..predict import jobspec, simulate
from ..results import published
from ..run import lineprobe
from . import prediction

WITHIN = 0.15
# a calibration this far from the runs' own line probes is not used
DISAGREE = 2.0

TITLE = ("the big-box answer: each pattern job simulated (flagcheck-predict, "
         "docs/predict.md): gain test_first/always at typical costs, "
         "band lowest..highest over the profile's low..high costs and 3 "
         "seeds")
HEADER = ["scenario", "machine", "cpus", "rest", "always IOPS",
          "test_first IOPS", "gain (band)", "D/C", "published"]


def add_arguments(p):
    g = p.add_argument_group("big-box answer", "with --predict N or a job "
                             "file's published-machine line")
    g.add_argument("--machine", metavar="NAME_OR_FILE",
                   help="the profile --predict N simulates on")
    g.add_argument("--fio-ns", type=float, metavar="NS",
                   help="fio's cost per I/O for --predict (default: "
                   "measured)")


def job_files(manifests):
    """{scenario: job file} of the model=pattern job files named."""
    out = {}
    for mf in manifests:
        jobs = (mf.get("matrix") or {}).get("jobs")
        for scenario, path in (jobs.items() if isinstance(jobs, dict)
                               else ()):
            if isinstance(path, str) and os.path.exists(path) and \
                    jobspec.is_pattern(path):
                out[scenario] = path
    return out


def _calibration(inputs):
    for item in inputs:
        path = os.path.join(item, "calibration.json")
        if os.path.isdir(item) and os.path.isfile(path) and \
                not os.path.islink(path):
            return path
    return None


def _row(scenario, spec, mach, n, placement, rest, gain_pub):
    p = simulate.predict(spec, mach, n, placement, rest[0])
    m, g = p["modes"], p["gain"]
    dc = max([d["ratio"] for d in p["demand"]] or [0.0])
    return [scenario, mach.name + (" " + placement if placement else ""),
            str(n), rest[1].split(":")[0],
            "%.0f (%.0f..%.0f)" % (m["always"]["iops"], m["always"]["low"],
                                   m["always"]["high"]),
            "%.0f (%.0f..%.0f)" % (m["test_first"]["iops"],
                                   m["test_first"]["low"],
                                   m["test_first"]["high"]),
            "x%.2f (%.2f..%.2f)" % (g["value"], g["low"], g["high"]),
            "%.3g" % dc, "-" if gain_pub is None else "x%.2f" % gain_pub]


def _predicted(args, load, scenario, spec, gain_pub, warn):
    n = getattr(args, "predict", None)
    if not n:
        return []
    name = args.machine or _calibration(args.inputs)
    if name is None:
        warn("--predict %d: no --machine and no calibration.json in the "
             "results: the big-box answer names no machine" % n)
        return []
    mach = load(name)
    if n > mach.total_cpus:
        warn("--predict %d: %s has %d CPUs: name a bigger profile with "
             "--machine (the big-box answer is left out)"
             % (n, mach.name, mach.total_cpus))
        return []
    rest = prediction.rest_of("fio", args.fio_ns, mach)
    return [_row(scenario, spec, mach, n, None, rest, gain_pub)]


def rows(args, manifests, warn):
    """The table's rows: per scenario --predict's and the published one."""
    from ..results import machine as machines
    loaded = {}

    def load(name):
        if name not in loaded:
            loaded[name] = machines.load(name)
        return loaded[name]

    out = []
    for scenario, path in sorted(job_files(manifests).items()):
        try:
            spec = jobspec.read(path)
            gain_pub = prediction.published_gain(path)
            out += _predicted(args, load, scenario, spec, gain_pub, warn)
            pub = spec.published
            if pub and spec.rest == "work":
                mach = load(pub.profile)
                rest = prediction.rest_of("work", None, mach, spec.rest_ns)
                out.append(_row(scenario, spec, mach, pub.cpus,
                                pub.placement, rest, gain_pub))
        except (ValueError, jobspec.SpecError,
                simulate.PredictError) as e:
            warn("%s (the big-box answer leaves it out)" % e)
    return out


def table(args, manifests, warn):
    """[the table] or [] when there is nothing to simulate."""
    body = rows(args, manifests, warn)
    return [(TITLE, HEADER, body, {2, 4, 5, 6, 7})] if body else []


# ---- checked on this box: simulated beside measured ----

BESIDE_TITLE = ("checked on this box: each pattern job simulated on this "
                "box's calibration at the numjobs it ran, beside the "
                "measured (mean over the repeats); within %d%% or not"
                % round(100 * WITHIN))
BESIDE_HEADER = ["scenario", "numjobs", "mode", "measured IOPS",
                 "simulated IOPS (band)", "measured/simulated", "within"]


def measured_iops(records):
    """{(scenario, numjobs, mode): mean IOPS over the repeats}."""
    acc = {}
    for r in records:
        v = r.metrics.get("iops")
        if v is not None:
            acc.setdefault((r.scenario, r.numjobs, r.mode), []).append(v)
    return {k: sum(v) / len(v) for k, v in acc.items()}


def beside_rows(scenario, spec, mach, measured, rest_ns):
    """Rows for one job: @measured {(numjobs, mode): IOPS}."""
    out = []
    for nj in sorted({n for n, _ in measured}):
        if nj > mach.total_cpus:
            continue
        p = simulate.predict(spec, mach, nj, None, rest_ns)
        for mode in simulate.MODES:
            x = measured.get((nj, mode))
            if x is None:
                continue
            s = p["modes"][mode]
            ratio = x / s["iops"]
            out.append([scenario, str(nj), mode, "%.0f" % x,
                        "%.0f (%.0f..%.0f)" % (s["iops"], s["low"],
                                               s["high"]),
                        "%.2f" % ratio,
                        "yes" if abs(ratio - 1) <= WITHIN else "no"])
    return out


def disagreement(mach, entries):
    """A line naming how the calibration @mach and the runs' line probes
    (manifest @entries) disagree by more than DISAGREE, or None."""
    probes, pairs = [], set()
    for e in entries:
        vs = lineprobe.values(e)
        if vs:
            probes += vs
            pairs.add(tuple(e["line_probe"].get("cpus") or ()))
    pairs = [p for p in pairs if len(p) == 2]
    if not probes or not pairs:
        return None
    probes.sort()
    probe = probes[len(probes) // 2]
    try:
        cal = sorted(mach.transfer_ns(a, b) for a, b in pairs)
    except (KeyError, IndexError, ValueError):
        return None
    cal_ns = cal[len(cal) // 2]
    if max(cal_ns, probe) <= DISAGREE * min(cal_ns, probe):
        return None
    return ("the calibration (%s) puts %.0f ns between the runs' CPUs, "
            "their line probes %.0f ns (median of %d): more than x%g "
            "apart, the calibration is not used (simulated beside measured "
            "is left out)" % (mach.name, cal_ns, probe, len(probes),
                              DISAGREE))


def beside(args, manifests, records, warn, entries=()):
    """[the table] or []: needs calibration.json in the results that the
    runs' line probes (@entries: manifest run entries) do not contradict."""
    cal = _calibration(args.inputs)
    jobs = job_files(manifests)
    if cal is None or not jobs:
        return []
    from ..results import machine as machines
    iops = measured_iops(records)
    body = []
    try:
        mach = machines.load(cal)
        why = disagreement(mach, entries)
        if why:
            warn(why)
            return []
        rest = prediction.rest_of("fio", args.fio_ns, mach)
    except ValueError as e:
        warn("%s (simulated beside measured is left out)" % e)
        return []
    for stem, path in sorted(jobs.items()):
        label = published.label(stem)
        mine = {(nj, mode): v for (s, nj, mode), v in iops.items()
                if s == label}
        try:
            body += beside_rows(label, jobspec.read(path), mach, mine,
                                rest[0])
        except (ValueError, jobspec.SpecError, simulate.PredictError) as e:
            warn("%s (simulated beside measured leaves it out)" % e)
    return [(BESIDE_TITLE + "; rest " + rest[1], BESIDE_HEADER, body,
             {1, 3, 4, 5})] if body else []
