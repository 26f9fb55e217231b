"""The Universal Scalability Law (Gunther) fitted to each mode's IOPS
against numjobs:

    X(N) = lambda N / (1 + sigma (N - 1) + kappa N (N - 1))

lambda is the throughput of one job, sigma the contention (the serialised
share: the line held by one CPU at a time), kappa the coherency cost (every
job paying for every other: the line bouncing between all of them).  With
kappa > 0 the curve peaks at N* = sqrt((1 - sigma) / kappa) jobs and falls
after it; with kappa = 0 it has no peak and levels off at lambda / sigma.

The fit is scipy.optimize.curve_fit (bounds: every parameter >= 0) over
every run's IOPS, not over the means, so the 95% confidence intervals
(Student's t on the runs left over after three parameters, times the
standard errors from the covariance) carry the noise between repeats.
Three parameters go through any three points: with fewer than MIN_NUMJOBS
distinct numjobs values nothing is fitted, and the report says so."""

import argparse
import math
from collections import namedtuple

import numpy as np
from scipy import optimize
from scipy import stats as sps

from .compare import group, mode_order

MIN_NUMJOBS = 4          # distinct numjobs values: 3 parameters + 1
CONFIDENCE = 0.95
PARAMS = ("lambda", "sigma", "kappa")

# One mode of one scenario.  values (lambda, sigma, kappa) and ci
# ((lo, hi) per parameter, None where the covariance is undefined) are set
# only when fitted; otherwise `reason` says why not.
Fit = namedtuple("Fit", "scenario mode numjobs runs values ci reason")


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


