"""Mean, stddev, Welch's t-test and a bootstrap ratio interval, standard
library only.  The t distribution comes from the regularized incomplete beta
function (continued fraction, as in Numerical Recipes' betacf)."""

import math
import random
from collections import namedtuple

ALPHA = 0.05
BOOTSTRAP_ITERATIONS = 2000
BOOTSTRAP_SEED = 7                  # fixed: the same data give the same CI

Welch = namedtuple("Welch", "t df p")
Verdict = namedtuple("Verdict", "kind text welch ci")


def mean(xs):
    return sum(xs) / len(xs) if xs else None


def stddev(xs):
    """Sample standard deviation (n - 1); 0 for a single value."""
    if len(xs) < 2:
        return 0.0
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def pct_stddev(xs):
    """stddev as % of the mean (LKP's '± x%'); None if the mean is 0."""
    m = mean(xs)
    return 100.0 * stddev(xs) / abs(m) if m else None


def pct_change(base, other):
    """(other - base) / base in %; None if either is missing or base is 0."""
    if base is None or other is None or base == 0:
        return None
    return 100.0 * (other - base) / abs(base)


def _betacf(a, b, x):
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def betainc(a, b, x):
    """Regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_two_sided_p(t, df):
    """P(|T| >= |t|) for Student's t with df degrees of freedom."""
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def welch(a, b):
    """Welch's unequal-variance t-test of mean(b) vs mean(a); None when it
    is undefined (fewer than 2 runs on a side, or no spread on both)."""
    if len(a) < 2 or len(b) < 2:
        return None
    va, vb = stddev(a) ** 2 / len(a), stddev(b) ** 2 / len(b)
    if va + vb == 0:
        return None
    t = (mean(b) - mean(a)) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    return Welch(t, df, t_two_sided_p(t, df))


def bootstrap_ratio_ci(base, other, confidence=1 - ALPHA,
                       iterations=BOOTSTRAP_ITERATIONS, seed=BOOTSTRAP_SEED):
    """Percentile bootstrap interval of mean(other) / mean(base), resampling
    each side with replacement.  None if base has no runs or mean 0."""
    if not base or not other or not mean(base):
        return None
    rng = random.Random(seed)
    ratios = []
    for _ in range(iterations):
        mb = mean(rng.choices(base, k=len(base)))
        if mb:
            ratios.append(mean(rng.choices(other, k=len(other))) / mb)
    if not ratios:
        return None
    ratios.sort()
    tail = (1 - confidence) / 2
    lo = ratios[int(math.floor(tail * len(ratios)))]
    hi = ratios[min(len(ratios) - 1,
                    int(math.ceil((1 - tail) * len(ratios))) - 1)]
    return (lo, hi)


def _runs(base, other):
    if len(base) == len(other):
        return "n=%d vs %d" % (len(base), len(other))
    return "n=%d vs %d (unequal)" % (len(base), len(other))


def verdict(base, other, alpha=ALPHA):
    """Is the difference between two sets of runs beyond the noise?  The
    text names the method and the number of runs behind it."""
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
    beyond = w.p < alpha
    text = "%s: Welch p=%s, %s" % ("beyond noise" if beyond else
                                   "within noise", _fmt_p(w.p),
                                   _runs(base, other))
    if ci is not None and beyond == (ci[0] <= 1.0 <= ci[1]):
        text += "; bootstrap CI disagrees"
    return Verdict("beyond" if beyond else "noise", text, w, ci)


def _fmt_p(p):
    return "%.2g" % p if p >= 0.001 else "%.1e" % p
