"""flagcheck-report --compare A B: two sets of results side by side (two
days, before and after a patch, two machines): per scenario, mode and
numjobs, B's IOPS against A's with %change and the report's verdict
(stats.verdict: Welch's test and the bootstrap CI of mean(B)/mean(A)),
labelled with what differs between the two setups (setups.FIELDS), and
refused, with the reason, where the runs cannot be compared: a scenario,
mode or numjobs on one side only, or a different job shape (SHAPE)."""

from collections import namedtuple

from ..results import fiojson, published, runsetup as setups
from ..stats import compare, significance as stats
from . import render

# One side: its name (what was given), its records, their fio documents
# and setups (in the records' order) and conditions.cell_counts.
Side = namedtuple("Side", "name records docs setups counts")
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


def differences(a, b):
    """["fio version (A fio-3.33, B fio-3.36)", ...]"""
    out = []
    for f in setups.FIELDS:
        va, vb = _values(a, f), _values(b, f)
        if va != vb:
            out.append("%s (A %s, B %s)" % (f, " + ".join(va),
                                            " + ".join(vb)))
    return out


def _shapes(side, scenario):
    return {shape(d) for r, d in zip(side.records, side.docs)
            if r.scenario == scenario}


def _fmt_shape(shapes):
    return " + ".join(" ".join("%s=%s" % kv for kv in s) or "(none)"
                      for s in sorted(shapes))


def _busy(side, scenario, numjobs):
    busy, n = side.counts.get((scenario, numjobs), ([], 0))
    return "%d of %d" % (len(busy), n) if busy else None


def _iops(side, scenario, mode, numjobs):
    return [r.metrics for r in side.records
            if (r.scenario, r.mode, r.numjobs) == (scenario, mode, numjobs)]


def _cells(side, scenario):
    return {(r.mode, r.numjobs) for r in side.records
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
        for mode, nj in sorted(only):
            refused.append("%s: %s at numjobs=%d only in %s: not compared"
                           % (scenario, mode, nj, side))
    rows = []
    for mode, nj in sorted(ca & cb, key=lambda c: (c[1], c[0])):
        ra, rb = _iops(a, scenario, mode, nj), _iops(b, scenario, mode, nj)
        x, y = compare.cell(mode, ra, "iops"), compare.cell(mode, rb, "iops")
        v = stats.verdict(x.values, y.values)
        notes = ["busy: %s %s" % (s, t) for s, t in (
            ("A", _busy(a, scenario, nj)), ("B", _busy(b, scenario, nj)))
            if t]
        rows.append([mode, str(nj), render.fmt_mean_sd(x),
                     render.fmt_change(compare.Comparison(
                         y, stats.pct_change(x.mean, y.mean), v), x),
                     render.fmt_mean_sd(y), render.fmt_ci(v.ci),
                     "; ".join([v.text] + notes)])
    if not rows:
        return None
    return ("%s: B against A (IOPS mean ± %%stddev; %%change and the ratio "
            "95%% CI of mean(B)/mean(A))" % scenario,
            ["mode", "numjobs", "A", "%change", "B", "ratio 95% CI",
             "verdict"], rows, {1, 2, 3, 4, 5})


def side_by_side(a, b):
    """Result: header lines, one table per comparable scenario, and the
    lines saying what was not compared and why."""
    head = ["A: %s (%d runs)" % (a.name, len(a.records)),
            "B: %s (%d runs)" % (b.name, len(b.records))]
    diff = differences(a, b)
    head.append("B differs from A in: %s" % "; ".join(diff) if diff else
                "A and B: the same setup in every field the runs record "
                "(%s)" % ", ".join(setups.FIELDS))
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
            tables.append(t)
    return Result(head, tables, refused)


def text(result):
    parts = ["\n".join(result.head + result.refused)]
    parts += [render.text_table(*t) for t in result.tables]
    return "\n\n".join(parts) + "\n"


def markdown(result):
    parts = ["# flagcheck: B against A",
             "\n".join("- " + l for l in result.head + result.refused)]
    parts += [render.markdown_table(*t) for t in result.tables]
    return "\n\n".join(parts) + "\n"
