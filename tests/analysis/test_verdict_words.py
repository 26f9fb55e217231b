"""Every verdict path, its words checked against the figures beside it: a
sentence that says the CI holds 1 has a CI that holds 1, "faster" has a CI
above 1, "busy in k of n" and "after n runs" carry the counts given, the
advice asks for more runs than were made.  The decisions come from
decide.decide on made-up runs (a grid of ratios, spreads and run counts),
so the CI, Welch's p and the reason are what the tools compute; the paths
that no such runs reach are built by hand."""

import re

import numpy as np

from flagcheck_analysis.inputs import published
from flagcheck_analysis.stats import decide, significance
from flagcheck_analysis.report import summary

PRECISION = decide.DEFAULT_PRECISION
SLOWER_FIX = published.Scenario("X9", "made-up", (), "always", "test_first",
                                0.8, "10 -> 8", "nowhere", 2, "2 jobs", "-")
ENTRIES = (None, published.find("filemap-odirect-read"), published.find("buffer-new-randwrite"),
           published.find("bh-lru-lookup"), SLOWER_FIX)


def _holds_1(ci):
    return ci[0] <= 1.0 <= ci[1]


def check(d, entry, numjobs, busy, runs, text, apart=None):
    """Every claim @text makes about @d agrees with @d's figures; returns
    the path's name; @apart: the share the jobs ran together, where under
    corun.SELDOM_PCT."""
    undecided = d.reason == "undecided" or d.ci is None or apart is not None
    assert text.startswith("undecided: ") == undecided, text
    if re.search(r"CI (over \d+ pairs )?still holds 1", text):
        assert _holds_1(d.ci), (d, text)
    if re.search(r"CI (over \d+ pairs )?excludes 1", text):
        assert not _holds_1(d.ci), (d, text)
    m = re.search(r"(?:over (\d+) pairs|(\d+) pairs?, at least)", text)
    if m:
        assert d.by == "pairs" and int(m.group(1) or m.group(2)) == d.n
    if d.by == "pairs":
        assert "Welch" not in text and "runs per variant" not in text, text
    m = re.search(r"Welch's test does not agree \(p=([^)]*)\)", text)
    if m:
        assert d.p is not None and d.p >= significance.ALPHA, (d, text)
        assert m.group(1) == significance.fmt_p(d.p)
    m = re.search(r"(\d+) runs? per variant", text)
    if m:
        assert int(m.group(1)) == d.n, (d, text)
    if "at least %d needed" % decide.MIN_REPEATS in text:
        assert d.n < decide.MIN_REPEATS
    m = re.search(r"busy in (\d+) of (\d+) runs", text)
    assert (m is not None) == bool(busy), text
    if m:
        assert (int(m.group(1)), int(m.group(2))) == (busy, runs)
    m = re.search(r"\(--max-repeats (\d+)\)", text)
    if apart is not None:
        # never decided, whatever the CI; more runs would not help
        assert text.startswith("undecided: the %d jobs ran together %.0f%% "
                               "of the time: the line was seldom contended"
                               % (numjobs, apart)), text
        assert m is None and text.endswith("measure little contention")
        return "apart:" + ("excludes" if d.ci and not _holds_1(d.ci)
                           else "holds")
    assert (m is not None) == undecided, text
    if m:
        assert int(m.group(1)) > d.n
    if undecided:
        return "undecided:" + (d.why or "no_ci")
    lo, hi = d.ci
    if re.search(r"\b(faster|slower)\b", text):
        assert (lo > 1) if "faster" in text else (hi < 1), (d, text)
        assert "no difference" not in text
        return "decided:direction"
    if "no difference beyond ±%g%%" % (100 * PRECISION) in text:
        assert _holds_1(d.ci) and d.reason == "narrow", (d, text)
        return ("not reproduced:no difference" if text.startswith("not")
                else "decided:no difference")
    pub = entry.ratio
    if "opposite direction" in text:
        # on a busy box, the busy runs are said first
        assert text.startswith("the machine was busy in %d of %d runs, "
                               "and the runs go against the published "
                               "direction" % (busy, runs) if busy else
                               "not reproduced: the opposite direction")
        assert "not reproduced: the opposite direction" in text
        assert (lo > 1) != (pub > 1) and not _holds_1(d.ci), (d, text)
        return "not reproduced:opposite"
    assert text.startswith("reproduced: same direction"), text
    assert (lo > 1) == (pub > 1) and not _holds_1(d.ci), (d, text)
    if "published inside the CI" in text:
        assert lo <= pub <= hi
        return "reproduced:same size"
    if "larger than published" in text:
        assert (lo > pub) if pub > 1 else (hi < pub), (d, text)
        return "reproduced:larger"
    assert "smaller" in text, text
    assert (hi < pub) if pub > 1 else (lo > pub), (d, text)
    if "as expected with %d job" % numjobs in text:
        assert entry.sharers is None or numjobs < entry.sharers
        return "reproduced:smaller, as expected"
    return "reproduced:smaller"


def _runs(ratio, spread, n, seed):
    rng = np.random.default_rng(seed)
    base = list(1e6 * (1 + spread * rng.standard_normal(n)))
    other = list(1e6 * ratio * (1 + spread * rng.standard_normal(n)))
    return base, other


