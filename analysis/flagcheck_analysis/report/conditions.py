"""The report's account of how the runs were made (flagcheck run's
manifest): where the jobs ran, the warm-up, which runs the machine was
busy for, and why each cell stopped adding repeats."""

from . import busymark, clocksource, jobcpus
from ..inputs import corun, lineprobes


def _key(entry):
    return (entry.get("scenario"), entry.get("numjobs"))


def _measured(entry):
    return isinstance(entry.get("interference"), dict)


def ok_entries(manifests):
    """Every finished run of the manifests."""
    return [e for m in manifests for e in m.get("runs", ())
            if isinstance(e, dict) and e.get("status") == "ok"]


def exclude_busy(files):
    """(files without the runs marked busy, the busy entries left out);
    @files as (path, manifest entry or None, ...) tuples, kept whole."""
    kept, dropped = [], []
    for item in files:
        entry = item[1]
        if entry is not None and busymark.is_busy(entry):
            dropped.append(entry)
        else:
            kept.append(item)
    return kept, dropped


def cell_counts(entries):
    """{(scenario, numjobs): (busy entries, runs measured)}, for the cells
    whose runs recorded interference."""
    out = {}
    for e in entries:
        if not _measured(e):
            continue
        busy, n = out.get(_key(e), ([], 0))
        out[_key(e)] = (busy + [e] if busymark.is_busy(e) else busy, n + 1)
    return out


def busy_text(counts, key, excluded):
    busy, n = counts.get(key, ([], 0))
    if not busy:
        return None
    return "machine busy in %d of %d runs%s" % (
        len(busy), n, ", left out" if excluded else "")


def _apart(verdict, words):
    """A verdict of a cell whose jobs seldom ran together: a difference
    it found reads "cannot tell" (such runs never decide one)."""
    if verdict.kind not in ("beyond", "differs"):
        return verdict
    return verdict._replace(kind="cannot_tell", text="cannot tell: %s (%s)"
                            % (words, verdict.text.split(": ", 1)[-1]))


def annotate(sections, counts, excluded, spans=None, records=()):
    """The comparison sections with "machine busy in k of n runs" added to
    every verdict of a cell that had busy runs, what the line probe saw
    in a cell where the line's cost moved between runs (@spans:
    lineprobes.cell_spans), and, in a cell of @records whose jobs seldom
    ran together (corun.seldom), "cannot tell" for every difference."""
    out = []
    for s in sections:
        key = (s.scenario, s.numjobs)
        apart = corun.seldom_text(s.numjobs, corun.records_share(
            records, s.scenario, s.numjobs)[0])
        notes = [t for t in (busy_text(counts, key, excluded),
                             lineprobes.moved_text(spans or {}, key)) if t]
        extra = "; ".join(notes) or None
        if extra is None and apart is None:
            out.append(s)
            continue
        rows = [r._replace(others=[c._replace(verdict=_note(
            _apart(c.verdict, apart) if apart else c.verdict, extra))
            for c in r.others]) for r in s.rows]
        out.append(s._replace(rows=rows))
    return out


def _note(verdict, extra):
    if extra is None or verdict.kind == "exact":
        return verdict      # a count is exact however busy the box was
    return verdict._replace(text="%s; %s" % (verdict.text, extra))


def _placements(entries):
    """{scenario: {numjobs: placement}} of the runs, first seen wins."""
    out = {}
    for e in entries:
        if e.get("placement"):
            out.setdefault(e.get("scenario"), {}).setdefault(
                e.get("numjobs"), e["placement"])
    return out


def _placement_lines(entries):
    out = []
    places = _placements(entries)
    for scenario in sorted(places):
        per = places[scenario]
        first = per[min(per)]
        if first.get("pinned"):
            out.append("placement: %s pinned, job k on the k-th CPU "
                       "(fio cpus_allowed_policy=split), cores before SMT "
                       "siblings, NUMA %s: %s" % (
                           scenario, first.get("policy", "?"), "; ".join(
                               "nj%d %s" % (n, jobcpus.describe(per[n]))
                               for n in sorted(per))))
        else:
            out.append("placement: %s, not pinned (--no-pin): jobs float "
                       "over CPUs %s" % (scenario,
                                         first.get("cpus_allowed", "?")))
    if not places:
        out.append("placement: not pinned (runs on fio servers)")
    return out


