"""A metric against a parameter: per variant and value of one model
option, each run's metric (a sum of one counter over the sum of another,
over the run's lines at that value), mean ± stddev over runs, beside the
published per-value figures; a table, a CSV and a plot. A model declares
one in inputs/published.py (SWEEPS: S5's ns per lookup against mod);
docs/analysis.md, "A metric against a parameter"."""

import csv
import glob
import io
import os
import re
from collections import namedtuple

from ..stats import significance
from ..inputs import schema
from ..inputs.fiojson import InputError, load_counters
from . import plot, render

Point = namedtuple("Point", "variant value n mean stddev share depth")


def counters_files(inputs):
    """The .flagcheck.jsonl files among `inputs` (files, or directories
    searched one level deep)."""
    out = []
    for item in inputs:
        if os.path.isdir(item):
            # a link there may point anywhere: never followed
            out += sorted(p for p in glob.glob(os.path.join(
                item, "*.flagcheck.jsonl")) if not os.path.islink(p))
        else:
            out.append(item)
    return out


def _schema(sw):
    counts = (sw.per,) + sw.share + sw.depth
    return schema.Obj({
        "variant": schema.STR,
        "options": schema.Obj({sw.parameter: schema.POSITIVE},
                              required=(sw.parameter,)),
        "model_stats": schema.Obj(dict(
            {k: schema.COUNT for k in counts},
            **{sw.total: schema.number(low=0)}))},
        required=("variant", "options"))


def _check(sw, path, number, rec):
    """Raises InputError unless a record is one the engine writes: its
    fields, its share's two counts summing to @per, @depth to the
    share's first."""
    try:
        schema.check(rec, _schema(sw))
    except schema.Invalid as e:
        raise InputError(path, "record %d: %s" % (number, e))
    st = rec.get("model_stats") or {}
    a, b = sw.share
    if all(k in st for k in (sw.per, a, b)) and st[a] + st[b] != st[sw.per]:
        raise InputError(path, "record %d: model_stats %s %d + %s %d != %s "
                         "%d: every one of the %s is counted once in %s or "
                         "%s" % (number, a, st[a], b, st[b], sw.per,
                                 st[sw.per], sw.per, a, b))
    depth = [st.get(k) for k in sw.depth]
    if a in st and None not in depth and sum(depth) != st[a]:
        stem = re.match(r"\D*", sw.depth[0]).group(0)
        raise InputError(path, "record %d: model_stats %s..%s sum to %d, %s "
                         "%d: every one of the %s is counted in one of them"
                         % (number, sw.depth[0], sw.depth[-1][len(stem):],
                            sum(depth), a, st[a], a))


def load(sw, paths):
    """[(path, the model's records)] of the files with any; raises
    InputError for a missing or malformed file, or a record that is not
    one the engine writes."""
    runs = []
    for path in paths:
        records = load_counters(path)
        if records is None:
            raise InputError(path, "no such stats file")
        for number, rec in enumerate(records, 1):
            if rec.get("model") == sw.model:
                _check(sw, path, number, rec)
        mine = [r for r in records if r.get("model") == sw.model]
        if mine:
            runs.append((path, mine))
    return runs


def points(sw, runs):
    """One Point per (variant, value), variants in order of appearance,
    values ascending; the share's counts and the depth summed over
    every run."""
    per_run, totals, variants = {}, {}, []
    for _, records in runs:
        sums = {}
        for r in records:
            variant = r["variant"]
            key = (variant, int(r["options"][sw.parameter]))
            st = r.get("model_stats") or {}
            s = sums.setdefault(key, [0, 0])
            s[0] += st.get(sw.total, 0)
            s[1] += st.get(sw.per, 0)
            t = totals.setdefault(key, [[0, 0], [0] * len(sw.depth)])
            t[0] = [x + st.get(k, 0) for x, k in zip(t[0], sw.share)]
            t[1] = [x + st.get(k, 0) for x, k in zip(t[1], sw.depth)]
            if variant not in variants:
                variants.append(variant)
        for key, (total, per) in sums.items():
            if per:
                per_run.setdefault(key, []).append(total / per)
    out = []
    for variant in variants:
        for value in sorted(v for (w, v) in per_run if w == variant):
            vals = per_run[(variant, value)]
            share, depth = totals[(variant, value)]
            out.append(Point(variant, value, len(vals),
                             significance.mean(vals),
                             significance.stddev(vals), share, depth))
    return out


