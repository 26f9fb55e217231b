"""PNG and SVG plots (matplotlib, Agg): IOPS against numjobs for every mode
with the linear ideal from one job (as will-it-scale draws it, dotted) and,
where one was fitted, the scaling law's curve (dashed where extrapolated),
and each mode's ratio to the base mode against numjobs."""

from ..stats import usl


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


def _save(plt, fig, outdir, stem):
    import os
    import re
    # a scenario reported apart per setup is named "s1 (backend psync)"
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("_")
    paths = []
    for ext in ("png", "svg"):
        path = os.path.join(outdir, "%s.%s" % (stem, ext))
        # no date (and the fixed svg.hashsalt): same input, same SVG bytes
        fig.savefig(path, dpi=100, metadata={"Date": None} if ext == "svg"
                    else None)
        paths.append(path)
    plt.close(fig)
    return paths


def plot(lines, modes, outdir, fits=(), predict=None):
    """Write <scenario>_iops.{png,svg} and <scenario>_ratio.{png,svg};
    return the paths written.  fits: usl.Fit of each scenario and mode,
    drawn out to `predict` jobs."""
    plt = _pyplot()
    plt.rcParams["svg.hashsalt"] = "flagcheck"
    base, written = modes[0], []
    for scenario in sorted({l.scenario for l in lines}):
        mine = [l for l in lines if l.scenario == scenario]
        ticks = {l.numjobs for l in mine}
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for mode in modes:
            pts = [(l.numjobs, l.points[mode]) for l in mine
                   if mode in l.points]
            if not pts:
                continue
            xs = [nj for nj, _ in pts]
            line = ax.errorbar(xs, [p.iops for _, p in pts],
                               yerr=[p.stddev for _, p in pts], marker="o",
                               capsize=3, label=mode)
            one = [p.iops for nj, p in pts if nj == 1]
            if one:
                ax.plot(xs, [one[0] * nj for nj in xs], linestyle=":",
                        color=line[0].get_color(),
                        label="%s linear" % mode)
            fit = [f for f in fits if f.scenario == scenario
                   and f.mode == mode and f.values is not None]
            if fit:
                usl.draw(ax, fit[0], line[0].get_color(), predict)
                ticks |= {predict} if predict else set()
        ax.set_xticks(sorted(ticks))
        ax.set_xlabel("numjobs")
        ax.set_ylabel("IOPS (sum over jobs, mean ± stddev)")
        ax.set_title("%s: IOPS vs numjobs" % scenario)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize="small")
        written += _save(plt, fig, outdir, "%s_iops" % scenario)

        ratios = {mode: [(l.numjobs, l.points[mode]) for l in mine
                         if mode in l.points
                         and l.points[mode].ratio is not None]
                  for mode in modes[1:]}
        if not any(ratios.values()):
            continue                    # no mode to compare with the base
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for mode, pts in ratios.items():
            if not pts:
                continue
            xs = [nj for nj, _ in pts]
            ys = [p.ratio for _, p in pts]
            lo = [p.ratio - p.ratio_ci[0] if p.ratio_ci else 0
                  for _, p in pts]
            hi = [p.ratio_ci[1] - p.ratio if p.ratio_ci else 0
                  for _, p in pts]
            ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3,
                        label="%s / %s (95%% bootstrap CI)" % (mode, base))
        ax.axhline(1.0, color="grey", linewidth=1)
        ax.set_xticks(sorted({l.numjobs for l in mine}))
        ax.set_xlabel("numjobs")
        ax.set_ylabel("IOPS ratio to %s" % base)
        ax.set_title("%s: IOPS ratio vs numjobs" % scenario)
        ax.grid(True, alpha=0.3)
        ax.legend()
        written += _save(plt, fig, outdir, "%s_ratio" % scenario)
    return written
