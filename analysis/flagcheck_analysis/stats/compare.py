"""The LKP-style comparison (lkp-tests lib/compare.rb): per scenario and
numjobs, one row per metric: the base mode's mean ± %stddev, then for each
other mode %change and mean ± %stddev, a verdict on the noise, and the
metric name at the end of the row."""

from collections import namedtuple

from . import significance
from ..inputs import published
from ..inputs.fiojson import BUCKETED, METRICS, plat_bucket, plat_bucket_range

# One fio run: who it is and its metrics (fiojson.run_metrics).
Record = namedtuple("Record", "scenario mode numjobs repeat metrics source")

Cell = namedtuple("Cell", "mode values n mean stddev pct_stddev")
Comparison = namedtuple("Comparison", "cell pct_change verdict")
Row = namedtuple("Row", "key name base others")
Section = namedtuple("Section", "scenario numjobs base_mode modes rows")


def group(records):
    """{(scenario, numjobs, mode): [metrics, ...]}"""
    groups = {}
    for r in records:
        groups.setdefault((r.scenario, r.numjobs, r.mode), []).append(
            r.metrics)
    return groups


def mode_order(records, base):
    """base first, then the other modes in order of first appearance."""
    modes = [base]
    for r in records:
        if r.mode not in modes:
            modes.append(r.mode)
    return modes


def cell(mode, runs, key):
    values = [m[key] for m in runs if m.get(key) is not None]
    return Cell(mode, values, len(values), significance.mean(values),
                significance.stddev(values) if values else None,
                significance.pct_stddev(values) if values else None)


def verdict(key, base, other):
    """significance.verdict, but "same bucket" for latency percentiles that
    differ only inside one bucket of fio's latency histogram: fio cannot tell
    them apart."""
    v = significance.verdict(base, other)
    if key not in BUCKETED or v.kind in ("missing", "cannot_tell", "same"):
        return v
    buckets = {plat_bucket(x) for x in list(base) + list(other)}
    if len(buckets) != 1:
        return v
    lo, hi = plat_bucket_range(buckets.pop())
    return v._replace(kind="same", welch=None, text=(
        "same bucket: fio's latency histogram holds every run's value in "
        "%s, n=%d vs %d" % ("%d ns" % lo if lo == hi else
                            "%d..%d ns" % (lo, hi), len(base), len(other))))


def compare(records, base):
    """Sections in scenario, numjobs order.  A metric row is left out only
    when no run of any mode has a value for it."""
    groups = group(records)
    modes = mode_order(records, base)
    sections = []
    for scenario in sorted({r.scenario for r in records},
                           key=published.order_key):
        for numjobs in sorted({r.numjobs for r in records
                               if r.scenario == scenario}):
            present = [m for m in modes
                       if (scenario, numjobs, m) in groups]
            if not present:
                continue
            rows = []
            for key, name in METRICS:
                base_cell = cell(base, groups.get((scenario, numjobs, base),
                                                  []), key)
                others = []
                for mode in modes[1:]:
                    c = cell(mode, groups.get((scenario, numjobs, mode), []),
                             key)
                    others.append(Comparison(
                        c, significance.pct_change(base_cell.mean, c.mean),
                        verdict(key, base_cell.values, c.values)))
                if base_cell.n or any(o.cell.n for o in others):
                    rows.append(Row(key, name, base_cell, others))
            sections.append(Section(scenario, numjobs, base, modes, rows))
    return sections
