"""A translated path as a model=pattern job file: the words on their
lines (a line pair each, or where pahole's layout puts them), `pattern`
and `pattern_fixed`, the `; expect:` line with the counters each variant
must give, the source, the assumptions and the skipped statements in
the header (docs/your-patch.md, "From a diff")."""

import re
from fractions import Fraction

from ..inputs import pahole
from . import items

REST_NS = 1000          # the rest of the call, where a diff gives none
RUNS = 1000             # the I/Os a job runs at least, for the bounds
_SET = ("set_bit", "__set_bit", "test_and_set_bit")
_CLEAR = ("clear_bit", "__clear_bit", "test_and_clear_bit")


def place(words, before, after, layouts):
    """{(name, side): 'NAME@LINE[+OFF][:job]'} of every word; a word a
    layout puts on another line after the patch is NAME_moved there."""
    decl, used = {}, set()
    for side, seq, layout in (("before", before, layouts and layouts[0]),
                              ("after", after, layouts and layouts[1])):
        for item in seq:
            if item.word is None or (item.word, side) in decl:
                continue
            expr, sharing = words.names[item.word]
            off = layout_offset(layout, expr) if layout else None
            decl[(item.word, side)] = (off, sharing)
    out, spots, lines_used = {}, {}, set()
    for (name, side), (off, sharing) in decl.items():
        if off is not None:
            lines_used.add(off // 64)
    free = iter(l for l in range(0, 64, 2) if l not in lines_used and
                l + 1 not in lines_used)
    for (name, side), (off, sharing) in decl.items():
        spot = (off // 64, off % 64 // 8 * 8) if off is not None else None
        if spot is None:
            spot = spots.get(name) or (next(free), 0)
        first = spots.setdefault(name, spot)
        label = name if first == spot else (name + "_moved")[:31]
        out[(name, side)] = label
        text = "%s@%d%s%s" % (label, spot[0], "+%d" % spot[1] if spot[1]
                              else "", ":job" if sharing == "job" else "")
        used.add(text)
    return out, sorted(used, key=_line_key)


def _line_key(decl):
    m = re.match(r"^\w+@(\d+)(?:\+(\d+))?", decl)
    return (int(m.group(1)), int(m.group(2) or 0))


def layout_offset(layout, expr):
    chain = [p for p in re.split(r"->|\.", re.sub(r"[&*()\s]", "", expr))
             if p]
    for i in range(len(chain)):
        off = pahole.offset(layout, chain[i:])
        if off is not None:
            return off
    return None


def renamed(seq, names, side):
    return [i._replace(word=names[(i.word, side)]) if i.word else i
            for i in seq]


def converted(seq):
    """What variant=test_first runs without pattern_fixed: each item
    with a test-first form in that form."""
    return [i._replace(tf=True) if i.row.test_first else i for i in seq]


def sequence_text(seq, rest):
    return ",".join([items.text(i) for i in seq] + ["work(%d)" % rest])


# ---- the counters each variant must give ----

def expect(seq):
    """'rmw/io=2 stores/io=0' of one variant's items (docs/your-patch.md:
    exact where each call runs it, else a bound that holds once every job
    ran RUNS I/Os)."""
    terms = []
    for counter, kind in (("rmw", "rmw"), ("stores", "store")):
        exact, upper, lower = Fraction(0), Fraction(0), Fraction(0)
        bounded = unbounded = False
        for i in seq:
            if i.row.counts != kind:
                continue
            lo, hi = _per_io(i, seq)
            if lo == hi:
                exact += lo
                continue
            lower += lo
            if hi is None:
                unbounded = True
            else:
                upper += hi
                bounded = True
        if not bounded and not unbounded:
            terms.append("%s/io=%s" % (counter, _frac(exact)))
            continue
        if not unbounded:
            terms.append("%s/io<=%s" % (counter, _frac(exact + upper)))
        if exact + lower > 0:
            terms.append("%s/io>=%s" % (counter, _frac(exact + lower)))
    return " ".join(terms)


def _per_io(item, seq):
    """(lowest, highest) runs of an item per I/O; None: no bound."""
    g = item.guards
    if item.row.loop or item.row.spin:
        return Fraction(1), None
    if "below" in g:
        return Fraction(0), Fraction(g["below"], RUNS)
    if "every" in g:
        return Fraction(0), Fraction(1, g["every"]) + Fraction(1, RUNS)
    if "every_ns" in g:
        return Fraction(0), Fraction(1)
    if "if_test" in g:
        if _never(item, seq):
            return Fraction(0), Fraction(0)
        return Fraction(0), Fraction(1, RUNS) if _settles(item, seq) else \
            Fraction(1)
    if item.tf:
        if _never(item, seq):
            return Fraction(0), Fraction(0)
        return Fraction(0), Fraction(1, RUNS) if not _undone(item, seq) \
            else Fraction(1)
    return Fraction(1), Fraction(1)


def _never(item, seq):
    """The item waits for a state its word (0 at the start) never takes:
    a test-first clear of a bit, or /if_test=1 on a bit, that no item
    sets; a test-first store of 0 to a word nothing else writes."""
    if "if_test" in item.guards:
        test = _test_before(item, seq)
        return test is not None and item.guards["if_test"] == 1 and \
            not _sets(test.word, test.args[:1], seq)
    if "bit" in item.row.args:
        return _direction(item) == 0 and \
            not _sets(item.word, item.args[:1], seq)
    if item.row.name in ("WRITE_ONCE", "atomic_set") and \
            item.args[:1] == ["0"]:
        return not any(o is not item and o.word == item.word and
                       o.row.counts in ("rmw", "store") for o in seq)
    return False


def _sets(word, bit, seq):
    return any(o.word == word and "bit" in o.row.args and
               o.args[:1] == bit and _direction(o) == 1 for o in seq)


def _test_before(item, seq):
    test = None
    for other in seq:
        if other is item:
            break
        if other.row.name in ("test_bit", "test_and_set_bit",
                              "test_and_clear_bit"):
            test = other
    return test


def _direction(item):
    name = item.op.lstrip("?")
    return 1 if name in _SET else 0 if name in _CLEAR else None


def _undone(item, seq):
    """Another item of the sequence writes the word (the same bit) the
    other way: the test-first form then runs again and again."""
    for other in seq:
        if other is item or other.word != item.word or \
                other.row.counts not in ("rmw", "store"):
            continue
        if "bit" not in item.row.args or "bit" not in other.row.args:
            return True
        if other.args[0] == item.args[0] and \
                _direction(other) != _direction(item):
            return True
    return False


def _settles(item, seq):
    """An item under /if_test=V runs once per job where the sequence
    moves the tested bit away from V and nothing moves it back."""
    test = _test_before(item, seq)
    if test is None:
        return False
    want = item.guards["if_test"]
    moves = {_direction(o) for o in seq if o.word == test.word and
             "bit" in o.row.args and o.args[:1] == test.args[:1] and
             _direction(o) is not None}
    return moves == {1 - want}


def _frac(f):
    return str(f.numerator) if f.denominator == 1 else "%d/%d" % (
        f.numerator, f.denominator)


# ---- the job file ----

GLOBAL = """\
[global]
ioengine=external:${FLAGCHECK_ENGINE}
backend=${BACKEND}
model=pattern
variant=${VARIANT}
pattern_words=%s
pattern=%s
%sflagcheck_stats=${FLAGCHECK_STATS}
filename=${FILENAME}
size=${SIZE}
rw=randread
bs=4k
iodepth=1
thread
numjobs=${NUMJOBS}
time_based
runtime=${RUNTIME}
group_reporting

[%s]
"""


def text(t):
    """The job file of a Translation (build.py)."""
    src = t.patch.source
    subject = src.subject or "(no subject in the patch)"
    funcs = ", ".join("%s()" % f for f in t.functions)
    head = _wrap("flagcheck from-diff %s: the path %s changes, as a "
                 "pattern (docs/your-patch.md, \"From a diff\")." % (
                     base(t.patch.path), funcs)) + [""]
    head += _wrap("Source: \"%s\"%s%s." % (subject, ", " + src.author if
                                          src.author else "",
                                          ", " + src.date if src.date else ""))
    head += _wrap("Commit: %s, %s, %s." % (
        "%s (\"%s\")" % (src.commit, subject) if src.commit else
        "none named in the patch", ", ".join(t.files), funcs))
    head += _wrap("Before: " + ", ".join(items.text(i) for i in t.before))
    head += _wrap("After: " + ", ".join(items.text(i) for i in t.after))
    head += ["published-figure: none: a diff gives no figure",
             "rest-rule: none applies: a diff gives no rate and no profile "
             "share; work(%d) is from-diff's rest" % REST_NS]
    head += assumed_lines(t)
    head += ["expect: always %s; test_first %s" % (
        expect(t.before), expect(t.fixed_run)), ""]
    head += ["What the diff does not give (from-diff's assumptions; edit "
             "them in the job):"]
    head += ["  " + line for a in t.assumptions for line in _wrap(a, 74)]
    if t.skips:
        head += ["Not translated (patch line: why):"]
        head += ["  " + line for s in t.skips for line in _wrap(
            "%s:%d: %s" % (base(t.patch.path), s.line, s.why), 74)]
    head += ["", "run-job defaults: NUMJOBS=cpus RUNTIME=10 SIZE=1g"]
    body = GLOBAL % (",".join(t.words), sequence_text(t.before, REST_NS),
                     "pattern_fixed=%s\n" % sequence_text(t.after, REST_NS)
                     if t.fixed else "", _section(t.functions[0]))
    return "\n".join((";" + (" " + h if h else "")).rstrip() for h in head) \
        + "\n\n" + body


def assumed_lines(t):
    """The band's `; assumed:` lines of a Translation: the calls, the rest,
    the writers, and the period of the one threshold whose interval the
    diff does not give (docs/predict.md's rule for their ranges)."""
    subject = t.patch.source.subject or "(no subject in the patch)"
    funcs = ", ".join("%s()" % f for f in t.functions)
    out = ["assumed: calls=1 (0.5..2): \"%s\"" % funcs,
           "assumed: rest=%d (%d..%d): \"%s\"" % (
               REST_NS, REST_NS // 4, REST_NS * 4, subject.replace('"', "'")),
           "assumed: writers=all (1..all): \"%s\"" % funcs]
    if t.periods:
        out.append("assumed: period=%d (%d..%d): %s" % (
            items.EVERY, items.PERIOD[0], items.PERIOD[1], ", ".join(
                "\"%s\"" % n.text.replace('"', "'") for n in t.periods)))
    return out


def base(path):
    return path.rsplit("/", 1)[-1]


def _section(func):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", func) or "path"


def _wrap(line, width=76):
    words, out, cur = line.split(" "), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            out.append(cur)
            cur = "  " + w if out else w
        else:
            cur = (cur + " " + w) if cur else w
    return out + [cur] if cur else out
