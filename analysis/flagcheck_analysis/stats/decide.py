"""--until-decided: is a cell (one scenario at one numjobs) decided after
its repeats so far?  Its IOPS ratio, mean(mode) / mean(base), is decided
when the ratio's 95% CI (the report's bootstrap interval, stats.verdict)
excludes 1 and Welch's test agrees, or when the CI is narrower than
+-precision of the ratio; with several modes, every mode against the base.
No cell is decided on fewer than MIN_REPEATS runs per side: the percentile
bootstrap of two values per side can take only a handful of values and
gives far too narrow an interval."""

from collections import namedtuple

from ..results import fiojson, matrix
from . import significance as stats

MIN_REPEATS = 3
DEFAULT_PRECISION = 0.02
METRIC = "iops"

# reason: "excludes_1", "narrow" or "undecided"
Decision = namedtuple("Decision", "mode reason ratio ci n")


def decide(base, other, mode="", precision=DEFAULT_PRECISION):
    """Decision for one mode's values against the base mode's."""
    n = min(len(base), len(other))
    m = stats.mean(base)
    ratio = stats.mean(other) / m if other and m else None
    v = stats.verdict(base, other)
    ci = v.ci
    if n < MIN_REPEATS or ci is None or ratio is None:
        return Decision(mode, "undecided", ratio, ci, n)
    if v.kind in ("beyond", "differs") and not ci[0] <= 1.0 <= ci[1]:
        return Decision(mode, "excludes_1", ratio, ci, n)
    if (ci[1] - ci[0]) / 2 < precision * abs(ratio):
        return Decision(mode, "narrow", ratio, ci, n)
    return Decision(mode, "undecided", ratio, ci, n)


def decide_cell(values, modes, precision=DEFAULT_PRECISION):
    """[Decision] of every mode after the first (the base) of one cell;
    `values` is {mode: [metric per run]}."""
    base = values.get(modes[0], [])
    return [decide(base, values.get(m, []), m, precision)
            for m in modes[1:]]


def is_decided(decisions):
    return all(d.reason != "undecided" for d in decisions)


def text(d, base, precision=DEFAULT_PRECISION):
    """'test_first/always x1.684, 95% CI 1.62..1.75 excludes 1'."""
    if d.ratio is None:
        return "%s/%s: no runs" % (d.mode, base)
    out = "%s/%s x%.3f" % (d.mode, base, d.ratio)
    if d.ci is None:
        return out + ", no CI"
    out += ", 95%% CI %.3f..%.3f" % d.ci
    if d.reason == "excludes_1":
        return out + " excludes 1"
    if d.reason == "narrow":
        return out + " narrower than ±%g%%" % (100 * precision)
    return out


def cell_values(outdir, runs, metric=METRIC):
    """{mode: [metric of each finished run]} of the runs given (one cell);
    a run whose JSON is missing or unreadable counts as not run."""
    out = {}
    for run in runs:
        try:
            doc = fiojson.load_fio_json(matrix.json_path(outdir, run))
            value = fiojson.run_metrics(doc, None).get(metric)
        except (fiojson.InputError, ValueError, TypeError, AttributeError,
                KeyError):
            continue
        if value is not None:
            out.setdefault(run.mode, []).append(value)
    return out
