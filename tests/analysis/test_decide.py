"""decide: when a cell's ratio is decided, and reading a cell's IOPS from
the recorded fixture runs."""

import json

from tests.analysis.helpers import RESULTS
from flagcheck_analysis.inputs import matrix
from flagcheck_analysis.stats import decide, significance


class TestDecide:
    def test_clear_effect_excludes_1(self):
        d = decide.decide([100, 101, 99], [150, 151, 149], "test_first")
        assert d.reason == "excludes_1"
        assert d.ratio == 1.5
        assert d.n == 3
        assert d.ci[0] > 1.0
        assert decide.text(d, "always") == \
            ("test_first/always x1.500, 95%% CI %.3f..%.3f "
             "excludes 1" % d.ci)

    def test_too_few_repeats_never_decide(self):
        d = decide.decide([100, 101], [150, 151])
        assert (d.reason, d.n) == ("undecided", 2)
        d = decide.decide([100, 101, 99], [150, 151])
        assert d.reason == "undecided"

    def test_no_effect_but_narrow(self):
        base, other = [1000, 1001, 999], [1000.5, 999.5, 1000]
        assert significance.verdict(base, other).kind == "noise"
        d = decide.decide(base, other, "b")
        assert d.reason == "narrow"
        assert (d.ci[0] <= 1.0 <= d.ci[1])
        assert decide.text(d, "a").endswith("narrower than ±2%")
        # the same data against a precision of 0.01%: not decided
        assert decide.decide(base, other, "b", 0.0001).reason == "undecided"

    def test_noisy_is_undecided(self):
        d = decide.decide([100, 150, 50], [120, 60, 170])
        assert d.reason == "undecided"
        assert (d.ci[0] < 1.0 < d.ci[1])

    def test_ci_excludes_1_but_welch_disagrees(self):
        # the bootstrap of 3 values is narrow; Welch is not convinced
        base, other = [100, 100, 130], [131, 132, 133]
        v = significance.verdict(base, other)
        assert v.kind == "noise"
        assert v.ci[0] > 1.0
        assert decide.decide(base, other).reason != "excludes_1"

    def test_cell_with_three_variants(self):
        values = {"before": [100, 101, 99], "always": [80, 81, 79],
                  "test_first": [100, 150, 50]}
        ds = decide.decide_cell(values, ["before", "always", "test_first"])
        assert [(d.variant, d.reason) for d in ds] == \
            [("always", "excludes_1"), ("test_first", "undecided")]
        assert not decide.is_decided(ds)
        assert decide.is_decided(ds[:1])

    def test_missing_variant(self):
        d = decide.decide_cell({"always": [1, 2, 3]},
                               ["always", "test_first"])[0]
        assert (d.reason, d.ratio) == ("undecided", None)
        assert decide.text(d, "always") == "test_first/always: no runs"


class TestCellValues:
    def test_fixture_iops(self):
        runs = [matrix.Run("flagcheck-fixture", m, 2, r)
                for r in (1, 2, 3) for m in ("always", "test_first")]
        got = decide.cell_values(RESULTS, runs)
        want = {}
        for run in runs[:4]:                 # r3 was never run
            with open(matrix.json_path(RESULTS, run)) as f:
                doc = json.load(f)
            want.setdefault(run.variant, []).append(
                sum(j["read"]["iops"] for j in doc["jobs"]))
        assert got == want
        assert len(got["always"]) == 2
