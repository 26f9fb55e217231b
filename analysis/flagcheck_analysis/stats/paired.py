"""Paired runs: each repeat of a cell runs every variant back to back (the
order alternating ABBA, matrix.variants_in_order), so the ratio of a variant's
run to the base's run of the same repeat cancels a slow drift of the
machine's load that the unpaired means do not.  The gain is the geometric
mean of those ratios, its 95% CI Student's t-interval over their logs
(scipy.stats.t), its p-value the one-sample t-test of the logs against 0
(scipy.stats.ttest_1samp)."""

import contextlib
import math
import warnings
import statistics
from collections import namedtuple

from scipy import stats as sps

ALPHA = 0.05

# n: pairs; gain: geometric mean of other/base; ci: (lo, hi) or None under
# 2 pairs; p: two-sided p of "no gain", None under 2 pairs
Paired = namedtuple("Paired", "n gain ci p")



@contextlib.contextmanager
def _no_cancellation_warning():
    """scipy warns of "catastrophic cancellation" (a RuntimeWarning on
    stderr, past 120 columns) where the logs barely differ; the p-value
    is still what the data give, as in significance.welch()."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Precision loss occurred",
                                RuntimeWarning)
        yield

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
    with _no_cancellation_warning():
        p = float(sps.ttest_1samp(logs, 0.0).pvalue)
    return Paired(n, gain, (math.exp(m - half), math.exp(m + half)), p)


# B's gain against A's: ratio = gain B / gain A; ci, p: Welch's interval
# and test on the two sides' pair logs (None under 2 pairs on a side)
GainDiff = namedtuple("GainDiff", "ratio ci p na nb")


def compare_gains(ra, rb, alpha=ALPHA):
    """GainDiff of the pair ratios @rb (B) against @ra (A): the ratio of
    their geometric means, Welch's t-interval of the difference of their
    mean logs (scipy.stats.t, Welch-Satterthwaite df) and Welch's test
    (scipy.stats.ttest_ind, equal_var=False), two-sided at @alpha."""
    na, nb = len(ra), len(rb)
    if not na or not nb:
        return GainDiff(None, None, None, na, nb)
    la, lb = [math.log(r) for r in ra], [math.log(r) for r in rb]
    d = statistics.fmean(lb) - statistics.fmean(la)
    if na < 2 or nb < 2:
        return GainDiff(math.exp(d), None, None, na, nb)
    va, vb = statistics.variance(la) / na, statistics.variance(lb) / nb
    if va + vb == 0:
        return GainDiff(math.exp(d), (math.exp(d), math.exp(d)),
                        1.0 if d == 0 else 0.0, na, nb)
    df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    half = float(sps.t.ppf(1 - alpha / 2, df)) * math.sqrt(va + vb)
    with _no_cancellation_warning():
        p = float(sps.ttest_ind(lb, la, equal_var=False).pvalue)
    return GainDiff(math.exp(d), (math.exp(d - half), math.exp(d + half)),
                    p, na, nb)
