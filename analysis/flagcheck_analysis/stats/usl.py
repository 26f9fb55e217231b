"""The Universal Scalability Law (Gunther), X(N) = lambda N / (1 + sigma
(N - 1) + kappa N (N - 1)), fitted to every run's IOPS against numjobs
(scipy.optimize.curve_fit, every parameter >= 0) with 95% CIs, and its
peak; nothing fitted under MIN_NUMJOBS distinct numjobs values.
docs/analysis.md, "The scaling law"."""

import math
from collections import namedtuple

import numpy as np
from scipy import optimize
from scipy import stats as sps

from .compare import group, variant_order

MIN_NUMJOBS = 4          # distinct numjobs values: 3 parameters + 1
CONFIDENCE = 0.95
PARAMS = ("lambda", "sigma", "kappa")

# One variant of one scenario.  values (lambda, sigma, kappa) and ci
# ((lo, hi) per parameter, None where the covariance is undefined) are set
# only when fitted; otherwise `reason` says why not.
Fit = namedtuple("Fit", "scenario variant numjobs runs values ci reason")


def throughput(n, lam, sigma, kappa):
    """X(N) of the USL (numpy arrays or numbers)."""
    n = np.asarray(n, dtype=float)
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def peak(fit):
    """N* = sqrt((1 - sigma) / kappa), or None: no peak (kappa 0, or sigma
    >= 1, where X never rises above X(1))."""
    _, sigma, kappa = fit.values
    if kappa <= 0 or sigma >= 1:
        return None
    return math.sqrt((1 - sigma) / kappa)


def fit_points(numjobs, iops, scenario="", variant=""):
    """Fit the USL to (numjobs, iops) pairs, one per run."""
    distinct = sorted(set(numjobs))
    if len(distinct) < MIN_NUMJOBS:
        return Fit(scenario, variant, distinct, len(iops), None, None,
                   "no fit possible: %d numjobs value%s (%s); the law's 3 "
                   "parameters need at least %d"
                   % (len(distinct), "" if len(distinct) == 1 else "s",
                      ", ".join(map(str, distinct)) or "none", MIN_NUMJOBS))
    n = np.asarray(numjobs, dtype=float)
    # scaled to about 1, so lambda, sigma and kappa are of like size
    scale = float(np.max(iops)) or 1.0
    y = np.asarray(iops, dtype=float) / scale
    first = n == n.min()
    p0 = (float(np.mean(y[first] / n[first])), 0.01, 0.001)
    try:
        popt, pcov = optimize.curve_fit(
            throughput, n, y, p0=p0, bounds=(0, np.inf), maxfev=20000)
    except (RuntimeError, ValueError) as e:
        return Fit(scenario, variant, distinct, len(iops), None, None,
                   "the fit did not converge (%s)" % e)
    values = (popt[0] * scale, float(popt[1]), float(popt[2]))
    dof = len(y) - len(PARAMS)
    ci = None
    if dof > 0 and np.all(np.isfinite(pcov)):
        t = sps.t.ppf(0.5 + CONFIDENCE / 2, dof)
        se = np.sqrt(np.diag(pcov)) * (scale, 1, 1)
        ci = tuple((max(0.0, v - t * s), v + t * s)
                   for v, s in zip(values, se))
    return Fit(scenario, variant, distinct, len(iops), values, ci, None)


def fits(records, base):
    """One Fit per scenario and variant, from every run's IOPS."""
    groups = group(records)
    out = []
    for scenario in sorted({r.scenario for r in records}):
        for variant in variant_order(records, base):
            pairs = [(nj, m["iops"]) for (sc, nj, md), runs in groups.items()
                     if sc == scenario and md == variant for m in runs
                     if m.get("iops") is not None]
            if pairs:
                out.append(fit_points([p[0] for p in pairs],
                                      [p[1] for p in pairs], scenario, variant))
    return out
