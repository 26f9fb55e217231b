"""Machine profiles (machines/*.toml, machines/machine.py): every profile
loads and has a source for every number, the CPUs --numjobs N takes and the
relation of two CPUs are exact on small topologies, a calibration loads as
a profile, and a bad value is refused with one line naming the file, the
field, the value and what is allowed."""

import json
import os
import tomllib

import pytest

from tests.analysis.helpers import REPO
from flagcheck_analysis.machines import loader, physics, profile

MACHINES = os.path.join(REPO, "machines")
NAMES = profile.names(MACHINES)

SMALL = """\
name = "small"
description = "2 sockets x 4 cores, SMT2, 2 L3 and 2 nodes a socket"
measured_on = "nothing: a test's"
family = "intel-x86"
generic = true
clock_ghz = 2.0

[topology]
sockets = 2
cores_per_socket = 4
threads_per_core = 2
llcs_per_socket = 2
nodes_per_socket = 2
hops = [[0, 1], [1, 0]]
cpu_order = "cores-first"

[costs_ns]
smt_sibling = [5.0, 6.0, 7.0]
same_llc = [20.0, 25.0, 30.0]
other_llc = [60.0, 70.0, 80.0]
other_socket = [100.0, 120.0, 140.0]
atomic_local = [8.0, 9.0, 10.0]
load_hit = [1.0, 1.5, 2.0]

[physics]
handover = "fifo"
shared_readers = "parallel"
line_pair = true
jitter = 0.1

[sources]
"clock_ghz" = "test"
"topology" = "test"
"costs_ns" = "test"
"physics" = "test"
"""


def write(tmp_path, text, name="small"):
    path = tmp_path / (name + ".toml")
    path.write_text(text)
    return str(path)


@pytest.fixture
def small(tmp_path):
    return loader.load(write(tmp_path, SMALL))


def test_the_published_machines_and_families_are_there():
    for name in ("xeon-4s-2014", "kunpeng-920-6426", "broadwell-ep-2s",
                 "icelake-8380-2s", "epyc-2s-256", "milan-36c",
                 "sapphirerapids-2s", "xeon-sp-4s-144",
                 "broadwell-ep-2s-40", "haswell-ep-2s", "skylake-sp-2s",
                 "icelake-sp-2s", "milan-2s", "genoa-2s", "altra-2s"):
        assert name in NAMES


@pytest.mark.parametrize("name", NAMES)
def test_every_profile_loads_by_name_and_by_path(name):
    m = loader.load(name, MACHINES)
    assert m.name == name
    assert loader.load(os.path.join(MACHINES, name + ".toml")).name == name
    assert m.total_cpus == len(m.cpus(m.total_cpus))
    assert sorted(m.cpus(m.total_cpus)) == list(range(m.total_cpus))


@pytest.mark.parametrize("name", NAMES)
def test_every_number_has_its_own_source(name):
    import tomllib
    with open(os.path.join(MACHINES, name + ".toml"), "rb") as f:
        doc = tomllib.load(f)
    assert profile.unsourced(doc) == []
    # in the shipped profiles each cost and physics field has its own
    # entry (a table-wide entry is for a user's own profile)
    for table in ("costs_ns", "physics"):
        for key in doc.get(table, {}):
            assert doc["sources"]["%s.%s" % (table, key)].strip()
    assert doc["sources"]["clock_ghz"] and doc["sources"]["topology"]


@pytest.mark.parametrize("name", NAMES)
def test_generic_profiles_say_so(name):
    m = loader.load(name, MACHINES)
    if m.generic:
        assert "generic" in m.description


@pytest.mark.parametrize("name", NAMES)
def test_physics_are_the_familys_but_what_a_profile_sets(name):
    """A shipped profile holds only what differs from its family: each
    setting it sets differs from the family's typical value; every other
    is the family's, typical and range."""
    with open(os.path.join(MACHINES, name + ".toml"), "rb") as f:
        doc = tomllib.load(f)
    m = loader.load(name, MACHINES)
    fam = physics.families()[doc["family"]]
    own = doc.get("physics", {})
    for k in physics.settings():
        if k in own:
            assert own[k] != fam.typical[k]
            assert (m.physics[k], m.physics_range[k]) == (own[k], [own[k]])
        else:
            assert (m.physics[k], m.physics_range[k]) == \
                (fam.typical[k], fam.range[k])


