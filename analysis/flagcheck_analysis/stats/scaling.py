"""Scaling: IOPS against numjobs for each mode, speedup over one job,
efficiency against linear (will-it-scale's 'linear' column), and each mode's
ratio to the base mode."""

from collections import namedtuple

from . import significance as stats
from .compare import group, mode_order

Point = namedtuple("Point", "mode n iops stddev speedup efficiency ratio "
                   "ratio_ci")
Line = namedtuple("Line", "scenario numjobs points")      # points[mode]


def scaling(records, base):
    """One Line per scenario and numjobs, in that order."""
    groups = group(records)
    modes = mode_order(records, base)
    lines = []
    for scenario in sorted({r.scenario for r in records}):
        def iops(nj, mode):
            return [m["iops"] for m in groups.get((scenario, nj, mode), [])
                    if m.get("iops") is not None]
        for nj in sorted({r.numjobs for r in records
                          if r.scenario == scenario}):
            points = {}
            for mode in modes:
                vals, one = iops(nj, mode), stats.mean(iops(1, mode))
                if not vals:
                    continue
                m = stats.mean(vals)
                speedup = m / one if one else None
                basevals = iops(nj, base)
                points[mode] = Point(
                    mode, len(vals), m, stats.stddev(vals), speedup,
                    speedup / nj if speedup is not None else None,
                    m / stats.mean(basevals) if basevals and
                    stats.mean(basevals) else None,
                    stats.bootstrap_ratio_ci(basevals, vals))
            lines.append(Line(scenario, nj, points))
    return lines
