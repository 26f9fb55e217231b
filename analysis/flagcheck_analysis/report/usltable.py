"""The scaling law's table in the report: per scenario, each variant's fit
of the Universal Scalability Law (stats/usl.py) with its 95% confidence
intervals, its peak N* and, with --predict N within the measured numjobs,
the fitted IOPS at N; where no variant could be fitted, why not."""

from ..stats import usl


def three_figures(v):
    """@v to three significant figures, whole from 100 up."""
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
        return "%s (no CI)" % three_figures(v)
    return "%s [%s..%s]" % (three_figures(v), three_figures(fit.ci[i][0]),
                            three_figures(fit.ci[i][1]))


def _fmt_peak(fit):
    n_star = usl.peak(fit)
    if n_star is None:
        return "no peak"
    if fit.ci is not None and fit.ci[2][0] == 0:
        return "%.1f (kappa's CI reaches 0)" % n_star
    return "%.1f" % n_star


def tables(all_fits, predict=None):
    """(title, header, rows, right) per scenario for render's tables; where
    no variant of a scenario could be fitted, only why not."""
    out = []
    for scenario in sorted({f.scenario for f in all_fits}):
        mine = [f for f in all_fits if f.scenario == scenario]
        header = ["variant", "numjobs", "runs"]
        if all(f.values is None for f in mine):
            header.append("scaling law")
            rows = [[f.variant, _numjobs(f.numjobs), str(f.runs),
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
            cells = [f.variant, _numjobs(f.numjobs), str(f.runs)]
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
                cells.append(three_figures(
                    float(usl.throughput(predict, *f.values))))
            rows.append(cells)
        out.append(("scaling law (USL): %s: X(N) = lambda N / (1 + sigma "
                    "(N-1) + kappa N (N-1)), fitted to every run, %d%% "
                    "confidence intervals; N* = sqrt((1-sigma)/kappa)"
                    % (scenario, round(100 * usl.CONFIDENCE)), header, rows,
                    set(range(1, len(header)))))
    return out
