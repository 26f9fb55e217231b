"""Paired runs, paired statistics: each repeat runs the variants back to back,
the order alternating ABBA; the gain is the geometric mean of each pair's
ratio with a t-interval over the pairs, so a slow drift of the load that
hides the gain from the unpaired means cancels out; the unpaired verdict
stays as the second opinion and the summary says which decided."""

import math

from scipy import stats as sps

from flagcheck_analysis.inputs import matrix
from flagcheck_analysis.stats import decide, paired


def test_abba_order():
    runs = matrix.build(["s"], ["always", "test_first"], [2], 4)
    assert [(r.repeat, r.variant) for r in runs] == [
        (1, "always"), (1, "test_first"), (2, "test_first"), (2, "always"),
        (3, "always"), (3, "test_first"), (4, "test_first"), (4, "always")]
    assert matrix.variants_in_order(["a", "b", "c"], 2) == ["c", "b", "a"]


def test_geometric_mean_and_t_interval():
    rs = [1.10, 1.20, 1.15, 1.12]
    pr = paired.paired(rs)
    logs = [math.log(r) for r in rs]
    m = sum(logs) / 4
    sd = (sum((x - m) ** 2 for x in logs) / 3) ** 0.5
    half = sps.t.ppf(0.975, 3) * sd / 2
    assert pr.n == 4
    assert math.isclose(pr.gain, math.exp(m), rel_tol=1e-12)
    assert math.isclose(pr.ci[0], math.exp(m - half), rel_tol=1e-12)
    assert math.isclose(pr.ci[1], math.exp(m + half), rel_tol=1e-12)
    assert math.isclose(pr.p, sps.ttest_1samp(logs, 0).pvalue, rel_tol=1e-12)


def test_ratios_pair_by_repeat():
    assert paired.ratios({1: 100, 2: 200, 3: 50}, {2: 300, 3: 40, 4: 9}) \
        == [1.5, 0.8]


def test_drift_cancels_in_the_pairs():
    # the machine slows down run after run (the load grows): a 10% gain,
    # each pair run back to back; the unpaired means drown it
    base = [1000.0 * 0.8 ** i for i in range(6)]
    other = [1.10 * b * (1 + 0.004 * (-1) ** i) for i, b in enumerate(base)]
    unpaired = decide.decide(base, other, "test_first")
    assert unpaired.reason == "undecided" and unpaired.by == "unpaired"
    d = decide.decide(base, other, "test_first",
                      pairs=[o / b for b, o in zip(base, other)])
    assert (d.reason, d.by, d.n) == ("excludes_1", "pairs", 6)
    assert 1.09 < d.ratio < 1.11 and d.ci[0] > 1
    # the second opinion stays: the unpaired ratio, CI and Welch's p
    assert d.second == (unpaired.ratio, unpaired.ci, unpaired.p)
    assert decide.text(d, "always").startswith(
        "test_first/always x%.3f over 6 pairs, 95%% CI " % d.ratio)


def test_cell_values_pair_by_repeat():
    by = {"always": {1: 100.0, 2: 90.0, 3: 80.0},
          "test_first": {1: 110.0, 2: 99.0, 3: 88.0}}
    values = {m: list(v.values()) for m, v in by.items()}
    d, = decide.decide_cell(values, ["always", "test_first"], by_repeat=by)
    assert d.by == "pairs" and d.reason in ("excludes_1", "narrow")
    assert math.isclose(d.ratio, 1.1, rel_tol=1e-12)


def test_too_few_pairs_say_pairs():
    d = decide.decide([100.0, 90.0], [110.0, 99.0], "test_first",
                      pairs=[1.1, 1.1])
    assert (d.reason, d.why, d.by, d.n) == ("undecided", "runs", "pairs", 2)
    assert decide.text(d, "always").endswith(
        "over 2 pairs, 95% CI 1.100..1.100 from 2 pairs, at least 3 needed")