def test_cores_first_order_and_relations(small):
    # CPUs 0-3 socket 0, 4-7 socket 1, 8-15 their SMT siblings
    assert small.total_cpus == 16
    assert small.cpus(5) == [0, 1, 2, 3, 4]
    assert small.relation(0, 0) == "self"
    assert small.relation(0, 8) == "smt_sibling"
    assert small.relation(0, 1) == "same_llc"
    assert small.relation(0, 9) == "same_llc"
    assert small.relation(0, 2) == "other_llc"
    assert small.relation(1, 10) == "other_llc"
    assert small.relation(0, 4) == "other_socket"
    assert small.relation(15, 0) == "other_socket"
    assert [small.node(c) for c in range(16)] == \
        [0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 1, 1, 2, 2, 3, 3]


def test_transfer_and_local_costs(small):
    assert small.transfer_ns(0, 0) == 0.0
    assert small.transfer_ns(0, 8) == 6.0
    assert small.transfer_ns(0, 1, "low") == 20.0
    assert small.transfer_ns(0, 2, "high") == 80.0
    assert small.transfer_ns(0, 4) == 120.0
    assert small.local_ns("atomic_local") == 9.0
    assert small.local_ns("load_hit", "high") == 2.0
    with pytest.raises(ValueError, match="which 'mid': want low, typ or high"):
        small.transfer_ns(0, 1, "mid")
    with pytest.raises(ValueError, match="CPU 16 is not one of its CPUs 0..15"):
        small.relation(0, 16)


def test_placement_spreads_over_the_nodes_named(small):
    assert small.cpus(4, "nodes=0") == [0, 1, 8, 9]
    assert small.cpus(6, "nodes=0,2") == [0, 4, 1, 5, 8, 12]
    assert small.cpus(3, "nodes=1,0") == [2, 0, 3]
    with pytest.raises(ValueError, match=r"placement 'nodes=0' has 4 CPUs, "
                                         r"5 asked"):
        small.cpus(5, "nodes=0")
    with pytest.raises(ValueError, match="node 7 is not one of its nodes"):
        small.cpus(2, "nodes=0,7")
    with pytest.raises(ValueError, match="want nodes=N"):
        small.cpus(2, "socket=0")
    with pytest.raises(ValueError, match=r"17 CPUs: want 1..16"):
        small.cpus(17)


def test_two_hops(tmp_path):
    text = SMALL.replace("sockets = 2", "sockets = 3").replace(
        "hops = [[0, 1], [1, 0]]", "hops = [[0, 1, 2], [1, 0, 1], [2, 1, 0]]"
    ).replace("load_hit =", "two_hops = [200.0, 220.0, 240.0]\nload_hit =")
    m = loader.load(write(tmp_path, text))
    assert m.relation(0, 4) == "other_socket"
    assert m.relation(0, 8) == "two_hops"
    assert m.relation(4, 8) == "other_socket"
    assert m.transfer_ns(8, 0) == 220.0


BAD = [
    ("clock_ghz = 2.0", "clock_ghz = 0",
     "clock_ghz is 0: want a finite number >= 0.1 and <= 10"),
    ("same_llc = [20.0, 25.0, 30.0]", "same_llc = [20.0, 35.0, 30.0]",
     "costs_ns.same_llc is [20.0, 35.0, 30.0]: want [low, typ, high] in ns"),
    ('handover = "fifo"', 'handover = "random"',
     'physics.handover is "random": want "fifo" or "nearest"'),
    ("jitter = 0.1", "jitter = 2", "physics.jitter is 2: want a number "
     "from 0 to 1"),
    ('family = "intel-x86"', 'family = "vax"',
     'family is "vax": want one of intel-x86, amd-x86'),
    ("llcs_per_socket = 2", "llcs_per_socket = 3",
     "topology.llcs_per_socket is 3: want a divisor of cores_per_socket (4)"),
    ("hops = [[0, 1], [1, 0]]", "hops = [[0, 1], [2, 0]]",
     "topology.hops is [[0, 1], [2, 0]]: want a symmetric 2 x 2 matrix"),
    ("other_llc = [60.0, 70.0, 80.0]\n", "",
     "costs_ns.other_llc is missing: want [low, typ, high]: this topology "
     "has that relation"),
    ("load_hit =", "two_hops = [1.0, 2.0, 3.0]\nload_hit =",
     "costs_ns.two_hops is [1.0, 2.0, 3.0]: want no value: this topology "
     "has no two_hops pair"),
    ('"physics" = "test"\n', "",
     "sources is [\"clock_ghz\", \"costs_ns\", \"topology\"]: want an "
     "entry for physics.handover"),
    ("jitter = 0.1", "jitter = 0.1\nconvoys = true",
     "physics.convoys is true: want no such field"),
    ('cpu_order = "cores-first"', 'cpu_order = "threads-first"',
     'topology.cpu_order is "threads-first": want "cores-first"'),
    ('name = "small"', 'name = "other"',
     'name is "other": want the file\'s name without .toml (\'small\')'),
    ('measured_on = "nothing: a test\'s"\n', "",
     "measured_on is missing: want a non-empty string of at most 80 "
     "characters"),
]


