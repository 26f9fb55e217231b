"""flagcheck-sim's bounds: the event budget (CAS retries counted), every
number of the matrix and options checked with its range, the options'
one spelling, the busy share within the window, and predict's I/O budget
counting the retries."""

import json
import os
import re
import subprocess

import pytest

from tests.analysis import helpers
from tests.analysis.standin_machine import Machine
from flagcheck_analysis.predict import jobspec, simulate

SIM = os.path.join(helpers.BUILD, "flagcheck-sim")
CAS = ["--words", "r@0=1", "--pattern", "atomic_inc_not_zero(r)",
       "--variant", "always"]
SET = ["--words", "a@0", "--pattern", "set_bit(a,1)", "--variant", "always"]


@pytest.fixture(autouse=True)
def sim_binary(monkeypatch):
    if not os.path.exists(SIM):
        pytest.fail("%s missing: run make" % SIM)
    monkeypatch.setenv("FLAGCHECK_SIM", SIM)


def matrix(n, cost="100", node="0"):
    rows = [" ".join("0" if a == b else cost for b in range(n))
            for a in range(n)]
    return "%d\n%s\n%s\n" % (n, "\n".join(rows), " ".join([node] * n))


def sim(args, text):
    return subprocess.run([SIM] + args, input=text, capture_output=True,
                          text=True, timeout=60)


def test_the_budget_refuses_at_exactly_its_count():
    args = CAS + ["--ios", "20", "--warmup", "5"]
    free = sim(args, matrix(8))
    events = json.loads(free.stdout)["events"]
    assert json.loads(free.stdout)["retries_per_io"] > 0
    at = sim(args + ["--max_events", str(events)], matrix(8))
    assert at.returncode == 0 and json.loads(at.stdout)["events"] == events
    under = sim(args + ["--max_events", str(events - 1)], matrix(8))
    assert (under.returncode, under.stdout) == (simulate.SIM_OVER_BUDGET, "")
    assert under.stderr == (
        "flagcheck-sim: over the budget of %d simulated events (CAS retries "
        "included): --max_events raises it, 1 to 1e12\n" % (events - 1))


def test_the_retries_are_events():
    # each cmpxchg, failed or not, is a REQ: the CAS run's events exceed
    # the same I/Os' without retries by at least the retries
    cas = json.loads(sim(CAS + ["--ios", "20", "--warmup", "0"],
                         matrix(8)).stdout)
    one = json.loads(sim(CAS + ["--ios", "20", "--warmup", "0"],
                         matrix(1)).stdout)
    per_io_8 = cas["events"] / cas["ios"]
    assert per_io_8 >= one["events"] / one["ios"] + cas["retries_per_io"]


def test_ios_1e9_is_refused_by_the_default_budget():
    p = sim(SET + ["--ios", "1e9"], matrix(2))
    assert p.returncode == simulate.SIM_OVER_BUDGET
    assert "over the budget of 50000000 simulated events" in p.stderr


@pytest.mark.parametrize("text,what", [
    ("2\n0 nan\n1 0\n0 0\n", "cost [0][1] ns nan: a number from 0 to 1e+06"),
    ("2\n0 inf\n1 0\n0 0\n", "cost [0][1] ns inf: a number from 0 to 1e+06"),
    ("2\n0 1\n1e308 0\n0 0\n",
     "cost [1][0] ns 1e308: a number from 0 to 1e+06"),
    ("2\n0 -1\n1 0\n0 0\n", "cost [0][1] ns -1: a number from 0 to 1e+06"),
    ("3000\n", "the CPU count 3000: a whole number from 1 to 1024"),
    ("1025\n", "the CPU count 1025: a whole number from 1 to 1024"),
    ("2.5\n", "the CPU count 2.5: a whole number from 1 to 1024"),
    ("2\n0 1\n1 0\n0 8\n", "CPU 1's node 8: a whole number from 0 to 7"),
    ("2\n0 1\n1 0\n0\n", "CPU 1's node missing: the matrix ended early"),
])
def test_a_bad_matrix_entry_is_named(text, what):
    p = sim(SET, text)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == "flagcheck-sim: matrix: stdin: %s\n" % what


@pytest.mark.parametrize("opt,val,allowed", [
    ("--rest", "nan", "a number from 0 to 1e+09"),
    ("--rest", "1e308", "a number from 0 to 1e+09"),
    ("--atomic_local", "inf", "a number from 0 to 1e+06"),
    ("--load_hit", "-inf", "a number from 0 to 1e+06"),
    ("--jitter", "nan", "a number from 0 to 1"),
    ("--ios", "2.5", "a whole number from 1 to 1e+09"),
    ("--ios", "1e10", "a whole number from 1 to 1e+09"),
    ("--warmup", "nan", "a whole number from 0 to 1e+09"),
    ("--seed", "-1", "a whole number from 0 to 1e+15"),
    ("--writers", "1.5", "a whole number from 0 to 1024"),
    ("--max_events", "0", "a whole number from 1 to 1e+12"),
])
def test_a_bad_option_is_named(opt, val, allowed):
    p = sim(SET + [opt, val], matrix(2))
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == "flagcheck-sim: %s %s: %s\n" % (opt, val, allowed)


