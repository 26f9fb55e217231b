"""flagcheck-sim and predict/ against closed forms (docs/predict.md), on
a machine of the loader's interface built here (standin_machine.py): every
cost a number of the test's own, so each expected figure is the formula.

The measured window starts when the CPUs together have finished
warmup x N I/Os and ends at (warmup + ios) x N: where the CPUs run in step
the window holds whole rounds and the closed forms are exact (rel 1e-9);
where a guard's phase differs per CPU a CPU's count in the window may be
one off, and the test says so with its tolerance."""

import json
import os
import subprocess

import pytest

from tests.analysis import helpers
from tests.analysis.standin_machine import Machine
from flagcheck_analysis.predict import simulate
from tests.analysis.simcase import (EXACT, SIM, run, sim_binary,  # noqa: F401
                                  spec, unit)

# ----- one CPU: IOPS = 1 / (rest + local op costs) -----

def test_one_cpu_is_rest_plus_local_costs():
    m = Machine(atomic_local=(7.0,) * 3, load_hit=(1.5,) * 3)
    sp = spec("a@0,b@0+8,c@2",
              "READ_ONCE(a),test_and_clear_bit(b,1),atomic_inc(c)*2,"
              "smp_mb(),smp_mb__before_atomic(),work(300)")
    r = run(sp, m, 1, rest=200.0)
    ns = 200 + 300 + 1.5 + 7 + 2 * 7 + 7
    assert r["iops"] == pytest.approx(1e9 / ns, rel=EXACT)
    assert r["units"][0]["transfers_per_io"] == 0


def test_one_cpu_test_first_pays_the_load_only():
    # test_first: test_and_clear_bit of a clear bit is a load, no RMW
    m = Machine(atomic_local=(7.0,) * 3, load_hit=(1.5,) * 3)
    sp = spec("b@0", "test_and_clear_bit(b,1),work(100)")
    r = run(sp, m, 1, variant="test_first", rest=50.0)
    assert r["iops"] == pytest.approx(1e9 / (50 + 100 + 1.5), rel=EXACT)
    assert r["units"][0]["writes_per_io"] == 0


# ----- N CPUs, one shared word, no rest: IOPS = 1 / (ops x transfer) -----

@pytest.mark.parametrize("n,ops", [(2, 1), (8, 3), (64, 2)])
def test_shared_word_is_two_rmws_a_transfer(n, ops):
    # no rest: every RMW follows the holder's last one back to back, so
    # the floor (one atomic's time) serves one more before the line
    # moves: two RMWs a transfer, whatever the I/O's boundaries
    m = Machine(same_llc=(80.0,) * 3, handover="fifo")
    r = run(spec("x@0", "atomic_inc(x)*%d" % ops), m, n)
    assert r["iops"] == pytest.approx(2e9 / (ops * 80.0), rel=EXACT)
    u = r["units"][0]
    assert u["transfers_per_io"] == pytest.approx(ops / 2, rel=EXACT)
    # moving all the time but for the window's edge: the window ends on
    # an I/O, which may be the floor's hit inside a transfer (one
    # transfer's share at most)
    assert 1 - 80e-9 / r["seconds"] <= u["busy"] <= 1


@pytest.mark.parametrize("n,ops,ns,moves", [(2, 1, 40.0, 0.5),
                                            (8, 3, 85.0, 1), (8, 4, 90.0, 1),
                                            (64, 2, 80.0, 1)])
def test_nearest_keeps_the_line_for_its_holder(n, ops, ns, moves):
    # nearest first: the holder's own next request is nearest of all
    # (no transfer), so one transfer per I/O and the others are hits,
    # the second of them within the next transfer (the floor: served as
    # the line leaves): an I/O is 80 + (ops - 2) x 5 ns; one RMW an I/O:
    # the floor serves the next I/O's, one transfer per two I/Os
    m = Machine(same_llc=(80.0,) * 3, atomic_local=(5.0,) * 3,
                handover="nearest")
    r = run(spec("x@0", "atomic_inc(x)*%d" % ops), m, n)
    assert r["iops"] == pytest.approx(1e9 / ns, rel=EXACT)
    assert r["units"][0]["transfers_per_io"] == pytest.approx(moves,
                                                              rel=EXACT)


