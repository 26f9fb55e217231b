"""flagcheck compare A B (report --compare): per scenario, numjobs and
variant, B's gain against A's (paired.py) and B's IOPS against A's with
the report's verdict, labelled with what differs between the setups;
busy runs and cells whose jobs seldom ran together never decide a
difference. docs/analysis.md, "The summary, two results side by side"."""

import csv
import io
from collections import namedtuple

from ..inputs import corun, fiojson, published, runsetup, textfile
from ..stats import compare, decide, paired, significance
from . import render, setupdiff

MIN_PAIRS = decide.MIN_REPEATS     # quiet pairs per side that may decide

# One side: its name (what was given), its records, their fio documents
# and setups (in the records' order), conditions.cell_counts and its
# manifests.
Side = namedtuple("Side", "name records docs setups counts manifests",
                  defaults=((),))
Result = namedtuple("Result", "head tables refused")

# fio job options that make two runs different workloads, not two
# measurements of one: compared, never labelled
SHAPE = ("rw", "readwrite", "bs", "blocksize", "iodepth", "direct",
         "buffered", "thread", "model")


def shape(doc):
    opts = fiojson.job_options(doc)
    return tuple((k, str(opts[k])) for k in SHAPE if k in opts)


def _values(side, field):
    return sorted({"unknown" if s[field] is None else str(s[field])
                   for s in side.setups})


# the runs' own fields that setupdiff.py names better: each variable
# apart, the job file by what in it differs
SAID_BY_MANIFESTS = ("job file", "variables")


def differences(a, b):
    """["fio version (A fio-3.33, B fio-3.36)", "pinning (A pinned, B not
    pinned (--no-pin))", ...]: what the runs' own files record
    differently (runsetup.FIELDS), then every other field the manifests
    record differently (setupdiff.py)."""
    out, named = [], []
    for f in runsetup.FIELDS:
        va, vb = _values(a, f), _values(b, f)
        if va != vb and f not in SAID_BY_MANIFESTS:
            out.append("%s (A %s, B %s)" % (f, " + ".join(va),
                                            " + ".join(vb)))
            named.append(f)
    return out + setupdiff.differences(a.manifests, b.manifests, named)


def _shapes(side, scenario):
    return {shape(d) for r, d in zip(side.records, side.docs)
            if r.scenario == scenario}


def _fmt_shape(shapes):
    return " + ".join(" ".join("%s=%s" % kv for kv in s) or "(none)"
                      for s in sorted(shapes))


def _busy(side, scenario, numjobs):
    busy, n = side.counts.get((scenario, numjobs), ([], 0))
    return "%d of %d" % (len(busy), n) if busy else None


def _apart(a, b, scenario, numjobs):
    """"A's 2 jobs ran together 11% of the run; ..." of the sides whose
    cell's jobs seldom ran together (corun.seldom), or None."""
    out = []
    for name, side in (("A", a), ("B", b)):
        pct = corun.records_share(side.records, scenario, numjobs)[0]
        if corun.seldom(numjobs, pct):
            out.append("%s's %d jobs ran together %.0f%% of the run" % (
                name, numjobs, pct))
    return "; ".join(out) or None


def _iops(side, scenario, variant, numjobs):
    return [r.metrics for r in side.records
            if (r.scenario, r.variant, r.numjobs) == (scenario, variant, numjobs)]


def _busy_runs(side, scenario, numjobs):
    """{(variant, repeat)} of the cell's runs marked busy."""
    busy, _ = side.counts.get((scenario, numjobs), ([], 0))
    return {(e.get("variant"), e.get("repeat")) for e in busy}


def _pairs(side, scenario, numjobs, base, variant, quiet=False):
    """The ratios variant/base of the cell's runs paired by repeat (with
    @quiet, only pairs of which neither run was busy)."""
    busy = _busy_runs(side, scenario, numjobs) if quiet else set()
    by = {base: {}, variant: {}}
    for r in side.records:
        if (r.scenario, r.numjobs) != (scenario, numjobs) or \
                r.variant not in by or r.repeat is None or \
                r.metrics.get("iops") is None:
            continue
        by[r.variant][r.repeat] = r.metrics["iops"]
    for m in by:
        by[m] = {k: v for k, v in by[m].items() if (base, k) not in busy
                 and (variant, k) not in busy}
    return paired.ratios(by[base], by[variant])


def _differs(g):
    return g.ci is not None and not g.ci[0] <= 1.0 <= g.ci[1] and \
        g.p is not None and g.p < significance.ALPHA


