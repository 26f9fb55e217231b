"""S5: nanoseconds per __find_get_block() against the number of distinct
blocks looked up in turn (mod), with the per-CPU buffer_head LRU (on) and
without it (off), from the engine's counters files (flagcheck_stats) of the
bh_lru model: a table beside the figures published in the thread, and a
plot.

One counters file is one run; in it, one line per job per section (each
section one mod).  A run's ns per lookup at a mod is the sum of its jobs'
lookup_ns over the sum of their lookups; over runs, mean ± stddev."""

import csv
import glob
import io
import os
from collections import namedtuple

from ..stats import significance
from ..inputs import published
from . import plot, render
from ..inputs import schema
from ..inputs.fiojson import InputError, load_counters

MODEL = "bh_lru"

# The per-mod figures published in the 2023 thread (docs/scenarios.md, "S5
# in full"), from the registry: ns per __find_get_block() with the LRU in
# front for mod 1..19 (138 past 16: every lookup misses the 16 entries), and
# ns per __find_get_block_slow() alone.
PUBLISHED_ON = published.S5_LRU_NS
PUBLISHED_OFF = published.S5_SLOW_NS
PUBLISHED_SOURCE = published.S5_SOURCE

Point = namedtuple("Point", "variant mod n ns stddev hits misses depth")


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


_COUNT_KEYS = ["lookups", "hits", "misses"] + \
    ["hit_idx%d" % i for i in range(1, 17)]
RECORD_SCHEMA = schema.Obj({
    "variant": schema.STR,
    "options": schema.Obj({"mod": schema.POSITIVE}, required=("mod",)),
    "model_stats": schema.Obj(dict(
        {k: schema.COUNT for k in _COUNT_KEYS},
        lookup_ns=schema.number(low=0)))},
    required=("variant", "options"))


def _check(path, number, rec):
    """Raises InputError unless a bh_lru record is one the engine writes:
    its fields (RECORD_SCHEMA), every lookup a hit or a miss, every hit at
    one LRU index."""
    try:
        schema.check(rec, RECORD_SCHEMA)
    except schema.Invalid as e:
        raise InputError(path, "record %d: %s" % (number, e))
    st = rec.get("model_stats") or {}
    if all(k in st for k in ("lookups", "hits", "misses")) and \
            st["hits"] + st["misses"] != st["lookups"]:
        raise InputError(path, "record %d: model_stats hits %d + misses %d "
                         "!= lookups %d: every lookup is a hit or a miss"
                         % (number, st["hits"], st["misses"], st["lookups"]))
    idx = [st.get("hit_idx%d" % i) for i in range(1, 17)]
    if "hits" in st and None not in idx and sum(idx) != st["hits"]:
        raise InputError(path, "record %d: model_stats hit_idx1..16 sum to "
                         "%d, hits %d: every hit is at one LRU index"
                         % (number, sum(idx), st["hits"]))


def load(paths):
    """[(path, bh_lru records)] of the files with any; raises InputError for
    a missing or malformed file, or a bh_lru record that is not one the
    engine writes."""
    runs = []
    for path in paths:
        records = load_counters(path)
        if records is None:
            raise InputError(path, "no such stats file")
        mine = [r for r in records if r.get("model") == MODEL]
        for number, rec in enumerate(records, 1):
            if rec.get("model") == MODEL:
                _check(path, number, rec)
        if mine:
            runs.append((path, mine))
    return runs


def points(runs):
    """One Point per (variant, mod), variants in order of appearance, mods
    ascending.  hits, misses and depth (hits at LRU index 1..16) are summed
    over every run."""
    per_run, totals, variants = {}, {}, []
    for _, records in runs:
        sums = {}
        for r in records:
            variant, mod = r["variant"], int(r["options"]["mod"])
            st = r.get("model_stats") or {}
            s = sums.setdefault((variant, mod), [0, 0])
            s[0] += st.get("lookup_ns", 0)
            s[1] += st.get("lookups", 0)
            t = totals.setdefault((variant, mod), [0, 0, [0] * 16])
            t[0] += st.get("hits", 0)
            t[1] += st.get("misses", 0)
            for i in range(16):
                t[2][i] += st.get("hit_idx%d" % (i + 1), 0)
            if variant not in variants:
                variants.append(variant)
        for key, (ns, lookups) in sums.items():
            if lookups:
                per_run.setdefault(key, []).append(ns / lookups)
    out = []
    for variant in variants:
        for mod in sorted(m for (md, m) in per_run if md == variant):
            vals = per_run[(variant, mod)]
            hits, misses, depth = totals[(variant, mod)]
            out.append(Point(variant, mod, len(vals), significance.mean(vals),
                             significance.stddev(vals), hits, misses, depth))
    return out