def test_nearest_serves_the_near_socket_first():
    # two sockets: nearest hands the line within a socket while a CPU
    # there waits, fifo takes turns across; nearest is faster
    kw = dict(sockets=2, cores=4, same_llc=(50.0,) * 3,
              other_socket=(300.0,) * 3)
    sp = spec("x@0", "atomic_inc(x)")
    fifo = run(sp, Machine(handover="fifo", **kw), 8)
    near = run(sp, Machine(handover="nearest", **kw), 8)
    assert near["iops"] > 2 * fifo["iops"]


def test_store_and_rmw_alike_on_a_contended_line():
    m = Machine(same_llc=(50.0,) * 3)
    r = run(spec("x@0", "WRITE_ONCE(x,1),set_bit(x,3)"), m, 16)
    # the store takes the line, the RMW after it is the floor's hit
    assert r["iops"] == pytest.approx(1e9 / 50.0, rel=EXACT)
    assert r["units"][0]["transfers_per_io"] == pytest.approx(1, rel=EXACT)


# ----- :job words: no transfer, each CPU at its one-CPU rate -----

def test_job_words_never_transfer():
    m = Machine(atomic_local=(6.0,) * 3, load_hit=(1.0,) * 3)
    sp = spec("x@0:job,y@0+8:job", "atomic_inc(x),set_bit(y,1),"
              "READ_ONCE(x),work(100)")
    r = run(sp, m, 32, rest=20.0)
    assert r["units"] == []
    assert r["iops"] == pytest.approx(32e9 / (20 + 100 + 6 + 6 + 1),
                                      rel=EXACT)


# ----- readers only: no transfer after the first load -----

def test_readers_only_no_transfer_after_the_first():
    m = Machine(load_hit=(2.0,) * 3)
    r = run(spec("a@0,b@0+8", "READ_ONCE(a),atomic_read(b),work(50)"), m,
            16, rest=10.0)
    u = r["units"][0]
    assert u["transfers_per_io"] == 0
    assert u["writes_per_io"] == 0
    assert r["iops"] == pytest.approx(16e9 / (10 + 50 + 2 + 2), rel=EXACT)


def test_pattern_writers_readers_load_each_word_once():
    # two writers, six readers: the readers' loads of the written line
    m = Machine(same_llc=(100.0,) * 3, load_hit=(1.0,) * 3)
    r = run(spec("x@0", "atomic_inc(x),work(1000)", writers=2), m, 8,
            rest=1000.0)
    u = r["units"][0]
    assert u["writes_per_io"] > 0
    assert u["accesses_per_io"] > u["writes_per_io"]


# ----- one write every K-th I/O -----

@pytest.mark.parametrize("k", [4, 32])
def test_one_write_every_kth_io_on_one_cpu(k):
    m = Machine(atomic_local=(8.0,) * 3)
    r = run(spec("x@0", "atomic_inc(x)/every=%d,work(100)" % k), m, 1,
            ios=64 * k, warmup=4 * k)
    assert r["units"][0]["writes_per_io"] == pytest.approx(1.0 / k,
                                                           rel=EXACT)
    assert r["iops"] == pytest.approx(1e9 / (100 + 8.0 / k), rel=EXACT)


def test_one_write_every_kth_io_costs_one_transfer_each():
    # 2 CPUs, writes far apart: each write takes the line from the other
    # (tolerance: a CPU's count in the window may be one write off)
    k, ios = 16, 16 * 200
    m = Machine(same_llc=(100.0,) * 3)
    r = run(spec("x@0", "atomic_inc(x)/every=%d,work(5000)" % k), m, 2,
            ios=ios, warmup=4 * k, seed=3)
    u = r["units"][0]
    assert u["writes_per_io"] == pytest.approx(1.0 / k, abs=1.0 / ios)
    assert u["transfers_per_io"] == pytest.approx(1.0 / k, abs=1.0 / ios)


