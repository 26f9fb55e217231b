"""Each simulated CPU's cache holds cache_lines lines (sim/cache.c): a
line it evicted costs a memory fill at its next access, whoever wrote it
last; with fewer lines in the program than the cache holds nothing is
ever evicted."""

import pytest

from tests.analysis.standin_machine import Machine
from tests.analysis.simcase import EXACT, run, sim_binary, spec  # noqa: F401

MEM, REST = 90.0, 100.0


def machine(lines):
    m = Machine(same_llc=(50.0,) * 3, atomic_local=(5.0,) * 3,
                load_hit=(1.0,) * 3)
    m.costs["memory"] = (MEM,) * 3
    m.cache_lines = lines
    return m


@pytest.mark.parametrize("objects,lines,ns", [
    (8, 8, 5.0),        # they fit: every RMW a hit
    (8, 100, 5.0),
    (9, 8, MEM),        # one more than the cache, in turn: each evicted
    (64, 8, MEM),       # before its turn comes again: every RMW a fill
])
def test_one_cpu_in_turn_over_more_lines_than_its_cache(objects, lines,
                                                         ns):
    sp = spec("a@0:obj(%d,turn)" % objects, "atomic_inc(a)")
    r = run(sp, machine(lines), 1, rest=REST, ios=10 * objects,
            warmup=2 * objects)
    assert r["iops"] == pytest.approx(1e9 / (REST + ns), rel=EXACT)
    # a fill is not a transfer between CPUs
    assert r["units"][0]["transfers_per_io"] == 0


def test_a_line_another_cpu_wrote_and_evicted_costs_a_fill():
    # two CPUs in turn over 64 objects from objects 0 and 1, a cache of 8
    # lines: CPU 0 comes to each object one I/O after CPU 1 wrote it (in
    # CPU 1's cache: a transfer), CPU 1 63 I/Os after CPU 0 (evicted
    # since: a fill, whoever wrote it); with no bound, both transfers.
    # CPU 0, the faster, catches up and then waits at each object for CPU
    # 1's fill: both at CPU 1's pace
    sp = spec("a@0:obj(64,turn)", "atomic_inc(a),work(1000)")
    bounded = run(sp, machine(8), 2, ios=640, warmup=128)
    free = run(sp, machine(None), 2, ios=640, warmup=128)
    assert bounded["units"][0]["transfers_per_io"] == 0.5
    assert bounded["iops"] == pytest.approx(2e9 / (1000 + MEM), rel=EXACT)
    assert free["units"][0]["transfers_per_io"] == 1
    assert free["iops"] == pytest.approx(2e9 / 1050, rel=EXACT)
