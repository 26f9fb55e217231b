"""The physics settings of a machine profile, each declared once in
sim/physics.def (the table flagcheck-sim compiles too), each CPU family's
typical value and range in machines/families.toml. settings() parses the
table, families() reads and validates the family file, sim_args() turns
one choice {name: value} into flagcheck-sim's arguments.
docs/machines.md, "The physics, chosen once per family"."""

import os
import re
import tomllib

from ..inputs import schema, textfile
from ..inputs.schema import Leaf, List, Obj

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))))
DEF_PATH = os.path.join(REPO, "sim", "physics.def")
FAMILIES_PATH = os.path.join(REPO, "machines", "families.toml")
KINDS = ("CHOICE", "BOOL", "NUMBER")
_STRINGS = r'((?:\s*"[^"]*")+)'
ROW_RE = re.compile(r"^PHYSICS\(\s*(\w+)\s*,\s*(\w+)\s*,%s\s*,%s\s*,%s\s*\)"
                    % ((_STRINGS,) * 3), re.M)
NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")


class PhysicsError(ValueError):
    """str() is one line naming the file, the field, the value and what is
    allowed."""


def _text(strings):
    return "".join(re.findall(r'"([^"]*)"', strings))


class Setting:
    """One row of sim/physics.def."""

    def __init__(self, name, kind, values, default, what):
        self.name, self.kind, self.what = name, kind, what
        if kind == "NUMBER":
            lo, hi = (float(x) for x in values.split())
            self.values = (lo, hi)
        elif kind == "BOOL":
            self.values = (False, True)
        else:
            self.values = tuple(values.split())
        self.default = self.parse(default)

    def parse(self, text):
        """A value as the simulator's option writes it, in Python."""
        if self.kind == "NUMBER":
            return float(text)
        if self.kind == "BOOL":
            return text == "true"
        return text

    def ok(self, v):
        if self.kind == "NUMBER":
            return isinstance(v, (int, float)) and \
                not isinstance(v, bool) and \
                self.values[0] <= v <= self.values[1]
        if self.kind == "BOOL":
            return isinstance(v, bool)
        return v in self.values

    @property
    def want(self):
        if self.kind == "NUMBER":
            return "a number from %g to %g" % self.values
        if self.kind == "BOOL":
            return "true or false"
        return " or ".join('"%s"' % v for v in self.values)

    @property
    def spec(self):
        return Leaf(self.want, self.ok)

    def arg(self, v):
        """The value as flagcheck-sim's --NAME takes it."""
        if self.kind == "NUMBER":
            return "%.6g" % float(v)
        if self.kind == "BOOL":
            return "true" if v else "false"
        return str(v)


_cache = {}


def settings(path=None):
    """{name: Setting} of the table, in its order."""
    path = path or DEF_PATH
    if path not in _cache:
        try:
            text = textfile.read_text(path, "physics table")
        except textfile.TextFileError as e:
            raise PhysicsError(str(e))
        rows = {}
        for m in ROW_RE.finditer(text):
            name, kind = m.group(1), m.group(2)
            if not NAME_RE.match(name) or kind not in KINDS or name in rows:
                raise PhysicsError("%s: row %r: want a new lower-case name "
                                   "and a kind of %s" % (path, name,
                                                         ", ".join(KINDS)))
            rows[name] = Setting(name, kind, _text(m.group(3)),
                                 _text(m.group(4)), _text(m.group(5)))
        _cache[path] = rows
    return _cache[path]


def sim_args(choice, path=None):
    """flagcheck-sim's arguments of one choice {name: value}: every setting
    of the table, in its order; a name it lacks or a bad value is refused."""
    rows = settings(path)
    for name in choice:
        if name not in rows:
            raise PhysicsError("physics %r: no such setting (settings: %s)"
                               % (name, ", ".join(rows)))
    out = []
    for name, row in rows.items():
        v = choice.get(name, schema.MISSING)
        if v is schema.MISSING or not row.ok(v):
            raise PhysicsError("physics.%s is %s: want %s" % (
                name, "missing" if v is schema.MISSING else schema.show(v),
                row.want))
        out += ["--" + name, row.arg(v)]
    return out


def sweep(row, typical, rng):
    """The values a band takes of one setting: a choice's range as it is
    written; a number's low, typical and high, once each."""
    if row.kind != "NUMBER":
        return list(rng)
    return sorted({float(rng[0]), float(typical), float(rng[-1])})


class Family:
    """One CPU family of machines/families.toml: for every setting its
    typical value, its range (sweep()) and the source."""

    def __init__(self, name, doc, rows):
        self.name = name
        self.description = doc["description"]
        self.model_words = list(doc["model_words"])
        self.typical, self.range, self.sources = {}, {}, {}
        for key, row in rows.items():
            entry = doc.get("physics", {}).get(key)
            if entry is None:       # a family that does not name it
                self.typical[key] = row.default
                self.range[key] = [row.default]
                self.sources[key] = "the simulator's default " \
                    "(sim/physics.def): no source of this family"
                continue
            self.typical[key] = entry["typical"]
            self.range[key] = sweep(row, entry["typical"],
                                    entry.get("range", [entry["typical"]]))
            self.sources[key] = entry["source"]


