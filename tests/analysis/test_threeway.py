"""threeway: the LKP table of a regression and its fix, three variants."""

import pytest

from flagcheck_analysis.stats import compare
from flagcheck_analysis.report import fixtable


def rec(variant, nj, iops, rep=1, rmw=None):
    metrics = {"iops": iops, "rmw_per_io": rmw}
    return compare.Record("dwtl", variant, nj, rep, metrics, "x")


# the seed's DWTL_54 works/sec, three runs each around the published means
RUNS = ([rec("before", 54, v, i) for i, v in enumerate(
            (5031984 * 0.98, 5031984, 5031984 * 1.02))] +
        [rec("always", 54, v, i, 3.0) for i, v in enumerate(
            (4049295 * 0.92, 4049295, 4049295 * 1.08))] +
        [rec("test_first", 54, v, i, 0.0) for i, v in enumerate(
            (5099506 * 0.96, 5099506, 5099506 * 1.04))])
VARIANTS = ("before", "always", "test_first")


class TestThreeWay:
    def test_rows_follow_the_given_order_whatever_the_input_order(self):
        for runs in (RUNS, list(reversed(RUNS))):
            rows = fixtable.rows(runs, VARIANTS, ("iops",))
            assert len(rows) == 1
            row = rows[0]
            assert row.name == "dwtl_54.iops"
            assert round(row.base.mean - 5031984, 7) == 0
            assert [c.cell.variant for c in row.others] == \
                ["always", "test_first"]
            # the seed's -19.5% and +1.3%, against the base both
            assert round(row.others[0].pct_change + 19.5, 1) == 0
            assert round(row.others[1].pct_change - 1.3, 1) == 0

    def test_text_has_lkp_columns_and_verdicts(self):
        out = fixtable.text(RUNS, VARIANTS, ("iops", "rmw_per_io"))
        lines = out.splitlines()
        assert "before -> always -> test_first" in lines[0]
        head = [l for l in lines if "%change" in l and "metric" in l][0]
        assert head.split()[:5] == ["before", "%change", "always", "%change",
                                    "test_first"]
        iops = [l for l in lines if "dwtl_54.iops" in l][0]
        assert "-19.5%" in iops
        assert "+1.3%" in iops
        assert "5031984 ±  2%" in iops
        # the verdicts: a footnote under the 120-column table
        mark = iops.split()[-1]
        note, = [l for l in lines if l.startswith(mark + " ")]
        assert "3 pairs" in note
        assert "beyond noise" in note.split("|")[0]
        assert "within noise" in note.split("|")[1]
        assert all(len(l) <= 120 for l in lines), out
        rmw = [l for l in lines if "atomic_rmw_per_io" in l][0]
        assert "3.00" in rmw

    def test_a_variant_without_runs_keeps_its_column(self):
        runs = [r for r in RUNS if r.variant != "always"]
        row = fixtable.rows(runs, VARIANTS, ("iops",))[0]
        assert row.others[0] is None
        assert row.others[1].cell.variant == "test_first"
        assert "no runs" in fixtable.markdown(runs, VARIANTS)

    def test_three_variants_are_needed(self):
        with pytest.raises(fixtable.ThreeWayError):
            fixtable.rows(RUNS, ("before", "always"))
        with pytest.raises(fixtable.ThreeWayError):
            fixtable.rows(RUNS, ("before", "before", "always"))
