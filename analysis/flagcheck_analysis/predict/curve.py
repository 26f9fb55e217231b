"""The big-box answer as a plot: both modes' simulated IOPS and the gain
test_first/always, each with its band, against CPU count (1, 2, 4, ... up
to N, and N), beside the measured IOPS of each mode where runs exist and
the published gain at the published CPU count where the job file has one.
flagcheck predict --plot FILE and the report (<scenario>_bigbox.png)
draw it; matplotlib with the Agg backend, imported only to draw."""

import io

from ..inputs import outpath, safewrite
from . import simulate


class PlotError(Exception):
    pass


def counts(n):
    """1, 2, 4, ... below @n, and @n."""
    out, k = [], 1
    while k < n:
        out.append(k)
        k *= 2
    return out + [n]


def predictions(spec, mach, n, placement, rest_ns, seeds=simulate.SEEDS,
                have=()):
    """[prediction] at counts(@n) CPUs, those in @have (predictions) used
    as they are."""
    known = {p["cpus"]: p for p in have}
    return [known.get(c) or simulate.predict(spec, mach, c, placement,
                                             rest_ns, seeds)
            for c in counts(n)]


def data(preds, measured=None, published=None):
    """What the plot shows, from @preds (predictions, by CPU count),
    @measured {mode: [(numjobs, IOPS)]} and @published (CPUs, gain) or
    None: {"cpus", "always"/"test_first": {"iops", "low", "high"},
    "gain": {"value", "low", "high"}, "measured", "published"}."""
    preds = sorted(preds, key=lambda p: p["cpus"])
    out = {"cpus": [p["cpus"] for p in preds]}
    for mode in simulate.MODES:
        out[mode] = {k: [p["modes"][mode][k] for p in preds]
                     for k in ("iops", "low", "high")}
    out["gain"] = {k: [p["gain"][k] for p in preds]
                   for k in ("value", "low", "high")}
    out["measured"] = {m: sorted(v) for m, v in (measured or {}).items()}
    out["published"] = list(published) if published else None
    return out


def draw(d, path, title):
    """The plot of data() @d into PNG @path; returns @d. PlotError
    naming why not."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise PlotError("matplotlib is not installed (%s)" % e)
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7, 7))
    x = d["cpus"]
    for mode, colour in zip(simulate.MODES, ("tab:red", "tab:blue")):
        m = d[mode]
        top.plot(x, m["iops"], "-o", color=colour, label=mode +
                 " (simulated)")
        top.fill_between(x, m["low"], m["high"], color=colour, alpha=0.2)
        pts = d["measured"].get(mode) or []
        if pts:
            top.plot([p[0] for p in pts], [p[1] for p in pts], "x",
                     color=colour, markersize=9, label=mode + " (measured)")
    g = d["gain"]
    bottom.plot(x, g["value"], "-o", color="black",
                label="gain test_first/always")
    bottom.fill_between(x, g["low"], g["high"], color="grey", alpha=0.3)
    if d["published"]:
        bottom.plot([d["published"][0]], [d["published"][1]], "*",
                    color="tab:green", markersize=14, label="published")
    top.set_ylabel("IOPS")
    bottom.set_ylabel("gain")
    bottom.set_xlabel("CPUs")
    for ax in (top, bottom):
        ax.set_xscale("log", base=2)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    top.set_title(title, fontsize=9)
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format="png", dpi=80)
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
