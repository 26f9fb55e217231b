"""Each physics setting is declared once (sim/physics.def); every layer agrees."""

import itertools
import json
import os
import re
import subprocess

import pytest

from tests.analysis import helpers
from tests.analysis.helpers import REPO
from tests.analysis.standin_machine import Machine
from flagcheck_analysis.predict import simulate
from flagcheck_analysis.machines import loader, physics

SIM_H = os.path.join(REPO, "sim", "sim.h")


def sim(*args, matrix="2\n0 10\n10 0\n0 0\n"):
    path = os.path.join(helpers.BUILD, "flagcheck-sim")
    assert os.path.exists(path), "%s missing: run make" % path
    return subprocess.run(
        [path, "--words", "x@0",
         "--pattern", "atomic_inc(x)", "--variant", "always", "--ios", "20",
         "--warmup", "5"] + list(args), input=matrix, capture_output=True,
        text=True, timeout=60)


def test_the_table_names_each_setting_once_with_its_kind():
    rows = physics.settings()
    assert [(k, r.kind, r.values, r.default) for k, r in rows.items()][:4] \
        == [("handover", "CHOICE", ("fifo", "nearest"), "fifo"),
            ("shared_readers", "CHOICE", ("parallel", "serial"), "parallel"),
            ("line_pair", "BOOL", (False, True), False),
            ("jitter", "NUMBER", (0.0, 1.0), 0.0)]


def test_the_c_enums_follow_the_rows_order():
    # a CHOICE setting's value is its index in the row: sim.h's enum
    # sim_NAME names the same values in the same order
    with open(SIM_H) as f:
        text = f.read()
    for name, row in physics.settings().items():
        if row.kind != "CHOICE":
            continue
        m = re.search(r"enum sim_%s \{([^}]*)\}" % name, text)
        assert m, "sim.h has no enum sim_%s" % name
        consts = [c.split("=")[0].strip() for c in m.group(1).split(",")]
        assert consts == ["SIM_" + v.upper() for v in row.values]


def test_the_simulator_takes_each_value_by_the_rows_name():
    for name, row in physics.settings().items():
        values = row.values if row.kind != "NUMBER" else \
            (row.values[0], row.values[1])
        for v in values:
            p = sim("--" + name, row.arg(v))
            assert p.returncode == 0, (name, v, p.stderr)
            assert json.loads(p.stdout)["ios"] > 0


@pytest.mark.parametrize("args,message", [
    (("--handover", "random"), "--handover random: one of fifo nearest"),
    (("--shared_readers", "1"), "--shared_readers 1: one of parallel serial"),
    (("--line_pair", "1"), "--line_pair 1: one of false true"),
    (("--jitter", "1.5"), "--jitter 1.5: a number from 0 to 1"),
    (("--readers", "serial"), "--readers : unknown option"),
])
def test_a_bad_setting_is_refused_in_one_line(args, message):
    p = sim(*args)
    assert p.returncode == 2
    assert p.stderr == "flagcheck-sim: %s%s\n" % (
        message, "" if "unknown" not in message else
        " (see sim/main.c's head)")


def test_a_choice_becomes_the_simulators_arguments():
    choice = {"handover": "nearest", "shared_readers": "serial",
              "line_pair": True, "jitter": 0.25}
    rest = {k: r.default for k, r in physics.settings().items()
            if k not in choice}
    args = physics.sim_args({**choice, **rest})
    assert args[:8] == ["--handover", "nearest", "--shared_readers",
                        "serial", "--line_pair", "true", "--jitter", "0.25"]
    with pytest.raises(physics.PhysicsError) as e:
        physics.sim_args({**choice, **rest, "convoys": True})
    assert str(e.value).startswith("physics 'convoys': no such setting")
    with pytest.raises(physics.PhysicsError) as e:
        physics.sim_args({**rest, "handover": "fifo", "line_pair": 1,
                          "jitter": 0.1, "shared_readers": "parallel"})
    assert str(e.value) == "physics.line_pair is 1: want true or false"


def test_every_family_gives_every_setting_with_its_source():
    fams = physics.families()
    assert set(fams) >= {"intel-x86", "amd-x86", "arm64-taishan-v110",
                         "arm64-neoverse-n1", "other"}
    for fam in fams.values():
        for k, row in physics.settings().items():
            assert fam.typical[k] in fam.range[k]
            assert all(row.ok(v) for v in fam.range[k])
            assert "no source of this family" not in fam.sources[k], \
                (fam.name, k)


def test_the_unmeasured_choices_are_ranges_typical_as_before():
    # no measurement of any family fixes the hand-over order, the readers
    # or the jitter: each is a range; the typical values are the ones
    # every prediction ran before the ranges (fifo, parallel, 0.1)
    for fam in physics.families().values():
        assert (fam.typical["handover"], fam.range["handover"]) == \
            ("fifo", ["fifo", "nearest"])
        assert (fam.typical["shared_readers"], fam.range["shared_readers"]) \
            == ("parallel", ["parallel", "serial"])
        assert (fam.typical["jitter"], fam.range["jitter"]) == \
            (0.1, [0.0, 0.1, 0.3])
        assert fam.range["line_pair"] == [fam.name == "intel-x86"]


def test_a_calibration_takes_the_family_of_its_model_string():
    fams = physics.families()
    for model, want in (("Intel(R) Xeon(R) Gold 6248", "intel-x86"),
                        ("AMD EPYC 7763 64-Core Processor", "amd-x86"),
                        ("QEMU Virtual CPU version 2.5+", "other")):
        assert physics.family_of_model(model, fams).name == want


def test_every_point_of_a_profiles_range_runs():
    # the interface a band is built on: each point of physics_range, as
    # simulate.physics() turns it into options, is a run of the simulator
    m = loader.load("kunpeng-920-6426")
    names = list(m.physics_range)
    assert all(m.physics[k] in m.physics_range[k] for k in names)
    points = [dict(zip(names, vals)) for vals in
              itertools.product(*(m.physics_range[k] for k in names))]
    # hand-over 2 x readers 2 x jitter 3 x visit 3 (its low, typical, high)
    assert len(points) == 36
    for choice in points:
        p = sim(*simulate.physics(m, choice))
        assert p.returncode == 0, (choice, p.stderr)


def test_a_family_file_with_a_bad_value_is_refused(tmp_path):
    with open(physics.FAMILIES_PATH) as f:
        text = f.read()
    path = tmp_path / "families.toml"
    path.write_text(text.replace("range = [0.0, 0.3]", "range = [0.2, 0.3]",
                                 1))
    with pytest.raises(physics.PhysicsError) as e:
        physics.families(str(path))
    assert str(e.value) == (
        "%s: intel-x86.physics.jitter.range is [0.2, 0.3]: want [low, high] "
        "with low <= typical (0.1) <= high" % path)
    path.write_text(text.replace('typical = "fifo"', 'typical = "lifo"', 1))
    with pytest.raises(physics.PhysicsError) as e:
        physics.families(str(path))
    assert str(e.value) == ('%s: intel-x86.physics.handover.typical is '
                            '"lifo": want "fifo" or "nearest"' % path)


def test_the_standin_machine_takes_the_tables_defaults():
    m = Machine(handover="nearest")
    assert m.physics == {**{k: r.default for k, r in
                            physics.settings().items()},
                         "handover": "nearest"}
    with pytest.raises(ValueError):
        Machine(convoys=True)
