"""The big-box answer as a plot: both variants' simulated IOPS and the gain
test_first/always, each with its costs-and-seeds spread, against CPU count
(1, 2, 4, ... up to N, and N); at N, where the answer has it, the band
over every unknown (band.py: THE band, the one the text prints) as an
error bar; the published gain at the published CPU count where the job
file has one, so the star lies inside or outside that bar as the text
says; the measured IOPS of each variant, where runs exist, on axes of their
own (this box's, against numjobs: never on the big box's axes).
flagcheck predict --plot FILE and the report (<scenario>_bigbox.png)
draw it with report/plot.py's bigbox_curve()."""

from . import simulate


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
