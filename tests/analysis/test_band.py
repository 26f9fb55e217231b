"""The published band (predict/band.py): the envelope of every sample,
widened by the figure's noise; calls as rest / calls; the writers and a
threshold's period swept against their closed forms, and refused where
they do not fit the pattern or the CPUs; the profile's physics range
swept; the published figure named inside or outside; the
inverse reaching it; flagcheck predict --published saying both."""

import json
import math
import re
import os

import pytest

from tests.analysis import helpers
from tests.analysis.standin_machine import Machine
from flagcheck_analysis.inputs import jobheader
from flagcheck_analysis.predict import band, jobspec, simulate
from flagcheck_analysis.cli import predict

SIM = os.path.join(helpers.BUILD, "flagcheck-sim")
S1 = os.path.join(helpers.REPO, "jobs", "pattern",
                  "s1-filemap-odirect-read.fio")


@pytest.fixture(autouse=True)
def sim_binary(monkeypatch):
    if not os.path.exists(SIM):
        pytest.fail("%s missing: run make" % SIM)
    monkeypatch.setenv("FLAGCHECK_SIM", SIM)


def _job(tmp_path, *header, figure="x3 IOPS, a test", rule="none applies"):
    p = tmp_path / "j.fio"
    p.write_text("".join("; %s\n" % h for h in (
        "published-figure: " + figure, "published-machine: standin 4",
        "published-rest: work", "rest-rule: " + rule) + header) +
        "[global]\nmodel=pattern\npattern_words=x@0\n"
        "pattern=atomic_inc(x),work(200)\n"
        "pattern_fixed=READ_ONCE(x),work(200)\n")
    return jobspec.read(str(p))


def _machine():
    return Machine(cores=8, same_llc=(50.0, 100.0, 150.0), jitter=0.1)


def _gains(b):
    every = b["every"]
    assert set(b["corners"]) <= set(every)
    assert {g for d in b["dims"].values() for g in d["gains"]} <= set(every)
    return every


def test_band_is_every_sample_widened_by_the_noise(tmp_path):
    sp = _job(tmp_path, 'assumed: cpus=4 (2..8): "four"',
              'assumed: rest=200 (50..800): "about"')
    b = band.band(sp, _machine(), 0.0)
    assert sorted(b["dims"]) == ["costs", "cpus", "rest", "seeds"]
    assert b["dims"]["cpus"]["values"] == [4, 2, 8]
    assert b["dims"]["rest"]["values"] == [1.0, 0.25, 4.0]
    assert b["noise"] == band.NOISE
    assert b["low"] == min(_gains(b)) * (1 - band.NOISE)
    assert b["high"] == max(_gains(b)) * (1 + band.NOISE)
    assert b["low"] <= b["value"] <= b["high"]
    assert b["width"] == b["high"] / b["low"]
    w = b["widest"]["dim"]
    assert b["widest"]["ratio"] == max(d["ratio"] for d in
                                       b["dims"].values())
    assert b["widest"]["why"] == band.WHY[w]


def test_stated_stddev_replaces_the_single_run_noise(tmp_path):
    sp = _job(tmp_path, "published-stddev: 1%")
    b = band.band(sp, _machine(), 0.0)
    assert b["noise"] == 0.01
    assert b["low"] == min(_gains(b)) * 0.99


def test_calls_run_as_the_rest_over_the_calls(tmp_path):
    sp = _job(tmp_path)
    b = band.band(sp, _machine(), 0.0)
    sim, point = b["_sim"], b["point"]
    assert sim.gain(dict(point, calls=2.0)) == \
        sim.gain(dict(point, rest=0.5))
    assert band._scaled(sp, 0.5).pattern == "atomic_inc(x),work(100)"
    assert band._scaled(sp, 0.5).fixed == "READ_ONCE(x),work(100)"


