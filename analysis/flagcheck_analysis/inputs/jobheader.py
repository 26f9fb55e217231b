"""A job file's header lines that other tools read: the comments before
its first section, each `; KEY: VALUE` on one line (published-figure,
published-machine, published-rest, rest-rule, published-share,
published-stddev, assumed, pattern-twin). Each reader raises FigureError
naming file:line, the value and the forms allowed. docs/machines.md,
"Each job file's machine and rest"; the assumed lines: docs/predict.md,
"Assumed inputs: the header's ranges"."""

import os
import re
from collections import namedtuple

from . import numbers, textfile

KEY = "published-figure:"
# values: the numbers of the line as read (A, B), (R,) or (P,)
Figure = namedtuple("Figure", "gain form what values")

_NUM = r"([0-9]+(?:\.[0-9]+)?)"
_FORMS = (
    ("before -> after", re.compile(r"^%s\s*->\s*%s\s+(higher|lower)\s+(\S.*)$"
                                   % (_NUM, _NUM))),
    ("xR", re.compile(r"^x%s\s+(\S.*)$" % _NUM)),
    ("-P%", re.compile(r"^-%s%%\s+(\S.*)$" % _NUM)),
    ("+P%", re.compile(r"^\+%s%%\s+(\S.*)$" % _NUM)),
)
# no figure published (a patch of one's own): gain None, "none: why"
_NONE = re.compile(r"^none(?:\s*[:,;-]?\s+(\S.*))?$")
# the gain a figure may state: x1e-06 to x1e+06 (the job files' are x0.96
# to x47; a million-fold change is a typo, and beyond it a ratio of two
# written-out numbers overflows to an infinite gain)
GAIN = (1e-6, 1e6)
USAGE = ("'A -> B higher|lower WHAT', 'xR WHAT', '-P%% WHAT', '+P%% WHAT' "
         "(numbers > 0, -P above -100, a gain from x%g to x%g) or 'none' "
         "(nothing published)" % GAIN)


class FigureError(Exception):
    pass


def _shown(value):
    """A header line's value in a message: quoted, a long one cut."""
    return numbers.shown(value, numbers.NAME_SHOWN)


def parse(value, where):
    """The Figure of one published-figure value; FigureError names
    `where` (file:line), the value and the forms allowed."""
    value = value.strip()
    m = _NONE.match(value)
    if m:
        return Figure(None, "none", m.group(1) or "", ())
    for form, rx in _FORMS:
        m = rx.match(value)
        if not m:
            continue
        n = 2 if form == "before -> after" else 1
        nums = [numbers.from_text(g) for g in m.groups()[:n]]
        if any(not numbers.in_range(n, above=0) for n in nums):
            break
        nums = [float(n) for n in nums]
        if form == "before -> after":
            a, b = nums
            gain = b / a if m.group(3) == "higher" else a / b
        elif form == "xR":
            gain = nums[0]
        elif form == "+P%":
            gain = 1.0 + nums[0] / 100.0
        else:
            if nums[0] >= 100:
                break
            gain = 1.0 / (1.0 - nums[0] / 100.0)
        if not GAIN[0] <= gain <= GAIN[1]:
            break
        return Figure(gain, form, m.groups()[-1], tuple(nums))
    raise FigureError("%s: published-figure %s is not valid: allowed %s"
                      % (where, _shown(value), USAGE))


def comments(path):
    """[(line number, the comment's text after ';', the section above it
    or None in the header)] of the job file's ';' comment lines; the one
    read of a job file's header (FigureError where it cannot be read)."""
    try:
        text_lines = textfile.read_text(path).split("\n")
    except textfile.TextFileError as e:
        raise FigureError(str(e))
    out, section = [], None
    for n, line in enumerate(text_lines, 1):
        text = line.strip()
        if text.startswith("["):
            section = section or text
        elif text.startswith(";"):
            out.append((n, text[1:].strip(), section))
    return out


