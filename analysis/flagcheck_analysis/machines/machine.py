"""A machine: the CPUs of a box, how they are grouped, what moving a
cache line between two of them costs, and the coherence physics of its
CPU family, from a profile (machines/NAME.toml, read by profile.py; every
number with its source, docs/machines.md) or a flagcheck-calibrate result
(calibration.json: its per-pair matrix is the profile).  Its physics are
its family's (machines/families.toml, machines/physics.py) but for what its
own [physics] table sets: physics (name: the typical value, what a
prediction runs) and physics_range (name: the values a band sweeps).

load() reads one; a bad value is refused with one line naming the file,
the field, the value and what is allowed.  The Machine answers what a
simulator asks: the CPUs --cpus N takes (cpus), how two CPUs relate
(relation), the one-way cost of a line between them (transfer_ns), a
CPU's NUMA node (node) and the local costs (local_ns)."""

import os
import re
import statistics

from ..inputs import calibfile
from ..inputs.calibfile import CalibrationError
from . import physics, profile
# RELATIONS: what relation() answers besides "self", nearest first
from .profile import FAR, LOCAL, RELATIONS, MachineError  # noqa: F401

WHICH = {"low": 0, "typ": 1, "high": 2}
PLACEMENT_RE = re.compile(r"^nodes=([0-9]{1,3}(?:,[0-9]{1,3})*)$")
# a calibration's relations (calibrate/calibration.py) as a profile's
CALIBRATION_RELATIONS = {"smt": "smt_sibling", "same_node": "same_llc",
                         "other_node": "other_socket"}


