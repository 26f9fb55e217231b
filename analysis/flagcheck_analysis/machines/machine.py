"""A machine profile: the CPUs of a box, how they are grouped, what moving a
cache line between two of them costs, and the coherence physics of its
CPU family.  A profile is machines/NAME.toml (every number with its
source, docs/machines.md) or a flagcheck-calibrate result
(calibration.json: its per-pair matrix is the profile).  Its physics are
its family's (machines/families.toml, machines/physics.py) but for what its
own [physics] table sets: physics (name: the typical value, what a
prediction runs) and physics_range (name: the values a band sweeps).

load() reads and validates one; a bad value is refused with one line
naming the file, the field, the value and what is allowed.  The Machine
answers what a simulator asks: the CPUs --cpus N takes (cpus), how two
CPUs relate (relation), the one-way cost of a line between them
(transfer_ns), a CPU's NUMA node (node) and the local costs (local_ns)."""

import os
import re
import tomllib

from ..inputs import schema
from ..inputs.calibfile import CalibrationError
from ..inputs import calibfile
from . import physics
from ..inputs import textfile
from ..inputs.schema import BOOL, Leaf, List, Map, Obj, number, whole

# machines/ of the source tree, or of $(PREFIX)/lib/flagcheck installed
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))))
MACHINES_DIR = os.path.join(REPO, "machines")

# relations of two CPUs, nearest first
RELATIONS = ("smt_sibling", "same_llc", "other_llc", "other_socket",
             "two_hops")
LOCAL = ("atomic_local", "load_hit")
# an uncontended RMW executed far (physics.atomics "far"): a profile whose
# atomics can be far has its cost
FAR = "atomic_far"
WHICH = {"low": 0, "typ": 1, "high": 2}
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
PLACEMENT_RE = re.compile(r"^nodes=([0-9]{1,3}(?:,[0-9]{1,3})*)$")


# a CPU's base clock: from 0.1 GHz to 10 GHz (no CPU Linux runs on is
# clocked outside that)
CLOCK_GHZ = (0.1, 10)


class MachineError(ValueError):
    """str() is one line: the file or name, the field, the value and what
    is allowed."""


def _cost_ok(v):
    return isinstance(v, list) and len(v) == 3 and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) and
        0 < x <= 1e5 for x in v) and v[0] <= v[1] <= v[2]


COST = Leaf("[low, typ, high] in ns, 0 < low <= typ <= high <= 100000",
            _cost_ok)


def _choice(values):
    return Leaf(" or ".join('"%s"' % v for v in values),
                lambda v: v in values)


def schema_of(settings):
    """The profile format, its [physics] the table's settings."""
    return Obj({
        **SCHEMA.fields, "family": Leaf("a family of machines/families.toml",
                                        lambda v: isinstance(v, str)),
        "physics": Obj({k: r.spec for k, r in settings.items()})},
        required=SCHEMA.required + ("family",))


SCHEMA = Obj({
    "name": Leaf("a name of letters, digits, '.', '_', '-'",
                 lambda v: isinstance(v, str) and bool(NAME_RE.match(v))),
    "description": Leaf("a non-empty string",
                        lambda v: isinstance(v, str) and bool(v.strip())),
    "generic": BOOL,
    "clock_ghz": number(*CLOCK_GHZ),
    "topology": Obj({
        "sockets": whole(1, 16), "cores_per_socket": whole(1, 1024),
        "threads_per_core": whole(1, 8), "llcs_per_socket": whole(1, 1024),
        "nodes_per_socket": whole(1, 64),
        "hops": List(List(whole(0, 2))),
        "cpu_order": _choice(("cores-first",))},
        required=("sockets", "cores_per_socket", "threads_per_core",
                  "llcs_per_socket", "nodes_per_socket", "cpu_order")),
    "costs_ns": Map(COST),
    "sources": Map(Leaf("a non-empty string",
                        lambda v: isinstance(v, str) and bool(v.strip()))),
}, required=("name", "description", "generic", "clock_ghz", "topology",
             "costs_ns", "sources"))


def _families():
    try:
        return physics.families()
    except physics.PhysicsError as e:
        raise MachineError(str(e))


