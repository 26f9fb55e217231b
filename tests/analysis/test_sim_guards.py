"""/if_test after a test a guard skipped, in the simulator as in the engine
(tests/unit/test_pattern_guards.c; docs/pattern.md, "Suffixes"): the
operations a test guards do not run on the I/Os whose test /every,
/every_ns, /below or /if_test skipped. One CPU, 400 measured I/Os."""

import pytest

from tests.analysis.simcase import run, sim_binary, spec  # noqa: F401
from tests.analysis.standin_machine import Machine

CASES = [
    # the trap of sched_balance_running: the release after every 4th I/O's
    # test and set only (the old reading: a store on every I/O)
    ("running@0", "test_and_set_bit(running,0)/every=4,"
     "atomic_set(running,0)/if_test=0", 0.25, 0.25),
    # a test in a period longer than the run: nothing it guards runs
    ("state@0,count@2", "test_bit(state,0)/every_ns=1000000000000,"
     "atomic_inc(count)/if_test=0", 0.0, 0.0),
    # test_and_set_bit() while the word is below 1: after the warm-up never
    ("state@0,count@2", "test_and_set_bit(state,0)/below=1,"
     "atomic_inc(count)/if_test=0", 0.0, 0.0),
    # a test skipped by /if_test guards nothing
    ("a@0=1,b@2,count@4", "test_bit(a,0),test_bit(b,0)/if_test=0,"
     "atomic_inc(count)/if_test=1", 0.0, 0.0),
]


@pytest.mark.parametrize("words, pattern, rmw, stores", CASES,
                         ids=["every", "every_ns", "below", "if_test"])
def test_a_skipped_test_guards_nothing(words, pattern, rmw, stores):
    m = Machine(atomic_local=(7.0,) * 3, load_hit=(1.5,) * 3)
    r = run(spec(words, pattern + ",work(100)"), m, 1)
    assert (r["rmw_per_io"], r["stores_per_io"]) == (rmw, stores)