# ----- a layout pair: a load of a line written by the others -----

def test_layout_pair_load_pays_one_transfer_per_write_between_loads():
    # a@0 read every I/O, b@1 written every K-th: with the 128-byte pair
    # one unit, each write by the other CPU costs this CPU's next load one
    # transfer; apart (line_pair false) the loads of a never transfer
    k, ios = 8, 8 * 300
    sp = spec("a@0,b@1", "READ_ONCE(a),atomic_inc(b)/every=%d,work(2000)"
              % k)
    apart = run(sp, Machine(same_llc=(100.0,) * 3, line_pair=False), 2,
                ios=ios, warmup=4 * k, seed=5)
    paired = run(sp, Machine(same_llc=(100.0,) * 3, line_pair=True), 2,
                 ios=ios, warmup=4 * k, seed=5)
    assert unit(apart, 0)["transfers_per_io"] == 0
    b_alone = unit(apart, 1)["transfers_per_io"]
    assert b_alone == pytest.approx(1.0 / k, abs=1.0 / ios)
    pair = unit(paired, 0)
    assert pair["lines"] == 2
    # the writes' own transfers, plus one load per write by the other
    assert pair["transfers_per_io"] == pytest.approx(b_alone + 1.0 / k,
                                                     abs=2.0 / ios)


# ----- guards with long periods: their rate, not 65534 calls -----

def test_every_65534_is_not_slow():
    m = Machine(cores=256)
    r = run(spec("x@0", "atomic_inc(x)/every=65534,work(100)"), m, 256,
            ios=200, warmup=50)
    # events: at most one REQ, one FREE, one DONE per access and I/O
    assert r["events"] <= 3 * 256 * 250 * 2
    assert r["units"][0]["writes_per_io"] < 0.01


def test_every_ns_is_simulated_time():
    # one RMW per 10 us of each CPU's clock, I/Os of 1 us: 1 in 10
    m = Machine(atomic_local=(0.0,) * 3, load_hit=(0.0,) * 3)
    r = run(spec("x@0", "atomic_inc(x)/every_ns=10000,work(1000)"), m, 1,
            ios=1000, warmup=100)
    assert r["units"][0]["writes_per_io"] == pytest.approx(0.1, abs=0.002)


# ----- values: the tests see what the other CPUs wrote -----

def test_below_stops_at_the_threshold():
    m = Machine()
    r = run(spec("n@0", "atomic_add(n,1)/below=100,work(10)"), m, 4,
            ios=200, warmup=100)
    assert r["units"][0]["writes_per_io"] == 0


def test_flip_every_makes_test_first_write():
    m = Machine()
    r = run(spec("f@0", "?set_bit(f,0)/flip_every=10,work(1000)"), m, 1,
            variant="test_first", ios=1000, warmup=100)
    # per 10 I/Os: the flip's RMW (clears the bit), then set_bit's RMW
    assert r["units"][0]["writes_per_io"] == pytest.approx(0.2, rel=EXACT)


# ----- one grammar: the engine's parser and its refusals -----

def test_the_engine_parser_refuses_for_the_simulator():
    with pytest.raises(simulate.PredictError) as e:
        run(spec("x@0", "foo(x)"), Machine(), 1)
    assert "pattern: operation 1 'foo(x)': unknown operation 'foo'" \
        in str(e.value)


