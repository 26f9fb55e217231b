"""The big-box answer as a plot: both variants' simulated IOPS and the gain
test_first/always, each with its costs-and-seeds spread, against CPU count
(1, 2, 4, ... up to N, and N); at N, where the answer has it, the band
over every unknown (band.py: THE band, the one the text prints) as an
error bar; the published gain at the published CPU count where the job
file has one, so the star lies inside or outside that bar as the text
says; the measured IOPS of each variant, where runs exist, on axes of their
own (this box's, against numjobs: never on the big box's axes).
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
    @measured {variant: [(numjobs, IOPS)]} and @published (CPUs, gain) or
    None: {"cpus", "variants", "always"/"test_first": {"iops", "low",
    "high"},
    "gain": {"value", "low", "high"}, "measured", "published"}."""
    preds = sorted(preds, key=lambda p: p["cpus"])
    out = {"cpus": [p["cpus"] for p in preds],
           "variants": list(simulate.VARIANTS)}
    for variant in simulate.VARIANTS:
        out[variant] = {k: [p["variants"][variant][k] for p in preds]
                     for k in ("iops", "low", "high")}
    spread = [p["gain"].get("costs_seeds") or p["gain"] for p in preds]
    out["gain"] = {"value": [p["gain"]["value"] for p in preds],
                   "low": [c["low"] for c in spread],
                   "high": [c["high"] for c in spread]}
    out["band"] = [[p["cpus"], p["gain"]["value"], p["gain"]["low"],
                    p["gain"]["high"]] for p in preds
                   if "costs_seeds" in p["gain"]]
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
    here = any(d["measured"].values())
    fig, axes = plt.subplots(3 if here else 2, 1, figsize=(7, 10 if here
                                                            else 7))
    top, bottom = axes[0], axes[-1]
    x = d["cpus"]
    colours = dict(zip(simulate.VARIANTS, ("tab:red", "tab:blue")))
    for variant in simulate.VARIANTS:
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