def fit_points(numjobs, iops, scenario="", mode=""):
    """Fit the USL to (numjobs, iops) pairs, one per run."""
    distinct = sorted(set(numjobs))
    if len(distinct) < MIN_NUMJOBS:
        return Fit(scenario, mode, distinct, len(iops), None, None,
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
        return Fit(scenario, mode, distinct, len(iops), None, None,
                   "the fit did not converge (%s)" % e)
    values = (popt[0] * scale, float(popt[1]), float(popt[2]))
    dof = len(y) - len(PARAMS)
    ci = None
    if dof > 0 and np.all(np.isfinite(pcov)):
        t = sps.t.ppf(0.5 + CONFIDENCE / 2, dof)
        se = np.sqrt(np.diag(pcov)) * (scale, 1, 1)
        ci = tuple((max(0.0, v - t * s), v + t * s)
                   for v, s in zip(values, se))
    return Fit(scenario, mode, distinct, len(iops), values, ci, None)


def fits(records, base):
    """One Fit per scenario and mode, from every run's IOPS."""
    groups = group(records)
    out = []
    for scenario in sorted({r.scenario for r in records}):
        for mode in mode_order(records, base):
            pairs = [(nj, m["iops"]) for (sc, nj, md), runs in groups.items()
                     if sc == scenario and md == mode for m in runs
                     if m.get("iops") is not None]
            if pairs:
                out.append(fit_points([p[0] for p in pairs],
                                      [p[1] for p in pairs], scenario, mode))
    return out


MAX_PREDICT = 4096          # fio's own limit on jobs (REAL_MAX_JOBS, fio.h)


def predict_arg(text):
    """argparse type of --predict: a whole number of jobs, 2 to fio's
    limit on jobs."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 2 <= n <= MAX_PREDICT:
        raise argparse.ArgumentTypeError(
            "%r is not valid: give a whole number of jobs, 2 to %d (fio's "
            "limit on jobs)" % (text, MAX_PREDICT))
    return n


EPILOG = """

the scaling law: per scenario and mode, the Universal Scalability Law
X(N) = lambda N / (1 + sigma (N-1) + kappa N (N-1)) fitted to every run's
IOPS against numjobs (scipy.optimize.curve_fit, lambda, sigma, kappa >= 0),
with 95% confidence intervals: lambda, one job's IOPS; sigma, contention;
kappa, coherency; the peak N* = sqrt((1-sigma)/kappa), or "no peak" when
kappa is 0.  It needs at least 4 distinct numjobs values; with fewer the
table says "no fit possible" and nothing is fitted.  The fitted curve is
drawn on <scenario>_iops.png/.svg (dashed beyond the measured numjobs, out
to --predict N)."""


def add_arguments(parser):
    """--predict, and the scaling law's paragraph of --help."""
    parser.epilog = (parser.epilog or "") + EPILOG
    parser.add_argument(
        "--predict", type=predict_arg, metavar="N",
        help="N CPUs (2 to %d) for the big-box answer's estimate; the "
        "scaling-law fit's IOPS at N only within the measured numjobs"
        % MAX_PREDICT)


def _num(v):
    if v >= 100:
        return "%.0f" % v
    return "%#.3g" % v


def _numjobs(values):
    """1,2,4,8 as it is; a run of consecutive values as 1..16."""
    if len(values) > 2 and values[-1] - values[0] == len(values) - 1:
        return "%d..%d" % (values[0], values[-1])
    return ",".join(map(str, values))


def _with_ci(fit, i):
    v = fit.values[i]
    if fit.ci is None:
        return "%s (no CI)" % _num(v)
    return "%s [%s..%s]" % (_num(v), _num(fit.ci[i][0]), _num(fit.ci[i][1]))


def _fmt_peak(fit):
    n_star = peak(fit)
    if n_star is None:
        return "no peak"
    if fit.ci is not None and fit.ci[2][0] == 0:
        return "%.1f (kappa's CI reaches 0)" % n_star
    return "%.1f" % n_star


def tables(all_fits, predict=None):
    """(title, header, rows, right) per scenario for render's tables; where
    no mode of a scenario could be fitted, only why not."""
    out = []
    for scenario in sorted({f.scenario for f in all_fits}):
        mine = [f for f in all_fits if f.scenario == scenario]
        header = ["mode", "numjobs", "runs"]
        if all(f.values is None for f in mine):
            header.append("scaling law")
            rows = [[f.mode, _numjobs(f.numjobs), str(f.runs),
                     f.reason] for f in mine]
            out.append(("scaling law (USL): %s" % scenario, header, rows,
                        {2}))
            continue
        header += ["lambda (IOPS of 1 job)", "sigma (contention)",
                   "kappa (coherency)", "peak N*"]
        if predict:
            header.append("IOPS at %d jobs" % predict)
        rows = []
        for f in mine:
            cells = [f.mode, _numjobs(f.numjobs), str(f.runs)]
            if f.values is None:
                rows.append(cells + [f.reason] + [""] * (len(header) - 4))
                continue
            cells += [_with_ci(f, i) for i in range(3)]
            cells.append(_fmt_peak(f))
            if predict and predict > max(f.numjobs):
                # a description of the measured curve, not a second
                # big-box number: that is the simulator's (the report's
                # big-box answer)
                cells.append("- (beyond the measured %s: see the big-box "
                             "answer)" % _numjobs(f.numjobs))
            elif predict:
                cells.append(_num(float(throughput(predict, *f.values))))
            rows.append(cells)
        out.append(("scaling law (USL): %s: X(N) = lambda N / (1 + sigma "
                    "(N-1) + kappa N (N-1)), fitted to every run, %d%% "
                    "confidence intervals; N* = sqrt((1-sigma)/kappa)"
                    % (scenario, round(100 * CONFIDENCE)), header, rows,
                    set(range(1, len(header)))))
    return out


def draw(ax, fit, color, predict=None, scale=1.0):
    """The fitted curve of one mode on the IOPS plot: thin and solid over
    the measured numjobs, dashed from there out to `predict`; IOPS divided
    by @scale (1e6 for a plot in M IOPS)."""
    if fit is None or fit.values is None:
        return
    lo, hi = min(fit.numjobs), max(fit.numjobs)
    xs = np.linspace(lo, hi, 100)
    ax.plot(xs, throughput(xs, *fit.values) / scale, color=color,
            linewidth=1, alpha=0.7, label="%s USL fit: the scaling law "
            "through its runs" % fit.mode)
    if predict and predict > hi:
        xs = np.linspace(hi, predict, 100)
        ax.plot(xs, throughput(xs, *fit.values) / scale, color=color,
                linewidth=1, linestyle="--", label="%s USL extrapolated to "
                "%d jobs" % (fit.mode, predict))