def test_the_simulator_links_pattern_parse():
    with open(os.path.join(helpers.REPO, "Makefile")) as f:
        make = f.read()
    assert "SIM_PARSER\t:= $(wildcard engine/pattern/pattern_parse.c" in make
    assert "SIM_SRCS\t:= $(sort $(wildcard sim/*.c)) $(SIM_PARSER)" in make
    # no second parser: no number reading, no operation named as text
    for name in os.listdir(os.path.join(helpers.REPO, "sim")):
        with open(os.path.join(helpers.REPO, "sim", name)) as f:
            text = f.read()
        for word in ("strtoull", '"set_bit"', '"READ_ONCE"', "pattern_opdef"):
            assert word not in text, (name, word)


# ----- the band and the demand check -----

def test_band_from_low_typ_high_costs():
    m = Machine(same_llc=(50.0, 100.0, 200.0))
    p = simulate.predict(spec("x@0", "atomic_inc(x)"), m, 8, seeds=1)
    a = p["variants"]["always"]
    # two RMWs a transfer (the floor), at 100, 200 and 50 ns
    assert a["iops"] == pytest.approx(2e7, rel=EXACT)
    assert a["low"] == pytest.approx(1e7, rel=EXACT)
    assert a["high"] == pytest.approx(4e7, rel=EXACT)


def test_demand_is_n_times_rate_over_line_capacity():
    m = Machine(same_llc=(100.0,) * 3, atomic_local=(5.0,) * 3)
    p = simulate.predict(spec("x@0", "atomic_inc(x),work(995)"), m, 16,
                         seeds=1)
    d = p["demand"][0]
    assert d["d"] == pytest.approx(16 * 1e9 / 1000.0, rel=EXACT)
    assert d["c"] == pytest.approx(1e9 / 100.0, rel=EXACT)
    assert d["ratio"] == pytest.approx(1.6, rel=EXACT)


# ----- :obj(N,RULE) and :slot words -----

def test_obj_one_per_job_never_transfers():
    m = Machine(atomic_local=(5.0,) * 3)
    r = run(spec("a@0:obj(8,job)", "atomic_inc(a),work(100)"), m, 8)
    u = r["units"][0]
    assert (u["objects"], u["transfers_per_io"]) == (8, 0)
    assert r["iops"] == pytest.approx(8e9 / 105.0, rel=EXACT)


def test_obj_of_one_is_one_shared_word():
    m = Machine(same_llc=(100.0,) * 3)
    r = run(spec("a@0:obj(1,random)", "atomic_inc(a)*2"), m, 8)
    # a transfer, then the floor's hit: one transfer an I/O
    assert r["iops"] == pytest.approx(1e9 / 100.0, rel=EXACT)


def test_obj_random_over_many_objects():
    # 400 objects, 8 CPUs, far apart in time: the object's last user is
    # another CPU 7 times in 8
    m = Machine(same_llc=(100.0,) * 3)
    r = run(spec("a@0:obj(400,random)", "atomic_inc(a),work(2000)"), m, 8,
            ios=2000, warmup=500)
    assert r["units"][0]["transfers_per_io"] == pytest.approx(7 / 8,
                                                              abs=0.03)


def test_slots_share_a_line_eight_jobs_to_it():
    # 16 jobs: slots 0..7 on line 0, 8..15 on line 1: two lines, each
    # contended by 8 CPUs, no rest: each two RMWs a transfer (the
    # floor), 4 / transfer
    m = Machine(same_llc=(100.0,) * 3)
    r = run(spec("s@0:slot", "atomic_inc(s)"), m, 16)
    assert [u["line"] for u in r["units"]] == [0, 1]
    assert r["iops"] == pytest.approx(4e9 / 100.0, rel=EXACT)
    with pytest.raises(simulate.PredictError) as e:
        run(spec("s@63+8:slot", "atomic_inc(s)"), m, 8)
    # the engine's words: the first job whose slot does not fit
    assert "pattern_words: slot word s at 8 jobs: job 8's slot is at byte " \
        "4096, past the arena (4096 bytes): at byte 4040 a slot(8) word " \
        "holds jobs 1 to 7" in str(e.value)