def gain_verdict(a, b, scenario, numjobs, base, variant):
    """(GainDiff of all pairs, its verdict in words)."""
    g = paired.compare_gains(_pairs(a, scenario, numjobs, base, variant),
                             _pairs(b, scenario, numjobs, base, variant))
    if g.ci is None:
        return g, "cannot tell: %d vs %d pairs, 2 a side needed" % (g.na,
                                                                   g.nb)
    busy = ["%s busy in %s runs" % (n, t) for n, t in (
        ("A", _busy(a, scenario, numjobs)), ("B", _busy(b, scenario,
                                                       numjobs))) if t]
    stat = "Welch p=%s, %d vs %d pairs" % (significance.fmt_p(g.p), g.na, g.nb)
    apart = _apart(a, b, scenario, numjobs)
    if apart:       # runs that did not contend the line decide nothing
        return g, "cannot tell: %s, under %.0f%%: the line was seldom " \
            "contended (all pairs: %s)" % (apart, corun.SELDOM_PCT, stat)
    if not busy:
        return g, ("gain differs: %s" % stat if _differs(g) else
                   "same gain: no difference beyond the spread of the "
                   "pairs, %s" % stat)
    q = paired.compare_gains(
        _pairs(a, scenario, numjobs, base, variant, quiet=True),
        _pairs(b, scenario, numjobs, base, variant, quiet=True))
    if min(q.na, q.nb) >= MIN_PAIRS and q.ci is not None:
        return g, ("%s, from the quiet runs alone (%d vs %d pairs: x%.3f, "
                   "%.3f..%.3f, Welch p=%s): %s; %s"
                   % ("gain differs" if _differs(q) else "same gain",
                      q.na, q.nb, q.ratio, q.ci[0], q.ci[1],
                      significance.fmt_p(q.p), "the busy runs left out" if
                      _differs(q) else "no difference beyond the spread "
                      "of the pairs", "; ".join(busy)))
    return g, "cannot tell: %s (all pairs: %s; quiet pairs: %d vs %d, %d " \
        "a side needed)" % ("; ".join(busy), stat, q.na, q.nb, MIN_PAIRS)


def gain_table(a, b, scenario, base):
    """(title, header, rows, right): B's gain against A's per numjobs and
    variant, or None where no cell has pairs on both sides."""
    rows = []
    ca, cb = _cells(a, scenario), _cells(b, scenario)
    for variant, nj in sorted(ca & cb, key=lambda c: (c[1], c[0])):
        if variant == base or (base, nj) not in ca & cb:
            continue
        g, text = gain_verdict(a, b, scenario, nj, base, variant)
        ga = paired.paired(_pairs(a, scenario, nj, base, variant))
        gb = paired.paired(_pairs(b, scenario, nj, base, variant))
        if not ga.n or not gb.n:
            continue
        rows.append(["%s/%s" % (variant, base), str(nj),
                     "x%.3f (%d)" % (ga.gain, ga.n),
                     "x%.3f (%d)" % (gb.gain, gb.n),
                     "x%.3f" % g.ratio, render.fmt_ci(g.ci), text])
    if not rows:
        return None
    return ("%s: did the gain change? B's gain against A's (each the "
            "geometric mean of its pairs' ratios, pairs in brackets; 95%% "
            "CI: Welch's t-interval over the pairs' logs)" % scenario,
            ["gain", "numjobs", "A", "B", "B/A", "95% CI", "verdict"],
            rows, {1, 2, 3, 4, 5})


def _cells(side, scenario):
    return {(r.variant, r.numjobs) for r in side.records
            if r.scenario == scenario}


