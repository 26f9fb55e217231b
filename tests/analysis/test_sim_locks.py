"""Locks in the simulator as flagcheck predict runs it: a pattern whose
jobs could each hold the lock another waits for is refused in the
engine's line at any number of CPUs, never predicted (docs/pattern.md,
"Locks and layouts"); in one order it is simulated."""

import pytest

from flagcheck_analysis.predict import simulate
from tests.analysis.simcase import (run, sim_binary,  # noqa: F401
                                    spec)
from tests.analysis.standin_machine import Machine

AB = "spin_lock(a),spin_lock(b),work(100),spin_unlock(b),spin_unlock(a)"
BA = "spin_lock(b),spin_lock(a),work(100),spin_unlock(a),spin_unlock(b)"
SAYS = ("test.fio: flagcheck-sim: pattern: job 1's operation 2 "
        "'spin_lock(b)' takes b (byte 128 of the arena) while it holds a "
        "(byte 0 of the arena), and job 1's operation 7 'spin_lock(a)' takes "
        "a (byte 0 of the arena) while it holds b (byte 128 of the arena)")


@pytest.mark.parametrize("cpus", [1, 2, 4])
def test_locks_in_both_orders_are_refused_not_predicted(cpus):
    m = Machine(same_llc=(100.0,) * 3)
    with pytest.raises(simulate.PredictError) as e:
        run(spec("a@0,b@2", AB + "|" + BA), m, cpus)
    assert str(e.value).startswith(SAYS)


def test_locks_in_one_order_are_simulated():
    m = Machine(same_llc=(100.0,) * 3)
    r = run(spec("a@0,b@2", AB + "|" + AB), m, 2, ios=50, warmup=10)
    # two spin_lock() an I/O: one cmpxchg each that took it, the others
    # retries
    assert r["rmw_per_io"] - r["retries_per_io"] == pytest.approx(2, abs=1e-9)
