"""An uncontended atomic costs atomic_far where it executes far, else atomic_local."""

import pytest

from tests.analysis.standin_machine import Machine
from tests.analysis.test_machine import SMALL, write
from tests.analysis.simcase import EXACT, sim_binary, spec  # noqa: F401
from flagcheck_analysis.predict import simulate
from flagcheck_analysis.machines import loader, profile


def one_cpu_ns(mach, sp, rest=100.0):
    r = simulate.run_sim(sp, "always", mach, mach.cpus(1), "typ", rest, 0,
                         200, 50)
    return 1e9 / r["iops"]


@pytest.mark.parametrize("words", ["x@0", "x@0:job"])
def test_an_uncontended_rmw_costs_where_it_executes(words):
    # one CPU: every RMW uncontended, on a shared or its own word; the
    # barrier and the load keep their own costs
    sp = spec(words, "atomic_inc(x)*2,smp_mb(),READ_ONCE(x)")
    for atomics, rmw in (("near", 7.0), ("far", 40.0)):
        m = Machine(atomic_local=(7.0,) * 3, load_hit=(1.5,) * 3,
                    atomics=atomics)
        m.costs["atomic_far"] = (40.0,) * 3
        assert one_cpu_ns(m, sp) == pytest.approx(100 + 2 * rmw + 7 + 1.5,
                                                  rel=EXACT)


def test_a_contended_rmw_still_pays_the_transfer():
    # two CPUs on one word: each transfer serves two RMWs (the floor: the
    # holder's next one within one atomic), far or near (the far cost is
    # only the uncontended one's, and its window as long as its hit)
    sp = spec("x@0", "atomic_inc(x)")
    out = {}
    for atomics in ("near", "far"):
        m = Machine(same_llc=(100.0,) * 3, atomics=atomics)
        m.costs["atomic_far"] = (40.0,) * 3
        r = simulate.run_sim(sp, "always", m, m.cpus(2), "typ", 0.0, 0,
                             400, 100)
        out[atomics] = r["iops"]
    assert out["near"] == pytest.approx(2e9 / 100.0, rel=EXACT)
    assert out["far"] == out["near"]


def test_kunpeng_executes_far_altra_near():
    kp = loader.load("kunpeng-920-6426")
    assert (kp.family, kp.physics["atomics"], kp.physics_range["atomics"]) \
        == ("arm64-taishan-v110", "far", ["far"])
    assert [kp.local_ns("atomic_far", w) for w in ("low", "typ", "high")] \
        == [5.79, 29.0, 69.55]
    altra = loader.load("altra-2s")
    assert (altra.family, altra.physics["atomics"]) == \
        ("arm64-neoverse-n1", "home")
    for name in profile.names():
        m = loader.load(name)
        assert ("atomic_far" in m.costs) == \
            ("far" in m.physics_range["atomics"])


@pytest.mark.parametrize("old,new,message", [
    ('family = "intel-x86"', 'family = "arm64-taishan-v110"',
     "costs_ns.atomic_far is missing: want [low, typ, high]: its atomics "
     "can execute far"),
    ("load_hit =", "atomic_far = [30.0, 40.0, 50.0]\nload_hit =",
     "costs_ns.atomic_far is [30.0, 40.0, 50.0]: want no value: its "
     "atomics execute near"),
    ("jitter = 0.1", 'jitter = 0.1\natomics = "far"',
     "costs_ns.atomic_far is missing: want [low, typ, high]: its atomics "
     "can execute far"),
])
def test_the_far_cost_goes_with_far_atomics(tmp_path, old, new, message):
    path = write(tmp_path, SMALL.replace(old, new, 1))
    with pytest.raises(ValueError) as e:
        loader.load(path)
    assert str(e.value) == "%s: %s" % (path, message)


def home_machine():
    m = Machine(same_llc=(50.0,) * 3, atomic_local=(5.0,) * 3,
                load_hit=(1.0,) * 3, atomics="home")
    m.costs["atomic_home"] = (9.0,) * 3
    return m


@pytest.mark.parametrize("n", [2, 8, 64])
def test_contended_rmws_at_the_home_run_at_its_rate(n):
    # atomics at the home: an RMW on a line the CPU does not hold modified
    # alone executes there, 9 ns each, one at a time; the line moves
    # nowhere (no transfer), so N CPUs back to back get 1 / 9 ns
    r = simulate.run_sim(spec("x@0", "atomic_inc(x)"), "always",
                         home_machine(), list(range(n)), "typ", 0.0, 0, 400,
                         100)
    assert r["iops"] == pytest.approx(1e9 / 9.0, rel=EXACT)
    assert r["units"][0]["transfers_per_io"] == 0


def test_alone_a_cpu_keeps_the_line_and_its_rmws_are_near():
    r = simulate.run_sim(spec("x@0", "atomic_inc(x)"), "always",
                         home_machine(), [0], "typ", 100.0, 0, 200, 50)
    assert r["iops"] == pytest.approx(1e9 / 105.0, rel=EXACT)


def test_a_load_after_the_home_fills_from_as_far_as_the_nearest_cpu():
    # each I/O: the RMW at the home (9 ns), then a load of a line no core
    # holds (50 ns: as far as the nearest other CPU), then 2000 ns
    r = simulate.run_sim(spec("x@0", "atomic_inc(x),READ_ONCE(x),"
                              "work(2000)"), "always", home_machine(),
                         [0, 1], "typ", 0.0, 0, 200, 50)
    assert r["iops"] == pytest.approx(2e9 / 2059.0, rel=EXACT)
