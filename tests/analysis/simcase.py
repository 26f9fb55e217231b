"""What the simulator's tests share: the built flagcheck-sim, the
tolerance of an exact closed form, a pattern job's Spec built in the test
and one simulator run on the stand-in machine (standin_machine.py)."""

import os

import pytest

from tests.analysis import helpers
from flagcheck_analysis.predict import jobspec, simulate

SIM = os.path.join(helpers.BUILD, "flagcheck-sim")
EXACT = 1e-9


@pytest.fixture(autouse=True)
def sim_binary(monkeypatch):
    if not os.path.exists(SIM):
        pytest.fail("%s missing: run make" % SIM)
    monkeypatch.setenv("FLAGCHECK_SIM", SIM)


def spec(words, pattern, fixed="", writers=0):
    return jobspec.Spec("test.fio", words, pattern, fixed, writers, None,
                        None, None, None)


def run(sp, mach, n, variant="always", rest=0.0, ios=400, warmup=100,
        seed=0, which="typ"):
    return simulate.run_sim(sp, variant, mach, mach.cpus(n), which, rest,
                            seed, ios, warmup)


def unit(res, line):
    return [u for u in res["units"] if u["line"] == line][0]
