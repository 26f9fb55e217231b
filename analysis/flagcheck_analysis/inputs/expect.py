"""A job file's `; expect:` header line: the exact counters each variant
must give, and a run's counters held against it (docs/your-patch.md):

  ; expect: always rmw/io=2 stores/io=0; test_first rmw/io<0.001

Groups separated by ';', each `VARIANT TERM [TERM ...]`; a TERM is
`COUNTER/io OP VALUE`, OP one of = <= < >= >, VALUE a decimal or N/M.
Compared in whole numbers (counter x M against N x ios), never by a test."""

import re
from collections import namedtuple
from fractions import Fraction

from . import counters, jobheader, numbers

KEY = "expect"
# the record's counts a term may name besides the model's own
# (model_stats: retries, flips, ...); ios is the denominator
TOTALS = tuple(c for c in counters.COUNTERS if c != "ios")
# a total's counts per operation (the record's "paths"), and the count
# of the same calls the other way (run / skipped)
PATH_KEYS = {"rmw": ("rmw", "skipped"), "rmw_skipped": ("skipped", "rmw"),
             "stores": ("stores", "stores_skipped"),
             "stores_skipped": ("stores_skipped", "stores"),
             "retries": ("retries", None)}
OPS = ("<=", ">=", "=", "<", ">")
# the most a per-I/O value may state: 64 operations of *65536 is 4194304
MOST = 10 ** 9
USAGE = ("'VARIANT COUNTER/io OP VALUE ...; VARIANT ...' (OP = <= < >= >, "
         "VALUE a decimal or N/M, 0..%d, COUNTER %s or one of the model's "
         "model_stats)" % (MOST, ", ".join(TOTALS)))

Term = namedtuple("Term", "counter op value text")      # value: Fraction
Expect = namedtuple("Expect", "groups where")   # {variant: (Term, ...)}

_VARIANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
_TERM = re.compile(r"([a-z_][a-z0-9_]*)/io\s*(<=|>=|=|<|>)\s*"
                   r"([0-9]+(?:\.[0-9]+)?|[0-9]+/[0-9]+)(?=\s|$)")


def _value(text):
    """The Fraction @text writes (a decimal or N/M), None past the range."""
    if len(text) > numbers.MAX_TEXT:
        return None
    num, _, den = text.partition("/")
    if den and int(den) == 0:
        return None
    v = Fraction(num) / (int(den) if den else 1)
    return v if v <= MOST else None


def _terms(text, bad):
    """The Terms of one group's text after its variant."""
    terms, at = [], 0
    for m in _TERM.finditer(text):
        if text[at:m.start()].strip():
            break
        v = _value(m.group(3))
        if v is None:
            raise bad(m.group(0))
        terms.append(Term(m.group(1), m.group(2), v,
                          "%s/io%s%s" % m.groups()))
        at = m.end()
    if not terms or text[at:].strip():
        raise bad(text[at:].strip() or text)
    return tuple(terms)


def parse(value, where):
    """The Expect of one expect line's value; FigureError naming @where
    (file:line), the part that is wrong and the form allowed."""
    def bad(part, what="is not valid"):
        return jobheader.FigureError(
            "%s: expect %s: %s %s: allowed %s" % (
                where, numbers.shown(value.strip()),
                numbers.shown(part.strip()), what, USAGE))
    groups = {}
    for part in value.split(";"):
        variant, _, rest = part.strip().partition(" ")
        if not part.strip():
            raise bad(part, "(an empty group)")
        if not _VARIANT.match(variant):
            raise bad(variant, "is not a variant's name")
        if not rest.strip():
            raise bad(variant, "has no term")
        if variant in groups:
            raise jobheader.FigureError("%s: expect names variant %s twice "
                                        "(one group a variant)"
                                        % (where, variant))
        groups[variant] = _terms(rest, bad)
    return Expect(groups, where)


def read(path):
    """The job file's Expect, None without an expect line; FigureError
    for a bad one, a second one, or one below the first section."""
    for n, body, section in jobheader.comments(path):
        if body.startswith(KEY + ":") and section is not None:
            raise jobheader.FigureError(
                "%s:%d: an expect line below %s: it belongs in the header, "
                "the comments before the first section" % (path, n, section))
    where, value = jobheader.one(path, KEY)
    return None if where is None else parse(value, where)


def check_variants(expect, allowed, model):
    """FigureError for a group whose variant @model (allowed: its
    variant= values) does not have."""
    for variant in expect.groups:
        if variant not in allowed:
            raise jobheader.FigureError(
                "%s: expect names variant %s: model=%s has %s"
                % (expect.where, variant, model, ", ".join(allowed)))


# ---- a run's counters against it ----

_HOLDS = {"=": lambda a, b: a == b, "<=": lambda a, b: a <= b,
          "<": lambda a, b: a < b, ">=": lambda a, b: a >= b,
          ">": lambda a, b: a > b}


def _total(records, counter):
    """The sum of @counter over the records (a top-level count or the
    model's model_stats one), None where a record has no such count."""
    total = 0
    for r in records:
        v = r.get(counter) if counter in TOTALS else \
            (r.get("model_stats") or {}).get(counter)
        if not isinstance(v, int) or isinstance(v, bool):
            return None
        total += v
    return total


def _per_io(count, ios):
    v = Fraction(count, ios)
    return "%d" % v if v.denominator == 1 else "%.6g" % v


def _operations(records, counter, ios):
    """The operations whose own counts make up @counter's total, in the
    order of their paths, each with its count of the other way ('1:OP 0
    (0/io; 1000 skipped)'); '' for a count no operation has."""
    if counter not in PATH_KEYS:
        return ""
    key, other = PATH_KEYS[counter]
    sums = {}
    for r in records:
        for path, counts in (r.get("paths") or {}).items():
            n, m = sums.get(path, (0, 0))
            sums[path] = (n + counts.get(key, 0), m + counts.get(other, 0))
    found = ["%s %d (%s/io%s)" % (p, n, _per_io(n, ios),
                                  "; %d %s" % (m, other) if m else "")
             for p, (n, m) in sums.items() if n or m]
    return "; from " + (", ".join(found) if found else "no operation")


def failures(expect, path, records):
    """One line per term a variant's records break: the job file, the
    variant, the term, the count expected and counted over the run's I/Os
    (the records' ios summed, fio's total_ios), and the operations whose
    counts make it up.  Records of a variant with no group: none."""
    by_variant = {}
    for r in records:
        by_variant.setdefault(r.get("variant"), []).append(r)
    out = []
    for variant, terms in expect.groups.items():
        recs = by_variant.get(variant)
        if not recs:
            continue
        ios = sum(r.get("ios", 0) for r in recs)
        for t in terms:
            total = _total(recs, t.counter)
            head = "%s: expect %s: %s" % (path, variant, t.text)
            if total is None:
                out.append("%s: the counters have no %s (they have %s and "
                           "model_stats %s)" % (
                               head, t.counter, ", ".join(TOTALS), ", ".join(
                                   sorted(recs[0].get("model_stats") or {}))
                               or "none"))
            elif ios == 0:
                out.append("%s: no I/O counted" % head)
            elif not _HOLDS[t.op](Fraction(total, ios), t.value):
                out.append("%s failed: counted %s/io (%d %s in %d I/Os)%s" % (
                    head, _per_io(total, ios), total, t.counter, ios,
                    _operations(recs, t.counter, ios)))
    return out
