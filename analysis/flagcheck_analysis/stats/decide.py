"""--until-decided: is a cell (one scenario at one numjobs) decided after its
repeats so far? The pairs decide (paired.py) where there are some, else
the unpaired runs (the bootstrap CI and Welch's test); never on fewer than
MIN_REPEATS per side, nor where the jobs seldom ran together.
docs/analysis.md, "Paired runs" and "Repeats until decided"."""

from collections import namedtuple

from ..inputs import corun, fiojson, matrix
from . import interval, paired, significance

MIN_REPEATS = 3
DEFAULT_PRECISION = 0.02
METRIC = "iops"

# reason: "excludes_1", "narrow" or "undecided"; why (undecided only):
#   "runs"    fewer than MIN_REPEATS runs per side (or no runs of a variant)
#   "no_ci"   no interval (no spread to resample)
#   "holds_1" the CI holds 1 and is wider than the precision
#   "welch"   the CI excludes 1 but Welch's test does not agree (p >= 0.05)
#   "apart"   the jobs seldom ran together (corun.seldom): never decided
# p: Welch's p-value (the pairs' t-test p when by == "pairs"), or None
# where the test is undefined.  by: "pairs" or "unpaired", what decided
# (or would decide); second: the unpaired (ratio, ci, p) beside the pairs';
# corun: the cell's co-running share (percent) where apart() set why;
# unpaired: why the runs do not pair up (interval.pair_up), by "unpaired".
Decision = namedtuple("Decision",
                      "variant reason ratio ci n why p by second corun "
                      "unpaired",
                      defaults=(None, None, "unpaired", None, None, None))


def decide(base, other, variant="", precision=DEFAULT_PRECISION, pairs=None,
           unpaired=None):
    """Decision for one variant's values against the base variant's; @pairs:
    the ratios variant/base of the runs paired by repeat (interval.pair_up),
    or None, and then @unpaired, why not."""
    n = min(len(base), len(other))
    m = significance.mean(base)
    ratio = significance.mean(other) / m if other and m else None
    v = significance.verdict(base, other)
    ci, p = v.ci, (v.welch.p if v.welch else None)
    if pairs:
        return _decide_pairs(pairs, variant, precision, (ratio, ci, p))
    d = Decision(variant, "undecided", ratio, ci, n, None, p,
                 unpaired=unpaired)
    if n < MIN_REPEATS or ratio is None:
        return d._replace(why="runs")
    if ci is None:
        return d._replace(why="no_ci")
    holds_1 = ci[0] <= 1.0 <= ci[1]
    if v.kind in ("beyond", "differs") and not holds_1:
        return d._replace(reason="excludes_1")
    if (ci[1] - ci[0]) / 2 < precision * abs(ratio):
        return d._replace(reason="narrow")
    return d._replace(why="holds_1" if holds_1 else "welch")


def of_runs(base, other, variant="", precision=DEFAULT_PRECISION):
    """decide() of @other against @base, each [(repeat, value)]: over
    their pairs where the runs pair up (interval.pair_up), else unpaired,
    saying why."""
    pairs, why = interval.pair_up(base, other)
    return decide([v for _, v in base], [v for _, v in other], variant,
                  precision, pairs, why)


def _decide_pairs(ratios, variant, precision, second):
    pr = paired.paired(ratios)
    if pr.n < MIN_REPEATS or pr.ci is None:
        return Decision(variant, "undecided", pr.gain, pr.ci, pr.n, "runs",
                        pr.p, "pairs", second)
    if not pr.ci[0] <= 1.0 <= pr.ci[1]:
        return Decision(variant, "excludes_1", pr.gain, pr.ci, pr.n, None,
                        pr.p, "pairs", second)
    if (pr.ci[1] - pr.ci[0]) / 2 < precision * pr.gain:
        return Decision(variant, "narrow", pr.gain, pr.ci, pr.n, None, pr.p,
                        "pairs", second)
    return Decision(variant, "undecided", pr.gain, pr.ci, pr.n, "holds_1",
                    pr.p, "pairs", second)


def decide_cell(values, variants, precision=DEFAULT_PRECISION, by_repeat=None):
    """[Decision] of every variant after the first (the base) of one cell;
    `values` is {variant: [metric per run]}, `by_repeat` {variant: {repeat:
    metric}} (the pairs), or None."""
    if by_repeat:
        sides = {m: sorted(v.items()) for m, v in by_repeat.items()}
        return [of_runs(sides.get(variants[0], []), sides.get(m, []), m,
                        precision) for m in variants[1:]]
    base = [(None, v) for v in values.get(variants[0], [])]
    return [of_runs(base, [(None, v) for v in values.get(m, [])], m,
                    precision) for m in variants[1:]]


