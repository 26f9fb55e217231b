"""The machine profile file, machines/NAME.toml: its format (SCHEMA,
schema_of: the [physics] table is the physics table's settings), what the
format cannot say (the topology's groups, a cost for every relation it
has, a source for every number) and the read of one, refused with one line
naming the file, the field, the value and what is allowed (validate,
read).  find() resolves a profile name or a file; machine.py makes the
Machine of a profile, or of a flagcheck-calibrate result."""

import os
import re
import tomllib

from ..inputs import schema, textfile
from ..inputs.schema import BOOL, Leaf, List, Map, Obj, number, whole
from . import physics

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
# a contended RMW executed at the line's home (physics.atomics "home"): a
# profile whose atomics can execute there has its time per operation
HOME = "atomic_home"
OPTIONAL = (FAR, HOME)
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
# --list-machines' "measured on" column holds it whole
MEASURED_ON_MAX = 80
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
    # what its transfer costs were measured on, in a few words
    "measured_on": Leaf("a non-empty string of at most %d characters"
                        % MEASURED_ON_MAX, lambda v: isinstance(v, str) and
                        0 < len(v.strip()) <= MEASURED_ON_MAX),
    "generic": BOOL,
    "clock_ghz": number(*CLOCK_GHZ),
    "topology": Obj({
        "sockets": whole(1, 16), "cores_per_socket": whole(1, 1024),
        "threads_per_core": whole(1, 8), "llcs_per_socket": whole(1, 1024),
        "nodes_per_socket": whole(1, 64),
        "l2_kib": whole(16, 1 << 20),
        "hops": List(List(whole(0, 2))),
        "cpu_order": _choice(("cores-first",))},
        required=("sockets", "cores_per_socket", "threads_per_core",
                  "llcs_per_socket", "nodes_per_socket", "cpu_order")),
    "costs_ns": Map(COST),
    "sources": Map(Leaf("a non-empty string",
                        lambda v: isinstance(v, str) and bool(v.strip()))),
}, required=("name", "description", "measured_on", "generic", "clock_ghz",
             "topology",
             "costs_ns", "sources"))


def families():
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
        if k not in has and k not in LOCAL + OPTIONAL:
            raise _bad(where, "costs_ns." + k, costs[k],
                       "one of " + ", ".join(RELATIONS + LOCAL + OPTIONAL))
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
        if k not in ("sources", "name", "description", "measured_on"):
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
    fams = families()
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
    atomics = [own["atomics"]] if "atomics" in own else \
        fams[doc["family"]].range.get("atomics", [])
    for cost, needs, why in (
            (FAR, "far" in atomics, "its atomics can execute far"),
            (HOME, "home" in atomics, "its contended atomics can execute "
             "at the home")):
        if needs != (cost in doc["costs_ns"]):
            raise _bad(where, "costs_ns." + cost,
                       doc["costs_ns"].get(cost, schema.MISSING),
                       "[low, typ, high]: " + why if needs else
                       "no value: " + ("its atomics execute near" if
                                       cost == FAR else "it has no such "
                                       "figure"))
    if "l2_kib" in doc["topology"] and \
            not str(doc["sources"].get("topology.l2_kib", "")).strip():
        raise _bad(where, "sources", sorted(doc["sources"]),
                   "an entry for topology.l2_kib")
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


def find(name_or_path, machines_dir=None):
    """The file of a profile name (machines_dir/NAME.toml), or the file
    given (a profile or a calibration.json); raises MachineError."""
    d = machines_dir or MACHINES_DIR
    text = str(name_or_path)
    if os.path.exists(text) or os.sep in text or \
            text.endswith((".toml", ".json")):
        return text
    if NAME_RE.match(text):
        path = os.path.join(d, text + ".toml")
        if not os.path.exists(path):
            raise MachineError("machine %r: no such file, and no profile "
                               "of that name in %s (profiles: %s)" % (
                                   text, d, ", ".join(names(d))))
        return path
    raise MachineError("machine %r: want a profile name (letters, "
                       "digits, '.', '_', '-') or a file" % text)


def read(path):
    """The validated document of the profile file at @path, named as the
    file is; raises MachineError."""
    doc = _read_toml(path)
    validate(doc, path)
    stem = os.path.splitext(os.path.basename(path))[0]
    if doc["name"] != stem:
        raise _bad(path, "name", doc["name"],
                   "the file's name without .toml (%r)" % stem)
    return doc