def _fmt_ns(p):
    if p is None:
        return "-"
    if p.n == 1:
        return "%.1f" % p.ns
    return "%.1f ± %.1f" % (p.ns, p.stddev)


def _hit_pct(p):
    total = p.hits + p.misses if p else 0
    return "%.0f%%" % (100.0 * p.hits / total) if total else "-"


def _published(mod):
    """[published LRU ns, published slow ns, published on/off] cells."""
    on, off = PUBLISHED_ON.get(mod), PUBLISHED_OFF.get(mod)
    return ["-" if on is None else str(on), "-" if off is None else str(off),
            "%.2f" % (on / off) if on is not None and off else "-"]


def table(pts):
    """(title, header, rows, right) for render's text/markdown tables: per
    mod the published figures (LRU, slow path, their ratio), then ours."""
    variants = []
    for p in pts:
        if p.variant not in variants:
            variants.append(p.variant)
    by = {(p.variant, p.mod): p for p in pts}
    header = ["mod", "published LRU ns", "published slow ns",
              "published on/off"]
    for variant in variants:
        header += ["%s ns/lookup" % variant, "%s hits" % variant]
    both = "on" in variants and "off" in variants
    if both:
        header.append("on/off")
    rows = []
    for mod in sorted({p.mod for p in pts}):
        cells = [str(mod)] + _published(mod)
        for variant in variants:
            p = by.get((variant, mod))
            cells += [_fmt_ns(p), _hit_pct(p)]
        if both:
            on, off = by.get(("on", mod)), by.get(("off", mod))
            cells.append("%.2f" % (on.ns / off.ns)
                         if on and off and off.ns else "-")
        rows.append(cells)
    runs = sorted({p.n for p in pts})
    title = ("ns per __find_get_block() by mod: published (%s) beside ours "
             "(mean ± stddev over %s run%s)"
             % (PUBLISHED_SOURCE, "/".join(map(str, runs)),
                "" if runs == [1] else "s"))
    return title, header, rows, set(range(1, len(header)))


def text(pts):
    return render.text_table(*table(pts)) + "\n"


def markdown(pts):
    return render.markdown_table(*table(pts)) + "\n"


def csv_text(pts):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["variant", "mod", "runs", "ns_per_lookup", "stddev", "hits",
                "misses"] + ["hit_idx%d" % i for i in range(1, 17)]
               + ["published_lru_ns", "published_slow_ns"])
    for p in pts:
        w.writerow([p.variant, p.mod, p.n, render.csv_number(p.ns),
                    render.csv_number(p.stddev), p.hits, p.misses] + p.depth
                   + [PUBLISHED_ON.get(p.mod, ""),
                      PUBLISHED_OFF.get(p.mod, "")])
    return buf.getvalue()


def draw(pts, outdir):
    """bh_lru_ns_per_lookup.{png,svg}: ns per lookup against mod, one line
    per variant with its stddev, and the published per-mod figures as dashed
    (LRU) and dotted (slow path) lines; the paths."""
    plt = plot._pyplot()
    plt.rcParams["svg.hashsalt"] = "flagcheck"
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for variant in sorted({p.variant for p in pts}):
        mine = [p for p in pts if p.variant == variant]
        ax.errorbar([p.mod for p in mine], [p.ns for p in mine],
                    yerr=[p.stddev for p in mine], marker="o", capsize=3,
                    label="bh_lru=%s (measured)" % variant)
    for name, pub, style in (("with the LRU", PUBLISHED_ON,
                              dict(linestyle="--", marker="x")),
                             ("slow path only", PUBLISHED_OFF,
                              dict(linestyle=":", marker="+"))):
        mods = sorted(pub)
        ax.plot(mods, [pub[m] for m in mods], label="published, %s" % name,
                **style)
    ax.axvline(16.5, color="grey", linewidth=1)
    ax.set_xticks(sorted({p.mod for p in pts} | set(PUBLISHED_ON)))
    ax.set_xlabel("mod (distinct blocks looked up in turn; the LRU holds 16)")
    ax.set_ylabel("ns per lookup")
    ax.set_title("__find_get_block(): ns per lookup vs mod\n(published: %s)"
                 % PUBLISHED_SOURCE, fontsize="medium")
    # room above the lines for the legend
    ax.set_ylim(0, 1.45 * max([p.ns + p.stddev for p in pts]
                              + list(PUBLISHED_ON.values())))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", ncol=2)
    return plot._save(plt, fig, outdir, "bh_lru_ns_per_lookup")
