import math
import warnings

import scipy.stats

from flagcheck_analysis.stats import significance


class TestBasics:
    def test_mean_stddev(self):
        assert significance.mean([2, 4, 6]) == 4
        assert round(significance.stddev([2, 4, 6]) - 2.0, 7) == 0
        assert significance.stddev([5]) == 0.0
        assert significance.mean([]) is None

    def test_pct_change_zero_or_missing_base(self):
        assert round(significance.pct_change(4.0, 5.0) - 25.0, 7) == 0
        assert significance.pct_change(0, 5.0) is None
        assert significance.pct_change(None, 5.0) is None
        assert significance.pct_stddev([0, 0]) is None


class TestWelch:
    def test_df2_hand_computed(self):
        # x = 1,3 and y = 5,7: both variances 2, se^2 = 1 + 1, t = 4/sqrt 2,
        # df = 2.  For df=2, P(|T| >= t) = 1 - t / sqrt(2 + t^2)
        #                                = 1 - sqrt(8/10) = 0.105572809...
        w = significance.welch([1, 3], [5, 7])
        assert round(w.t - 4 / math.sqrt(2), 12) == 0
        assert round(w.df - 2.0, 12) == 0
        assert round(w.p - (1 - math.sqrt(0.8)), 12) == 0
        assert round(w.p - 0.1055728090, 9) == 0

    def test_df4_hand_computed(self):
        # x = 1,2,3 and y = 4,5,6: t = 3/sqrt(2/3), df = 4.  For df=4,
        # with u = t / sqrt(4 + t^2): P(|T| < t) = u (3 - u^2) / 2
        w = significance.welch([1, 2, 3], [4, 5, 6])
        assert round(w.df - 4.0, 12) == 0
        u = w.t / math.sqrt(4 + w.t ** 2)
        assert round(w.p - (1 - u * (3 - u * u) / 2), 12) == 0

    def test_unequal_counts_and_variances(self):
        w = significance.welch([10, 11, 12, 13, 14, 15], [20, 26])
        va, vb = 3.5 / 6, 18 / 2
        assert round(w.df - ((va + vb) ** 2 /
                             (va ** 2 / 5 + vb ** 2 / 1)), 12) == 0
        assert (0 < w.p < 1)

    def test_undefined(self):
        assert significance.welch([1], [2, 3]) is None
        assert significance.welch([2, 2], [3, 3]) is None


class TestAgainstScipy:
    """Hand-made samples whose answers are known in closed form: our
    verdict must agree with them and with scipy's own test run directly."""

    def assert_matches_scipy(self, a, b):
        w = significance.welch(a, b)
        with warnings.catch_warnings():
            # scipy's own warning for a side with no spread, as in
            # significance.welch: the reference must not print it either
            warnings.filterwarnings("ignore", "Precision loss occurred",
                                    RuntimeWarning)
            ref = scipy.stats.ttest_ind(b, a, equal_var=False)
        assert round(w.t - ref.statistic, 12) == 0
        assert round(w.p - ref.pvalue, 12) == 0
        # our df is the one scipy's p-value was computed with
        assert round(2 * scipy.stats.t.sf(abs(w.t), w.df) -
                     ref.pvalue, 12) == 0
        return w

    def test_df1_one_side_without_spread(self):
        # a = 1,1 (variance 0) and b = 2,4: se^2 = 0 + 2/2, t = 2, df = 1:
        # Cauchy, P(|T| >= 2) = 1 - 2/pi * atan(2)
        w = self.assert_matches_scipy([1, 1], [2, 4])
        assert round(w.t - 2.0, 12) == 0
        assert round(w.df - 1.0, 12) == 0
        assert round(w.p - (1 - 2 / math.pi * math.atan(2)), 12) == 0
        # the bootstrap ratio is 2, 3 or 4 (a's mean is always 1): its
        # interval 2..4 leaves out 1 but Welch's test does not: within
        # noise, the words naming which held the difference back
        v = significance.verdict([1, 1], [2, 4])
        assert v.kind == "noise"
        assert v.ci == (2.0, 4.0)
        assert v.text == ("within noise: Welch p=0.3, n=2 vs 2; the 95% CI "
                          "excludes 1, Welch's test does not agree")

    def test_df2_beyond_and_within_noise(self):
        # df = 2: P(|T| >= t) = 1 - t / sqrt(2 + t^2).  1,3 vs 11,13:
        # t = 10 / sqrt 2, p = 1 - sqrt(50/52) = 0.0194 < 0.05
        w = self.assert_matches_scipy([1, 3], [11, 13])
        assert round(w.p - (1 - math.sqrt(50 / 52)), 12) == 0
        v = significance.verdict([1, 3], [11, 13])
        assert (v.kind, v.text) == \
            ("beyond", "beyond noise: Welch p=0.019, n=2 vs 2")
        # 1,3 vs 5,7: t = 4 / sqrt 2, p = 1 - sqrt(8/10) = 0.106 > 0.05
        w = self.assert_matches_scipy([1, 3], [5, 7])
        assert round(w.p - (1 - math.sqrt(0.8)), 12) == 0
        assert significance.verdict([1, 3], [5, 7]).kind == "noise"

    def test_df4_and_unequal_counts(self):
        # 1,2,3 vs 4,5,6: df = 4, P(|T| < t) = u (3 - u^2) / 2 with
        # u = t / sqrt(4 + t^2); t = 3 / sqrt(2/3), p = 0.0213
        w = self.assert_matches_scipy([1, 2, 3], [4, 5, 6])
        u = w.t / math.sqrt(4 + w.t ** 2)
        assert round(w.p - (1 - u * (3 - u * u) / 2), 12) == 0
        assert significance.verdict([1, 2, 3], [4, 5, 6]).text == \
            "beyond noise: Welch p=0.021, n=3 vs 3"
        self.assert_matches_scipy([10, 11, 12, 13, 14, 15], [20, 26])

    def test_sign_follows_the_other_variant(self):
        assert significance.welch([4, 5, 6], [1, 2, 3]).t < 0
        assert significance.welch([1, 2, 3], [4, 5, 6]).t > 0