def read(path):
    """The job file's Figure, None when it has no published-figure line;
    FigureError for a bad one, a second one, or one below the first
    section (the header is the comments before [global])."""
    found = None
    for n, body, section in comments(path):
        if not body.startswith(KEY):
            continue
        where = "%s:%d" % (path, n)
        if section is not None:
            raise FigureError("%s: a published-figure line below %s: it "
                              "belongs in the header, the comments before "
                              "the first section" % (where, section))
        if found is not None:
            raise FigureError("%s: a second published-figure line (one "
                              "per job file)" % where)
        found = parse(body[len(KEY):], where)
    return found


# ---- the lines of the big-box answer (docs/machines.md) ----

Machine = namedtuple("Machine", "profile cpus placement")
Rest = namedtuple("Rest", "kind ns")
Share = namedtuple("Share", "percent function")
_PLACEMENT = re.compile(r"^nodes=[0-9]{1,3}(?:,[0-9]{1,3})*$")
_PROFILE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def lines(path, key):
    """[(where "path:line", value)] of a header key, in order."""
    return [("%s:%d" % (path, n), body[len(key) + 1:].strip())
            for n, body, section in comments(path)
            if section is None and body.startswith(key + ":")]


def one(path, key):
    found = lines(path, key)
    if len(found) > 1:
        raise FigureError("%s: a second %s line (one per job file)"
                          % (found[1][0], key))
    return found[0] if found else (None, None)


def published_machine(path):
    """The Machine of a published-machine line, None without one."""
    where, value = one(path, "published-machine")
    if where is None:
        return None
    parts = value.split()
    ok = 2 <= len(parts) <= 3 and _PROFILE.match(parts[0]) and \
        numbers.in_range(numbers.from_text(parts[1], whole=True), 1,
                         99999) and \
        (len(parts) == 2 or _PLACEMENT.match(parts[2]))
    if not ok:
        raise FigureError("%s: published-machine %s is not valid: allowed "
                          "'PROFILE N [nodes=A[,B...]]' (N >= 1)"
                          % (where, _shown(value)))
    return Machine(parts[0], int(parts[1]),
                   parts[2] if len(parts) == 3 else None)


def published_rest(path):
    """The Rest of a published-rest line: kind "work" (ns None: the
    pattern's work(ns); ns given: that rest) or "fio"; None without one."""
    where, value = one(path, "published-rest")
    if where is None:
        return None
    m = re.match(r"^(work|fio)(?:\s+([0-9]+(?:\.[0-9]+)?))?$", value)
    if not m or (m.group(1) == "fio" and m.group(2)) or \
            (m.group(2) and not numbers.in_range(
                numbers.from_text(m.group(2)), above=0, high=1e9)):
        raise FigureError("%s: published-rest %s is not valid: allowed "
                          "'work', 'work NS' (0 < NS <= 1e9) or 'fio'"
                          % (where, _shown(value)))
    return Rest(m.group(1), float(m.group(2)) if m.group(2) else None)


def rest_rule(path):
    """The text of the rest-rule line, None without one."""
    where, value = one(path, "rest-rule")
    if where is not None and not value:
        raise FigureError("%s: rest-rule is empty: say how the rest was "
                          "derived" % where)
    return value


def published_share(path):
    """The Share of a published-share line, None without one."""
    where, value = one(path, "published-share")
    if where is None:
        return None
    m = re.match(r"^%s%%\s+(\S.*)$" % _NUM, value)
    if not m or not numbers.in_range(numbers.from_text(m.group(1)),
                                     above=0, below=100):
        raise FigureError("%s: published-share %s is not valid: allowed "
                          "'P%% FUNCTION' (0 < P < 100)"
                          % (where, _shown(value)))
    return Share(float(m.group(1)), m.group(2))


def pattern_twin(path, exists=True):
    """The path of a pattern-twin line's job file (relative to @path's
    folder), None without one; FigureError where it names no .fio file
    (or, with @exists, no file there: a copy of the job file elsewhere
    still runs, and only the report needs its twin)."""
    where, value = one(path, "pattern-twin")
    if where is None:
        return None
    twin = os.path.normpath(os.path.join(os.path.dirname(path), value))
    if not value or os.path.isabs(value) or not value.endswith(".fio") or \
            (exists and not os.path.isfile(twin)):
        raise FigureError("%s: pattern-twin %s is not valid: allowed a "
                          ".fio job file relative to %s that exists"
                          % (where, _shown(value),
                             os.path.dirname(path) or "."))
    return twin