def _entry_spec(row):
    return Obj({"typical": row.spec, "range": List(row.spec),
                "source": schema.Leaf("a non-empty string", lambda v:
                                      isinstance(v, str) and
                                      bool(v.strip()))},
               required=("typical", "source"))


def _check_range(row, entry, field):
    rng = entry.get("range")
    if rng is None:
        return
    t = entry["typical"]
    if row.kind == "NUMBER":
        if len(rng) != 2 or not rng[0] <= t <= rng[1]:
            raise schema.Invalid(field + ".range", rng,
                                 "[low, high] with low <= typical (%g) "
                                 "<= high" % t)
    elif t not in rng or len(set(rng)) != len(rng):
        raise schema.Invalid(field + ".range", rng,
                             "distinct values, the typical %s among them"
                             % schema.show(t))


def _known(doc, fields, where):
    for k in doc if isinstance(doc, dict) else ():
        if k not in fields:
            raise schema.Invalid("%s.%s" % (where, k), doc[k],
                                 "no such field (fields: %s)"
                                 % ", ".join(fields))


def families(path=None, def_path=None):
    """{name: Family} of the family file; PhysicsError on a bad one."""
    path = path or FAMILIES_PATH
    key = (path, def_path)
    if key in _cache:
        return _cache[key]
    rows = settings(def_path)
    try:
        doc = tomllib.loads(textfile.read_text(path, "families file"))
    except textfile.TextFileError as e:
        raise PhysicsError(str(e))
    except RecursionError:
        raise PhysicsError("%s: nested too deeply: not a families file"
                           % path)
    except tomllib.TOMLDecodeError as e:
        raise PhysicsError("%s: malformed TOML (%s)" % (path, e))
    spec = Obj({
        "description": Leaf("a non-empty string", lambda v:
                            isinstance(v, str) and bool(v.strip())),
        "model_words": List(Leaf("a non-empty string", lambda v:
                                 isinstance(v, str) and bool(v))),
        "physics": Obj({k: _entry_spec(r) for k, r in rows.items()})},
        required=("description", "model_words"))
    out = {}
    for name, fam in doc.items():
        try:
            if not NAME_RE.match(name.replace("-", "_")) or \
                    not isinstance(fam, dict):
                raise schema.Invalid(name, fam, "a table named in lower "
                                     "case, digits, '-', '_'")
            for k in fam.get("physics", {}) if isinstance(
                    fam.get("physics"), dict) else ():
                if k not in rows:
                    raise schema.Invalid("%s.physics.%s" % (name, k),
                                         fam["physics"][k],
                                         "no such setting (settings: %s)"
                                         % ", ".join(rows))
            _known(fam, ("description", "model_words", "physics"), name)
            spec.check(fam, name)
            for k, entry in fam.get("physics", {}).items():
                _known(entry, ("typical", "range", "source"),
                       "%s.physics.%s" % (name, k))
            for k, entry in fam.get("physics", {}).items():
                _check_range(rows[k], entry, "%s.physics.%s" % (name, k))
        except schema.Invalid as e:
            raise PhysicsError("%s: %s" % (path, e))
        out[name] = Family(name, fam, rows)
    if not out:
        raise PhysicsError("%s: no family" % path)
    _cache[key] = out
    return out


def family_of_model(model, fams):
    """The family whose model words a CPU model string contains (the
    first in the file's order), else the one that lists none."""
    for fam in fams.values():
        if any(w in model for w in fam.model_words):
            return fam
    for fam in fams.values():
        if not fam.model_words:
            return fam
    raise PhysicsError("CPU %r: no family of machines/families.toml names "
                       "it and none is for any CPU" % model)


# a CPU model string -> the generic profile (machines/) of its family, by the vendors'
# model numbering: Intel Xeon E5 v3 Haswell-EP, v4 Broadwell-EP; Xeon
# Scalable x1xx Skylake-SP, x2xx Cascade Lake-SP, x3xx Ice Lake-SP, x4xx
# Sapphire Rapids; AMD EPYC 7xx3 Milan, 9xx4 Genoa; Ampere Altra
# (Neoverse-N1).  A model string that names no number ("AMD EPYC" in a
# VM) has no family: --machine names one.
FAMILIES = (
    (r"E5-\d{4}\w* v3", "haswell-ep-2s"),
    (r"E5-\d{4}\w* v4", "broadwell-ep-2s"),
    (r"(Platinum|Gold|Silver|Bronze) \d[12]\d\d", "skylake-sp-2s"),
    (r"(Platinum|Gold|Silver|Bronze) \d3\d\d", "icelake-sp-2s"),
    (r"(Platinum|Gold|Silver|Bronze) \d4\d\d", "sapphirerapids-2s"),
    (r"EPYC 7\d\d3", "milan-2s"),
    (r"EPYC 9\d\d4", "genoa-2s"),
    (r"Ampere Altra|Neoverse-N1", "altra-2s"),
)


def generic_profile(cpu_model):
    """The generic profile (machines/NAME.toml's NAME) of @cpu_model's
    family, None if none (the one table: FAMILIES)."""
    for pattern, name in FAMILIES:
        if re.search(pattern, cpu_model or ""):
            return name
    return None