def scenario_table(a, b, scenario, refused):
    """(title, header, rows, right) of one scenario, or None when nothing
    of it can be compared (the reasons go to @refused)."""
    sa, sb = _shapes(a, scenario), _shapes(b, scenario)
    if sa != sb:
        refused.append("%s: not compared, the job shape differs: A %s, B %s"
                       % (scenario, _fmt_shape(sa), _fmt_shape(sb)))
        return None
    ca, cb = _cells(a, scenario), _cells(b, scenario)
    for side, only in (("A", ca - cb), ("B", cb - ca)):
        for variant, nj in sorted(only):
            refused.append("%s: %s at numjobs=%d only in %s: not compared"
                           % (scenario, variant, nj, side))
    rows = []
    for variant, nj in sorted(ca & cb, key=lambda c: (c[1], c[0])):
        ra, rb = _iops(a, scenario, variant, nj), _iops(b, scenario, variant, nj)
        x, y = compare.cell(variant, ra, "iops"), compare.cell(variant, rb, "iops")
        v = significance.verdict(x.values, y.values)
        busy_of = [(s, t) for s, t in (("A", _busy(a, scenario, nj)),
                                        ("B", _busy(b, scenario, nj))) if t]
        notes = ["busy: %s %s" % st for st in busy_of]
        apart = _apart(a, b, scenario, nj)
        if apart and v.kind in ("beyond", "differs"):
            v = v._replace(kind="cannot_tell", text="cannot tell: %s, "
                           "under %.0f%% (%s)" % (
                               apart, corun.SELDOM_PCT,
                               v.text.split(": ", 1)[-1]))
        if notes and v.kind in ("beyond", "differs"):
            # busy runs never decide a difference
            v = v._replace(kind="cannot_tell", text="cannot tell: %s (%s)"
                           % ("; ".join("%s busy in %s runs" % (n, t)
                                        for n, t in busy_of),
                              "Welch p=%s, n=%d vs %d" % (
                                  significance.fmt_p(v.welch.p), x.n, y.n)
                              if v.welch else "n=%d vs %d" % (x.n, y.n)))
            notes = []
        rows.append([variant, str(nj), render.fmt_mean_sd(x),
                     render.fmt_change(compare.Comparison(
                         y, significance.pct_change(x.mean, y.mean), v), x),
                     render.fmt_mean_sd(y), render.fmt_ci(v.ci),
                     "; ".join([v.text] + notes)])
    if not rows:
        return None
    return ("%s: B against A (IOPS mean ± %%stddev; %%change and the ratio "
            "95%% CI of mean(B)/mean(A))" % scenario,
            ["variant", "numjobs", "A", "%change", "B", "ratio 95% CI",
             "verdict"], rows, {1, 2, 3, 4, 5})


def side_by_side(a, b, base="always"):
    """Result: header lines, per comparable scenario the gain's table
    (the headline) and the per-variant table, and the lines saying what was
    not compared and why."""
    head = ["A: %s (%d runs)" % (a.name, len(a.records)),
            "B: %s (%d runs)" % (b.name, len(b.records))]
    diff = differences(a, b)
    head.append("B differs from A in: %s" % "; ".join(diff) if diff else
                "A and B: the same setup in every field the runs and their "
                "manifests record (%s, and the manifests' every field)"
                % ", ".join(runsetup.FIELDS))
    refused, tables = [], []
    names = {r.scenario for r in a.records} | {r.scenario for r in b.records}
    for scenario in sorted(names, key=published.order_key):
        here = [i for i, s in enumerate((a, b))
                if any(r.scenario == scenario for r in s.records)]
        if len(here) < 2:
            refused.append("%s: only in %s: not compared" % (
                scenario, "AB"[here[0]]))
            continue
        t = scenario_table(a, b, scenario, refused)
        if t:
            g = gain_table(a, b, scenario, base)
            tables += ([g] if g else []) + [t]
    return printable(Result(head, tables, refused))


def printable(result):
    """@result with every line and cell printable (textfile.printable):
    a side's name may hold a byte that is not UTF-8, or a control
    character, which neither a terminal nor sidebyside.md may get."""
    p = textfile.printable
    return Result([p(l) for l in result.head],
                  [(p(title), [p(h) for h in header],
                    [[p(c) for c in row] for row in rows], right)
                   for title, header, rows, right in result.tables],
                  [p(l) for l in result.refused])


def text(result):
    parts = ["\n".join(result.head + result.refused)]
    parts += [render.text_table(*t) for t in result.tables]
    return "\n\n".join(parts) + "\n"


def markdown(result):
    parts = ["# flagcheck: B against A",
             "\n".join("- " + l for l in result.head + result.refused)]
    parts += [render.markdown_table(*t) for t in result.tables]
    return "\n\n".join(parts) + "\n"


def json_text(result):
    """--format json: the header's lines, every table and the lines
    saying what was not compared (as "notes"), one object."""
    return render.json_doc(result.head, result.tables, result.refused)


def csv_text(result):
    """--format csv: per table a CSV of its title and cells, a blank line
    between tables."""
    out = []
    for title, header, rows, _ in result.tables:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["table"] + list(header))
        for row in rows:
            w.writerow([title] + list(row))
        out.append(buf.getvalue())
    return "\n".join(out)


def stdout(fmt, result):
    """What --format prints of a --compare."""
    return {"text": lambda r: render.wrap(text(r)), "markdown": markdown,
            "json": json_text, "csv": csv_text}[fmt](result)