def _spec():
    try:
        return schema_of(physics.settings())
    except physics.PhysicsError as e:
        raise MachineError(str(e))


def _bad(where, field, value, want):
    return MachineError("%s: %s" % (where, schema.Invalid(field, value,
                                                         want)))


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
        self._set_physics(_families()[doc["family"]], doc.get("physics", {}))
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
        """How CPU b relates to CPU a: "self", "smt_sibling", "same_llc",
        "other_llc", "other_socket" or "two_hops"."""
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


def _which(which):
    if which not in WHICH:
        raise MachineError("which %r: want low, typ or high" % (which,))
    return WHICH[which]


def _check_topology(doc, where):
    """What the schema cannot say: the groups divide the cores, the hop
    matrix fits the sockets, a cost for every relation the topology has
    and none for one it has not, a source for every number."""
    t = doc["topology"]
    s, c = t["sockets"], t["cores_per_socket"]
    for k in ("llcs_per_socket", "nodes_per_socket"):
        if t[k] > c or c % t[k]:
            raise _bad(where, "topology." + k, t[k],
                       "a divisor of cores_per_socket (%d)" % c)
    hops = t.get("hops")
    if hops is not None:
        if len(hops) != s or any(len(r) != s for r in hops) or any(
                hops[i][j] != hops[j][i] or (hops[i][j] == 0) != (i == j)
                for i in range(s) for j in range(s)):
            raise _bad(where, "topology.hops", hops,
                       "a symmetric %d x %d matrix, 0 on the diagonal, 1 "
                       "or 2 elsewhere" % (s, s))
    has = {"same_llc": c // t["llcs_per_socket"] > 1,
           "smt_sibling": t["threads_per_core"] > 1,
           "other_llc": t["llcs_per_socket"] > 1,
           "other_socket": s > 1 and (hops is None or any(
               1 in r for r in hops)),
           "two_hops": hops is not None and any(2 in r for r in hops)}
    costs = doc["costs_ns"]
    for k in costs:
        if k not in has and k not in LOCAL + (FAR,):
            raise _bad(where, "costs_ns." + k, costs[k],
                       "one of " + ", ".join(RELATIONS + LOCAL + (FAR,)))
    for k in LOCAL + tuple(r for r in RELATIONS if has[r]):
        if k not in costs:
            raise _bad(where, "costs_ns." + k, schema.MISSING,
                       "[low, typ, high]: this topology has that relation"
                       if k in has else "[low, typ, high]")
    for k in RELATIONS:
        if k in costs and not has[k]:
            raise _bad(where, "costs_ns." + k, costs[k],
                       "no value: this topology has no %s pair" % k)


def unsourced(doc):
    """The dotted names of the numbers of a profile document that have no
    entry in its sources (an entry for a table, "topology", covers the
    numbers in it)."""
    src = doc.get("sources") or {}
    out = []

    def walk(value, path):
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, path + [k])
        elif isinstance(value, (int, float, list)) and \
                not isinstance(value, bool):
            name = ".".join(path)
            if not any(".".join(path[:i]) in src
                       for i in range(1, len(path) + 1)):
                out.append(name)
    for k, v in doc.items():
        if k not in ("sources", "name", "description"):
            walk(v, [k])
    return out


def _known_fields(doc, spec, prefix, where):
    """Refuse a field the profile format does not have (a misspelt one
    would otherwise be read as absent)."""
    for k, v in doc.items():
        field = prefix + k
        if k not in spec.fields:
            raise _bad(where, field, v, "no such field (fields: %s)"
                       % ", ".join(prefix + f for f in spec.fields))
        if isinstance(spec.fields[k], Obj) and isinstance(v, dict):
            _known_fields(v, spec.fields[k], field + ".", where)


