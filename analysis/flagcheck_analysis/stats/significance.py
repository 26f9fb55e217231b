"""Mean, stddev, Welch's t-test and a bootstrap ratio interval: the test and
the bootstrap are scipy's (scipy.stats.ttest_ind with equal_var=False,
scipy.stats.bootstrap), with a fixed seed so the same data give the same
interval; this module only decides when each is defined and words the
verdict."""

import math
import statistics
import warnings
from collections import namedtuple

import numpy as np
from scipy import stats as sps

ALPHA = 0.05
BOOTSTRAP_ITERATIONS = 2000
BOOTSTRAP_SEED = 7                  # fixed: the same data give the same CI
BOOTSTRAP_METHOD = "percentile"

Welch = namedtuple("Welch", "t df p")
# ci: the ratio's interval (the bootstrap's here; interval.py's where it
# gave the verdict: interval, the Interval)
Verdict = namedtuple("Verdict", "kind text welch ci interval",
                     defaults=(None,))


def mean(xs):
    return statistics.fmean(xs) if len(xs) else None


def mean_of_known(xs):
    """The mean of the values of @xs that are not None; None where none
    is."""
    values = [v for v in xs if v is not None]
    return mean(values) if values else None


def stddev(xs):
    """Sample standard deviation (n - 1); 0 for a single value."""
    return statistics.stdev(xs) if len(xs) > 1 else 0.0


def pct_stddev(xs):
    """stddev as % of the mean (LKP's '± x%'); None if the mean is 0."""
    m = mean(xs)
    return 100.0 * stddev(xs) / abs(m) if m else None


def pct_change(base, other):
    """(other - base) / base in %; None if either is missing or base is 0."""
    if base is None or other is None or base == 0:
        return None
    return 100.0 * (other - base) / abs(base)


def welch(a, b):
    """Welch's unequal-variance t-test of mean(b) vs mean(a) (scipy's
    ttest_ind, equal_var=False); None when it is undefined (fewer than 2
    runs on a side, or no spread on both).  df is the Welch-Satterthwaite
    degrees of freedom that the test uses."""
    if len(a) < 2 or len(b) < 2:
        return None
    va, vb = stddev(a) ** 2 / len(a), stddev(b) ** 2 / len(b)
    if va + vb == 0:
        return None
    with warnings.catch_warnings():
        # scipy warns of "catastrophic cancellation" when one side has no
        # spread at all (e.g. 20, 20); its variance is exactly 0 there
        warnings.filterwarnings("ignore", "Precision loss occurred",
                                RuntimeWarning)
        res = sps.ttest_ind(b, a, equal_var=False)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    return Welch(float(res.statistic), df, float(res.pvalue))


def _ratio_of_means(base, other, axis=-1):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.mean(other, axis=axis) / np.mean(base, axis=axis)


def bootstrap_ratio_ci(base, other, confidence=1 - ALPHA,
                       iterations=BOOTSTRAP_ITERATIONS, seed=BOOTSTRAP_SEED):
    """Percentile bootstrap interval of mean(other) / mean(base)
    (scipy.stats.bootstrap, each side resampled with replacement on its
    own).  None where it is undefined: fewer than 2 runs on a side, a base
    mean of 0, or a base that some resample averages to 0 (the ratio has
    no value there)."""
    if len(base) < 2 or len(other) < 2 or not mean(base):
        return None
    # a resample whose ratio is 0/0 (a metric that is 0 in every run) makes
    # numpy's percentile warn; such an interval is refused just below
    with np.errstate(divide="ignore", invalid="ignore"):
        res = sps.bootstrap((base, other), _ratio_of_means,
                            vectorized=True, n_resamples=iterations,
                            confidence_level=confidence,
                            method=BOOTSTRAP_METHOD,
                            random_state=np.random.default_rng(seed))
    lo, hi = (float(x) for x in res.confidence_interval)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    return (lo, hi)


def _runs(base, other):
    if len(base) == len(other):
        return "n=%d vs %d" % (len(base), len(other))
    return "n=%d vs %d (unequal)" % (len(base), len(other))


def verdict(base, other, alpha=ALPHA):
    """Is the difference between two sets of runs beyond the noise?
    Beyond where Welch's test says so and the bootstrap CI of the ratio
    excludes 1 (where it has one); the text names the method and the
    number of runs behind it, and which held a difference back."""
    if not base or not other:
        return Verdict("missing", "no %s runs: n=%d vs %d"
                       % ("base" if not base else "such", len(base),
                          len(other)), None, None)
    ci = bootstrap_ratio_ci(base, other)
    if len(base) < 2 or len(other) < 2:
        if len(base) == len(other):
            text = "n=1: cannot tell"
        else:
            text = "n=%d vs %d: cannot tell" % (len(base), len(other))
        return Verdict("cannot_tell", text, None, None)
    w = welch(base, other)
    if w is None:                       # no spread on either side
        if mean(base) == mean(other):
            return Verdict("same", "same: no spread on either side, "
                           + _runs(base, other), None, ci)
        return Verdict("differs", "differs: no spread on either side "
                       "(Welch undefined), " + _runs(base, other), None, ci)
    # beyond only where the interval and the test agree: a ratio whose
    # CI excludes 1 that Welch does not back (or the other way round) is
    # within noise, the words saying which one held it back
    holds = ci is not None and ci[0] <= 1.0 <= ci[1]
    beyond = w.p < alpha and not holds
    text = "%s: Welch p=%s, %s" % ("beyond noise" if beyond else
                                   "within noise", fmt_p(w.p),
                                   _runs(base, other))
    if w.p < alpha and holds:
        text += "; the 95% CI holds 1"
    elif w.p >= alpha and ci is not None and not holds:
        text += "; the 95% CI excludes 1, Welch's test does not agree"
    return Verdict("beyond" if beyond else "noise", text, w, ci)


def t_of(df, alpha=ALPHA):
    """Student's t quantile of a two-sided 1 - alpha interval."""
    return float(sps.t.ppf(1 - alpha / 2, df))


def z_of_p(p):
    """The |z| whose two-sided normal p-value is @p (0 < p < 1)."""
    return float(sps.norm.isf(p / 2))


def fmt_p(p):
    return "%.2g" % p if p >= 0.001 else "%.1e" % p
