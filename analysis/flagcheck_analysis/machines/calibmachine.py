"""A flagcheck-calibrate result (calibration.json) taken as a machine
profile (CalibratedMachine), and a calibration whose transfers are the
runs' own line probes (Probed): machines/machine.py's Machine with its
figures from a measurement, every number of it read through the
calibration's schema (inputs/calibfile.py) and inputs/numbers.py."""

import os
import re
import statistics
from collections import namedtuple

from ..inputs import lineprobes, numbers
from . import physics
from .machine import Machine, _which
from .profile import CLOCK_GHZ, MachineError

# a calibration's relations (calibrate/calibration.py) as a profile's
CALIBRATION_RELATIONS = {"smt": "smt_sibling", "same_node": "same_llc",
                         "other_node": "other_socket"}


# a calibration this far from the runs' own line probes is set aside for
# them (flagcheck predict, the report's heatmap)
DISAGREE = 2.0

# cal_ns: the calibration's figure between the runs' CPUs (the median over
# their pairs); probe_ns: the median of the runs' probes, n of them;
# pairs: the CPU pairs probed; set_aside: more than DISAGREE apart
ProbeCheck = namedtuple("ProbeCheck", "cal_ns probe_ns n pairs set_aside")


def runs_probes(entries):
    """(the runs' line probe values in ns, sorted; the CPU pairs they
    measured) of the manifest run @entries."""
    vs, pairs = [], set()
    for e in entries:
        v = lineprobes.values(e)
        if v:
            vs += v
            pairs.add(tuple(e["line_probe"].get("cpus") or ()))
    return sorted(vs), sorted(p for p in pairs if len(p) == 2)


