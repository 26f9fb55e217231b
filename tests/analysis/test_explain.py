"""The sentence under every estimate (predict/explain.py): what limits the
fix's gain, from the prediction's own lines, busy fractions and D/C, and
under a layout fix which lines stopped moving; flagcheck predict prints it
and its --json carries it."""

import json
import os

import pytest

from tests.analysis import helpers
from flagcheck_analysis.cli import predict
from flagcheck_analysis.predict import explain
from flagcheck_analysis.report import bigbox

SIM = os.path.join(helpers.BUILD, "flagcheck-sim")
THRESHOLD = os.path.join(helpers.REPO, "jobs", "catalogue",
                         "memcg-flush-threshold.fio")


def unit(line, words, transfers, busy, accesses=None, lines=1):
    return {"line": line, "lines": lines, "node": -1, "objects": 1,
            "words": words, "transfers_per_io": transfers,
            "accesses_per_io": transfers if accesses is None else accesses,
            "writes_per_io": 1.0, "busy": busy}


def pred(gain, always, test_first, ratio):
    d = always[0]
    demand = [] if ratio is None else [
        {"line": d["line"], "lines": d["lines"], "words": d["words"],
         "node": d["node"], "objects": 1, "d": ratio * 1e7, "c": 1e7,
         "ratio": ratio}]
    return {"gain": {"value": gain, "low": gain, "high": gain},
            "lines": {"always": always, "test_first": test_first},
            "demand": demand}


def test_a_line_busy_in_both_forms_holds_the_gain():
    """The watermark patch: the usage add keeps its line busy in both
    forms; the watermark store finds the line already held."""
    p = pred(1.0, [unit(3, ["usage", "watermark"], 1.0, 0.97, 2.0)],
             [unit(3, ["usage", "watermark"], 0.99, 0.96, 1.02)], 3.43)
    assert explain.sentence(p) == (
        "x1.00: the usage, watermark line stays busy in both forms (D/C "
        "3.43; busy 97% and 96%, 1.00 and 0.99 transfers per I/O): the fix "
        "leaves the accesses that move it; 1.00 of its 2.00 accesses per "
        "I/O find it already held.")


def test_a_fix_that_takes_the_line_away_is_bounded_by_d_over_c():
    p = pred(1.82, [unit(0, ["threshold"], 1.0, 1.0)],
             [unit(0, ["threshold"], 0.0, 0.0, 1.0)], 1.82)
    assert explain.sentence(p) == (
        "x1.82: the fix takes the threshold line off the path (1.00 and "
        "0.00 transfers per I/O, busy 100% and 0%): the gain is at most "
        "about D/C 1.82; the fixed form is then held by the rest of the "
        "path.")
    p["lines"]["always"].append(unit(1, ["stat"], 0.5, 0.5))
    p["lines"]["test_first"].append(unit(1, ["stat"], 0.5, 0.85))
    assert explain.sentence(p).endswith(
        "; the fixed form is then held by the stat line (busy 85%).")


def test_no_bottleneck_the_gain_is_the_transfer_time_saved():
    p = pred(1.10, [unit(0, ["count"], 0.3, 0.2)],
             [unit(0, ["count"], 0.1, 0.05)], 0.25)
    assert explain.sentence(p) == (
        "x1.10: no shared line is the always form's bottleneck (busiest "
        "written: the count line, busy 20%, D/C 0.25): the gain is the "
        "transfer time the fix saves on each I/O (0.30 and 0.10 transfers "
        "per I/O), not a queue on a line.")


def test_nothing_written_is_said():
    p = pred(1.0, [unit(0, ["r"], 0.0, 0.0)], [unit(0, ["r"], 0.0, 0.0)],
             None)
    assert explain.sentence(p) == (
        "x1.00: no shared line is written in the always form (D/C 0): the "
        "gain is the fix's own local cost or saving.")