@pytest.mark.parametrize("old,new,message", BAD)
def test_a_bad_value_is_refused_with_one_line(tmp_path, old, new, message):
    assert old in SMALL
    path = write(tmp_path, SMALL.replace(old, new, 1))
    with pytest.raises(ValueError) as e:
        loader.load(path)
    text = str(e.value)
    assert "\n" not in text
    assert text.startswith(path + ": ")
    assert message in text


def test_unknown_name_lists_the_profiles():
    with pytest.raises(ValueError) as e:
        loader.load("no-such-box", MACHINES)
    assert "machine 'no-such-box': no such file" in str(e.value)
    assert "icelake-8380-2s" in str(e.value)


def calibration(tmp_path):
    """A 4-CPU calibration: SMT pair 0,2 and 1,3, nodes {0,2} and {1,3}."""
    doc = {
        "flagcheck_calibrate": 1, "seconds": 1.0, "batch": 64,
        "clock": "monotonic", "cpus": [0, 1, 2, 3],
        "transfer_ns": [[None, 110.0, 8.0, 120.0],
                        [110.0, None, 115.0, 9.0],
                        [8.0, 115.0, None, None],
                        [120.0, 9.0, None, None]],
        "patterns": {
            # one thread: ops_per_s is 1e9 / ns_per_op (calibfile checks)
            "always": [{"threads": 1, "ns_per_op": 7.5,
                        "ops_per_s": 1e9 / 7.5}],
            "test_first": [{"threads": 1, "ns_per_op": 0.5,
                            "ops_per_s": 2e9}]},
        "host": {"cpu_model": "Intel(R) Xeon(R) CPU E5-2630 v4 @ 2.20GHz",
                 "nodes": {"0": [0, 2], "1": [1, 3]}, "packages": [0, 1],
                 "smt_groups": [[0, 2], [1, 3]],
                 "relation": {"0,1": "other_node", "0,2": "smt",
                              "0,3": "other_node", "1,2": "other_node",
                              "1,3": "smt", "2,3": "other_node"}}}
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_a_calibration_is_a_profile(tmp_path):
    m = loader.load(calibration(tmp_path))
    assert m.total_cpus == 4 and m.cpus(3) == [0, 1, 2]
    assert m.cpus(2, "nodes=1") == [1, 3]
    assert m.relation(0, 2) == "smt_sibling"
    assert m.relation(2, 1) == "other_socket"
    assert m.transfer_ns(0, 1) == 110.0
    assert m.transfer_ns(1, 0) == 110.0
    # an unmeasured pair: the median of its relation (110, 115, 120)
    assert m.transfer_ns(2, 3) == 115.0
    assert m.local_ns("atomic_local") == 7.5
    assert m.local_ns("load_hit") == 0.5
    assert m.clock_ghz == 2.2
    assert m.physics["line_pair"] is True
    assert [m.node(c) for c in range(4)] == [0, 1, 0, 1]


def test_a_bad_calibration_is_refused_with_one_line(tmp_path):
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps({"flagcheck_calibrate": 2}))
    with pytest.raises(ValueError) as e:
        loader.load(str(path))
    assert str(e.value) == ('%s: not a flagcheck calibration: no '
                            '"flagcheck_calibrate": 1' % path)


# ---- the job files' published machine and rest (docs/machines.md) ----

from flagcheck_analysis.inputs import jobheader, published  # noqa: E402