class TestVerdict:
    def test_one_run_per_side(self):
        v = significance.verdict([100.0], [200.0])
        assert v.kind == "cannot_tell"
        assert v.text == "n=1: cannot tell"
        assert "n=1 vs 3: cannot tell" in \
            significance.verdict([1.0], [1.0, 2.0, 3.0]).text

    def test_missing_side(self):
        assert significance.verdict([], [1.0, 2.0]).kind == "missing"

    def test_zero_stddev_both_sides(self):
        assert significance.verdict([3, 3, 3], [3, 3]).kind == "same"
        v = significance.verdict([2, 2, 2], [0, 0, 0])
        assert v.kind == "differs"
        assert "n=3 vs 3" in v.text

    def test_zero_base_has_no_ratio(self):
        v = significance.verdict([0, 0, 0], [1, 2, 1])
        assert v.ci is None
        assert "Welch p=" in v.text

    def test_names_method_and_runs(self):
        v = significance.verdict([10, 10.2, 9.9, 10.1, 10],
                                 [16, 16.1, 15.8, 16.2])
        assert v.kind == "beyond"
        assert "Welch p=" in v.text
        assert "n=5 vs 4 (unequal)" in v.text
        v = significance.verdict([10, 11, 9, 10.5], [10.2, 9.5, 10.8, 10.1])
        assert v.kind == "noise"


class TestBootstrap:
    def test_fixed_seed_reproducible(self):
        a, b = [10, 12, 11, 13, 9], [15, 16, 14, 17, 15]
        assert significance.bootstrap_ratio_ci(a, b) == \
            significance.bootstrap_ratio_ci(a, b)

    def test_two_runs_a_side_known_interval(self):
        # two runs a side: a resample's mean is a, (a+b)/2 or b, and each
        # extreme ratio, min(b)/max(a) and max(b)/min(a), has probability
        # 1/16 > 2.5%: the 95% percentile interval is exactly those two
        assert significance.bootstrap_ratio_ci([10, 12], [15, 17]) == \
            (15 / 12, 17 / 10)

    def test_interval_brackets_the_ratio(self):
        a, b = [10, 12, 11, 13, 9], [15, 16, 14, 17, 15]
        lo, hi = significance.bootstrap_ratio_ci(a, b)
        assert lo < significance.mean(b) / significance.mean(a)
        assert hi > significance.mean(b) / significance.mean(a)
        assert lo > 1.0
        # inside the extremes a resample can reach
        assert lo >= min(b) / max(a)
        assert hi <= max(b) / min(a)

    def test_undefined(self):
        assert significance.bootstrap_ratio_ci([2, 2], [3, 3]) == (1.5, 1.5)
        assert significance.bootstrap_ratio_ci([0, 0], [1, 1]) is None
        assert significance.bootstrap_ratio_ci([], [1, 1]) is None
        # one run: nothing to resample (scipy refuses it)
        assert significance.bootstrap_ratio_ci([2], [3]) is None
        assert significance.bootstrap_ratio_ci([2, 3], [3]) is None
        # a base that a resample can average to 0: the ratio has no value
        assert significance.bootstrap_ratio_ci([0, 4], [1, 2]) is None


def test_counted_rows_are_exact_never_tested():
    """Friction item 7 (issue 48): RMWs per I/O, 1.00 against 0.000256 in
    one run a side, read "cannot tell"; a count needs no test."""
    from flagcheck_analysis.stats import compare
    for key in compare.EXACT:
        v = compare.verdict(key, [1.0], [0.000256])
        assert (v.kind, v.welch, v.ci) == ("exact", None, None)
        assert v.text == "exact: counted in every run, not sampled, so no " \
            "test (1 vs 0.000256)"
    v = compare.verdict("rmw_per_io", [2.0, 2.0], [0.0003, 0.0001])
    assert v.text.endswith("(2 vs 0.0001..0.0003)")
    assert compare.verdict("iops", [1.0], [2.0]).kind == "cannot_tell"
