"""The visit (sim/physics.def's visit, a fraction f of 0 to 1): during the
first f x L of a transfer (L the pair's one-way cost) the CPU the line
leaves still has its own stores and RMWs as hits. Two CPUs running one
RMW per I/O back to back on one line (each hit a ns, rest r between two):
a visit serves n = 1 + floor(f x L / (a + r)) RMWs, one visit per L, so
the line's rate is n / L; f = 0 is a hand-over after every access."""

import math
import subprocess

import pytest

from tests.analysis.standin_machine import Machine
from tests.analysis.simcase import EXACT, SIM, sim_binary, spec, unit  # noqa: F401
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
    n = 1 + math.floor(f * L / (A + rest) + 1e-12)
    assert (n - 1) * (A + rest) + rest < L
    # 2 x ios a whole number of visits: the window starts and ends at
    # the same point of a visit
    r, u = visits(f, rest, 60 * n)
    assert u["accesses_per_io"] == 1
    assert u["transfers_per_io"] == pytest.approx(1 / n, rel=EXACT)
    assert r["iops"] == pytest.approx(n * 1e9 / L, rel=EXACT)


def test_no_visit_is_the_simulator_before_it():
    # the row's default: the option left out, or 0, is one answer
    args = [SIM, "--words", "x@0,y@8", "--pattern",
            "test_and_clear_bit(x,0),set_bit(y,1),READ_ONCE(x)",
            "--variant", "always", "--ios", "300", "--warmup", "50",
            "--jitter", "0.1", "--rest", "40"]
    matrix = "3\n0 50 90\n50 0 70\n90 70 0\n0 0 1\n"
    run = [subprocess.run(a, input=matrix, capture_output=True, text=True,
                          timeout=60, check=True).stdout
           for a in (args, args + ["--visit", "0"])]
    assert run[0] == run[1]


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
