"""flagcheck report --compare answers "did it change?": the headline is B's
gain (test_first/always over its pairs) against A's, with Welch's
t-interval over the two sides' pair logs; runs marked busy never decide a
difference ("cannot tell: B busy in k of n runs", or the quiet pairs
alone); between two quiet results the test keeps its stated 5%
false-positive rate."""

import glob
import json
import os
import shutil

import numpy as np

from tests.analysis.helpers import FIXTURES, run_cli
from flagcheck_analysis.stats import compare, paired
from flagcheck_analysis.report import sidebyside

S2 = os.path.join(FIXTURES, "summary", "s2")


def _side(gains, busy=(), name="x", scenario="s", nj=2):
    """A Side of one cell: repeat i has always 1e6 and test_first 1e6 x
    gains[i]; @busy: the (variant, repeat) marked busy."""
    records = []
    for i, g in enumerate(gains, 1):
        for variant, iops in (("always", 1e6), ("test_first", 1e6 * g)):
            records.append(compare.Record(scenario, variant, nj, i,
                                          {"iops": iops}, "f"))
    entries = [{"variant": m, "repeat": r} for m, r in busy]
    counts = {(scenario, nj): (entries, 2 * len(gains))} if busy else {}
    return sidebyside.Side(name, records, [{}] * len(records),
                           [{}] * len(records), counts)


def _verdict(a, b):
    return sidebyside.gain_verdict(a, b, "s", 2, "always", "test_first")


def test_quiet_difference_and_no_difference():
    g, text = _verdict(_side([1.10, 1.12, 1.09, 1.11]),
                       _side([1.30, 1.33, 1.29, 1.31]))
    assert text.startswith("gain differs: Welch p="), text
    assert g.ci[0] > 1 and 1.17 < g.ratio < 1.20
    g, text = _verdict(_side([1.10, 1.12, 1.09, 1.11]),
                       _side([1.11, 1.09, 1.12, 1.10]))
    assert text.startswith("same gain: no difference beyond the spread of "
                           "the pairs, Welch p="), text


def test_busy_runs_never_decide_a_difference():
    busy = [(m, r) for r in range(1, 5) for m in ("always", "test_first")]
    g, text = _verdict(_side([1.10, 1.12, 1.09, 1.11]),
                       _side([1.30, 1.33, 1.29, 1.31], busy=busy[:6]))
    # every pair of B but r4 had a busy run: 1 quiet pair, not enough
    assert sidebyside._differs(g)
    assert text.startswith("cannot tell: B busy in 6 of 8 runs (all "
                           "pairs: Welch p="), text
    assert text.endswith("quiet pairs: 4 vs 1, 3 a side needed)"), text
    # the quiet pairs alone decide where each side has 3
    g, text = _verdict(_side([1.10, 1.12, 1.09, 1.11, 1.10]),
                       _side([1.30, 1.11, 1.12, 1.10, 1.09],
                             busy=[("test_first", 1)]))
    assert text.startswith("same gain, from the quiet runs alone (5 vs 4 "
                           "pairs: x"), text
    assert text.endswith("no difference beyond the spread of the pairs; "
                         "B busy in 1 of 10 runs"), text


def test_quiet_false_positive_rate_is_the_stated_5_percent():
    rng = np.random.default_rng(27)
    trials, hits = 4000, 0
    for _ in range(trials):
        ra = list(np.exp(rng.normal(0.1, 0.05, 5)))
        rb = list(np.exp(rng.normal(0.1, 0.05, 5)))
        hits += sidebyside._differs(paired.compare_gains(ra, rb))
    # binomial(4000, 0.05): sd 0.34%; Welch's test is close to exact here
    assert 0.04 <= hits / trials <= 0.06, hits / trials


def _scale(directory, variant, factor):
    for path in glob.glob(os.path.join(directory, "*_%s_nj*_r*.json"
                                       % variant)):
        with open(path) as f:
            doc = json.load(f)
        for job in doc["jobs"]:
            for d in ("read", "write"):
                if d in job:
                    job[d]["iops"] *= factor
        with open(path, "w") as f:
            json.dump(doc, f)


def _quiet(directory):
    path = os.path.join(directory, "manifest.json")
    with open(path) as f:
        m = json.load(f)
    for e in m["runs"]:
        e["interference"]["busy"] = False
    with open(path, "w") as f:
        json.dump(m, f)


def _together(directory):
    """The fixture's runs as if their jobs ran together the whole run
    (each job's corun stretch from the run's first start to its last
    end), as _quiet() makes them quiet: the cell is then judged on its
    gain, not left undecided as seldom contended."""
    for path in glob.glob(os.path.join(directory, "*.flagcheck.jsonl")):
        with open(path) as f:
            recs = [json.loads(l) for l in f if l.strip()]
        spans = [iv for r in recs for iv in r["corun"]["intervals"]]
        whole = [[min(a for a, _ in spans), max(b for _, b in spans)]]
        for r in recs:
            r["corun"]["intervals"] = whole
        with open(path, "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in recs))


def test_compare_of_one_setup_with_b_busy_cannot_tell(tmp_path):
    a = shutil.copytree(S2, str(tmp_path / "a"))
    b = shutil.copytree(S2, str(tmp_path / "b"))
    _quiet(a)
    _together(a)
    _together(b)
    _scale(b, "test_first", 1.5)        # B's runs beside the busy loops
    p = run_cli("report", "--width", "0", "--outdir",
                str(tmp_path / "out"), "--compare", a, b)
    assert p.returncode == 0, p.stderr
    assert "beyond noise" not in p.stdout, p.stdout
    gain, = [l for l in p.stdout.splitlines()
             if l.startswith("test_first/always ")]
    assert "cannot tell: B busy in 4 of 4 runs" in gain, gain
    row, = [l for l in p.stdout.splitlines() if l.startswith("test_first ")]
    assert "cannot tell: B busy in 4 of 4 runs (Welch p=" in row, row


def test_compare_of_one_quiet_setup_is_the_same_gain(tmp_path):
    a = shutil.copytree(S2, str(tmp_path / "a"))
    _quiet(a)
    _together(a)
    p = run_cli("report", "--width", "0", "--outdir",
                str(tmp_path / "out"), "--compare", a, a)
    assert p.returncode == 0, p.stderr
    gain, = [l for l in p.stdout.splitlines()
             if l.startswith("test_first/always ")]
    assert "x1.000" in gain and "same gain: no difference beyond the " \
        "spread of the pairs" in gain, gain
