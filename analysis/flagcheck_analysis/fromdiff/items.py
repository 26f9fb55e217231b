"""One side of a path as the grammar's items: each step's word, bit and
values resolved, its guards turned into the operation's test-first form
('?'), /if_test after a test of a bit, /below, /every_ns or /every; what
a guard cannot say in the grammar is said in a line of its own, never
dropped in silence (docs/your-patch.md, "From a diff")."""

import re
from collections import namedtuple

from . import guards, kernelmacros, kernelnames

Item = namedtuple("Item", "op tf word args guards line row")
# what the translation assumed or skipped: the patch line and the text
Note = namedtuple("Note", "line text")
# the interval of a time check the diff does not give, as calls: one in
# EVERY calls runs what it guards (an order of magnitude), written as the
# band's `; assumed: period=` line with its range PERIOD (a tenth of it to
# ten times it)
EVERY = 100
PERIOD = (EVERY // 10, EVERY * 10)
# a bound on a count the diff names but does not give (num_online_cpus())
BOUND = 64
_U64 = 1 << 64
_READS = ("test_bit", "READ_ONCE", "atomic_read")


class Words:
    """The shared words of both sides, named from the expressions the
    calls touch; the bits each word's operations use."""

    def __init__(self):
        self.names = {}         # name -> (expression, sharing)
        self.bits = {}          # name -> {bit expression: number}
        self.notes = []

    def word(self, expr, sharing, line):
        name = word_name(expr)
        if name not in self.names:
            self.names[name] = (expr, sharing or ("job" if re.search(
                r"\b(this_cpu_ptr|per_cpu_ptr|raw_cpu_ptr)\b", expr)
                else "all"))
        return name

    def bit(self, name, expr, line):
        expr = expr.strip()
        value = _number(expr)
        if value is None:
            value = kernelnames.constant(expr)
        used = self.bits.setdefault(name, {})
        if value is not None and 0 <= value <= 63:
            used[expr] = value
            return value
        if expr not in used:
            free = [b for b in range(64) if b not in used.values()]
            used[expr] = free[0]
            self.notes.append(Note(line, "bit `%s` of %s: not a constant "
                                   "the table knows: bit %d" % (
                                       expr, name, free[0])))
        return used[expr]


def word_name(expr):
    """`&mapping->flags` -> mapping_flags, `mm_cpumask(next)` ->
    mm_cpumask_next: the last two names of the member chain, at most 31
    characters (the grammar's)."""
    s = re.sub(r"\s+", "", expr)
    s = re.sub(r"\((?:const|struct|unsigned|long|int|\w+_t)\b[^()]*\*?\)",
               "", s)
    s = re.sub(r"\[[^\]]*\]", "", s)
    s = re.sub(r"^[&*(]+|\)+$", "", s)
    s = re.sub(r"(\w+)\(([^()]*)\)", lambda m: m.group(1) + "_" +
               re.sub(r"\W+", "_", m.group(2)), s)
    s = re.split(r"[+\-]\w*$", s)[0] if not re.search(r"->|\.", s[-3:]) \
        else s
    parts = [p for p in re.split(r"->|\.|[()&*]+", s) if p]
    parts = [re.sub(r"\W", "_", p).strip("_") for p in parts if
             re.sub(r"\W", "", p)]
    name = "_".join(parts[-2:]) if parts else "word"
    if len(name) > 31:
        name = parts[-1][:31]
    return name if re.match(r"^[A-Za-z_]", name) else "w_" + name[:29]


def _number(text):
    text = text.strip().rstrip("uUlL")
    neg = text.startswith("-")
    text = text.lstrip("-").strip()
    try:
        v = int(text, 0)
    except ValueError:
        return None
    return (_U64 - v) % _U64 if neg else v


class Side:
    """The items of one side's Refs (translate.Ref)."""

    def __init__(self, refs, words):
        self.refs, self.words, self.notes = refs, words, []
        self.items = []
        # the time checks given EVERY (Notes: the condition's text), and
        # the /every values the diff itself gives (a per-CPU batch)
        self.periods, self.given_every = [], set()

    def note(self, line, text):
        n = Note(line, text)
        if n not in self.notes:
            self.notes.append(n)

    def build(self):
        self.prefer = guards.wanted([lit for lit, _ in r.lits]
                                    for r in self.refs)
        cons = [self._constraints(r) for r in self.refs]
        uses = {}
        for c in cons:
            for x in c or ():
                if x.kind == "bit":
                    uses[x.call] = uses.get(x.call, 0) + 1
        absorbed = set()
        plans = []
        for ref, c in zip(self.refs, cons):
            plans.append(None if c is None else
                         self._plan(ref, c, uses, absorbed))
        for ref, plan in zip(self.refs, plans):
            if plan is None:
                continue
            if ref.call is not None and ref.call.text in absorbed and \
                    ref.step.op in _READS:
                continue
            if ref.note:
                self.note(ref.line, ref.note)
            self._emit(ref, plan)
        return self.items

    def _constraints(self, ref):
        out = []
        for lit, ctx in ref.lits:
            c = guards.classify(lit, ctx, self.prefer)
            if c.kind == "off":
                self.note(_line(ref), "%s: not on the path: `%s` assumed "
                          "%s (a condition the diff does not evaluate)" % (
                              _call_text(ref), c.text,
                              "true" if c.assumed else "false"))
                return None
            if c.kind == "holds" and c.assumed is not None and \
                    lit.node is not None:
                self.note(c.line, "`%s` assumed %s (a condition the diff "
                          "does not evaluate)" % (c.text, "true" if
                                                   c.assumed else "false"))
            if c.kind == "result":
                self.note(c.line, "`%s`: the grammar cannot test an "
                          "operation's result: assumed the path goes on"
                          % c.text)
            out.append(c)
        return out

    def _plan(self, ref, cons, uses, absorbed):
        """(op, tf, word, args, guards) of one step."""
        step, line = ref.step, _line(ref)
        op = step.op.lstrip("?")
        r = kernelnames.row(op)
        vals = self._args(ref, r)
        word = self.words.word(vals.pop("word"), step.sharing, line) if \
            "word" in vals else None
        tf = step.op.startswith("?")
        g = {}
        if step.guard == "every":
            g["every"] = self._batch(ref)
            self.given_every.add(g["every"])
        bits = [c for c in cons if c.kind == "bit"]
        for c in cons:
            if c.kind == "bit" and self._is_form(r, word, vals, c) and \
                    uses.get(c.call) == 1 and not tf:
                tf = True
                absorbed.add(c.call)
                bits.remove(c)
            elif c.kind == "value":
                tf = self._value(r, word, vals, c, g, tf, absorbed, line)
            elif c.kind == "rate":
                self._rate(c, g)
        if bits:
            c = bits[-1]
            g["if_test"] = c.want
            for other in bits[:-1]:
                self.note(other.line, "`%s`: a second test of a bit on one "
                          "operation: only the last is written (/if_test)"
                          % other.text)
        return op, tf, word, vals, g, bits[-1] if bits else None

    def _args(self, ref, r):
        args = [a.text for a in ref.call.parts[1]] if ref.call else []
        out = {}
        for name in r.args:
            t = ref.step.args.get(name)
            if t is None:
                continue
            text = guards.fill(t, args)
            if "{batch}" in text:
                text = str(self._batch(ref))
            out[name] = text
        return out

    def _is_form(self, r, word, vals, c):
        if not r.test_first or "bit" not in r.args:
            return False
        runs_when = 0 if ("!test_bit" in r.test_first or
                          r.test_first.rstrip().endswith("||")) else 1
        return word_name(c.word) == word and c.arg is not None and \
            self.words.bit(word, c.arg, c.line) == \
            self.words.bit(word, vals.get("bit", ""), c.line) and \
            c.want == runs_when

    def _value(self, r, word, vals, c, g, tf, absorbed, line):
        op, value = c.arg
        same = word_name(c.word) == word
        form = r.test_first or ""
        mine = vals.get("value", vals.get("old"))
        if same and "!= v" in form and mine is not None and (
                (op == "!=" and value == mine) or
                (op == "==" and _number(value) == 0 and _number(mine) != 0)):
            if op == "==":
                self.note(c.line, "`%s`: a test of 0 before a store of %s: "
                          "the test-first form (the same on a word that "
                          "holds 0 or %s)" % (c.text, mine, mine))
            absorbed.add(c.call)
            return True
        if same and "== old" in form and op == "==" and value == mine:
            absorbed.add(c.call)
            return True
        if same and op in ("<", "<=") and r.name.startswith(
                ("atomic_add", "atomic_inc")):
            g["below"] = self._bound(value, c) + (op == "<=")
            absorbed.add(c.call)        # /below reads the word itself
            return tf
        self.note(c.line, "`%s`: a compare the grammar has no guard for: "
                  "the operation is written unguarded" % c.text)
        return tf

    def _bound(self, value, c):
        v = _number(value)
        if v is None:
            v = BOUND
            self.note(c.line, "`%s`: not in the diff: %d assumed" % (
                value, BOUND))
        return v

    def _rate(self, c, g):
        if c.arg is not None:
            g["every_ns"] = c.arg
            return
        g["every"] = EVERY
        n = Note(c.line, c.text)
        if n not in self.periods:
            self.periods.append(n)

    def _batch(self, ref):
        args = ref.call.parts[1] if ref.call else ()
        if len(args) >= 3:
            v = _number(args[2].text) or kernelnames.constant(args[2].text)
            if v:
                return v
        self.note(_line(ref), "%s: the batch of a per-CPU count: "
                  "percpu_counter_batch, max(32, 2 x CPUs): %d assumed" % (
                      _call_text(ref), kernelmacros.PERCPU_BATCH))
        return kernelmacros.PERCPU_BATCH

    def _emit(self, ref, plan):
        op, tf, word, vals, g, test = plan
        line = _line(ref)
        if test is not None and not self._tested(test):
            self.items.append(Item("test_bit", False, self.words.word(
                test.word, None, line), [str(self.words.bit(
                    word_name(test.word), test.arg, line))], {}, line,
                kernelnames.row("test_bit")))
        args = []
        r = kernelnames.row(op)
        for name in r.args:
            if name != "word":
                args.append(self._value_text(name, vals.get(name), word,
                                             ref))
        self.items.append(Item(op, tf, word, args, g, line, r))

    def _tested(self, test):
        """The last item tests this bit already (its own call, or a
        test_and_set_bit whose result the guard reads)."""
        for item in reversed(self.items):
            if item.row.name in ("test_bit", "test_and_set_bit",
                                 "test_and_clear_bit"):
                return item.word == word_name(test.word)
        return False

    def _value_text(self, name, text, word, ref):
        line = _line(ref)
        if name == "bit":
            return str(self.words.bit(word, text or "", line))
        if name == "ns":
            return text
        return value(text, ref, self.note, line)


def value(text, ref, note, line):
    """A value argument: a number, a constant of the table, a local given
    a number in the hunk, the running CPU; else 1, said."""
    t = (text or "").strip()
    if t.startswith("*&"):
        t = ref.ctx.consts.get(t[2:], t)
    v = _number(t)
    if v is None:
        v = kernelnames.constant(t)
    if v is None and t in ("true", "false", "NULL"):
        v = int(t == "true")
    if v is not None:
        return str(v)
    if t == "cpu" or re.match(r"^(%s)\(\)$" % "|".join(
            kernelmacros.CPU_VALUES), t):
        return "cpu"
    note(line, "%s: the value `%s` is not a constant: 1 written" % (
        _call_text(ref), t))
    return "1"


def _line(ref):
    return ref.line


def _call_text(ref):
    return "`%s`" % (ref.call.text if ref.call is not None else
                     ref.step.op)


def text(item):
    """The item as the grammar writes it."""
    s = "%s%s(%s)" % ("?" if item.tf else "", item.op,
                      ",".join([item.word] + item.args) if "word" in
                      item.row.args else ",".join(item.args))
    for g in ("below", "every", "every_ns", "if_test"):
        if g in item.guards:
            s += "/%s=%d" % (g, item.guards[g])
    return s
