"""PNG and SVG plots (matplotlib, Agg): IOPS (in millions) against numjobs
for every variant with the linear ideal from one job (as will-it-scale draws
it, dotted) and, where one was fitted, the scaling law's curve (dashed
where extrapolated), and each variant's ratio to the base variant against
numjobs with the published ratio where the registry has one.  Cells that
had busy runs are ringed in red; on the ratio plot an undecided ratio
(decide.py) is drawn hollow, its legend naming the reasons that apply.
Every line and mark has its legend entry."""

import io
import textwrap

import numpy as np

from ..inputs import outpath, published, safewrite
from ..stats import interval, usl

BUSY_STYLE = dict(marker="o", markersize=13, markerfacecolor="none",
                  markeredgecolor="red", linestyle="none")


class PlotError(Exception):
    pass


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise PlotError("matplotlib is not installed for this Python; run "
                        "with /usr/bin/python3 or pass --no-plot")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _legend(ax):
    """The legend beside the axes, never over a point or an error bar."""
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0),
              borderaxespad=0.0)


def save_figure(fig, path, **kw):
    """fig into path, whole or not at all, following no link
    (safewrite.write)."""
    buf = io.BytesIO()
    fig.savefig(buf, format=path.rsplit(".", 1)[-1], **kw)
    safewrite.write(path, buf.getvalue())


def _save(plt, fig, outdir, stem):
    import os
    import re
    # a scenario reported apart per setup is named "s1 (backend psync)"
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("_")
    paths = []
    for ext in ("png", "svg"):
        path = os.path.join(outdir, "%s.%s" % (stem, ext))
        # no date (and the fixed svg.hashsalt): same input, same SVG bytes
        save_figure(fig, path, dpi=100, bbox_inches="tight",
                    metadata={"Date": None} if ext == "svg" else None)
        paths.append(path)
    plt.close(fig)
    return paths


def _busy_rings(ax, xys, busy, scenario):
    """A red ring on each point of a cell that had busy runs, one legend
    entry for them all."""
    if not xys:
        return
    k = sum(busy[(scenario, nj)][0] for nj in {x for x, _ in xys})
    n = sum(busy[(scenario, nj)][1] for nj in {x for x, _ in xys})
    ax.plot([x for x, _ in xys], [y for _, y in xys], label="red ring: "
            "the machine was busy (%d of %d runs in these cells)" % (k, n),
            zorder=5, **BUSY_STYLE)


def _usl_curve(ax, fit, color, predict=None, scale=1.0):
    """The fitted curve of one variant on the IOPS plot: thin and solid over
    the measured numjobs, dashed from there out to `predict`; IOPS divided
    by @scale (1e6 for a plot in M IOPS)."""
    if fit is None or fit.values is None:
        return
    lo, hi = min(fit.numjobs), max(fit.numjobs)
    xs = np.linspace(lo, hi, 100)
    ax.plot(xs, usl.throughput(xs, *fit.values) / scale, color=color,
            linewidth=1, alpha=0.7, label="%s USL fit: the scaling law "
            "through its runs" % fit.variant)
    if predict and predict > hi:
        xs = np.linspace(hi, predict, 100)
        ax.plot(xs, usl.throughput(xs, *fit.values) / scale, color=color,
                linewidth=1, linestyle="--", label="%s USL extrapolated to "
                "%d jobs" % (fit.variant, predict))


