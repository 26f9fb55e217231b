"""The visit (sim/physics.def's visit, a fraction f of 0 to 1, and hold, H
ns): a transfer begins at once, or H after its owner got the line, and
for the first max(f x L, a) of it (L the pair's one-way cost, a one
atomic: the floor) the CPU the line leaves still has its own accesses as
hits. Two CPUs running one RMW per I/O back to back on one line (each hit
a ns, rest r between two): a visit serves n = 1 + floor((H + max(f L,
a)) / (a + r)) RMWs and lasts H + L, so the line's rate is n / (H + L)."""

import math
import pytest

from tests.analysis.standin_machine import Machine
from tests.analysis.simcase import EXACT, sim_binary, spec, unit  # noqa: F401
from flagcheck_analysis.predict import simulate

L, A = 100.0, 5.0


def visits(f, rest, ios):
    m = Machine(same_llc=(L,) * 3, atomic_local=(A,) * 3, visit=f)
    r = simulate.run_sim(spec("x@0", "atomic_inc(x)"), "always", m,
                         m.cpus(2), "typ", rest, 0, ios, ios)
    return r, unit(r, 0)


@pytest.mark.parametrize("f,rest", [(0.0, 0.0), (0.0, 3.0), (0.04, 0.0),
                                    (0.05, 0.0), (0.2, 0.0), (0.23, 0.0),
                                    (0.5, 0.0), (0.99, 0.0), (0.2, 3.0),
                                    (0.37, 1.5), (0.9, 2.0)])
def test_rmws_per_visit_is_the_closed_form(f, rest):
    # the form holds where the leaving CPU asks again (and waits) before
    # the transfer ends: (n - 1) x (a + r) + r < L, true of every case here
    n = 1 + math.floor(max(f * L, A) / (A + rest) + 1e-12)
    assert (n - 1) * (A + rest) + rest < L
    # 2 x ios a whole number of visits: the window starts and ends at
    # the same point of a visit
    r, u = visits(f, rest, 60 * n)
    assert u["accesses_per_io"] == 1
    assert u["transfers_per_io"] == pytest.approx(1 / n, rel=EXACT)
    assert r["iops"] == pytest.approx(n * 1e9 / L, rel=EXACT)


@pytest.mark.parametrize("hold,rest", [(10.0, 0.0), (20.0, 3.0),
                                       (50.0, 0.0), (7.0, 1.0)])
def test_hold_then_transfer_is_its_closed_form(hold, rest):
    # the owner keeps the line H ns after it arrives, then the transfer:
    # n = 1 + floor((H + a) / (a + r)) RMWs a visit, one visit per H + L
    n = 1 + math.floor((hold + A) / (A + rest) + 1e-12)
    m = Machine(same_llc=(L,) * 3, atomic_local=(A,) * 3, hold=hold)
    r = simulate.run_sim(spec("x@0", "atomic_inc(x)"), "always", m,
                         m.cpus(2), "typ", rest, 0, 60 * n, 60 * n)
    assert unit(r, 0)["transfers_per_io"] == pytest.approx(1 / n,
                                                           rel=EXACT)
    assert r["iops"] == pytest.approx(n * 1e9 / (hold + L), rel=EXACT)


def test_the_leavers_loads_are_hits_too():
    # an RMW then a load per I/O (a ns, then 1 ns): after the RMW that
    # took the line, the load and 8 more I/Os fit in f L = 50 ns (the
    # ninth RMW ends at 48, its load at 49); with f = 0 the load (within
    # the floor) hits and the next RMW does not: one I/O a visit
    sp = spec("x@0", "atomic_inc(x),READ_ONCE(x)")
    for f, n in ((0.0, 1), (0.5, 9)):
        m = Machine(same_llc=(L,) * 3, atomic_local=(A,) * 3,
                    load_hit=(1.0,) * 3, visit=f)
        r = simulate.run_sim(sp, "always", m, m.cpus(2), "typ", 0.0, 0,
                             60 * n, 60 * n)
        assert r["iops"] == pytest.approx(n * 1e9 / L, rel=EXACT)


def test_the_floor_serves_a_back_to_back_rmw_at_visit_0():
    # visit 0: the window is one atomic's time, so the holder's second RMW
    # of an I/O (nothing between) hits, the next I/O's (rest 3 ns after)
    # does not: one visit per I/O, the I/O's two RMWs one transfer
    m = Machine(same_llc=(L,) * 3, atomic_local=(A,) * 3)
    r = simulate.run_sim(spec("x@0", "atomic_inc(x)*2"), "always", m,
                         m.cpus(2), "typ", 3.0, 0, 100, 100)
    assert unit(r, 0)["transfers_per_io"] == pytest.approx(1, rel=EXACT)
    assert r["iops"] == pytest.approx(1e9 / L, rel=EXACT)


def test_a_load_waiter_still_takes_the_line_at_its_cost():
    # a reader and a writer: the writer's stores within the window are hits
    # but the reader's transfer still costs L; with f = 0 every store moves
    # the line back
    sp = spec("x@0", "WRITE_ONCE(x,1)", writers=1)
    out = {}
    for f in (0.0, 0.3):
        m = Machine(same_llc=(L,) * 3, load_hit=(A,) * 3, visit=f)
        r = simulate.run_sim(sp, "always", m, m.cpus(2), "typ", 0.0, 0,
                             600, 600)
        out[f] = unit(r, 0)["transfers_per_io"]
    assert out[0.3] < out[0.0]


def test_the_visit_a_curve_needs_is_found_by_bisection():
    # two CPUs back to back at L 100 ns, a 5 ns: a published 52M/s (2e9 /
    # 52e6 ns per operation per thread) lies between n = 5 RMWs a visit
    # (50M/s, f 0.2 up to 0.25) and n = 6 (60M/s, from f 0.25): the
    # bisection lands on 0.25 to its step (1/256); the hold's rate,
    # n / (H + L) with n = 1 + floor((H + a) / a), crosses it at H = 25
    # (6 / 124 ns, then 7 / 125 ns), to its step (1000/256 ns)
    from flagcheck_analysis.predict import curves, visitfit
    m = Machine(same_llc=(L,) * 3, atomic_local=(A,) * 3)
    c = curves.Curve("t.csv", {"placement": "compact"}, "atomic-add",
                     {2: 2e9 / 52e6})
    f, where = visitfit.solve(c, m, 2, "visit")
    assert where == "" and abs(f - 0.25) <= 1 / 256
    h, where = visitfit.solve(c, m, 2, "hold")
    assert where == "" and abs(h - 25) <= 1000 / 256
    # a rate under the floor's (two RMWs a transfer) is named, not solved
    assert visitfit.solve(c._replace(points={2: 500.0}), m, 2, "visit") \
        == (0.0, "below")