# ---- the inputs a header assumes, with their ranges (docs/predict.md) ----

# name point low high words: point, low, high numbers (placement: names;
# writers: whole numbers or "all"); words the source's words quoted on the
# line, at least one
Assumed = namedtuple("Assumed", "name point low high words where")
PLACEMENTS = ("compact", "spread")
# writers=all: every job runs the writing path (pattern_writers=0), above
# every count
ALL = "all"
# the number each assumed input may take: (kind, lowest, highest)
ASSUMED = {"cpus": ("int", 1, 100000), "calls": ("num", 0.001, 1000.0),
           "rest": ("num", 0.001, 1e9), "placement": ("name", None, None),
           "writers": ("writers", 1, 100000), "period": ("int", 1, 10 ** 9)}
_ASSUMED = re.compile(r"^([a-z]+)=(\S+)\s+\((\S+?)\.\.(\S+?)\)\s*:\s*(\".*)$")
_WORDS = re.compile(r"^\"([^\"]+)\"(?:\s*,\s*\"([^\"]+)\")*$")
ASSUMED_USAGE = ("'NAME=V (LO..HI): \"source's words\"', NAME cpus "
                 "(1..100000), calls (0.001..1000), rest (ns), placement "
                 "(compact..spread), writers (1..100000 or all: every job) "
                 "or period (1..1e9: the N of /every=N or the T of "
                 "/every_ns=T), LO <= V <= HI")


def _assumed_value(kind, text, lo, hi):
    """The number (or name) of one value; None where it is not allowed."""
    if kind == "name":
        return text if text in PLACEMENTS else None
    if kind == "writers":
        if text == ALL:
            return text
        kind = "int"
    v = numbers.from_text(text, whole=kind == "int")
    return v if numbers.in_range(v, lo, hi) else None


def _order(v):
    """A value's place in its range: "all" above every count."""
    return float("inf") if v == ALL else v


def parse_assumed(value, where):
    """The Assumed of one assumed line's value; FigureError naming
    `where`, the value and the form allowed."""
    m = _ASSUMED.match(value.strip())
    bad = FigureError("%s: assumed %s is not valid: allowed %s"
                      % (where, _shown(value), ASSUMED_USAGE))
    if not m or m.group(1) not in ASSUMED or not _WORDS.match(m.group(5)):
        raise bad
    kind, lo, hi = ASSUMED[m.group(1)]
    vals = [_assumed_value(kind, t, lo, hi) for t in m.group(2, 3, 4)]
    if None in vals:
        raise bad
    point, low, high = vals
    if kind == "name":
        if (low, high) != PLACEMENTS:
            raise bad
    elif not _order(low) <= _order(point) <= _order(high):
        raise bad
    words = tuple(re.findall(r"\"([^\"]+)\"", m.group(5)))
    return Assumed(m.group(1), point, low, high, words, where)


def assumed(path):
    """{name: Assumed} of the header's assumed lines; FigureError for a
    bad one or a second line of one name."""
    out = {}
    for where, value in lines(path, "assumed"):
        a = parse_assumed(value, where)
        if a.name in out:
            raise FigureError("%s: a second assumed %s line (one per name)"
                              % (where, a.name))
        out[a.name] = a
    return out


def published_stddev(path):
    """The published figure's stated %stddev as a fraction, None without
    a published-stddev line."""
    where, value = one(path, "published-stddev")
    if where is None:
        return None
    m = re.match(r"^%s%%$" % _NUM, value)
    if not m or not numbers.in_range(numbers.from_text(m.group(1)),
                                     above=0, below=100):
        raise FigureError("%s: published-stddev %s is not valid: allowed "
                          "'P%%' (0 < P < 100)" % (where, _shown(value)))
    return float(m.group(1)) / 100.0
