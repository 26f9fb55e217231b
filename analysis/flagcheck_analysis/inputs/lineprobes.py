"""The line probes a run recorded (its manifest entry's "line_probe", made by
run/lineprobe.py: the one-way cache-line transfer between job 1's and job
2's CPUs right before and right after the run), read for the report: the
span of each cell's probes, the note when the line moved within a cell, the
header line and the per-run table."""

# a cell whose probes span this factor or more "moved" between its runs
MOVED = 2.0


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
                      entry.get("repeat", 0), str(entry.get("variant"))),
                     [str(entry.get("scenario")), str(entry.get("numjobs")),
                      "r%s" % entry.get("repeat"), str(entry.get("variant")),
                      ",".join(map(str, lp.get("cpus", ()))),
                      "-" if iops is None else "%.0f" % iops,
                      _ns(lp.get("before_ns")), _ns(lp.get("after_ns"))]))
    if not rows:
        return None
    rows.sort(key=lambda r: r[0])
    return ("the cache line between the jobs' CPUs, per run (one way, ns, "
            "right before and after it)",
            ["scenario", "numjobs", "repeat", "variant", "CPUs", "IOPS",
             "before ns", "after ns"], [r[1] for r in rows], {1, 5, 6, 7})
