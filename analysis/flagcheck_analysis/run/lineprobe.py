"""The cache line between a run's jobs, measured right before and right
after the run: flagcheck-calibrate's CAS ping-pong for a tenth of a second
on the run's first two CPUs (job 1's and job 2's), one way, in ns.

Why: on the 2-core dev VM always-dirty S1 at 2 jobs ran either near 9.5M
IOPS (test_first/always x1.1) or near 6.4M (x1.65), run by run, with one
fio clock and nothing else on the machine. The line's transfer between the
two vCPUs was then about 27 ns or about 123 ns, in step with it: where the
host runs the vCPUs (sharing a last-level cache or not) decides how much a
cache line that changes hands costs, which is the very thing the scenario
measures. The probe puts that beside every run of 2 or more pinned jobs,
and the report says when it moved within a cell."""

from ..calibrate import calibration

SECONDS = 0.1
# a probe that does not end is stopped after 20 times its length, 2 s at
# least (the program starts, pins itself and measures in that time)
TIMEOUT_MIN = 2.0
# a cell whose probes span this factor or more "moved" between its runs
MOVED = 2.0


def cpus_of(place):
    """The two CPUs to probe for a run's placement (job 1's and job 2's),
    or None: fewer than two jobs or CPUs, or jobs not pinned."""
    if not place or not place.get("pinned"):
        return None
    jobs = place.get("jobs") or []
    if len(jobs) < 2 or jobs[0] == jobs[1]:
        return None
    return [jobs[0], jobs[1]]


def probe(cpus, program=None, seconds=SECONDS):
    """One-way transfer ns between the two @cpus; raises
    calibration.CalibrationError."""
    doc = calibration.run_program(program or calibration.default_program(),
                                seconds=seconds, max_threads=1, cpus=cpus,
                                timeout=max(TIMEOUT_MIN, 20 * seconds))
    index = {c: i for i, c in enumerate(doc["cpus"])}
    if not all(c in index for c in cpus):
        raise calibration.CalibrationError(
            "flagcheck-calibrate measured CPUs %s, not %s"
            % (doc["cpus"], cpus))
    ns = doc["transfer_ns"][index[cpus[0]]][index[cpus[1]]]
    if not isinstance(ns, (int, float)) or ns <= 0:
        raise calibration.CalibrationError(
            "flagcheck-calibrate gave no transfer time for CPUs %s" % cpus)
    return float(ns)


def values(entry):
    """The run's probe values in ns (before, after; those measured)."""
    lp = entry.get("line_probe") if isinstance(entry, dict) else None
    if not isinstance(lp, dict):
        return []
    return [lp[k] for k in ("before_ns", "after_ns")
            if isinstance(lp.get(k), (int, float))]


def cell_spans(entries):
    """{(scenario, numjobs): (min ns, max ns)} over the probes of each
    cell's runs."""
    out = {}
    for e in entries:
        vs = values(e)
        if not vs:
            continue
        key = (e.get("scenario"), e.get("numjobs"))
        lo, hi = out.get(key, (min(vs), max(vs)))
        out[key] = (min(lo, *vs), max(hi, *vs))
    return out


def moved_text(spans, key):
    """'the line between the jobs' CPUs moved 27..124 ns over its runs'
    for a cell whose probes span MOVED or more, else None."""
    span = spans.get(key)
    if not span or span[1] < MOVED * span[0]:
        return None
    return ("the line between the jobs' CPUs took %.0f..%.0f ns over its "
            "runs (see the line probe table)" % span)


def header_line(conditions_list):
    secs = sorted({c.get("line_probe_s") for c in conditions_list
                   if c.get("line_probe_s")})
    if not secs:
        return None
    return ("line probe: the one-way cache-line transfer between job 1's "
            "and job 2's CPUs, %s s of flagcheck-calibrate's CAS ping-pong "
            "right before and after every run of 2 or more pinned jobs"
            % "/".join("%g" % s for s in secs))


def _ns(x):
    return "-" if x is None else "%.1f" % x


def table(files, records):
    """(title, header, rows, right) of every run with a probe, or None;
    @files as the report's (json path, manifest entry, ...) tuples, each
    run's IOPS from the report's @records (compare.Record, by source)."""
    iops_of = {r.source: r.metrics.get("iops") for r in records}
    rows = []
    for item in files:
        path, entry = item[0], item[1]
        if not values(entry):
            continue
        lp = entry["line_probe"]
        iops = iops_of.get(path)
        rows.append(((str(entry.get("scenario")), entry.get("numjobs", 0),
                      entry.get("repeat", 0), str(entry.get("mode"))),
                     [str(entry.get("scenario")), str(entry.get("numjobs")),
                      "r%s" % entry.get("repeat"), str(entry.get("mode")),
                      ",".join(map(str, lp.get("cpus", ()))),
                      "-" if iops is None else "%.0f" % iops,
                      _ns(lp.get("before_ns")), _ns(lp.get("after_ns"))]))
    if not rows:
        return None
    rows.sort(key=lambda r: r[0])
    return ("the cache line between the jobs' CPUs, per run (one way, ns, "
            "right before and after it)",
            ["scenario", "numjobs", "repeat", "mode", "CPUs", "IOPS",
             "before ns", "after ns"], [r[1] for r in rows], {1, 5, 6, 7})