def test_the_physics_range_is_swept_only_where_the_profile_has_one(tmp_path):
    sp = _job(tmp_path)
    m = _machine()
    assert all(len(v) == 1 for v in m.physics_range.values())
    assert "handover" not in band.band(sp, m, 0.0)["dims"]
    del m.physics_range             # a profile of no range: the fallback
    assert "handover" not in band.band(sp, m, 0.0)["dims"]
    m.physics_range = {k: [v] for k, v in m.physics.items()}
    m.physics_range = dict(m.physics_range, handover=["fifo", "nearest"])
    b = band.band(sp, m, 0.0)
    assert b["dims"]["handover"]["values"] == ["fifo", "nearest"]
    assert "jitter" not in b["dims"]


def test_a_placement_other_than_the_machine_line_is_refused(tmp_path):
    sp = _job(tmp_path, 'assumed: placement=spread (compact..spread): "x"')
    with pytest.raises(ValueError, match="assumed placement=spread, but its "
                       "published-machine line's is compact"):
        band.band(sp, _machine(), 0.0)


def test_both_rest_rules_where_a_rate_and_a_share_are_given(tmp_path):
    sp = _job(tmp_path, "published-share: 40% f()", rule="after-fix rate: x")
    b = band.band(sp, _machine(), 0.0)
    assert b["dims"]["rule"]["values"] == ["rate", "share"]
    sim = b["_sim"]
    cpus = sim.cpus(b["point"])
    # (1 - s) x N x the mean transfer (100 ns), over the file's 200 ns
    assert sim.rest_factor(dict(b["point"], rule="share"), cpus) == \
        pytest.approx(0.6 * 4 * 100.0 / 200.0, rel=1e-12)


def test_calls_do_not_enter_a_profile_share_rest(tmp_path):
    sp = _job(tmp_path, "published-share: 40% f()", rule="after-fix rate: x")
    b = band.band(sp, _machine(), 0.0)
    sim, point = b["_sim"], b["point"]
    share = dict(point, rule="share")
    cpus = sim.cpus(point)
    assert sim.rest_factor(dict(share, calls=2.0), cpus) == \
        sim.rest_factor(share, cpus)
    only = _job(tmp_path, "published-share: 40% f()",
                'assumed: calls=1 (0.5..2): "x"', rule="profile share: x")
    with pytest.raises(ValueError, match="assumed calls: this file's rest "
                       "is a profile share's, per call"):
        band.band(only, _machine(), 0.0)


def test_a_figure_outside_is_named_and_its_inverse_reaches_it(tmp_path):
    sp = _job(tmp_path)
    b = band.band(sp, _machine(), 0.0)
    sim, point = b["_sim"], b["point"]
    target = sim.gain(dict(point, rest=0.3))
    assert target > b["high"]
    assert band.where(b, target) == "above"
    assert "published x%.2f lies above the band" % target in \
        band.summary(b, target)
    inv = dict(band.inverse(b, target))
    step = math.exp(math.log(band.SPAN[1] / band.SPAN[0]) / 2 ** band.STEPS)
    assert 0.3 / step <= inv["rest"] <= 0.3 * step
    assert inv["calls"] == 1.0 / inv["rest"]
    assert inv["N"] is None or inv["N"] > 1.0
    far = dict(band.inverse(b, 1000.0))
    assert far["rest"] is None and far["transfer cost"] is None
    assert "  rest: none in 0.1x..10x" in band.inverse_text(
        band.inverse(b, 1000.0), 1000.0)


