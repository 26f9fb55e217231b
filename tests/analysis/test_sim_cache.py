"""Each simulated CPU's cache holds cache_lines lines (sim/cache.c): a
line it evicted is a fill at its next access, whoever wrote it last, at
the access's own hit cost (the fill's time is the same at one CPU and N,
in the rest), never a transfer; with fewer lines in the program than a
cache holds nothing is ever evicted."""

import pytest

from tests.analysis.standin_machine import Machine
from tests.analysis.simcase import EXACT, run, sim_binary, spec  # noqa: F401

REST = 100.0


def machine(lines):
    m = Machine(same_llc=(50.0,) * 3, atomic_local=(5.0,) * 3,
                load_hit=(1.0,) * 3)
    m.cache_lines = lines
    return m


@pytest.mark.parametrize("objects,lines,fills", [
    (8, 8, 0),          # they fit: every RMW finds its line
    (8, 100, 0),
    (9, 8, 1),          # one more than the cache, in turn: each evicted
    (64, 8, 1),         # before its turn comes again: every RMW a fill
])
def test_one_cpu_in_turn_over_more_lines_than_its_cache(objects, lines,
                                                         fills):
    sp = spec("a@0:obj(%d,turn)" % objects, "atomic_inc(a)")
    r = run(sp, machine(lines), 1, rest=REST, ios=10 * objects,
            warmup=2 * objects)
    u = r["units"][0]
    assert (u["fills_per_io"], u["transfers_per_io"]) == (fills, 0)
    # a fill costs what a hit does: its time is in the rest
    assert r["iops"] == pytest.approx(1e9 / (REST + 5.0), rel=EXACT)


def test_a_line_another_cpu_wrote_and_evicted_is_a_fill():
    # two CPUs in turn over 64 objects, each RMW on a line the other CPU
    # wrote last: with no bound always a transfer; with caches of 8 lines
    # a line the other CPU wrote more than 8 lines ago is a fill, and
    # every access is one or the other
    sp = spec("a@0:obj(64,turn)", "atomic_inc(a),work(1000)")
    free = run(sp, machine(None), 2, ios=640, warmup=128)
    u = free["units"][0]
    assert (u["transfers_per_io"], u["fills_per_io"]) == (1, 0)
    assert free["iops"] == pytest.approx(2e9 / 1050, rel=EXACT)
    u = run(sp, machine(8), 2, ios=640, warmup=128)["units"][0]
    assert u["transfers_per_io"] + u["fills_per_io"] == pytest.approx(
        1, rel=EXACT)
    assert u["fills_per_io"] > u["transfers_per_io"]


def test_a_profiles_cache_is_its_l2_with_its_own_source(tmp_path):
    from tests.analysis.test_machine import SMALL, write
    from flagcheck_analysis.machines import loader
    text = SMALL.replace('cpu_order = "cores-first"',
                         'cpu_order = "cores-first"\nl2_kib = 1024', 1)
    path = write(tmp_path, text)
    with pytest.raises(ValueError) as e:
        loader.load(path)
    assert "want an entry for topology.l2_kib" in str(e.value)
    path = write(tmp_path, text.replace(
        "[sources]", '[sources]\n"topology.l2_kib" = "its vendor"', 1))
    assert loader.load(path).cache_lines == 1024 * 1024 // 64
    assert loader.load(write(tmp_path, SMALL)).cache_lines is None
