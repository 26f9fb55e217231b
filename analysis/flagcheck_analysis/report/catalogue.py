"""The catalogue (jobs/catalogue/): each job file's published figure, from
its `; published-figure:` header line (inputs/jobheader.py), and each
run's test_first/always beside it, with the summary's CI and verdict.
docs/analysis.md, "flagcheck catalogue"."""

from collections import namedtuple

from ..inputs.jobheader import KEY, USAGE, Figure, FigureError, parse, read
from ..inputs import corun, published
from ..stats import significance
from . import render, summary

# the header reader lives in the results layer (inputs/published.py reads
# S1-S4's figures with it); its names stay importable from here
__all__ = ["KEY", "USAGE", "Figure", "FigureError", "parse", "read", "Row",
           "rows", "table", "text", "markdown"]

Row = namedtuple("Row", "scenario numjobs always test_first runs ratio "
                 "published decision verdict", defaults=(None, None))


def rows(records, figures, counts=None):
    """One Row per scenario with a Figure and numjobs with runs of both
    variants: the mean IOPS of each (fio's, over the repeats), their ratio
    recomputed from those runs, the published gain, and the cell's
    decision and verdict in words (summary.py; @counts:
    conditions.cell_counts, for the busy runs)."""
    cells = {}
    for r in records:
        iops = r.metrics.get("iops")
        if r.scenario in figures and iops is not None:
            cells.setdefault((r.scenario, r.numjobs, r.variant), []).append(iops)
    out = []
    for scenario, nj in sorted({(s, n) for s, n, _ in cells}):
        a = cells.get((scenario, nj, "always"))
        t = cells.get((scenario, nj, "test_first"))
        if not a or not t:
            continue
        ma, mt = significance.mean(a), significance.mean(t)
        fig = figures[scenario]
        d = summary.decision(records, scenario, nj, "always", "test_first")
        busy, n = (counts or {}).get((scenario, nj), ([], 0))
        entry = published.from_job_file(scenario, fig.gain, fig.what, None) \
            if fig.gain is not None else None
        words = summary.verdict(d, entry, nj, len(busy), n, corun_pct=(
            corun.records_share(records, scenario, nj)[0]))
        out.append(Row(scenario, nj, ma, mt, (len(a), len(t)),
                       mt / ma if ma else None, fig, d, words))
    return out


def table(rows_):
    header = ["scenario", "numjobs", "always IOPS", "test_first IOPS",
              "runs", "test_first/always", "95% CI", "published",
              "published figure", "verdict"]
    body = [[r.scenario, str(r.numjobs), render.fmt_value(r.always),
             render.fmt_value(r.test_first), "%d+%d" % r.runs,
             "-" if r.ratio is None else "x%.2f" % r.ratio,
             "-" if r.decision is None or r.decision.ci is None else
             "%.2f..%.2f" % r.decision.ci,
             "-" if r.published.gain is None else
             "x%.2f" % r.published.gain,
             r.published.what or "-", r.verdict or "-"] for r in rows_]
    title = ("the catalogue beside its sources (test_first/always = mean "
             "IOPS of test_first runs / of always runs; published = the "
             "fix's gain as its source gives it, from the job file's "
             "published-figure line; 95% CI and verdict: the report's "
             "summary's, on the runs' pairs; on a machine far smaller than "
             "the published one only the direction is expected to agree)")
    return title, header, body, {1, 2, 3, 4, 5, 6, 7}


def text(rows_):
    return render.text_table(*table(rows_)) + "\n"


def markdown(rows_):
    return render.markdown_table(*table(rows_)) + "\n"
