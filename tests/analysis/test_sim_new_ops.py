"""atomic_add_return, atomic_sub_return and WRITE_ONCE_MAX in the
simulator against closed forms: on one CPU IOPS = 1 / (rest + local
costs); a watermark's test-first form loads once the word holds the
highest value; on two CPUs an add_return on a shared word costs one
transfer per I/O (docs/pattern.md, docs/predict.md)."""

import pytest

from tests.analysis.simcase import EXACT, run, sim_binary, spec  # noqa: F401
from tests.analysis.standin_machine import Machine


def test_add_and_sub_return_on_one_cpu_are_one_rmw_each():
    m = Machine(atomic_local=(7.0,) * 3, load_hit=(1.5,) * 3)
    sp = spec("u@0", "atomic_add_return(u,3),atomic_sub_return(u,1),"
              "work(100)")
    r = run(sp, m, 1, rest=50.0)
    assert r["iops"] == pytest.approx(1e9 / (50 + 100 + 7 + 7), rel=EXACT)
    assert r["rmw_per_io"] == 2 and r["stores_per_io"] == 0


def test_watermark_always_stores_every_call():
    m = Machine(atomic_local=(7.0,) * 3, load_hit=(1.5,) * 3)
    r = run(spec("w@0", "WRITE_ONCE_MAX(w,job),work(100)"), m, 1, rest=0.0)
    assert r["stores_per_io"] == 1 and r["rmw_per_io"] == 0
    assert r["iops"] == pytest.approx(1e9 / (100 + 1.5), rel=EXACT)


def test_watermark_test_first_is_a_load_once_it_stopped_rising():
    # one CPU, value 1 (job 1) over a word starting at 0: one store in the
    # warm-up, then every call a load of a word that holds 1
    m = Machine(atomic_local=(7.0,) * 3, load_hit=(1.5,) * 3)
    r = run(spec("w@0", "WRITE_ONCE_MAX(w,job),work(100)"), m, 1,
            variant="test_first", rest=0.0)
    assert r["stores_per_io"] == 0
    assert r["iops"] == pytest.approx(1e9 / (100 + 1.5), rel=EXACT)


def test_add_return_on_a_shared_word_is_one_transfer_an_io():
    m = Machine(same_llc=(80.0,) * 3, handover="fifo")
    r = run(spec("u@0", "atomic_add_return(u,1)"), m, 2)
    # no rest: the holder's next one is the floor's hit, two a transfer
    assert r["units"][0]["transfers_per_io"] == pytest.approx(0.5, rel=EXACT)
    assert r["iops"] == pytest.approx(2e9 / 80.0, rel=EXACT)
