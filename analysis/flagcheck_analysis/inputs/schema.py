"""What a file the user can edit may hold, field by field: check() raises
Invalid naming the field (runs[3].line_probe.before_ns), its value and
what is allowed; the file's reader puts its path in front. A spec is a
leaf (STR, NUM, ...), Opt, OneOf, List, Map, Obj, Tuple or AtMost."""

import json

from . import numbers


MISSING = object()


class Invalid(ValueError):
    def __init__(self, field, value, want):
        self.field, self.value, self.want = field, value, want
        super().__init__("%s is %s: want %s" % (
            field or "the document",
            "missing" if value is MISSING else show(value), want))


def show(value, limit=60):
    if isinstance(value, int) and not isinstance(value, bool) and \
            not numbers.is_number(value):
        return numbers.shown(value, limit)
    try:
        text = json.dumps(value, allow_nan=True)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


class Leaf:
    def __init__(self, want, ok):
        self.want, self.ok = want, ok

    def check(self, value, field):
        if not self.ok(value):
            raise Invalid(field, value, self.want)


def _number(v):
    return numbers.is_number(v)


def number(low=None, high=None, above=None, want=None):
    """A finite number in [low, high], above `above` where given."""
    def ok(v):
        return numbers.in_range(v, low, high, above)
    parts = ([">= %g" % low] if low is not None else []) + \
        (["> %g" % above] if above is not None else []) + \
        (["<= %g" % high] if high is not None else [])
    return Leaf(want or "a finite number" + (" " + " and ".join(parts)
                                             if parts else ""), ok)


def whole(low=None, high=None):
    def ok(v):
        return numbers.in_range(v, low, high, whole=True)
    return Leaf("a whole number" + ("" if low is None else " >= %d" % low)
                + ("" if high is None else " <= %d" % high), ok)


STR = Leaf("a string", lambda v: isinstance(v, str))
BOOL = Leaf("true or false", lambda v: isinstance(v, bool))
NUM = number()
INT = whole()
COUNT = whole(0)
POSITIVE = whole(1)
ANY = Leaf("anything", lambda v: True)


class Opt:
    def __init__(self, spec):
        self.spec = spec

    def check(self, value, field):
        if value is not None:
            self.spec.check(value, field)


class OneOf:
    def __init__(self, *specs):
        self.specs = specs
        self.want = " or ".join(getattr(x, "want", "a list") for x in specs)

    def check(self, value, field):
        for spec in self.specs:
            try:
                spec.check(value, field)
                return
            except Invalid:
                pass
        raise Invalid(field, value, self.want)


class List:
    def __init__(self, spec, length=None):
        self.spec, self.length = spec, length

    def check(self, value, field):
        if not isinstance(value, list):
            raise Invalid(field, value, "a list")
        if self.length is not None and len(value) != self.length:
            raise Invalid(field, value, "a list of %d" % self.length)
        for i, v in enumerate(value):
            self.spec.check(v, "%s[%d]" % (field, i))


class Map:
    def __init__(self, spec):
        self.spec = spec

    def check(self, value, field):
        if not isinstance(value, dict):
            raise Invalid(field, value, "an object")
        for k, v in value.items():
            self.spec.check(v, "%s.%s" % (field, k) if field else k)


class Obj:
    def __init__(self, fields, required=()):
        self.fields, self.required = fields, required

    def check(self, value, field):
        if not isinstance(value, dict):
            raise Invalid(field, value, "an object")
        for k in self.required:
            if k not in value:
                raise Invalid("%s.%s" % (field, k) if field else k,
                              MISSING, getattr(self.fields[k], "want",
                                               "a value"))
        for k, spec in self.fields.items():
            if k in value:
                spec.check(value[k], "%s.%s" % (field, k) if field else k)


def check(doc, spec):
    """Raises Invalid at the first field of doc that spec does not allow."""
    spec.check(doc, "")


class Tuple:
    """A list of len(specs) items, item i as specs[i]: ["kworker/0:1",
    0.25]."""

    def __init__(self, *specs):
        self.specs = specs
        self.want = "a list of %d" % len(specs)

    def check(self, value, field):
        if not isinstance(value, list) or len(value) != len(self.specs):
            raise Invalid(field, value, self.want)
        for i, (spec, v) in enumerate(zip(self.specs, value)):
            spec.check(v, "%s[%d]" % (field, i))


class AtMost:
    """An object as `spec`, and in it each `part` key's number at most its
    `whole` key's, where both are numbers: (part, whole) in `pairs`."""

    def __init__(self, spec, pairs):
        self.spec, self.pairs = spec, pairs
        self.want = getattr(spec, "want", "an object")

    def check(self, value, field):
        self.spec.check(value, field)
        for part, whole_ in self.pairs:
            a, b = value.get(part), value.get(whole_)
            if _number(a) and _number(b) and a > b:
                raise Invalid("%s.%s" % (field, part) if field else part, a,
                              "at most %s (%s): a part of it" % (
                                  whole_, show(b)))