def apart(decisions, numjobs, share):
    """@decisions with every one left undecided (why "apart", the share
    kept) where the cell's jobs seldom ran together (corun.seldom), else
    as given."""
    if not corun.seldom(numjobs, share):
        return list(decisions)
    return [d._replace(reason="undecided", why="apart", corun=share)
            for d in decisions]


def is_decided(decisions):
    return all(d.reason != "undecided" for d in decisions)


def text(d, base, precision=DEFAULT_PRECISION):
    """'test_first/always x1.684, 95% CI 1.62..1.75 excludes 1'."""
    if d.ratio is None:
        return "%s/%s: no runs" % (d.variant, base)
    out = "%s/%s x%.3f" % (d.variant, base, d.ratio)
    if d.ci is None:
        return out + ", no CI"
    out += ", 95%% CI %.3f..%.3f" % d.ci
    if d.by != "pairs" and d.unpaired:
        out = "%s/%s x%.3f unpaired (%s), 95%% CI %.3f..%.3f" % (
            (d.variant, base, d.ratio, d.unpaired) + tuple(d.ci))
    if d.by == "pairs":
        out = "%s/%s x%.3f over %d pairs, 95%% CI %.3f..%.3f" % (
            (d.variant, base, d.ratio, d.n) + tuple(d.ci))
    if d.reason == "excludes_1":
        return out + " excludes 1"
    if d.reason == "narrow":
        return out + " narrower than ±%g%%" % (100 * precision)
    return out + " " + why_text(d)


def why_text(d):
    """Why an undecided ratio is undecided, in words that agree with its
    figures: 'holds 1', or 'excludes 1 but Welch p=0.095 does not agree'."""
    if d.why == "welch":
        return ("excludes 1 but Welch's test does not agree (p=%s)"
                % significance.fmt_p(d.p) if d.p is not None else
                "excludes 1 but Welch's test does not agree")
    if d.why == "holds_1":
        return "holds 1"
    if d.why == "apart":
        return ("%s, but its jobs ran together %.0f%% of the run (under "
                "%.0f%%): not decided" % (
                    "holds 1" if d.ci is None or d.ci[0] <= 1 <= d.ci[1]
                    else "excludes 1", d.corun, corun.SELDOM_PCT))
    if d.why == "no_ci":
        return "undefined (no spread to resample)"
    if d.by == "pairs":
        return "from %d pair%s, at least %d needed" % (
            d.n, "" if d.n == 1 else "s", MIN_REPEATS)
    return "from %d run%s per variant, at least %d needed" % (
        d.n, "" if d.n == 1 else "s", MIN_REPEATS)


def cell_values(outdir, runs, metric=METRIC):
    """{variant: [metric of each finished run]} of the runs given (one cell);
    a run whose JSON is missing or unreadable counts as not run."""
    return {m: list(v.values()) for m, v in
            cell_values_by_repeat(outdir, runs, metric).items()}


def cell_values_by_repeat(outdir, runs, metric=METRIC):
    """{variant: {repeat: metric}} of the finished runs given (one cell), in
    the runs' order."""
    out = {}
    for run in runs:
        try:
            doc = fiojson.load_fio_json(matrix.json_path(outdir, run))
            value = fiojson.run_metrics(doc, None).get(metric)
        except (fiojson.InputError, ValueError, TypeError, AttributeError,
                KeyError):
            continue
        if value is not None:
            out.setdefault(run.variant, {})[run.repeat] = value
    return out


def cell_corun(outdir, runs):
    """How much of the run the jobs ran together, the median over the
    finished @runs of one cell (inputs/corun.py), or None where none
    recorded it (one job, offloaded submission, an older engine); a run
    whose counters are missing or unreadable counts as not recorded."""
    shares = []
    for run in runs:
        try:
            shares.append(corun.share(fiojson.load_counters(
                matrix.counters_path(outdir, run))))
        except fiojson.InputError:
            continue
    return corun.cell_share(shares)


def seldom_together(numjobs, share):
    """True where a cell's jobs ran together less than corun.SELDOM_PCT of
    the run (corun.seldom): more repeats of the same would not contend the
    line either."""
    return corun.seldom(numjobs, share)