# slow: the simulator over every physics range
@pytest.mark.slow
def test_predict_published_says_where_s1_lies_and_its_widest(capsys):
    assert predict.main([S1, "--published"]) == 0
    out = capsys.readouterr().out
    # with the physics of the families' curves (the floor, the visit) S1's
    # published gain lies above its band (docs/backtest.md says why)
    assert "  published x2.35 lies above the band\n" in out
    assert "  widest unknown: " in out
    flat = " ".join(out.split())        # the lines as wrapped, joined
    w = re.search(r"widest unknown: (\w+) \(x[0-9.]+ alone\): ", flat)
    assert w, out
    assert "; to fix it: %s" % band.fix_text(w.group(1)) in flat
    ours = out[out.index("  band over every unknown"):]
    assert max(len(line) for line in ours.splitlines()) <= 120
    assert predict.main([S1, "--published", "--json"]) == 0
    pred = json.loads(capsys.readouterr().out)
    b, g = pred["band"], pred["gain"]
    assert b["where"] == "above"
    assert b["low"] <= b["high"] < 2.35
    assert b["widest"]["dim"] in b["dims"]
    # one band: the gain's low/high are the band over every unknown, the
    # costs-and-seeds band beside it, named; the text prints the same
    assert (g["low"], g["high"], g["band"]) == (b["low"], b["high"],
                                                "every unknown")
    assert g["costs_seeds"] == b["today"]
    flat = " ".join(out.split())
    assert "gain test_first/always x%.2f (%.2f..%.2f over every unknown; " \
        "costs and seeds alone %.2f..%.2f)" % (
            g["value"], g["low"], g["high"], g["costs_seeds"]["low"],
            g["costs_seeds"]["high"]) in flat
    assert "band over every unknown x%.2f..%.2f " % (g["low"], g["high"]) \
        in flat


def test_the_reports_summary_says_where_the_figure_lies():
    from flagcheck_analysis.report import bigbox
    from tests.analysis.test_whatif import prediction, published_answer
    # the table's gain cell is THE band; the summary prints that one
    b = {"value": 1.24, "low": 1.0, "high": 2.0, "published": 2.35,
         "where": "above"}
    p = prediction("xeon-4s-2014", "nodes=0,1", 16, (1.24, 1.0, 2.0), b)
    line = "S1 filemap-odirect-read: " + bigbox.summary_lines(
        published_answer("S1 filemap-odirect-read", p, 2.35))[
            "S1 filemap-odirect-read"]
    assert line == ("S1 filemap-odirect-read: on xeon-4s-2014 nodes=0,1 at "
                    "16 CPUs: x1.24 (1.00..2.00), published x2.35 lies "
                    "above the band")
    assert len(line) <= 120


def test_every_unknown_says_what_would_fix_it():
    # an input the reviewer can give, or a measurement that names what it
    # measures: never "no measurement fixes" alone
    assert set(band.FIX) == set(band.WHY)
    given = {"cpus": "give N", "placement": "nodes=0,1", "calls": "calls",
             "rest": "published-rest: work NS", "rule": "published-rest",
             "writers": "pattern_writers=W", "period": "/every=N"}
    for dim, fix in band.FIX.items():
        assert fix.startswith(("give ", "measure ", "nothing to give")), dim
        if dim in given:
            assert given[dim] in fix, dim
    assert band.fix_text("shared_readers").startswith(
        "measure how waiting readers are served")
    assert band.fix_text("new_physics") == "measure the physics' " \
        "new_physics on the published CPU family"


# ----- the writers and a threshold's period (from-diff's unknowns) -----

def _pattern_job(tmp_path, header, pattern, fixed, words="x@0", n=4,
                 rest="work", extra=""):
    p = tmp_path / "p.fio"
    p.write_text("".join("; %s\n" % h for h in [
        "published-figure: none", "published-machine: standin %d" % n,
        "published-rest: " + rest, "rest-rule: none applies"] + header) +
        "[global]\nmodel=pattern\nnumjobs=%d\npattern_words=%s\n"
        "pattern=%s\npattern_fixed=%s\n%s" % (n, words, pattern, fixed,
                                              extra))
    return jobspec.read(str(p))