def _mean(p):
    if p is None:
        return "-"
    if p.n == 1:
        return "%.1f" % p.mean
    return "%.1f ± %.1f" % (p.mean, p.stddev)


def _share(p):
    total = sum(p.share) if p else 0
    return "%.0f%%" % (100.0 * p.share[0] / total) if total else "-"


def _ratio(a, b):
    return "%.2f" % (a / b) if a is not None and b else "-"


def table(sw, pts):
    """(title, header, rows, right): per value the published figures and
    their ratio, then each variant's mean and share, and their ratio."""
    variants = list(dict.fromkeys(p.variant for p in pts))
    by = {(p.variant, p.value): p for p in pts}
    header = [sw.parameter] + ["published %s" % name
                               for name, _, _, _ in sw.published]
    header.append("published %s/%s" % sw.ratio)
    for variant in variants:
        header += ["%s %s" % (variant, sw.metric),
                   "%s %s" % (variant, sw.share[0])]
    both = all(v in variants for v in sw.ratio)
    if both:
        header.append("%s/%s" % sw.ratio)
    rows = []
    for value in sorted({p.value for p in pts}):
        pub = [figures.get(value) for _, _, figures, _ in sw.published]
        cells = [str(value)] + ["-" if x is None else str(x) for x in pub]
        cells.append(_ratio(pub[0], pub[1]))
        for variant in variants:
            p = by.get((variant, value))
            cells += [_mean(p), _share(p)]
        if both:
            a, b = (by.get((v, value)) for v in sw.ratio)
            cells.append(_ratio(a and a.mean, b and b.mean))
        rows.append(cells)
    runs = sorted({p.n for p in pts})
    title = ("%s: published (%s) beside ours (mean ± stddev over %s run%s)"
             % (sw.title, sw.source, "/".join(map(str, runs)),
                "" if runs == [1] else "s"))
    return title, header, rows, set(range(1, len(header)))


def text(sw, pts):
    return render.text_table(*table(sw, pts)) + "\n"


def markdown(sw, pts):
    return render.markdown_table(*table(sw, pts)) + "\n"


def csv_text(sw, pts):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["variant", sw.parameter, "runs", sw.column, "stddev"] +
               list(sw.share) + list(sw.depth) +
               [col for _, col, _, _ in sw.published])
    for p in pts:
        w.writerow([p.variant, p.value, p.n, render.csv_number(p.mean),
                    render.csv_number(p.stddev)] + p.share + p.depth +
                   [figures.get(p.value, "")
                    for _, _, figures, _ in sw.published])
    return buf.getvalue()


def draw(sw, pts, outdir):
    """<model>_<column>.{png,svg}: the metric against the parameter, one
    line per variant with its stddev, the published figures dashed and
    dotted; the paths."""
    plt = plot._pyplot()
    plt.rcParams["svg.hashsalt"] = "flagcheck"
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for variant in sorted({p.variant for p in pts}):
        mine = [p for p in pts if p.variant == variant]
        ax.errorbar([p.value for p in mine], [p.mean for p in mine],
                    yerr=[p.stddev for p in mine], marker="o", capsize=3,
                    label="%s=%s (measured)" % (sw.model, variant))
    for (_, _, figures, what), style in zip(sw.published, (
            dict(linestyle="--", marker="x"),
            dict(linestyle=":", marker="+"))):
        values = sorted(figures)
        ax.plot(values, [figures[v] for v in values],
                label="published, %s" % what, **style)
    if sw.marker is not None:
        ax.axvline(sw.marker, color="grey", linewidth=1)
    ax.set_xticks(sorted({p.value for p in pts} |
                         set(sw.published[0][2])))
    ax.set_xlabel(sw.xlabel)
    ax.set_ylabel(sw.ylabel)
    ax.set_title("%s\n(published: %s)" % (sw.title, sw.source),
                 fontsize="medium")
    # room above the lines for the legend
    ax.set_ylim(0, 1.45 * max([p.mean + p.stddev for p in pts] +
                              list(sw.published[0][2].values())))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", ncol=2)
    return plot._save(plt, fig, outdir, "%s_%s" % (sw.model, sw.column))