# ----- A|B alternatives, cpu/job values, /if_test, CAS loops -----

def test_alternatives_in_turn_halve_the_transfers():
    # A an RMW on the shared word, B a local one: the line moves on every
    # other I/O of each CPU, so the saturated line serves twice the I/Os
    m = Machine(same_llc=(80.0,) * 3, handover="fifo")
    both = run(spec("x@0,y@1:job", "atomic_inc(x),atomic_inc(y)"), m, 8)
    alts = run(spec("x@0,y@1:job", "atomic_inc(x)|atomic_inc(y)"), m, 8)
    assert both["units"][0]["transfers_per_io"] == pytest.approx(
        1, rel=EXACT)
    assert alts["units"][0]["transfers_per_io"] == pytest.approx(
        0.5, rel=EXACT)
    assert alts["rmw_per_io"] == pytest.approx(1, rel=EXACT)
    assert alts["iops"] == pytest.approx(2e9 / 80.0, rel=EXACT)


def test_a_job_value_on_one_cpu_test_first_stores_only_the_first():
    m = Machine(load_hit=(1.0,) * 3)
    for value in ("job", "cpu"):
        sp = spec("x@0=7", "WRITE_ONCE(x,%s),work(100)" % value)
        tf = run(sp, m, 1, variant="test_first", warmup=1)
        assert tf["stores_per_io"] == 0
        assert tf["iops"] == pytest.approx(1e9 / 101.0, rel=EXACT)
        assert run(sp, m, 1, warmup=1)["stores_per_io"] == 1


def test_a_cpu_value_skips_only_when_the_same_cpu_wrote_last():
    # two CPUs in step: each finds the other's value, every call stores;
    # a constant is stored once and then skipped by both
    m = Machine(same_llc=(100.0,) * 3)
    mine = run(spec("x@0", "WRITE_ONCE(x,cpu),work(100)"), m, 2,
               variant="test_first")
    const = run(spec("x@0", "WRITE_ONCE(x,5),work(100)"), m, 2,
                variant="test_first")
    assert mine["stores_per_io"] == 1
    assert const["stores_per_io"] == 0


def test_if_test_on_a_bit_never_set_never_runs():
    m = Machine(same_llc=(100.0,) * 3, load_hit=(1.0,) * 3)
    never = run(spec("f@0:job,x@1", "test_bit(f,3),atomic_inc(x)/if_test=1,"
                     "work(100)"), m, 8)
    assert never["rmw_per_io"] == 0
    assert never["units"][0]["accesses_per_io"] == 0
    assert never["iops"] == pytest.approx(8e9 / 101.0, rel=EXACT)
    always = run(spec("f@0:job,x@1", "test_bit(f,3),"
                      "atomic_inc(x)/if_test=0,work(100)"), m, 8)
    assert always["rmw_per_io"] == pytest.approx(1, rel=EXACT)


@pytest.mark.parametrize("variant", ["always", "test_first"])
def test_if_test_after_test_and_set_bit_runs_once(variant):
    # if (!test_and_set_bit(3, f)) atomic_inc(x): the bit stays set after
    # the first I/O (in test_first the skipped test leaves it as set), so
    # the guarded RMW on the shared word never runs in the window
    m = Machine(same_llc=(100.0,) * 3)
    r = run(spec("f@0:job,x@1", "test_and_set_bit(f,3),"
                 "atomic_inc(x)/if_test=0,work(100)"), m, 8, variant=variant)
    assert r["rmw_per_io"] == (1 if variant == "always" else 0)
    assert [u["accesses_per_io"] for u in r["units"]] == [0]