def check_probes(mach, entries):
    """The ProbeCheck of machine @mach (a calibration) against the line
    probes of the manifest run @entries, or None where they have none
    (or probed CPUs @mach does not have)."""
    vs, pairs = runs_probes(entries)
    if not vs or not pairs:
        return None
    try:
        cal = sorted(mach.transfer_ns(a, b) for a, b in pairs)
    except (KeyError, IndexError, ValueError):
        return None
    cal_ns, probe = cal[len(cal) // 2], vs[len(vs) // 2]
    return ProbeCheck(cal_ns, probe, len(vs), pairs,
                      max(cal_ns, probe) > DISAGREE * min(cal_ns, probe))


class CalibratedMachine(Machine):
    """A flagcheck-calibrate result as a profile: its usable CPUs in the
    calibration's order, the measured one-way figure of each pair (a pair
    it did not measure: the median of its relation), its local costs from
    the patterns at one thread; the relations as the calibration names
    them (an SMT sibling, the same node taken as the same last-level
    cache, another node as another socket)."""

    def __init__(self, doc, path):
        self.path = path
        self.name = os.path.splitext(os.path.basename(path))[0]
        host = doc.get("host") or {}
        model = host.get("cpu_model", "unknown")
        self.description = "measured by flagcheck-calibrate: %s, %d CPUs" \
            % (model, len(doc["cpus"]))
        self.measured_on = "this calibration's box: %s" % model
        self.generic = False
        m = re.search(r"@\s*([0-9.]+)\s*GHz", model)
        self.clock_ghz = _model_clock(m.group(1), path) if m else None
        where = "measured by flagcheck-calibrate (%s), CPU %s" % (path,
                                                                  model)
        self.sources = {"costs_ns": where, "topology": where,
                        "clock_ghz": "the CPU model string" if m else
                        "not in the CPU model string: none"}
        try:
            self._set_physics(physics.family_of_model(
                model, physics.families()), {})
        except physics.PhysicsError as e:
            raise MachineError(str(e))
        self._list = list(doc["cpus"])
        if len(set(self._list)) != len(self._list):
            raise MachineError("%s: cpus %s: a CPU twice: want each CPU "
                               "once" % (path, self._list))
        self.total_cpus = len(self._list)
        self._index = {c: i for i, c in enumerate(self._list)}
        self._matrix = doc["transfer_ns"]
        rel = host.get("relation") or {}
        self._rel = {}
        for key, name in rel.items():
            if not re.fullmatch(r"[0-9]{1,4},[0-9]{1,4}", str(key)):
                raise MachineError("%s: host.relation key %r: want "
                                   "'CPU,CPU'" % (path, key))
            a, b = (int(x) for x in key.split(","))
            self._rel[(a, b)] = self._rel[(b, a)] = \
                CALIBRATION_RELATIONS.get(name, "same_llc")
        self._node = {c: int(nd) for nd, cs in (host.get("nodes") or
                                                {}).items() for c in cs}
        groups = {}
        for i, a in enumerate(self._list):
            for j, b in enumerate(self._list):
                v = self._matrix[i][j]
                if i < j and v is not None:
                    groups.setdefault(self.relation(a, b), []).append(v)
        if len(self._list) > 1 and not groups:
            raise MachineError("%s: transfer_ns: no pair of CPUs measured: "
                               "want a number for at least one pair" % path)
        self._median = {k: statistics.median(v) for k, v in groups.items()}
        # a pair of a relation no pair of which was measured: all pairs'
        self._any = statistics.median([x for v in groups.values()
                                       for x in v]) if groups else 0.0
        self.costs = {k: [min(v), self._median[k], max(v)]
                      for k, v in groups.items()}
        pats = doc["patterns"]
        for what, pat in (("atomic_local", "always"),
                          ("load_hit", "test_first")):
            pts = [p for p in pats[pat] if p["threads"] == 1]
            if pts:
                self.costs[what] = [pts[0]["ns_per_op"]] * 3
        # each CPU's cache: its L2 (sysfs); None: unbounded
        self.cache_lines = int(host["l2_kib"] * 1024 // 64) \
            if host.get("l2_kib") else None
        if self.cache_lines:
            self.sources["topology.l2_kib"] = "sysfs (%s)" % path

    def _where(self, cpu):
        if cpu not in self._index:
            raise MachineError("%s: CPU %r is not one it measured (%s)"
                               % (self.name, cpu, self._list))
        return cpu

    def _all_cpus(self):
        return list(self._list)

    def node(self, cpu):
        self._where(cpu)
        return self._node.get(cpu, 0)

    @property
    def nodes(self):
        return len(set(self._node.values()) or {0})

    def relation(self, a, b):
        self._where(a)
        self._where(b)
        if a == b:
            return "self"
        return self._rel.get((a, b), "same_llc")

    def transfer_ns(self, a, b, which="typ"):
        _which(which)
        rel = self.relation(a, b)
        if rel == "self":
            return 0.0
        v = self._matrix[self._index[a]][self._index[b]]
        return float(v) if v is not None else \
            self._median.get(rel, self._any)

    def local_ns(self, what, which="typ"):
        if what not in self.costs:
            raise MachineError("%s: no %r: the calibration has no pattern "
                               "point at 1 thread" % (self.name, what))
        return super().local_ns(what, which)


class Probed:
    """A calibration @mach whose one-way transfer between any two of its
    CPUs is the runs' own line probes (@ns: each probe, in ns) in place of
    its measured matrix: their lowest, median and highest as the low, typ
    and high costs; everything else (CPUs, nodes, local costs, physics)
    is @mach's.  For a calibration the runs' probes contradict: they
    measured the line while the runs ran, it before them."""

    def __init__(self, mach, ns):
        s = sorted(float(x) for x in ns)
        if not s or s[0] <= 0:
            raise MachineError("%s: line probes %r: want one or more "
                               "figures > 0 ns" % (mach.name, ns))
        self._mach = mach
        self.probes = (s[0], s[len(s) // 2], s[-1])
        self.name = "%s, transfers from the runs' line probes" % mach.name

    def __getattr__(self, name):
        return getattr(self._mach, name)

    def transfer_ns(self, a, b, which="typ"):
        if self._mach.relation(a, b) == "self":
            return 0.0
        return self.probes[_which(which)]


def _model_clock(text, path):
    """The clock a calibration's CPU model string states ("@ 2.60GHz"),
    in the range of a profile's clock_ghz."""
    try:
        return numbers.number(text, "%s: host.cpu_model's clock" % path,
                              CLOCK_GHZ[0], CLOCK_GHZ[1],
                              want="a clock of %g to %g GHz" % CLOCK_GHZ)
    except numbers.NumberError as e:
        raise MachineError(str(e))