JOBS = os.path.join(REPO, "jobs")
PUBLISHED = sorted(
    [os.path.join(JOBS, "catalogue", f)
     for f in os.listdir(os.path.join(JOBS, "catalogue"))
     if f.endswith(".fio")] +
    [os.path.join(JOBS, "pattern", published.TWINS[n])
     for n in sorted(published.TWINS)])


def pattern_option(path, name):
    with open(path) as f:
        for line in f:
            if line.startswith(name + "="):
                return line.split("=", 1)[1].strip()
    return None


@pytest.mark.parametrize("path", PUBLISHED,
                         ids=[os.path.basename(p) for p in PUBLISHED])
def test_each_published_file_names_its_machine_and_rest(path):
    assert jobheader.read(path) is not None
    pm = jobheader.published_machine(path)
    assert pm is not None, "%s: no published-machine line" % path
    m = loader.load(pm.profile, MACHINES)
    cpus = m.cpus(pm.cpus, pm.placement)
    assert len(set(cpus)) == pm.cpus
    rest = jobheader.published_rest(path)
    assert rest is not None and rest.kind == "work"
    has_work = "work(" in pattern_option(path, "pattern")
    # "work NS" exactly where the pattern has no work(): the S1-S4 twins,
    # which stay the C models' (make bench-pattern)
    assert (rest.ns is None) == has_work
    twin = os.path.basename(os.path.dirname(path)) == "pattern"
    assert (rest.ns is not None) == twin
    rule = jobheader.rest_rule(path)
    assert rule and ("assumed:" in rule)
    assert rule.startswith(("after-fix rate:", "profile share",
                            "none applies:"))
    if rule.startswith("profile share"):
        assert jobheader.published_share(path) is not None


def test_s5_names_no_published_machine():
    s5 = os.path.join(JOBS, "pattern", "s5-bh-lru-lookup.fio")
    assert jobheader.published_machine(s5) is None
    assert jobheader.published_rest(s5) is None


def test_s1_to_s4_figures_are_read_from_their_twins():
    for number in ("S1", "S2", "S3", "S4"):
        entry = published.find(number + "-")
        fig = jobheader.read(published.twin_path(number))
        assert entry.ratio == fig.gain
    assert (published.S1_BEFORE, published.S1_AFTER) == (1.7e6, 4.0e6)
    assert published.S1_SHARE == 40.0


BAD_HEADERS = [
    ("published-machine", "icelake-8380-2s", "published-machine "
     "'icelake-8380-2s' is not valid: allowed 'PROFILE N [nodes=A[,B...]]'"),
    ("published-machine", "icelake-8380-2s 0", "(N >= 1)"),
    ("published-machine", "x 4 socket=1", "is not valid"),
    ("published-rest", "work -3", "published-rest 'work -3' is not valid: "
     "allowed 'work', 'work NS' (0 < NS <= 1e9) or 'fio'"),
    ("published-rest", "fio 300", "is not valid"),
    ("published-share", "140% f()", "(0 < P < 100)"),
]


@pytest.mark.parametrize("key,value,message", BAD_HEADERS)
def test_a_bad_header_line_is_refused_with_one_line(tmp_path, key, value,
                                                    message):
    path = tmp_path / "job.fio"
    path.write_text("; a job\n; %s: %s\n\n[global]\n" % (key, value))
    reader = {"published-machine": jobheader.published_machine,
              "published-rest": jobheader.published_rest,
              "published-share": jobheader.published_share}[key]
    with pytest.raises(jobheader.FigureError) as e:
        reader(str(path))
    assert str(e.value).startswith("%s:2: " % path)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_list_machines_says_what_each_was_measured_on(capsys):
    """Issue 48: --list-machines names, for every profile, the machines
    its transfer costs were measured on."""
    from flagcheck_analysis.cli import predict
    text = predict.list_machines(MACHINES)
    for name in NAMES:
        m = loader.load(name, MACHINES)
        line = [l for l in text.splitlines() if l.startswith(name + " ")]
        assert len(line) == 1 and line[0].endswith(m.measured_on), name


def test_docs_list_every_profile():
    with open(os.path.join(REPO, "docs", "machines.md")) as f:
        text = f.read()
    for name in NAMES:
        assert "| `%s` |" % name in text, name