def test_cas_loop_on_one_cpu_no_retry_rest_plus_local_costs():
    # atomic_inc_not_zero(): a load, then one cmpxchg that succeeds
    m = Machine(atomic_local=(7.0,) * 3, load_hit=(1.5,) * 3)
    r = run(spec("r@0=1", "atomic_inc_not_zero(r),atomic_dec(r)"), m, 1,
            rest=100.0)
    assert (r["rmw_per_io"], r["retries_per_io"]) == (2, 0)
    assert r["iops"] == pytest.approx(1e9 / (100 + 1.5 + 7 + 7), rel=EXACT)
    # on 0: the load only, no RMW
    z = run(spec("r@0", "atomic_inc_not_zero(r)"), m, 1, rest=100.0)
    assert (z["rmw_per_io"], z["retries_per_io"]) == (0, 0)
    assert z["iops"] == pytest.approx(1e9 / 101.5, rel=EXACT)
    u = run(spec("r@0=5", "atomic_add_unless(r,3,5),work(10)"), m, 1,
            rest=100.0)
    assert u["rmw_per_io"] == 0


def test_cas_loop_under_contention_retries_each_attempt_an_rmw():
    # each attempt an RMW that takes the line, each failed one a retry:
    # rmw - retries is the calls (two per I/O: the inc and the dec), to
    # within the I/Os that straddle the window's ends (one per CPU)
    m = Machine(same_llc=(100.0,) * 3, handover="fifo")
    n, ios = 8, 400
    r = run(spec("r@0=1", "atomic_inc_not_zero(r),atomic_dec(r)"), m, n,
            ios=ios)
    assert r["retries_per_io"] > 0.5
    assert r["rmw_per_io"] - r["retries_per_io"] == pytest.approx(
        2, abs=2.0 * n / (n * ios))
    # the loads and the failed attempts take the line too: more
    # transfers than the plain inc and dec (one an I/O: the dec is the
    # floor's hit)
    plain = run(spec("r@0=1", "atomic_inc(r),atomic_dec(r)"), m, n, ios=ios)
    assert plain["units"][0]["transfers_per_io"] == pytest.approx(
        1, rel=EXACT)
    assert r["units"][0]["transfers_per_io"] > 2
    assert r["iops"] < plain["iops"]


def test_the_prediction_carries_the_retries():
    m = Machine(same_llc=(100.0,) * 3, handover="fifo")
    sp = spec("r@0=1", "atomic_inc_not_zero(r),atomic_dec(r)")
    p = simulate.predict(sp, m, 8, seeds=1)
    assert p["variants"]["always"]["retries_per_io"] > 0
    one = simulate.predict(sp, m, 1, seeds=1)
    assert one["variants"]["always"]["retries_per_io"] == 0


def _call(op):
    """One call of a table row, its arguments numbers (1)."""
    args = [a for a in op["args"].split(",") if a]
    vals = ["a" if a == "word" else "1" for a in args]
    return "%s(%s)" % (op["name"], ",".join(vals))


def test_every_operation_of_the_table_is_simulated():
    # the one table (build/flagcheck-pattern-ops): each row runs in the
    # simulator with the count its kind says, on a word holding 5 (so a
    # CAS loop's test, old != 0 or old != 1, always lets it try)
    ops = json.loads(subprocess.run(
        [os.path.join(helpers.BUILD, "flagcheck-pattern-ops")],
        capture_output=True, text=True, check=True).stdout)["operations"]
    assert len(ops) >= 22
    for op in ops:
        # a lock, from 0 (free), is taken and released: the pair's counts
        lock = op["name"] in ("spin_lock", "spin_unlock")
        p = subprocess.run([SIM, "--words", "a@0" if lock else "a@0=5",
                            "--pattern", "spin_lock(a),spin_unlock(a)"
                            if lock else _call(op), "--ios", "2",
                            "--variant", "always"],
                           input="1 0 0\n", capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        r = json.loads(p.stdout)
        want = (1, 1, 0) if lock else (int(op["counts"] == "rmw"),
                                       int(op["counts"] == "store"), 0)
        assert (r["rmw_per_io"], r["stores_per_io"],
                r["retries_per_io"]) == want, op["name"]
