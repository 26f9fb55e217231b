"""What one condition guarding an operation means in the grammar: a test
of a bit (the operation's test-first form, or /if_test), a compare of a
word (its test-first form, or /below), a rate (/every_ns, /every), or a
condition the diff cannot evaluate, which is assumed to let the path
reach the operations the patch changes: true, but an equality (`==`)
false and the condition of an early exit not taken (docs/your-patch.md,
"From a diff")."""

import re
from collections import namedtuple

from . import kernelmacros, kernelnames

# kind: holds (no guard), off (the operation is not on the path), bit
# (word, bit, want 0/1), value (word, op, value), rate (ns or None), each
# with the condition's text and patch line; assumed: the truth value
# taken for a condition the diff cannot evaluate (None where none is)
Constraint = namedtuple("Constraint",
                        "kind word arg want text line assumed call")
Constraint.__new__.__defaults__ = (None,)
_CMP = ("==", "!=", "<", "<=", ">", ">=")
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_NEG = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
_READS = ("READ_ONCE", "atomic_read")


class Context:
    """What a side's code says about its names: the conditions that
    guard an exit directly ({node: the value that does not take it}),
    the locals holding a clock's time, the locals given a constant, and
    the patch line of each of the side's lines."""

    def __init__(self, exit_conds, clocks, consts, lineno):
        self.exit_conds, self.clocks = exit_conds, clocks
        self.consts, self.lineno = consts, lineno


def classify(lit, ctx, prefer=None):
    """The Constraint of one guard literal (ctext.Lit); @prefer: {node:
    the value the side's operations need of it} where they need one."""
    node, pol = lit
    prefer = prefer or {}
    if node is None:            # the branch of an if above the hunk
        return _unknown(None, pol, True, "an if above the hunk", 0)
    line = ctx.lineno(node.line)
    if node.kind == "nand":
        return _nand(node, pol, ctx, line, prefer)
    c = _test(node, ctx, line)
    if c is not None:
        return c._replace(want=c.want if pol else 1 - c.want) if \
            c.kind == "bit" else (c._replace(arg=(_NEG[c.arg[0]],
                                                   c.arg[1]))
                                  if c.kind == "value" and not pol else c)
    if _is_rate(node, ctx):     # the operation is on the side that is due
        return Constraint("rate", None, _period(node, ctx), None, node.text,
                          line, None)
    if node.kind == "call" and kernelnames.lookup(node.parts[0]):
        return Constraint("result", None, None, None, node.text, line,
                          pol)
    if node in ctx.exit_conds:
        assumed = ctx.exit_conds[node]
    else:
        assumed = prefer.get(node, default(node))
    return _unknown(node, pol, assumed, node.text, line)


def default(node):
    """A condition the diff cannot evaluate, where the operations need
    it both ways (an if and its else): true, but an equality false."""
    return not (node.kind == "binary" and node.parts[0] == "==")


def wanted(lits_of_refs):
    """{node: value} of each condition the operations need one way only;
    the others take default()."""
    seen = {}
    for lits in lits_of_refs:
        for node, pol in lits:
            if node is not None:
                seen.setdefault(node, set()).add(pol)
    return {n: next(iter(p)) for n, p in seen.items() if len(p) == 1}


def _unknown(node, pol, assumed, text, line):
    return Constraint("holds" if pol == assumed else "off", None, None,
                      None, text, line, assumed)


def _nand(node, pol, ctx, line, prefer):
    """'Not all of these hold' (after an early exit): the parts the
    assumptions make true drop out; one part left is its negation."""
    left = []
    for part in node.parts:
        c = classify(part, ctx, prefer)
        if c.kind == "off":     # a part assumed false: the exit not taken
            return Constraint("holds", None, None, None, node.text, line,
                              None)
        if c.kind != "holds":
            left.append(part)
    if len(left) == 1:
        p = left[0]
        return classify(p._replace(polarity=not p.polarity), ctx, prefer)
    return Constraint("holds" if left else "off", None, None, None,
                      node.text, line, None)


def _test(node, ctx, line):
    """A test of a bit or a compare of a word's value, true as written;
    None where @node is neither."""
    if node.kind == "call":
        m = kernelnames.lookup(node.parts[0])
        if m and len(m.steps) == 1 and _tests_bit(m.steps[0].op):
            word, bit = _step_args(m.steps[0], node)
            return Constraint("bit", word, bit, 1, node.text, line, None,
                              node.text)
        if m and len(m.steps) == 1 and m.steps[0].op.lstrip("?") in _READS:
            word, _ = _step_args(m.steps[0], node)
            return Constraint("value", word, ("!=", "0"), None, node.text,
                              line, None, node.text)
        return None
    if node.kind == "binary" and node.parts[0] in _CMP:
        op, a, b = node.parts
        for x, y, o in ((a, b, op), (b, a, _FLIP[op])):
            read = _read_of(x)
            if read is not None:
                return Constraint("value", read[0], (o, y.text), None,
                                  node.text, line, None, read[1])
    return None


def _tests_bit(op):
    return op.lstrip("?") in ("test_bit", "test_and_set_bit",
                              "test_and_clear_bit")


def _read_of(node):
    while node.kind == "paren":
        node = node.parts[0]
    if node.kind != "call":
        return None
    m = kernelnames.lookup(node.parts[0])
    if m and len(m.steps) == 1 and m.steps[0].op in ("READ_ONCE",
                                                     "atomic_read"):
        return _step_args(m.steps[0], node)[0], node.text
    return None


def _step_args(step, node):
    """The word's and the bit's (or value's) text of a one-step call."""
    args = [a.text for a in node.parts[1]]
    word = fill(step.args.get("word", ""), args)
    other = step.args.get("bit", step.args.get("value"))
    return word, fill(other, args) if other else None


def fill(template, args):
    """@template ('{0}->b_state') with the call's argument texts."""
    def arg(m):
        i = int(m.group(1))
        a = args[i] if i < len(args) else ""
        # a pointer expression before '->' keeps its parentheses
        return "(%s)" % a if template != m.group() and re.search(
            r"[^\w]", a) and not a.startswith("&") else a
    return re.sub(r"\{(\d+)\}", arg, template)


def _is_rate(node, ctx):
    """A compare of times: time_after() and its family, or any compare
    that reads a clock (jiffies, or a local a clock was read into)."""
    if node.kind == "call" and node.parts[0] in kernelmacros.TIME_COMPARES:
        return True
    if node.kind == "binary" and node.parts[0] in _CMP:
        names = set(re.findall(r"[A-Za-z_]\w*", node.text))
        return bool(names & (set(kernelmacros.CLOCKS) | ctx.clocks))
    return False


def _period(node, ctx):
    """The rate's period in ns where the compare names a time constant
    (`now - last < NSEC_PER_MSEC`), else None (an interval the diff does
    not give)."""
    for name in re.findall(r"[A-Za-z_]\w*|\d+", node.text):
        if name in kernelmacros.TIMES:
            return kernelmacros.TIMES[name]
    return None
