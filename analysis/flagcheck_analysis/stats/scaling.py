"""Scaling: IOPS against numjobs for each variant, speedup over one job,
efficiency against linear (will-it-scale's 'linear' column), and each variant's
ratio to the base variant with its one interval (interval.py)."""

from collections import namedtuple

from ..inputs import published
from . import interval, significance
from .compare import group, variant_order

# ratio, ratio_ci: interval.py's of IOPS against the base (its Interval:
# ratio_by), None for the base itself
Point = namedtuple("Point", "variant n iops stddev speedup efficiency ratio "
                   "ratio_ci ratio_by", defaults=(None,))
Line = namedtuple("Line", "scenario numjobs points")      # points[variant]


def scaling(records, base):
    """One Line per scenario and numjobs, in that order."""
    groups = group(records)
    variants = variant_order(records, base)
    lines = []
    for scenario in sorted({r.scenario for r in records},
                           key=published.order_key):
        def iops(nj, variant):
            return [m["iops"] for m in groups.get((scenario, nj, variant), [])
                    if m.get("iops") is not None]
        for nj in sorted({r.numjobs for r in records
                          if r.scenario == scenario}):
            points = {}
            for variant in variants:
                vals, one = iops(nj, variant), significance.mean(iops(1, variant))
                if not vals:
                    continue
                m = significance.mean(vals)
                speedup = m / one if one else None
                iv = interval.of_records(records, scenario, nj, base,
                                         variant)
                points[variant] = Point(
                    variant, len(vals), m, significance.stddev(vals), speedup,
                    speedup / nj if speedup is not None else None,
                    iv.ratio, iv.ci, iv)
            lines.append(Line(scenario, nj, points))
    return lines