def _decisions():
    for ratio in (0.7, 0.8, 0.99, 1.0, 1.01, 1.03, 1.3, 2.35, 3.0):
        for spread in (0.0005, 0.05, 0.3):
            for n in (2, 3, 5):
                for seed in range(3):
                    base, other = _runs(ratio, spread, n, seed)
                    yield decide.decide(base, other, "test_first")
                    # the same runs as pairs (repeat i of each variant)
                    yield decide.decide(base, other, "test_first", pairs=[
                        o / b for b, o in zip(base, other)])
    # the issue's case: a bootstrap CI clear of 1 that Welch does not back
    yield decide.decide([100, 100, 130], [131, 132, 133], "test_first")
    # no CI at all
    yield decide.Decision("test_first", "undecided", 1.2, None, 4, "no_ci",
                          None)


def test_every_verdict_path_agrees_with_its_figures():
    seen = set()
    for d in _decisions():
        for entry in ENTRIES:
            for numjobs in (2, 16, 64):
                for busy, runs in ((0, 2 * d.n), (3, 2 * d.n)):
                    text = summary.verdict(d, entry, numjobs, busy, runs)
                    path = check(d, entry, numjobs, busy, runs, text)
                    seen.add(path)
                    if d.by == "pairs":
                        seen.add("pairs:" + path)
                    text = summary.verdict(d, entry, numjobs, busy, runs,
                                           corun_pct=31.0)
                    seen.add(check(d, entry, numjobs, busy, runs, text,
                                   31.0))
    assert seen == {
        "apart:excludes", "apart:holds",
        "undecided:runs", "undecided:holds_1", "undecided:welch",
        "pairs:undecided:runs", "pairs:undecided:holds_1",
        "pairs:decided:direction", "pairs:decided:no difference",
        "pairs:reproduced:same size", "pairs:reproduced:smaller",
        "pairs:reproduced:larger", "pairs:not reproduced:opposite",
        "pairs:not reproduced:no difference",
        "pairs:reproduced:smaller, as expected",
        "undecided:no_ci", "decided:direction", "decided:no difference",
        "not reproduced:no difference", "not reproduced:opposite",
        "reproduced:same size", "reproduced:larger", "reproduced:smaller",
        "reproduced:smaller, as expected"}


def test_the_issue_case_names_welch_not_the_ci():
    d = decide.decide([100, 100, 130], [131, 132, 133], "test_first")
    assert (d.reason, d.why) == ("undecided", "welch")
    assert d.ci[0] > 1
    text = summary.verdict(d, published.find("filemap-odirect-read"), 2, 0, 6)
    assert text == ("undecided: the 95%% CI excludes 1 but Welch's test "
                    "does not agree (p=%s) after 3 runs per variant: rerun "
                    "with more repeats (--max-repeats %d)"
                    % (significance.fmt_p(d.p), summary.repeats_needed(d)))
    assert decide.text(d, "always") == (
        "test_first/always x%.3f, 95%% CI %.3f..%.3f excludes 1 but Welch's "
        "test does not agree (p=%s)" % ((d.ratio,) + d.ci +
                                        (significance.fmt_p(d.p),)))


def test_decide_text_agrees_with_its_figures():
    for d in _decisions():
        text = decide.text(d, "always")
        if d.ci is None:
            continue
        if text.endswith(" excludes 1") or "excludes 1 but" in text:
            assert not _holds_1(d.ci), text
        if text.endswith(" holds 1"):
            assert _holds_1(d.ci), text
        assert ("excludes 1" in text or "holds 1" in text or
                "narrower" in text or "needed" in text), text


def test_advice_names_the_command_that_ran(monkeypatch):
    d = decide.decide([100, 150, 50], [120, 60, 170], "test_first")
    assert d.why == "holds_1"
    want = summary.repeats_needed(d)
    monkeypatch.delenv(summary.REPEATS_NAME_ENV, raising=False)
    assert summary.repeats_name() == "--max-repeats"
    monkeypatch.setenv(summary.REPEATS_NAME_ENV, "REPRO_REPEATS")
    assert summary.verdict(d, None, 2, 0, 6, summary.repeats_name()) \
        .endswith("(REPRO_REPEATS=%d)" % want)


def test_advice_is_from_the_spread_not_ever_growing():
    # a clear gain with a wide CI: the runs that shrink the CI's half-width
    # (0.75) below the ratio's distance to 1 (0.5), as 1/sqrt(n) does:
    # 4 * (0.75 / 0.5)^2
    d = decide.Decision("test_first", "undecided", 1.5, (0.75, 2.25), 4,
                        "holds_1", 0.2)
    assert summary.repeats_needed(d) == 9
    # 10 runs that did not narrow it enough: one more, not twice as many
    d10 = d._replace(n=10, ci=(1.0, 2.0))
    assert summary.repeats_needed(d10) == 11
    # a ratio of 1: the runs that make the CI narrower than the precision,
    # 5 * (0.0625 / 0.02)^2 = 48.8
    d = decide.Decision("test_first", "undecided", 1.0, (0.9375, 1.0625), 5,
                        "holds_1", 0.9)
    assert summary.repeats_needed(d) == 49
