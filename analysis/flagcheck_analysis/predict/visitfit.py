"""The visit each published curve needs (flagcheck physics --visits): per
simulated row of 2 threads or more, the overlapped window's f (visit,
hold 0) and the hold-then-transfer H (hold, visit 0) that give the
published rate, by bisection on the simulator; per family the range and
median of each, and each variant's worst pub/sim at its median. Its
figures are what machines/families.toml quotes as each family's visit;
docs/predict.md, "The visit"."""

import statistics
from collections import namedtuple

from . import curves

SPANS = {"visit": (0.0, 1.0), "hold": (0.0, 1000.0)}
STEPS = 8       # bisection steps: f to 0.004, H to 4 ns
VARIANTS = ("visit", "hold")

Fit = namedtuple("Fit", "curve family threads published value where")


def _choice(prof, name, x):
    c = dict(prof.physics, visit=0.0, hold=0.0)
    c[name] = x
    return c


def solve(curve, prof, threads, name):
    """(value, where) of setting @name that gives the published rate at
    @threads: where "" (found), "below" (the published rate is under the
    floor's: none reaches it), "above" (over the span's end), or "none"
    (the setting does not move this row: e.g. atomics at the home)."""
    pub = curves.published(curve.points[threads], threads)
    lo, hi = SPANS[name]

    def rate(x):
        return curves.simulated(curve, prof, threads, _choice(prof, name, x))
    r_lo, r_hi = rate(lo), rate(hi)
    if abs(r_hi - r_lo) <= 1e-9 * r_lo:
        return None, "none"
    if pub <= r_lo:
        return lo, "below"
    if pub >= r_hi:
        return hi, "above"
    for _ in range(STEPS):
        mid = (lo + hi) / 2
        if rate(mid) < pub:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2, ""


def fits(items, name, machines_dir=None):
    """One Fit per simulated row of 2 threads or more."""
    out = []
    for c in items:
        prof = curves.profile_of(c, machines_dir)
        if not prof:
            continue
        for n in c.points:
            if n < 2:
                continue
            v, where = solve(c, prof, n, name)
            out.append(Fit(curves.name_of(c), c.meta["family"], n,
                           curves.published(c.points[n], n), v, where))
    return out


def family_ranges(rows):
    """{family: (low, median, high)} of the values found."""
    by = {}
    for r in rows:
        if r.where == "":
            by.setdefault(r.family, []).append(r.value)
    return {f: (min(v), statistics.median(v), max(v))
            for f, v in by.items()}


def worst(items, name, value_of, machines_dir=None):
    """{family: the worst pub/sim of its rows (2 threads on) with setting
    @name at value_of[family], the other variant 0}."""
    out = {}
    for c in items:
        fam = c.meta["family"]
        prof = curves.profile_of(c, machines_dir)
        if not prof or fam not in value_of:
            continue
        for n in c.points:
            if n < 2:
                continue
            sim = curves.simulated(c, prof, n,
                                   _choice(prof, name, value_of[fam]))
            r = curves.published(c.points[n], n) / sim
            if max(r, 1 / r) > max(out.get(fam, 1), 1 / out.get(fam, 1)):
                out[fam] = r
    return out