def test_period_moves_the_band_as_its_closed_form(tmp_path):
    """One shared word, no rest, 4 CPUs: the always form's RMW takes the
    line on every I/O (two RMWs a transfer, the floor: 2e9 / 100 ns
    IOPS); its fixed form runs it on one I/O in P, the line as busy, so
    P times the I/Os: the gain is P at each end of the period's range,
    and the fixed form's demand on the line (its writes and transfers
    per I/O) 1/P and 1/(2P)."""
    sp = _pattern_job(tmp_path, [
        'assumed: period=100 (10..1000): "time_after(jiffies, next)"'],
        "atomic_inc(x)", "atomic_inc(x)/every=100")
    m = Machine(cores=8, handover="fifo")
    b = band.band(sp, m, 0.0)
    d = b["dims"]["period"]
    assert d["values"] == [100, 10, 1000]
    assert d["gains"] == pytest.approx([100.0, 10.0, 1000.0], rel=1e-9)
    assert b["widest"]["dim"] == "period"
    assert b["widest"]["fix"] == band.FIX["period"]
    assert "period (x100.00 alone)" in " ".join(band.summary(b, None))
    cpus = m.cpus(4)
    for p in (10, 1000):
        at = band._period(sp, "every", 100, p)
        assert at.fixed == "atomic_inc(x)/every=%d" % p
        assert at.pattern == sp.pattern
        r = simulate.run_sim(at, "test_first", m, cpus, "typ", 0.0, 0, 4000)
        assert r["iops"] == pytest.approx(p * 2e9 / 100.0, rel=1e-9)
        u = r["units"][0]
        assert u["writes_per_io"] == pytest.approx(1.0 / p, rel=1e-9)
        assert u["transfers_per_io"] == pytest.approx(0.5 / p, rel=1e-9)


def test_period_sets_only_the_suffixes_of_its_value(tmp_path):
    # a per-CPU batch (/every=32, given) stays; the line's /every=100 and
    # an /every_ns of another value are not the line's threshold
    sp = _pattern_job(tmp_path, [
        'assumed: period=100 (10..1000): "x"'],
        "atomic_inc(x)/every=32,WRITE_ONCE(y,1)/every_ns=100000",
        "atomic_inc(x)/every=32,atomic_inc(y)/every=100,READ_ONCE(x)"
        "/every=100", words="x@0,y@2")
    a = jobheader.assumed(sp.path)["period"]
    assert band.threshold(sp, a) == "every"
    at = band._period(sp, "every", 100, 1000)
    assert at.pattern == sp.pattern
    assert at.fixed == "atomic_inc(x)/every=32,atomic_inc(y)/every=1000," \
        "READ_ONCE(x)/every=1000"
    ns = _pattern_job(tmp_path, ['assumed: period=100000 (10000..1000000): '
                                 '"now - last > interval"'],
                      "atomic_inc(x)", "atomic_inc(x)/every_ns=100000")
    assert band.threshold(ns, jobheader.assumed(ns.path)["period"]) == \
        "every_ns"
    assert band._period(ns, "every_ns", 100000, 10000).fixed == \
        "atomic_inc(x)/every_ns=10000"


@pytest.mark.parametrize("pattern,fixed,why", [
    ("atomic_inc(x)", "READ_ONCE(x)", r"no /every=100 or /every_ns=100 in "
     r"pattern or pattern_fixed \(its rate suffixes: none\)"),
    ("atomic_inc(x)", "atomic_inc(x)/every=32", r"no /every=100 or "
     r"/every_ns=100 in pattern or pattern_fixed \(its rate suffixes: "
     r"/every=32\)"),
    ("atomic_inc(x)/every_ns=100", "atomic_inc(x)/every=100",
     "both /every=100 and /every_ns=100 are in the pattern"),
])
def test_a_period_line_without_its_one_threshold_is_refused(
        tmp_path, pattern, fixed, why):
    sp = _pattern_job(tmp_path, ['assumed: period=100 (10..1000): "x"'],
                      pattern, fixed)
    with pytest.raises(ValueError, match=r"^%s:5: assumed period=100: %s" % (
            re.escape(sp.path), why)) as e:
        band.band(sp, _machine(), 0.0)
    assert "\n" not in str(e.value)


