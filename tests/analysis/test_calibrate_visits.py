"""The line's visits (calibrate/visits.c): what the program writes, what the
file's reader refuses, and the contended figure beside a busy loop.

The contended figure (line RMW/s at 2 threads, the report's and
flagcheck-calibrate's) counts only the stretches where every thread ran,
so a busy loop on one of the CPUs, which leaves the other thread alone on
the line part of the time, cannot raise it."""
import copy
import json
import os
import subprocess

import pytest

from tests.analysis.helpers import BUILD, cpu_hog

from flagcheck_analysis.calibrate import calibration
from flagcheck_analysis.report import linecosts
from flagcheck_analysis.inputs import calibfile

PROGRAM = os.path.join(BUILD, "flagcheck-calibrate")
USABLE = sorted(os.sched_getaffinity(0))
# the co-running rate beside a busy loop against the same without it, back
# to back: within x1.5 either way.  Why: over back-to-back runs on the
# 2-vCPU development VM, loaded by other work, the co-running rate spread
# 122M..162M RMW/s (x1.33), both with and without the loop; the wall-time
# figure the loop inflated was x1.9..x3.6 over the co-running one.
TOLERANCE = 1.5
# the two runs compare like with like only on one placement of the vCPUs:
# a one-way transfer that moved by more than this between them is another
# machine (seen here: 10, 27 and 106 ns within minutes)
SAME_PLACEMENT = 1.5


