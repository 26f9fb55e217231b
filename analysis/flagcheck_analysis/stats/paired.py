"""Paired runs: each repeat of a cell runs every mode back to back (the
order alternating ABBA, matrix.modes_in_order), so the ratio of a mode's
run to the base's run of the same repeat cancels a slow drift of the
machine's load that the unpaired means do not.  The gain is the geometric
mean of those ratios, its 95% CI Student's t-interval over their logs
(scipy.stats.t), its p-value the one-sample t-test of the logs against 0
(scipy.stats.ttest_1samp)."""

import math
import statistics
from collections import namedtuple

from scipy import stats as sps

ALPHA = 0.05

# n: pairs; gain: geometric mean of other/base; ci: (lo, hi) or None under
# 2 pairs; p: two-sided p of "no gain", None under 2 pairs
Paired = namedtuple("Paired", "n gain ci p")


def ratios(base, other):
    """other/base of each repeat that has a positive value in both:
    @base, @other are {repeat: value}."""
    return [other[r] / base[r] for r in sorted(set(base) & set(other))
            if base[r] and other[r] and base[r] > 0 and other[r] > 0]


def paired(rs, alpha=ALPHA):
    """The Paired of the ratios @rs."""
    n = len(rs)
    if not n:
        return Paired(0, None, None, None)
    logs = [math.log(r) for r in rs]
    m = statistics.fmean(logs)
    gain = math.exp(m)
    if n < 2:
        return Paired(n, gain, None, None)
    sd = statistics.stdev(logs)
    if sd == 0:
        return Paired(n, gain, (gain, gain), 1.0 if m == 0 else 0.0)
    half = float(sps.t.ppf(1 - alpha / 2, n - 1)) * sd / math.sqrt(n)
    p = float(sps.ttest_1samp(logs, 0.0).pvalue)
    return Paired(n, gain, (math.exp(m - half), math.exp(m + half)), p)