def _iops(plt, scenario, mine, variants, fits, predict, busy):
    """One scenario's IOPS (in M) against numjobs; the figure."""
    ticks = {l.numjobs for l in mine}
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for variant in variants:
        pts = [(l.numjobs, l.points[variant]) for l in mine
               if variant in l.points]
        if not pts:
            continue
        xs = [nj for nj, _ in pts]
        line = ax.errorbar(xs, [p.iops / 1e6 for _, p in pts],
                           yerr=[(p.stddev or 0) / 1e6 for _, p in pts],
                           marker="o", capsize=3,
                           label="%s: mean ± stddev of its runs" % variant)
        one = [p.iops for nj, p in pts if nj == 1]
        if one:
            ax.plot(xs, [one[0] * nj / 1e6 for nj in xs], linestyle=":",
                    color=line[0].get_color(),
                    label="%s linear: its 1-job IOPS x numjobs" % variant)
        fit = [f for f in fits if f.scenario == scenario
               and f.variant == variant and f.values is not None]
        if fit:
            _usl_curve(ax, fit[0], line[0].get_color(), predict, 1e6)
            ticks |= {predict} if predict else set()
    _busy_rings(ax, [(l.numjobs, l.points[m].iops / 1e6) for l in mine
                     if (scenario, l.numjobs) in busy
                     for m in variants if m in l.points], busy, scenario)
    ax.set_xticks(sorted(ticks))
    ax.set_xlabel("numjobs")
    ax.set_ylabel("M IOPS (sum over the jobs)")
    ax.set_title("%s: IOPS vs numjobs" % scenario)
    ax.yaxis.get_major_formatter().set_useOffset(False)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    _legend(ax)
    return fig


def _over(pts):
    """What the points' intervals are over, as the summary says it: "over
    the pairs" or "unpaired: WHY" (stats/interval.py)."""
    kinds = sorted({"over the pairs" if p.ratio_by.by == "pairs" else
                    interval.over(p.ratio_by) for _, p in pts if p.ratio_by})
    return "; ".join(kinds) or "none"


def _hollow(undecided, scenario, variant, numjobs):
    """The hollow marks' legend: undecided, and the reasons that apply to
    those marks (summary.undecided_reasons()), each once, on lines of a
    legend's width."""
    reasons = []
    for nj in numjobs:
        for why in undecided[(scenario, nj, variant)]:
            if why not in reasons:
                reasons.append(why)
    return "\n".join(textwrap.wrap("hollow: undecided: %s" % "; ".join(
        reasons), 60, subsequent_indent="  "))