def test_every_option_is_spelled_as_fio_spells_its_own():
    """sim/main.c's head lists the options: words joined by '_', as fio's
    own (and physics.def's rows); a hyphen between the words is unknown."""
    with open(os.path.join(helpers.REPO, "sim", "main.c")) as f:
        head = f.read().split("*/", 1)[0]
    opts = set(re.findall(r"--[A-Za-z_-]+", head))
    assert {"--atomic_local", "--atomic_far", "--load_hit",
            "--max_events"} <= opts
    assert [o for o in opts if "-" in o[2:]] == []
    for opt in ("--atomic-local", "--atomic-far", "--load-hit",
                "--max-events"):
        p = sim(SET + [opt, "5"], matrix(1))
        assert (p.returncode, p.stdout) == (2, "")
        assert p.stderr == "flagcheck-sim: %s : unknown option (see " \
            "sim/main.c's head)\n" % opt


def test_the_largest_numbers_give_json():
    p = sim(SET + ["--rest", "1e9", "--ios", "3", "--warmup", "1"],
            matrix(4, cost="1e6"))
    assert p.returncode == 0
    out = json.loads(p.stdout, parse_constant=lambda c: pytest.fail(c))
    assert out["seconds"] > 0


@pytest.mark.parametrize("ios,warmup", [(1, 1), (2, 1), (3, 2), (5, 1)])
def test_the_busy_share_is_within_the_window(ios, warmup):
    args = ["--words", "r@0=1,s@0+8", "--pattern",
            "READ_ONCE(r),atomic_inc(s),work(7)", "--variant", "always",
            "--ios", str(ios), "--warmup", str(warmup), "--jitter", "0.3",
            "--handover", "nearest"]
    for seed in range(4):
        out = json.loads(sim(args + ["--seed", str(seed)],
                             matrix(6)).stdout)
        assert all(0 < u["busy"] <= 1 for u in out["units"])


def test_no_warmup_measures_from_the_start():
    out = json.loads(sim(SET + ["--ios", "4", "--warmup", "0",
                                "--atomic_local", "5"], matrix(1)).stdout)
    assert out["seconds"] == pytest.approx(4 * 5e-9, rel=1e-12)
    assert out["units"][0]["accesses_per_io"] == 1


# ----- predict's budget -----

def spec(words, pattern):
    return jobspec.Spec("test.fio", words, pattern, "", 0, None, None, None,
                        None)


def test_ios_per_cpu_count_the_retries():
    m = Machine(jitter=0.1)
    sp = spec("r@0=1", "atomic_inc_not_zero(r),work(100)")
    cpus = m.cpus(64)
    one = simulate.run_sim(sp, "always", m, cpus[:1], "typ", 0.0, 0, 40, 4)
    short = simulate.run_sim(sp, "always", m, cpus, "typ", 0.0, 0, 2, 1)
    per_io = sum(u["accesses_per_io"] for u in one["units"])
    assert per_io == 2 and short["retries_per_io"] > 1
    assert simulate._ios_for(one, 64, short) == int(max(
        simulate.MIN_IOS, min(simulate.MAX_IOS, simulate.BUDGET /
                              (64 * (2 + short["retries_per_io"])))))
    assert simulate._ios_for(one, 64, short) < simulate._ios_for(one, 64)


def test_a_program_over_the_budget_is_refused_before_it_runs():
    sp = spec("a@0", ",".join("set_bit(a,%d)*65536" % i for i in range(64)))
    with pytest.raises(simulate.PredictError) as e:
        simulate.predict(sp, Machine(), 2, seeds=1)
    # the one-CPU probe (8 I/Os) is refused by flagcheck-sim itself
    assert str(e.value) == ("test.fio: 1 CPU(s) x 8 I/Os: over 1e+07 "
                            "simulated events, budget 1e+07: a shorter "
                            "pattern")


def test_a_run_over_the_budget_at_n_cpus_is_refused_before_it_runs():
    # 2 x 4096 RMWs an I/O fit the probes (8 + 2 I/Os on one CPU, 2 + 1 on
    # 64); 16 + 4 I/Os on 64 CPUs do not: refused from the one-CPU run's
    # and the short run's events per I/O, before any window is run
    m = Machine()
    sp = spec("a@0", "set_bit(a,1)*4096,clear_bit(a,1)*4096")
    probe = simulate.run_sim(sp, "always", m, m.cpus(1), "typ", 0.0, 0, 8, 2)
    one = simulate.run_sim(sp, "always", m, m.cpus(1), "typ", 0.0, 0,
                           simulate._ios_for(probe, 1), 4)
    short = simulate.run_sim(sp, "always", m, m.cpus(64), "typ", 0.0, 0, 2,
                             1)
    # events per measured I/O, the warm-up's counted: from above
    per_io = max(one["events"] / one["ios"], short["events"] / short["ios"])
    with pytest.raises(simulate.PredictError) as e:
        simulate.predict(sp, m, 64, seeds=1)
    assert str(e.value) == (
        "test.fio: 64 CPU(s) x 16 I/Os: about %.1e simulated events, budget "
        "1e+07: fewer --numjobs" % (64 * 20 * per_io))


# slow: the simulator on 256 CPUs
@pytest.mark.slow
def test_a_cas_loop_on_many_cpus_answers_within_the_budget():
    # the I/Os per CPU: the budget over the accesses and the retries of
    # the same short run on the 256 CPUs that predict makes
    m = Machine(handover="nearest", jitter=0.1)
    sp = spec("r@0=1", "atomic_inc_not_zero(r)")
    p = simulate.predict(sp, m, 256, seeds=1)
    short = simulate.run_sim(sp, "always", m, m.cpus(256), "typ", 0.0, 0, 2,
                             1)
    assert short["retries_per_io"] > 0.5
    assert p["ios_per_cpu"] == int(simulate.BUDGET / (
        256 * (2 + short["retries_per_io"])))