def measure(cpus, seconds=2.0):
    p = subprocess.run(["taskset", "-c", ",".join(map(str, cpus)), PROGRAM,
                        "--seconds", str(seconds), "--max-threads", "2"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    calibfile.validate(doc, PROGRAM)
    return doc


needs_two = pytest.mark.skipif(len(USABLE) < 2 or not os.path.exists(PROGRAM),
                               reason="needs 2 CPUs and the built program")


# serial: the calibration program pinned to CPUs, measuring
@pytest.mark.serial
@needs_two
def test_visits_count_every_stretch_and_keep_the_co_running():
    doc = measure(USABLE[:2], 0.5)
    one, two = doc["visits"]
    assert (one["threads"], two["threads"]) == (1, 2)
    assert two["cpus"] == USABLE[:2]
    assert one["stretches_alone"] == 0, "alone is all there is at 1"
    for v in (one, two):
        assert 0 <= v["stretches_kept"] + v["stretches_alone"] <= \
            v["stretches"]
        assert v["rmw"] >= v["stretches_kept"] * v["stretch_rmw"]
    # alone, each kept stretch is one visit of its stretch_rmw RMWs
    assert one["rmw"] == one["stretches_kept"] * one["stretch_rmw"]
    assert one["rmw_per_visit"] is None and one["handover_ns"] is None
    if two["stretches_kept"]:
        # each kept stretch of 2 threads holds both threads' RMWs
        assert two["rmw"] > two["stretches_kept"] * two["stretch_rmw"]
        assert two["rmw_per_visit"] == pytest.approx(
            two["rmw"] / two["visits"], rel=1e-3)


def _doc():
    return {"flagcheck_calibrate": 1, "seconds": 1, "cpus": [0, 1],
            "transfer_ns": [[None, 50.0], [50.0, None]],
            "patterns": {p: [{"threads": 1, "ns_per_op": 8.0,
                              "ops_per_s": 1.25e8}] for p in calibfile.PATTERNS},
            "visits": [
                {"threads": 1, "stretch_rmw": 1024, "stretches": 10,
                 "stretches_kept": 10, "rmw": 10240, "visits": 10,
                 "seconds": 1.024e-4, "rmw_per_s": 1e8, "ns_per_rmw": 10.0,
                 "rmw_per_visit": None, "visit_ns": None,
                 "handover_ns": None},
                {"threads": 2, "stretch_rmw": 1024, "stretches": 20,
                 "stretches_alone": 0, "stretches_kept": 4, "rmw": 8192, "visits": 2048,
                 "seconds": 2.048e-4, "rmw_per_s": 4e7, "ns_per_rmw": 25.0,
                 "rmw_per_visit": 4.0, "visit_ns": 100.0,
                 "handover_ns": 60.0}]}


@pytest.mark.parametrize("field,value,want", [
    ("stretches_kept", 21, "at most stretches - stretches_alone (20)"),
    ("stretches_alone", 17, "at most stretches - stretches_alone (3)"),
    ("stretches_alone", -1, "want a whole number >= 0"),
    ("rmw", 4000, "at least stretches_kept x stretch_rmw"),
    ("rmw_per_s", 8e7, "4e+07 (the counts' quotient)"),
    ("rmw_per_visit", 0.5, "want a finite number >= 1"),
    ("rmw_per_visit", 5.0, "4 (the counts' quotient)"),
    ("handover_ns", 150.0, "at most visit_ns"),
    ("handover_ns", -1.0, "> 0"),
    ("threads", 3, "2: the points are 1..N threads"),
])
def test_the_reader_refuses_visit_figures_out_of_range(field, value, want):
    calibfile.validate(_doc(), "c.json")
    doc = copy.deepcopy(_doc())
    doc["visits"][1][field] = value
    with pytest.raises(calibfile.CalibrationError) as e:
        calibfile.validate(doc, "c.json")
    # the kept count is the one named when kept + alone pass stretches
    named = "stretches_kept" if field == "stretches_alone" and value > 0 \
        else field
    assert str(e.value).startswith("c.json: visits[1].%s is " % named)
    assert want in str(e.value)


def test_the_contended_figure_is_the_co_running_one():
    doc = _doc()
    doc["patterns"]["always"].append({"threads": 2, "ns_per_op": 4.0,
                                      "ops_per_s": 5e8})
    assert calibfile.line_rate(doc, 2) == (4e7, "co-running, 4 of 20 "
                                             "stretches")
    del doc["visits"]
    assert calibfile.line_rate(doc, 2)[0] == 5e8
    assert "wall time" in calibfile.line_rate(doc, 2)[1]


# slow: two calibrations of seconds
@pytest.mark.slow
# serial: a busy loop beside the calibration program
@pytest.mark.serial
@needs_two
def test_a_busy_loop_does_not_raise_the_contended_figure():
    """The co-running rate at 2 threads beside a busy loop pinned on the
    second CPU, against the same measured without it right before."""
    quiet = measure(USABLE[:2])
    with cpu_hog(USABLE[1]):
        busy = measure(USABLE[:2], 4.0)
    (q, b) = (quiet["visits"][1], busy["visits"][1])
    if not q["stretches_kept"] or not b["stretches_kept"]:
        pytest.skip("no stretch with both threads running (kept %d/%d, "
                    "%d/%d): the machine's other load"
                    % (q["stretches_kept"], q["stretches"],
                       b["stretches_kept"], b["stretches"]))
    if q.get("refused") or b.get("refused"):
        pytest.skip("the pair's visits were refused: %s"
                    % (q.get("refused") or b.get("refused")))
    lq, lb = quiet["transfer_ns"][0][1], busy["transfer_ns"][0][1]
    if not 1 / SAME_PLACEMENT <= lb / lq <= SAME_PLACEMENT:
        pytest.skip("the vCPUs moved between the runs: one way %.1f ns, "
                    "then %.1f ns" % (lq, lb))
    ratio = b["rmw_per_s"] / q["rmw_per_s"]
    assert 1 / TOLERANCE <= ratio <= TOLERANCE, (q, b)
    # and that is the figure the tables print
    table = linecosts.text(calibration.describe(busy))
    row = [line.split() for line in table.splitlines()
           if line.split()[:1] == ["2"]][0]
    assert linecosts._rate(b["rmw_per_s"]) in row


def test_the_reader_refuses_a_visit_shorter_than_its_pairs_one_way():
    """A visit is a hand-over and the holder's RMWs: never shorter than
    the pair's one-way cost measured around it on the same two CPUs."""
    doc = copy.deepcopy(_doc())
    doc["visits"][1].update(pair_ns_before=98.0, pair_ns_after=103.0,
                            tries=1, refused=None)
    calibfile.validate(doc, "c.json")
    doc["visits"][1].update(pair_ns_before=101.0, pair_ns_after=120.0)
    with pytest.raises(calibfile.CalibrationError) as e:
        calibfile.validate(doc, "c.json")
    assert str(e.value) == (
        "c.json: visits[1].visit_ns is 100.0: want at least the pair's "
        "one-way cost measured around it (101 ns): no hand-over is shorter "
        "(the threads did not stay on one pair of cores: calibrate again)")
    # refused by the program: its figures null, the reason said
    v = doc["visits"][1]
    v.update({k: None for k in ("rmw_per_s", "ns_per_rmw", "rmw_per_visit",
                                "visit_ns", "handover_ns")},
             tries=3, refused="a visit of 38.2 ns is shorter than the "
             "pair's one-way cost (98.1 ns)")
    calibfile.validate(doc, "c.json")


@needs_two
def test_the_pairs_visits_come_with_its_one_way_cost_around_them():
    doc = measure(USABLE[:2], 0.5)
    v = doc["visits"][1]
    assert 1 <= v["tries"] <= 3
    assert v["pair_ns_before"] > 0 and v["pair_ns_after"] > 0
    if v["refused"]:
        assert v["visit_ns"] is None and v["rmw_per_s"] is None
    elif v["visit_ns"] is not None:
        assert v["visit_ns"] >= min(v["pair_ns_before"],
                                    v["pair_ns_after"]) / 1.001


def test_a_calibration_as_a_profile_keeps_its_l2():
    """This box's cache (sysfs, host.l2_kib) bounds each simulated CPU's
    lines; without it the caches are unbounded, as before."""
    from flagcheck_analysis.machines import calibmachine
    doc = copy.deepcopy(_doc())
    doc["host"] = {"cpu_model": "AMD EPYC", "l2_kib": 1024}
    calibfile.validate(doc, "c.json")
    m = calibmachine.CalibratedMachine(doc, "c.json")
    assert m.cache_lines == 1024 * 1024 // 64
    del doc["host"]["l2_kib"]
    m = calibmachine.CalibratedMachine(doc, "c.json")
    assert m.cache_lines is None


def test_the_l2_size_is_read_from_sysfs(tmp_path):
    from flagcheck_analysis.machines import cpulist
    for i, (level, kind, size) in enumerate((("1", "Data", "48K"),
                                             ("1", "Instruction", "32K"),
                                             ("2", "Unified", "1024K"),
                                             ("3", "Unified", "32M"))):
        d = tmp_path / "cpu" / "cpu0" / "cache" / ("index%d" % i)
        d.mkdir(parents=True)
        for name, text in (("level", level), ("type", kind),
                           ("size", size)):
            (d / name).write_text(text + "\n")
    assert cpulist.l2_kib(0, str(tmp_path)) == 1024
    assert cpulist.l2_kib(1, str(tmp_path)) is None
