"""The one interval of a ratio variant/base: the per-cell table, the
summary, the plots, the CSV and the JSON all show it, and every verdict
reads it.  Over the pairs (paired.py: each repeat's runs back to back)
where the runs pair up, else the ratio of the means with its bootstrap
interval and Welch's test (significance.py), with the reason the runs do
not pair up.  docs/analysis.md, "One interval per ratio"."""

from collections import namedtuple

from . import paired, significance

# ratio: the pairs' geometric mean, or the ratio of the means; ci: its 95%
# interval, None where undefined; p: the p-value of the test that goes
# with that interval (the pairs' t-test of their logs, or Welch's); by:
# "pairs" or "unpaired"; n: the pairs, or the fewer runs of the two
# sides; unpaired: why the runs do not pair up (None by pairs)
Interval = namedtuple("Interval", "ratio ci p by n unpaired")


def side(records, scenario, numjobs, variant, key="iops"):
    """[(repeat, value)] of @key of the runs of one variant of one cell
    (stats/compare.py's Records); runs without the value are left out."""
    return [(r.repeat, r.metrics[key]) for r in records
            if (r.scenario, r.numjobs, r.variant) == (scenario, numjobs,
                                                      variant)
            and r.metrics.get(key) is not None]


def pair_up(base, other):
    """(the ratios other/base of the repeats both sides ran, None) where
    the runs pair up, else (None, why not); @base, @other: [(repeat,
    value)].  They pair up when every run has a repeat number, no repeat
    is on a side twice (results pooled from two runs of the matrix) and
    the values of the repeats both ran are above 0; a run whose partner
    is missing is left out."""
    if not base or not other:
        return None, "no runs on a side"
    if any(r is None for r, _ in base + other):
        return None, "runs without a repeat number"
    by = []
    for runs in (base, other):
        repeats = [r for r, _ in runs]
        if len(set(repeats)) != len(repeats):
            return None, "a repeat number twice on a side (pooled results)"
        by.append(dict(runs))
    common = sorted(set(by[0]) & set(by[1]))
    if not common:
        return None, "no repeat with runs of both"
    if any(by[0][r] <= 0 or by[1][r] <= 0 for r in common):
        return None, "a value of 0"
    return [by[1][r] / by[0][r] for r in common], None


def of(base, other):
    """The Interval of @other against @base ([(repeat, value)] each)."""
    ratios, why = pair_up(base, other)
    if ratios is not None:
        pr = paired.paired(ratios)
        return Interval(pr.gain, pr.ci, pr.p, "pairs", pr.n, None)
    b, o = [v for _, v in base], [v for _, v in other]
    m = significance.mean(b)
    w = significance.welch(b, o)
    return Interval(significance.mean(o) / m if o and m else None,
                    significance.bootstrap_ratio_ci(b, o),
                    w.p if w else None, "unpaired", min(len(b), len(o)),
                    why)


def of_records(records, scenario, numjobs, base, variant, key="iops"):
    """The Interval of one cell's @variant against @base, on @key."""
    return of(side(records, scenario, numjobs, base, key),
              side(records, scenario, numjobs, variant, key))


def excludes_1(iv):
    return iv.ci is not None and not iv.ci[0] <= 1.0 <= iv.ci[1]


def verdict(iv, base, other):
    """The noise verdict of a metric (significance.Verdict, the Interval
    in it): over pairs, "beyond noise" when their CI excludes 1, the
    t-test's p beside it (the same test: it cannot disagree); unpaired,
    significance.verdict()'s, naming why the runs do not pair up; @base,
    @other: the values of each side."""
    if iv.by != "pairs" or significance.stddev(base) == \
            significance.stddev(other) == 0:
        v = significance.verdict(base, other)
        if iv.by != "pairs" and iv.unpaired and v.kind not in (
                "missing", "cannot_tell", "same"):
            v = v._replace(text="%s; unpaired: %s" % (v.text, iv.unpaired))
        return v._replace(ci=iv.ci, interval=iv)
    if iv.ci is None:
        return significance.Verdict(
            "cannot_tell", "%d pair: cannot tell" % iv.n, None, None, iv)
    beyond = excludes_1(iv)
    return significance.Verdict(
        "beyond" if beyond else "noise", "%s: %d pairs, paired t-test p=%s"
        % ("beyond noise" if beyond else "within noise", iv.n,
           significance.fmt_p(iv.p)), None, iv.ci, iv)


def over(iv):
    """What the interval is over: "3 pairs", "unpaired: WHY"."""
    if iv.by == "pairs":
        return "%d pair%s" % (iv.n, "" if iv.n == 1 else "s")
    return "unpaired: %s" % iv.unpaired if iv.unpaired else "unpaired"
