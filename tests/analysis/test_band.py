"""The published band (predict/band.py): the envelope of every sample,
widened by the figure's noise; calls as rest / calls; the profile's
physics range swept; the published figure named inside or outside; the
inverse reaching it; flagcheck predict --published saying both."""

import json
import math
import re
import os

import pytest

from tests.analysis import helpers
from tests.analysis.standin_machine import Machine
from flagcheck_analysis.predict import band, jobspec
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


def test_predict_published_says_where_s1_lies_and_its_widest(capsys):
    assert predict.main([S1, "--published"]) == 0
    out = capsys.readouterr().out
    assert "  published x2.35 lies inside the band\n" in out
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
    assert b["where"] == "inside"
    assert b["low"] <= 2.35 <= b["high"]
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
             "rest": "published-rest: work NS", "rule": "published-rest"}
    for dim, fix in band.FIX.items():
        assert fix.startswith(("give ", "measure ", "nothing to give")), dim
        if dim in given:
            assert given[dim] in fix, dim
    assert band.fix_text("shared_readers").startswith(
        "measure how waiting readers are served")
    assert band.fix_text("new_physics") == "measure the physics' " \
        "new_physics on the published CPU family"