def test_a_layout_fix_names_the_lines_that_stopped_moving():
    a = [unit(2, ["hot_read", "counter"], 0.24, 0.25, 1.03, lines=2)]
    t = [unit(2, ["hot_read", "counter"], 0.03, 0.05, 0.03, lines=2),
         unit(4, ["hot_read_moved"], 0.0, 0.0, 1.0, lines=2)]
    assert explain.layout(pred(1.06, a, t, 0.385)) == (
        "layout: the hot_read_moved line stopped moving; the hot_read, "
        "counter line still moves (0.03 transfers per I/O)")
    many = [unit(2 * i, ["k%d" % i], 0.0, 0.0, 1.0, lines=2)
            for i in range(5)]
    assert explain.layout(pred(1.3, a, many, 0.3)) == (
        "layout: 5 lines (the k0 line, the k1 line, ...) stopped moving")
    # the same lines holding the same words: not a layout fix
    assert explain.layout(pred(1.0, a, a, 0.3)) == ""


def test_per_node_copies_of_a_line_are_named_apart():
    """A counter moved to one line per NUMA node: each copy names its
    node, never "the drops line and the drops line"."""
    a = [unit(0, ["rmem", "drops"], 1.0, 0.9)]
    t = [unit(0, ["rmem"], 0.6, 0.6), dict(unit(2, ["drops"], 0.0, 0.0),
                                           node=0),
         dict(unit(3, ["drops"], 0.0, 0.0), node=1)]
    assert explain.layout(pred(1.2, a, t, 1.5)) == (
        "layout: the drops line of node 0 and the drops line of node 1 "
        "stopped moving; the rmem line still moves (0.6 transfers per I/O)")


def test_wrapped_fits_the_width():
    p = pred(1.0, [unit(3, ["usage", "watermark"], 1.0, 0.97, 2.0)],
             [unit(3, ["usage", "watermark"], 0.99, 0.96, 1.02)], 3.43)
    lines = bigbox.wrapped(explain.sentence(p), "  ")
    assert len(lines) == 2 and all(len(l) <= 120 for l in lines)
    assert " ".join(l.strip() for l in lines) == explain.sentence(p)


# slow: the simulator over every physics range
@pytest.mark.slow
def test_a_real_simulation_says_the_same_in_text_and_json(monkeypatch,
                                                         capsys):
    """memcg-flush-threshold at its published machine: the always form's
    threshold RMW saturates its line, the fix reads it instead."""
    if not os.path.exists(SIM):
        pytest.fail("%s missing: run make" % SIM)
    monkeypatch.setenv("FLAGCHECK_SIM", SIM)
    assert predict.main([THRESHOLD, "--published", "--seeds", "1",
                     "--json"]) == 0
    p = json.loads(capsys.readouterr().out)
    (d,) = p["demand"]
    a = [u for u in p["lines"]["always"] if u["words"] == d["words"]][0]
    t = [u for u in p["lines"]["test_first"] if u["words"] == d["words"]][0]
    assert d["ratio"] > 1 and t["transfers_per_io"] < 0.9 * \
        a["transfers_per_io"]
    assert p["why"] == (
        "x%.2f: the fix takes the %s line off the path (%.2f and %.2f "
        "transfers per I/O, busy %.0f%% and %.0f%%): the gain is at most "
        "about D/C %.3g; the fixed form is then held by the rest of the "
        "path." % (p["gain"]["value"], ", ".join(d["words"]),
                   a["transfers_per_io"], t["transfers_per_io"],
                   100 * a["busy"], 100 * t["busy"], d["ratio"]))
    assert predict.main([THRESHOLD, "--published", "--seeds", "1"]) == 0
    out = capsys.readouterr().out
    # the sentence's lines are the text's last ones
    tail = [l.strip() for l in out.splitlines()][-len(
        bigbox.wrapped(p["why"], "  ")):]
    assert " ".join(tail) == p["why"]
