"""The LKP-style comparison (lkp-tests lib/compare.rb): per scenario and
numjobs, one row per metric: the base variant's mean ± %stddev, then for each
other variant %change and mean ± %stddev, a verdict on the noise, and the
metric name at the end of the row."""

from collections import namedtuple

from . import interval, significance
from ..inputs import published
from ..inputs.fiojson import BUCKETED, METRICS, plat_bucket, plat_bucket_range

# One fio run: who it is and its metrics (fiojson.run_metrics).
Record = namedtuple("Record", "scenario variant numjobs repeat metrics source")

Cell = namedtuple("Cell", "variant values n mean stddev pct_stddev")
Comparison = namedtuple("Comparison", "cell pct_change verdict")
Row = namedtuple("Row", "key name base others")
Section = namedtuple("Section", "scenario numjobs base_variant variants rows")


def group(records):
    """{(scenario, numjobs, variant): [metrics, ...]}"""
    groups = {}
    for r in records:
        groups.setdefault((r.scenario, r.numjobs, r.variant), []).append(
            r.metrics)
    return groups


def group_runs(records):
    """{(scenario, numjobs, variant): [(repeat, metrics), ...]}"""
    groups = {}
    for r in records:
        groups.setdefault((r.scenario, r.numjobs, r.variant), []).append(
            (r.repeat, r.metrics))
    return groups


def _side(runs, key):
    """[(repeat, value)] of @key of @runs ([(repeat, metrics)])."""
    return [(rep, m[key]) for rep, m in runs if m.get(key) is not None]


def measured_iops(records):
    """{(scenario, numjobs, variant): mean IOPS over the repeats}."""
    acc = {}
    for r in records:
        v = r.metrics.get("iops")
        if v is not None:
            acc.setdefault((r.scenario, r.numjobs, r.variant), []).append(v)
    return {k: sum(v) / len(v) for k, v in acc.items()}


def variant_order(records, base):
    """base first, then the other variants in order of first appearance."""
    variants = [base]
    for r in records:
        if r.variant not in variants:
            variants.append(r.variant)
    return variants


def cell(variant, runs, key):
    values = [m[key] for m in runs if m.get(key) is not None]
    return Cell(variant, values, len(values), significance.mean(values),
                significance.stddev(values) if values else None,
                significance.pct_stddev(values) if values else None)


# the counted rows: each run's value is an exact count (the engine's
# counters, fio's errors), not a sample of a distribution
EXACT = ("fio_errors", "rmw_per_io", "stores_per_io", "errors_set",
         "errors_reported")


def _span(values):
    lo, hi = min(values), max(values)
    return "%.6g" % lo if lo == hi else "%.6g..%.6g" % (lo, hi)


def exact(base, other):
    """The verdict of a counted row: the counts side by side, no test."""
    if not base or not other:
        return significance.verdict(base, other)
    return significance.Verdict(
        "exact", "exact: counted in every run, not sampled, so no test (%s "
        "vs %s)" % (_span(base), _span(other)), None, None)


def verdict(key, base, other, iv=None):
    """The verdict of the ratio's one interval @iv (interval.verdict;
    without one, significance.verdict's of the values @base, @other), but
    "exact" for a counted row, and "same bucket" for latency percentiles
    that differ only inside one bucket of fio's latency histogram: fio
    cannot tell them apart."""
    if key in EXACT:
        return exact(base, other)
    v = interval.verdict(iv, base, other) if iv else \
        significance.verdict(base, other)
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
    when no run of any variant has a value for it."""
    groups = group_runs(records)
    variants = variant_order(records, base)
    sections = []
    for scenario in sorted({r.scenario for r in records},
                           key=published.order_key):
        for numjobs in sorted({r.numjobs for r in records
                               if r.scenario == scenario}):
            present = [m for m in variants
                       if (scenario, numjobs, m) in groups]
            if not present:
                continue
            rows = []
            for key, name in METRICS:
                base_runs = groups.get((scenario, numjobs, base), [])
                base_cell = cell(base, [m for _, m in base_runs], key)
                others = []
                for variant in variants[1:]:
                    runs = groups.get((scenario, numjobs, variant), [])
                    c = cell(variant, [m for _, m in runs], key)
                    iv = interval.of(_side(base_runs, key), _side(runs, key))
                    others.append(Comparison(
                        c, significance.pct_change(base_cell.mean, c.mean),
                        verdict(key, base_cell.values, c.values, iv)))
                if base_cell.n or any(o.cell.n for o in others):
                    rows.append(Row(key, name, base_cell, others))
            sections.append(Section(scenario, numjobs, base, variants, rows))
    return sections