def _interference_line(cond, entries, excluded):
    measured = [e for e in entries if _measured(e)]
    if not measured:
        return None
    busy = [e for e in measured if busymark.is_busy(e)]
    thresholds = sorted({c.get("busy_threshold_pct") for c in cond},
                        key=str)
    loads = [x for e in measured for x in (
        (e["interference"].get("loadavg_before") or [None])[0],
        (e["interference"].get("loadavg_after") or [None])[0])
        if x is not None]
    freq = [e["interference"].get("cpufreq_before") for e in measured]
    govs = sorted({g for f in freq if f
                   for g in (f.get("governor") or {}).values()})
    return ("interference: machine busy in %d of %d runs (others' "
            "CPU time, user-space processes other than fio, or "
            "steal above %s%% of the run's CPUs)%s; "
            "load average (1 min) %s; CPU frequency governor: %s"
            % (len(busy), len(measured),
               "/".join("%g" % t for t in thresholds),
               ", busy runs left out (--exclude-busy)"
               if excluded else "",
               "%.2f..%.2f" % (min(loads), max(loads)) if loads
               else "not readable",
               ", ".join(govs) if govs else "not readable"))


def header_lines(manifests, entries, excluded):
    """Lines for the report header; none for results without a manifest
    (the manifest reader holds each to its conditions)."""
    cond = [m["conditions"] for m in manifests]
    if not cond:
        return []
    out = _placement_lines(entries)
    for line in sorted({clocksource.describe(c) for c in cond}) + \
            [lineprobes.header_line(cond)]:
        if line:
            out.append(line)
    ramps = sorted({c.get("ramp_s") for c in cond}, key=str)
    out.append("warm-up: %s" % ", ".join(
        "none" if not r else "fio ramp_time %s s before each run, in no "
        "fio figure" % r for r in ramps))
    busy = _interference_line(cond, entries, excluded)
    if busy:
        out.append(busy)
    for c in cond:
        if c.get("until_decided"):
            out.append("repeats: until decided (the IOPS ratio's 95%% CI "
                       "excludes 1, or is narrower than ±%g%%), at most %s "
                       "per variant" % (c.get("precision_pct"),
                                     c.get("max_repeats")))
    return out


def _stopped(cell, precision):
    stopped = cell.get("stopped")
    if stopped == "repeats":
        return "fixed --repeats"
    if stopped == "max_repeats":
        return "undecided at --max-repeats"
    if stopped == "seldom_together":
        return "undecided: its jobs seldom ran together"
    # a cell of a manifest without --precision (edited): not said
    why = {"excludes_1": "CI excludes 1",
           "narrow": "CI narrower than ±%g%%" % precision
           if isinstance(precision, (int, float)) else
           "CI narrower than the precision (not in the manifest)"}
    return "decided: " + " and ".join(
        why.get(r, str(r)) for r in sorted({d.get("reason") for d in
                                            cell.get("decisions", ())}))


def _busy_cell(busy, n):
    """'2 of 8: always r2, test_first r3', or '8 of 8: all'."""
    if not busy:
        return "0 of %d" % n
    return "%d of %d: %s" % (len(busy), n, "all" if len(busy) == n else
                             ", ".join("%s r%s" % (e.get("variant"),
                                                   e.get("repeat"))
                                       for e in busy))


