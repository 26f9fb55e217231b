"""A machine: the CPUs of a box, how they are grouped, what moving a
cache line between two of them costs and its family's coherence physics
(physics, physics_range), from a profile (profile.py) or a calibration
(calibmachine.py), as loader.py's load() reads either. It answers what a
simulator asks: the CPUs --numjobs N takes (cpus), how two CPUs relate
(relation), a line's one-way cost between them (transfer_ns), a CPU's
node (node) and the local costs (local_ns). docs/machines.md, "A
profile"."""

import re

from . import profile
from .profile import LOCAL, OPTIONAL, MachineError

LINE = 64       # bytes of a cache line

WHICH = {"low": 0, "typ": 1, "high": 2}
PLACEMENT_RE = re.compile(r"^nodes=([0-9]{1,3}(?:,[0-9]{1,3})*)$")


class Machine:
    """A profile of machines/: CPUs numbered as Linux numbers them on
    such a box (cpu_order "cores-first": cores 0..C-1 of socket 0, then
    of socket 1, ..., then the second SMT thread of each in the same
    order)."""

    def __init__(self, doc, path):
        self.path = path
        self.name = doc["name"]
        self.description = doc["description"]
        self.measured_on = doc["measured_on"]
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
        # each CPU's cache (its core's L2), in lines; None: unbounded
        self.cache_lines = t["l2_kib"] * 1024 // LINE if "l2_kib" in t \
            else None

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
        has it, "atomic_far" (an uncontended RMW executed far) or
        "atomic_home" (a contended one at the line's home)."""
        if what not in LOCAL + tuple(k for k in OPTIONAL
                                     if k in self.costs):
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


def _which(which):
    if which not in WHICH:
        raise MachineError("which %r: want low, typ or high" % (which,))
    return WHICH[which]