def validate(doc, where):
    """Raise MachineError unless doc is a valid profile."""
    if not isinstance(doc, dict):
        raise MachineError("%s: not a profile (a TOML table)" % where)
    spec = _spec()
    _known_fields(doc, spec, "", where)
    try:
        schema.check(doc, spec)
    except schema.Invalid as e:
        raise MachineError("%s: %s" % (where, e))
    fams = _families()
    if doc["family"] not in fams:
        raise _bad(where, "family", doc["family"], "one of " +
                   ", ".join(fams))
    for k in doc.get("physics", {}):     # "physics" covers the table
        if not any(str(doc["sources"].get(f, "")).strip()
                   for f in ("physics." + k, "physics")):
            raise _bad(where, "sources", sorted(doc["sources"]),
                       "an entry for physics.%s" % k)
    _check_topology(doc, where)
    own = doc.get("physics", {})
    far = "far" in ([own["atomics"]] if "atomics" in own else
                    fams[doc["family"]].range.get("atomics", []))
    if far != (FAR in doc["costs_ns"]):
        raise _bad(where, "costs_ns." + FAR,
                   doc["costs_ns"].get(FAR, schema.MISSING),
                   "[low, typ, high]: its atomics can execute far" if far
                   else "no value: its atomics execute near")
    missing = unsourced(doc)
    if missing:
        raise _bad(where, "sources", sorted(doc["sources"]),
                   "an entry for %s" % missing[0])


# the largest profile read: a regular file of at most 256 KiB (the
# repository's profiles are under 16 KiB)
PROFILE_MAX_BYTES = 256 * 1024


def _read_toml(path):
    """The TOML of profile @path: only a regular file of at most
    PROFILE_MAX_BYTES (never /dev/zero or a FIFO), UTF-8."""
    try:
        text = textfile.read_text(path, "machine profile",
                                  PROFILE_MAX_BYTES)
        text.encode("utf-8")
        return tomllib.loads(text)
    except textfile.TextFileError as e:
        raise MachineError(str(e))
    except UnicodeEncodeError as e:
        raise MachineError("%s: byte at offset %d is not UTF-8: a profile "
                           "is UTF-8 TOML" % (path, e.start))
    except RecursionError:
        raise MachineError("%s: nested too deeply: not a machine profile"
                           % path)
    except tomllib.TOMLDecodeError as e:
        raise MachineError("%s: malformed TOML (%s)" % (path, e))


def names(machines_dir=None):
    """The profiles of a machines directory, by name."""
    d = machines_dir or MACHINES_DIR
    try:
        return sorted(f[:-5] for f in os.listdir(d) if f.endswith(".toml")
                      and f != os.path.basename(physics.FAMILIES_PATH))
    except OSError:
        return []


def machines_dir_arg(text):
    """argparse type of --machines-dir: a directory that holds a profile
    (an empty list of machines is no answer)."""
    import argparse
    if not os.path.isdir(text):
        raise argparse.ArgumentTypeError("%r: not a directory (a directory "
                                         "of machine profiles)" % text)
    if not names(text):
        raise argparse.ArgumentTypeError("%r: no machine profile (NAME.toml) "
                                         "in it" % text)
    return text


def load(name_or_path, machines_dir=None):
    """The Machine of a profile name (machines_dir/NAME.toml), a profile
    file, or a flagcheck-calibrate result (calibration.json); raises
    MachineError (a ValueError) with one line."""
    d = machines_dir or MACHINES_DIR
    text = str(name_or_path)
    if os.path.exists(text) or os.sep in text or \
            text.endswith((".toml", ".json")):
        path = text
    elif NAME_RE.match(text):
        path = os.path.join(d, text + ".toml")
        if not os.path.exists(path):
            raise MachineError("machine %r: no such file, and no profile "
                               "of that name in %s (profiles: %s)" % (
                                   text, d, ", ".join(names(d))))
    else:
        raise MachineError("machine %r: want a profile name (letters, "
                           "digits, '.', '_', '-') or a file" % text)
    if path.endswith(".json"):
        from .calibmachine import CalibratedMachine
        try:
            return CalibratedMachine(calibfile.load(path), path)
        except CalibrationError as e:
            raise MachineError(str(e))
    doc = _read_toml(path)
    validate(doc, path)
    stem = os.path.splitext(os.path.basename(path))[0]
    if doc["name"] != stem:
        raise _bad(path, "name", doc["name"],
                   "the file's name without .toml (%r)" % stem)
    return Machine(doc, path)
