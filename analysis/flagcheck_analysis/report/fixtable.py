"""LKP's table for a regression and its fix (lkp-tests lib/compare.rb, as in
the S4 report): three variants side by side, the first the base, then for each
of the other two %change against the base and its value, mean ± %stddev,
one metric per row named <scenario>_<numjobs>.<metric> at the end of the
row.  A last column gives the noise verdict of each change (stats.verdict,
with the number of runs), which LKP leaves to the reader.  The numbers come
from compare.compare; nothing is computed here."""

from collections import namedtuple

from ..stats import compare
from . import render
from ..inputs.fiojson import METRICS

# the rows of the seed's table, as far as fio has them
DEFAULT_METRICS = ("iops", "rmw_per_io", "stores_per_io", "clat_mean_ns",
                   "usr_cpu")

ThreeRow = namedtuple("ThreeRow", "name base others")   # others: 2 Comparison


class ThreeWayError(Exception):
    pass


def _ordered(records, variants):
    """The records of the three variants, grouped in `variants` order, so that
    compare.variant_order sees them in that order."""
    rank = {m: i for i, m in enumerate(variants)}
    return sorted((r for r in records if r.variant in rank),
                  key=lambda r: rank[r.variant])


def rows(records, variants, metrics=DEFAULT_METRICS):
    """ThreeRows in scenario, numjobs, metric order; raises ThreeWayError
    unless `variants` names three variants."""
    if len(variants) != 3 or len(set(variants)) != 3:
        raise ThreeWayError("three different variants are needed (base, "
                            "regression, fix), got %s" % ",".join(variants))
    names = dict(METRICS)
    out = []
    for section in compare.compare(_ordered(records, variants), variants[0]):
        # a variant without any run has no column in the section: keep the
        # other one where it belongs
        present = section.variants[1:]
        by_key = {r.key: r for r in section.rows}
        for key in metrics:
            row = by_key.get(key)
            if row is None:
                continue
            others = [row.others[present.index(m)] if m in present else None
                      for m in variants[1:]]
            out.append(ThreeRow("%s_%d.%s" % (section.scenario,
                                               section.numjobs, names[key]),
                                row.base, others))
    return out


def _cells(row):
    cells = [render.fmt_mean_sd(row.base)]
    verdicts = []
    for comp in row.others:
        if comp is None:
            cells += ["-", "-"]
            verdicts.append("no runs")
            continue
        cells += [render.fmt_change(comp, row.base),
                  render.fmt_mean_sd(comp.cell)]
        verdicts.append(comp.verdict.text)
    return cells + [row.name, " | ".join(verdicts)]


def table(records, variants, metrics=DEFAULT_METRICS):
    """(title, header, rows, right) for render.text_table/markdown_table."""
    header = [variants[0], "%change", variants[1], "%change", variants[2], "metric",
              "verdict (%s vs %s | %s vs %s)" % (variants[1], variants[0], variants[2],
                                                variants[0])]
    title = ("%s -> %s -> %s: mean ± %%stddev, %%change against %s"
             % (variants[0], variants[1], variants[2], variants[0]))
    return (title, header, [_cells(r) for r in rows(records, variants, metrics)],
            {0, 1, 2, 3, 4})


def text(records, variants, metrics=DEFAULT_METRICS):
    return render.text_table(*table(records, variants, metrics)) + "\n"


def markdown(records, variants, metrics=DEFAULT_METRICS):
    return render.markdown_table(*table(records, variants, metrics)) + "\n"
