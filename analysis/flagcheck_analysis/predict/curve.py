"""The big-box answer as a plot's points: both variants' simulated IOPS and
the gain, with their costs-and-seeds bands, at 1, 2, 4, ... CPUs up to N,
THE band at N and the published gain; report/plot.py's bigbox_curve()
draws them. docs/predict.md, "The plot"."""

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