class Machine:
    """A profile of machines/: CPUs numbered as Linux numbers them on
    such a box (cpu_order "cores-first": cores 0..C-1 of socket 0, then
    of socket 1, ..., then the second SMT thread of each in the same
    order)."""

    def __init__(self, doc, path):
        self.path = path
        self.name = doc["name"]
        self.description = doc["description"]
        self.generic = doc["generic"]
        self.clock_ghz = float(doc["clock_ghz"])
        self.sources = dict(doc["sources"])
        self._set_physics(profile.families()[doc["family"]],
                          doc.get("physics", {}))
        self.costs = {k: [float(x) for x in v]
                      for k, v in doc["costs_ns"].items()}
        t = doc["topology"]
        self.sockets = t["sockets"]
        self.cores = t["cores_per_socket"]
        self.threads = t["threads_per_core"]
        self.llcs = t["llcs_per_socket"]
        self.nodes_per_socket = t["nodes_per_socket"]
        self.hops = t.get("hops") or [[0 if i == j else 1
                                       for j in range(self.sockets)]
                                      for i in range(self.sockets)]
        self.total_cpus = self.sockets * self.cores * self.threads

    def _set_physics(self, family, own):
        """The family's physics, a setting the profile sets fixed to its
        value (typical and the only one in the range)."""
        self.family = family.name
        self.physics = dict(family.typical)
        self.physics_range = {k: list(v) for k, v in family.range.items()}
        self.physics_sources = dict(family.sources)
        for k, v in own.items():
            self.physics[k] = v
            self.physics_range[k] = [v]
            self.physics_sources[k] = self.sources.get(
                "physics." + k, self.sources.get("physics"))

    # ---- the numbering ----

    def _where(self, cpu):
        """(socket, core in its socket, thread) of a CPU number."""
        if not isinstance(cpu, int) or not 0 <= cpu < self.total_cpus:
            raise MachineError("%s: CPU %r is not one of its CPUs 0..%d"
                               % (self.name, cpu, self.total_cpus - 1))
        per_thread = self.sockets * self.cores
        core = cpu % per_thread
        return core // self.cores, core % self.cores, cpu // per_thread

    def node(self, cpu):
        """The NUMA node of a CPU: nodes_per_socket equal slices of each
        socket's cores."""
        s, c, _ = self._where(cpu)
        return s * self.nodes_per_socket + \
            c // (self.cores // self.nodes_per_socket)

    @property
    def nodes(self):
        return self.sockets * self.nodes_per_socket

    def _llc(self, cpu):
        s, c, _ = self._where(cpu)
        return s, c // (self.cores // self.llcs)

    def relation(self, a, b):
        """How CPU b relates to CPU a: "self" or one of RELATIONS
        ("smt_sibling", "same_llc", "other_llc", "other_socket",
        "two_hops")."""
        sa, ca, _ = self._where(a)
        sb, cb, _ = self._where(b)
        if a == b:
            return "self"
        if sa != sb:
            return "two_hops" if self.hops[sa][sb] == 2 else "other_socket"
        if ca == cb:
            return "smt_sibling"
        return "same_llc" if self._llc(a) == self._llc(b) else "other_llc"

    def transfer_ns(self, a, b, which="typ"):
        """The one-way cost of moving a modified line from CPU a to CPU b
        (0 for the same CPU)."""
        rel = self.relation(a, b)
        return 0.0 if rel == "self" else self.costs[rel][_which(which)]

    def local_ns(self, what, which="typ"):
        """"atomic_local" (an uncontended lock-prefixed RMW on a line this
        CPU holds), "load_hit" (a load hitting L1) or, where the profile
        has it, "atomic_far" (an uncontended RMW executed far)."""
        if what not in LOCAL + ((FAR,) if FAR in self.costs else ()):
            raise MachineError("%s: local cost %r: want %s"
                               % (self.name, what, " or ".join(LOCAL)))
        return self.costs[what][_which(which)]

    # ---- the CPUs N takes ----

    def _all_cpus(self):
        return list(range(self.total_cpus))

    def cpus(self, n, placement=None):
        """The n CPUs a run of n jobs takes: the first n in the profile's
        order, or with placement "nodes=A,B,...": spread over those nodes,
        one from each in turn (each node's CPUs in the profile's order)."""
        order = self._all_cpus()
        if not isinstance(n, int) or isinstance(n, bool) or \
                not 1 <= n <= len(order):
            raise MachineError("%s: %r CPUs: want 1..%d"
                               % (self.name, n, len(order)))
        if placement is None:
            return order[:n]
        m = PLACEMENT_RE.match(str(placement))
        if not m:
            raise MachineError("%s: placement %r: want nodes=N[,N...]"
                               % (self.name, placement))
        nodes = [int(x) for x in m.group(1).split(",")]
        known = sorted({self.node(c) for c in order})
        for nd in nodes:
            if nd not in known or nodes.count(nd) > 1:
                raise MachineError(
                    "%s: placement %r: node %d %s (nodes: %s)"
                    % (self.name, placement, nd, "twice" if nd in known
                       else "is not one of its nodes",
                       ",".join(map(str, known))))
        per_node = [[c for c in order if self.node(c) == nd]
                    for nd in nodes]
        out, i = [], 0
        while len(out) < n and any(i < len(p) for p in per_node):
            out += [p[i] for p in per_node if i < len(p)]
            i += 1
        if len(out) < n:
            raise MachineError("%s: placement %r has %d CPUs, %d asked"
                               % (self.name, placement, len(out), n))
        return out[:n]


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
        self.generic = False
        m = re.search(r"@\s*([0-9.]+)\s*GHz", model)
        self.clock_ghz = float(m.group(1)) if m else None
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


def _which(which):
    if which not in WHICH:
        raise MachineError("which %r: want low, typ or high" % (which,))
    return WHICH[which]


def load(name_or_path, machines_dir=None):
    """The Machine of a profile name (machines_dir/NAME.toml), a profile
    file, or a flagcheck-calibrate result (calibration.json); raises
    MachineError (a ValueError) with one line."""
    path = profile.find(name_or_path, machines_dir)
    if path.endswith(".json"):
        try:
            return CalibratedMachine(calibfile.load(path), path)
        except CalibrationError as e:
            raise MachineError(str(e))
    return Machine(profile.read(path), path)