def test_writers_move_the_band_as_their_closed_form(tmp_path):
    """Each job its own word (:job), the rest (100 ns) on every CPU: a
    writer's I/O is 100 + the atomic (5 ns), a reader's (and the fixed
    form's) 100 + a load hit (1 ns); the CPUs' rates add up, so the gain
    at W writers of N is (N / 101) / (W / 105 + (N - W) / 101): x105/101
    with every job writing, x1.0048 with one (within the window's edge,
    one I/O a CPU)."""
    n = 8
    sp = _pattern_job(tmp_path, ['assumed: writers=all (1..all): "f()"'],
                      "atomic_inc(x)", "READ_ONCE(x)", "x@0:job", n=n,
                      rest="work 100")
    m = Machine(cores=8)                # no jitter: the local times exact
    b = band.band(sp, m, 100.0)
    d = b["dims"]["writers"]
    assert d["values"] == ["all", 1]

    def gain(w):
        return (n / 101.0) / (w / 105.0 + (n - w) / 101.0)
    assert d["gains"] == pytest.approx([gain(n), gain(1)], rel=1e-3)
    assert d["gains"][0] == pytest.approx(105.0 / 101.0, rel=1e-9)
    two = _pattern_job(tmp_path, ['assumed: writers=2 (1..4): "f()"'],
                       "atomic_inc(x)", "READ_ONCE(x)", "x@0:job", n=n,
                       rest="work 100", extra="pattern_writers=2\n")
    d = band.band(two, m, 100.0)["dims"]["writers"]
    assert d["values"] == [2, 1, 4]
    assert d["gains"] == pytest.approx([gain(2), gain(1), gain(4)],
                                       rel=1e-3)


def test_writers_on_a_shared_line_are_the_widest_unknown(tmp_path):
    sp = _pattern_job(tmp_path, ['assumed: writers=all (1..all): "f()"'],
                      "atomic_inc(x)", "READ_ONCE(x)")
    b = band.band(sp, Machine(cores=8, handover="fifo"), 0.0)
    assert b["widest"]["dim"] == "writers"
    assert b["widest"]["why"] == band.WHY["writers"]
    line = " ".join(band.summary(b, None))
    assert "widest unknown: writers (x%.2f alone): %s; to fix it: %s" % (
        b["dims"]["writers"]["ratio"], band.WHY["writers"],
        band.FIX["writers"]) in line


@pytest.mark.parametrize("header,extra,why", [
    ('writers=all (1..all): "f()"', "pattern_writers=2\n",
     "assumed writers=all, but its pattern_writers is 2"),
    ('writers=2 (1..4): "f()"', "",
     r"assumed writers=2, but its pattern_writers is 0 \(every job\)"),
    ('writers=2 (1..8): "f()"', "pattern_writers=2\n",
     "assumed writers: 8 writers, above the 4 CPUs the band simulates at "
     "the fewest"),
])
def test_writers_other_than_the_file_or_the_cpus_are_refused(
        tmp_path, header, extra, why):
    sp = _pattern_job(tmp_path, ["assumed: " + header], "atomic_inc(x)",
                      "READ_ONCE(x)", extra=extra)
    with pytest.raises(ValueError, match="^%s:5: %s" % (
            re.escape(sp.path), why)):
        band.band(sp, _machine(), 0.0)


def test_writers_stay_within_the_fewest_cpus_swept(tmp_path):
    # N swept down to 2: three writers would be more than its CPUs
    sp = _pattern_job(tmp_path, ['assumed: cpus=4 (2..8): "x"',
                                 'assumed: writers=3 (1..3): "f()"'],
                      "atomic_inc(x)", "READ_ONCE(x)",
                      extra="pattern_writers=3\n")
    with pytest.raises(ValueError, match="assumed writers: 3 writers, "
                       "above the 2 CPUs the band simulates at the fewest"):
        band.band(sp, _machine(), 0.0)
    # at N given (--predict N, band_at), that N is the fewest
    with pytest.raises(ValueError, match="above the 2 CPUs"):
        band.band_at(sp, _machine(), 2, None, 0.0)
