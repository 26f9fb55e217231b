"""The comparison and scaling tables on synthetic runs: unequal counts,
missing base, zero base."""


from flagcheck_analysis.stats import compare, scaling
from flagcheck_analysis.report import render


def rec(variant, nj, iops, rmw=None):
    metrics = {"iops": iops, "rmw_per_io": rmw}
    return compare.Record("s", variant, nj, None, metrics, "-")


class TestCompare:
    def test_unequal_counts_and_missing_base(self):
        records = [rec("always", 1, v) for v in (100, 104, 98)]
        records += [rec("test_first", 1, v) for v in (150, 149)]
        records += [rec("test_first", 2, 300)]          # no base at nj=2
        sections = compare.compare(records, "always")
        # the rmw row left out
        assert [(s.numjobs, len(s.rows)) for s in sections] == [(1, 1), (2, 1)]
        row = sections[0].rows[0]
        assert (row.base.n, row.others[0].cell.n) == (3, 2)
        assert "n=3 vs 2 (unequal)" in row.others[0].verdict.text
        assert round(row.others[0].pct_change -
                     100 * (149.5 - 302 / 3) / (302 / 3), 7) == 0
        missing = sections[1].rows[0]
        assert missing.base.n == 0
        assert missing.others[0].verdict.kind == "missing"
        title, header, rows, _ = render.compare_table(sections[1])
        assert rows[0][0] == "-"
        assert rows[0][1] == "-"

    def test_zero_base(self):
        records = [rec("always", 1, 10, 0.0), rec("always", 1, 11, 0.0),
                   rec("test_first", 1, 12, 1.0), rec("test_first", 1, 13,
                                                      1.0)]
        row = compare.compare(records, "always")[0].rows[1]
        assert row.others[0].pct_change is None
        assert render.fmt_change(row.others[0], row.base) == "n/a (base 0)"

    def test_scaling(self):
        records = [rec(m, nj, v) for m, nj, v in (
            ("always", 1, 10), ("always", 1, 12), ("always", 4, 22),
            ("test_first", 1, 11), ("test_first", 4, 44))]
        lines = scaling.scaling(records, "always")
        a4, t4 = lines[1].points["always"], lines[1].points["test_first"]
        assert round(a4.speedup - 2.0, 7) == 0
        assert round(a4.efficiency - 0.5, 7) == 0
        assert round(t4.speedup - 4.0, 7) == 0
        assert round(t4.efficiency - 1.0, 7) == 0
        assert round(t4.ratio - 2.0, 7) == 0