def _ratios(plt, scenario, mine, ratios, base, undecided, busy, figures):
    """One scenario's IOPS ratio to the base against numjobs, the
    undecided ratios hollow, the published ratio dashed; the figure."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for variant, pts in ratios.items():
        if not pts:
            continue
        xs = [nj for nj, _ in pts]
        ys = [p.ratio for _, p in pts]
        lo = [p.ratio - p.ratio_ci[0] if p.ratio_ci else 0
              for _, p in pts]
        hi = [p.ratio_ci[1] - p.ratio if p.ratio_ci else 0
              for _, p in pts]
        line = ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3,
                           label="%s / %s, its 95%% CI (%s)"
                           % (variant, base, _over(pts)))
        open_ = [(nj, p.ratio) for nj, p in pts
                 if (scenario, nj, variant) in undecided]
        if open_:
            ax.plot([x for x, _ in open_], [y for _, y in open_],
                    marker="o", markersize=8, linestyle="none",
                    markerfacecolor="white", zorder=4,
                    markeredgecolor=line[0].get_color(),
                    label=_hollow(undecided, scenario, variant,
                                  [nj for nj, _ in open_]))
        pub = published.find(scenario, figures)
        if pub and pub.ratio and pub.base == base and pub.variant == variant:
            ax.axhline(pub.ratio, color=line[0].get_color(),
                       linestyle="--", linewidth=1,
                       label="published x%.2f: %s, %s" % (
                           pub.ratio, pub.figure, pub.machine)
                       if pub.number else "published x%.2f: %s"
                       % (pub.ratio, pub.figure))
        _busy_rings(ax, [(nj, p.ratio) for nj, p in pts
                         if (scenario, nj) in busy], busy, scenario)
    ax.axhline(1.0, color="grey", linewidth=1,
               label="1: no difference")
    ax.set_xticks(sorted({l.numjobs for l in mine}))
    ax.set_xlabel("numjobs")
    ax.set_ylabel("IOPS ratio to %s" % base)
    ax.set_title("%s: IOPS ratio vs numjobs" % scenario)
    ax.grid(True, alpha=0.3)
    _legend(ax)
    return fig


def plot(lines, variants, outdir, fits=(), predict=None, undecided=None,
         busy=None, figures=None):
    """Write <scenario>_iops.{png,svg} and <scenario>_ratio.{png,svg};
    return the paths written.  fits: usl.Fit of each scenario and variant,
    drawn out to `predict` jobs; undecided: {(scenario, numjobs, variant):
    [why, ...]} of the ratios not decided (summary.marks()); busy: {(scenario, numjobs): (busy
    runs, runs)} of the cells that had busy runs; figures: published.find's
    extra entries (job files with their own published figure)."""
    undecided, busy = undecided or {}, busy or {}
    plt = _pyplot()
    plt.rcParams["svg.hashsalt"] = "flagcheck"
    base, written = variants[0], []
    for scenario in sorted({l.scenario for l in lines}):
        mine = [l for l in lines if l.scenario == scenario]
        fig = _iops(plt, scenario, mine, variants, fits, predict, busy)
        written += _save(plt, fig, outdir, "%s_iops" % scenario)

        ratios = {variant: [(l.numjobs, l.points[variant]) for l in mine
                         if variant in l.points
                         and l.points[variant].ratio is not None]
                  for variant in variants[1:]}
        if not any(ratios.values()):
            continue                    # no variant to compare with the base
        fig = _ratios(plt, scenario, mine, ratios, base, undecided, busy,
                      figures)
        written += _save(plt, fig, outdir, "%s_ratio" % scenario)
    return written


def bigbox_curve(d, path, title):
    """The big-box answer's curve (predict/curve.py's data() @d) into PNG
    @path; returns @d. PlotError naming why not."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise PlotError("matplotlib is not installed (%s)" % e)
    here = any(d["measured"].values())
    fig, axes = plt.subplots(3 if here else 2, 1, figsize=(7, 10 if here
                                                            else 7))
    top, bottom = axes[0], axes[-1]
    x = d["cpus"]
    colours = dict(zip(d["variants"], ("tab:red", "tab:blue")))
    for variant in d["variants"]:
        m = d[variant]
        top.plot(x, m["iops"], "-o", color=colours[variant], label=variant +
                 " (simulated)")
        top.fill_between(x, m["low"], m["high"], color=colours[variant],
                         alpha=0.2)
        pts = d["measured"].get(variant) or []
        if pts:
            axes[1].plot([p[0] for p in pts], [p[1] for p in pts], "x-",
                         color=colours[variant], markersize=9,
                         label=variant + " (measured here)")
    g = d["gain"]
    bottom.plot(x, g["value"], "-o", color="black",
                label="gain test_first/always")
    bottom.fill_between(x, g["low"], g["high"], color="grey", alpha=0.3,
                        label="costs and seeds alone")
    for n, value, low, high in d.get("band") or ():
        bottom.errorbar([n], [value], yerr=[[value - low], [high - value]],
                        fmt="none", ecolor="tab:orange", elinewidth=3,
                        capsize=8, label="band over every unknown")
    if d["published"]:
        bottom.plot([d["published"][0]], [d["published"][1]], "*",
                    color="tab:green", markersize=14, label="published")
    top.set_ylabel("IOPS (simulated)")
    bottom.set_ylabel("gain")
    bottom.set_xlabel("CPUs")
    if here:
        axes[1].set_ylabel("IOPS (measured here)")
        axes[1].set_xlabel("numjobs on this box")
    for ax in axes:
        ax.set_xscale("log", base=2)
        ax.grid(True, alpha=0.3)
        # outside the axes: a legend never covers a point or a bar
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    top.set_title(title, fontsize=9)
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=80, bbox_inches="tight")
    finally:
        plt.close(fig)
    try:
        # whole or not at all, by outpath's rule (no device, FIFO, link)
        safewrite.write(path, buf.getvalue())
    except outpath.OutPathError as e:
        raise PlotError(str(e))
    except OSError as e:
        raise PlotError("cannot write %s: %s" % (path, e.strerror or e))
    return d
