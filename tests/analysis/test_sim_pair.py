""":pair words in the simulator against closed forms (docs/pattern.md):
CPU k is job k + 1, so CPUs 2k and 2k + 1 share pair k's copy, 128 bytes
x k past the word. On 4 CPUs a :pair word is 2 units, lines 0 and 2, each
moved only between its pair's two CPUs: with the costs of the matrix
below (100 ns within pair 0, 300 ns within pair 1, 7000 ns across) and no
rest, pair 0's line serves one RMW per 100 ns and pair 1's one per 300
ns, side by side, so IOPS = 1e9/100 + 1e9/300 exactly; one transfer
across the pairs would break it. Where the copies do not fit, the
simulator refuses as the engine does, in the engine's words."""

import json
import subprocess

import pytest

from flagcheck_analysis.predict import simulate
from tests.analysis.simcase import (EXACT, SIM, run, sim_binary,  # noqa: F401
                                    spec)
from tests.analysis.standin_machine import Machine

FAR = 7000
PAIRS = "4\n0 100 %d %d\n100 0 %d %d\n%d %d 0 300\n%d %d 300 0\n0 0 0 0\n" \
    % ((FAR,) * 8)


def sim(words, matrix=PAIRS, *extra):
    p = subprocess.run([SIM, "--words", words, "--pattern", "atomic_inc(ref)",
                        "--variant", "always", "--handover", "fifo",
                        "--ios", "400", "--warmup", "100", *extra],
                       input=matrix, capture_output=True, text=True,
                       timeout=60)
    return p


def result(words, *extra):
    p = sim(words, PAIRS, *extra)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize("line_pair", ["false", "true"])
def test_two_pairs_are_two_units_each_moved_within_its_pair(line_pair):
    r = result("ref@0:pair", "--line_pair", line_pair)
    assert [(u["line"], u["words"]) for u in r["units"]] == \
        [(0, ["ref"]), (2, ["ref"])]
    assert r["iops"] == pytest.approx(1e9 / 100 + 1e9 / 300, rel=EXACT)
    assert r["rmw_per_io"] == 1
    # the two CPUs of a pair take turns: every access moves the line,
    # pair 0's three times as often as pair 1's (100 ns vs 300 ns)
    a, b = r["units"]
    assert a["transfers_per_io"] == a["accesses_per_io"] == \
        pytest.approx(0.75, rel=EXACT)
    assert b["transfers_per_io"] == b["accesses_per_io"] == \
        pytest.approx(0.25, rel=EXACT)
    assert a["busy"] == pytest.approx(1, rel=EXACT)


def test_one_copy_for_all_moves_across_the_pairs():
    pair, every = result("ref@0:pair"), result("ref@0")
    assert len(every["units"]) == 1
    assert every["iops"] < 0.25 * pair["iops"]


def test_two_cpus_are_one_pair_as_one_shared_word():
    two = "2\n0 100\n100 0\n0 0\n"
    pair, every = (json.loads(sim(w, two).stdout) for w in ("ref@0:pair",
                                                             "ref@0"))
    assert [u["line"] for u in pair["units"]] == [0]
    assert pair["iops"] == pytest.approx(every["iops"], rel=EXACT)
    assert pair["iops"] == pytest.approx(1e9 / 100, rel=EXACT)


def test_predict_two_sockets_two_pairs():
    # pairs on sockets: CPUs 0, 1 and 2, 3 each transfer at same_llc
    m = Machine(sockets=2, cores=2, same_llc=(100.0,) * 3,
                other_socket=(float(FAR),) * 3, handover="fifo")
    r = run(spec("ref@0:pair", "atomic_inc(ref)"), m, 4)
    assert [u["line"] for u in r["units"]] == [0, 2]
    # each pair's line two RMWs a transfer (the floor: no rest)
    assert r["iops"] == pytest.approx(4e9 / 100, rel=EXACT)


@pytest.mark.parametrize("words,says", [
    ("ref@62:pair", "pattern_words: pair word ref at 3 jobs: the copy of "
     "jobs 3 and 4 is at byte 4096, past the arena (4096 bytes): on line "
     "62 a pair word holds jobs 1 to 2"),
    ("ref@0:pair,x@3", "pattern_words: pair word ref at 3 jobs: the copy "
     "of jobs 3 and 4 (line 2) shares its line pair (128 bytes) with word "
     "x: each pair's copy needs a line pair to itself"),
])
def test_a_copy_that_does_not_fit_is_refused_as_the_engine_does(words,
                                                                 says):
    p = sim(words)
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr == "flagcheck-sim: %s\n" % says
    m = Machine(same_llc=(100.0,) * 3)
    with pytest.raises(simulate.PredictError) as e:
        run(spec(words, "atomic_inc(ref)"), m, 4)
    assert says in str(e.value)