def tables(manifests, entries, counts):
    """(title, header, rows, right) tables: one row per cell (its CPUs,
    repeats, why it stopped, busy runs), and one row per busy run."""
    out = []
    cells = []
    for m in manifests:
        precision = (m.get("conditions") or {}).get("precision_pct")
        cells += [(c, precision) for c in m.get("cells", ())
                  if isinstance(c, dict)]
    places = _placements(entries)
    if cells:
        rows = []
        for c, precision in cells:
            key = (c.get("scenario"), c.get("numjobs"))
            p = places.get(key[0], {}).get(key[1])
            busy, n = counts.get(key, ([], 0))
            rows.append([str(key[0]), str(key[1]),
                         ",".join(map(str, p["jobs"])) if p and
                         p.get("pinned") else "floating",
                         str(c.get("repeats")), _stopped(c, precision),
                         c.get("text") or "-",
                         _busy_cell(busy, n)])
        out.append(("repeats and conditions per cell (flagcheck run's "
                    "stopping rule, on IOPS)",
                    ["scenario", "numjobs", "job CPUs", "repeats per variant",
                     "stopped", "ratio at the stop", "busy runs"],
                    rows, {1, 3}))
    busy = sorted((e for e in entries if busymark.is_busy(e)),
                  key=lambda e: (str(e.get("scenario")), e.get("numjobs", 0),
                                 e.get("repeat", 0)))
    if busy:
        rows = []
        for e in busy:
            i = e["interference"]
            run = i.get("run_cpus") or {}
            la, lb = i.get("loadavg_before"), i.get("loadavg_after")
            rows.append([e.get("name", "?"),
                         ",".join(map(str, i.get("cpus", ()))),
                         _pct(run.get("others_share")),
                         _pct(run.get("steal_share")),
                         "%.2f -> %.2f" % (la[0], lb[0]) if la and lb
                         else "-"])
        out.append(("busy runs (others' share and steal of the run's "
                    "CPU time)", ["run", "CPUs", "others", "steal",
                                  "load avg 1 min"], rows, {2, 3}))
    kt = kthreads_table(entries)
    return out + ([kt] if kt else [])


def kthreads_table(entries):
    """(title, header, rows, right): per cell, the kernel threads' CPU time
    on the runs' CPUs (the work of the runs' own I/O, not others'), the
    busiest named; None when no run recorded any."""
    cells = {}
    for e in entries:
        run = ((e.get("interference") or {}).get("run_cpus") or {})
        if "kthreads_s" not in run:
            continue
        c = cells.setdefault(_key(e), {"n": 0, "s": 0.0, "cpu": 0.0,
                                       "names": {}})
        c["n"] += 1
        c["s"] += run["kthreads_s"]
        c["cpu"] += run.get("cpu_s") or 0.0
        for name, sec in run.get("kthreads") or ():
            c["names"][name] = c["names"].get(name, 0.0) + sec
    if not any(c["s"] for c in cells.values()):
        return None
    rows = []
    for key in sorted(cells, key=lambda k: (str(k[0]), k[1] or 0)):
        c = cells[key]
        named = sorted(c["names"].items(), key=lambda kv: (-kv[1], kv[0]))
        rows.append([str(key[0]), str(key[1]), str(c["n"]),
                     "%.3f" % (c["s"] / c["n"]),
                     _pct(c["s"] / c["cpu"] if c["cpu"] else None),
                     ", ".join("%s %.2f s" % kv for kv in named[:3]) or "-"])
    return ("kernel threads on the runs' CPUs (the work of the runs' own "
            "I/O: counted as the run's, never as others'; the busiest, "
            "summed over the runs)",
            ["scenario", "numjobs", "runs", "s per run", "of the CPUs",
             "busiest"], rows, {1, 2, 3, 4})


def _pct(x):
    return "-" if x is None else "%.0f%%" % (100 * x)


# a cell's first run this far below the median of its others reads as cold
COLD = 1.5


def cold_first_runs(records):
    """Lines naming each cell (scenario, numjobs, variant) whose first run
    (repeat 1) did less than 1/COLD of the median IOPS of its other runs
    (at least 2): a cold start (a real file's first touch, the page
    cache, the CPU's clock), which would read as a gain or a loss."""
    cells = {}
    for r in records:
        if r.repeat is not None and r.metrics.get("iops") is not None:
            cells.setdefault((r.scenario, r.numjobs, r.variant), {})[
                r.repeat] = r.metrics["iops"]
    out = []
    for (scenario, nj, variant), runs in sorted(cells.items(), key=str):
        first = runs.get(1)
        rest = sorted(v for k, v in runs.items() if k != 1)
        if first is None or len(rest) < 2:
            continue
        mid = len(rest) // 2
        median = rest[mid] if len(rest) % 2 else (rest[mid - 1] +
                                                   rest[mid]) / 2
        if first * COLD < median:
            out.append("%s %s nj%d r1: %.0f IOPS against a median %.0f of "
                       "its %d other runs: a cold first run (a real file's "
                       "first touch, the page cache, the clock); give "
                       "flagcheck run --ramp S, or a warm-up run first, "
                       "before reading the ratio" % (
                           scenario, variant, nj, first, median, len(rest)))
    return out
