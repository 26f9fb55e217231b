"""The C of one side of a hunk, read as far as a translation needs: the
calls in the order they run, each with the conditions that must hold for
it to run (short-circuit operands, if/else branches, early exits before
it), the assignments and the exits.  It tolerates what a hunk cuts: a
brace closing a block opened above the hunk, an `else` of an unseen `if`,
a comment the hunk starts inside, a macro's body."""

import re
from collections import namedtuple

class Node(namedtuple("Node", "kind parts text line")):
    """A node of an expression: kind, its parts, its text, the line it
    starts; one node is one place in the code (equal only to itself)."""
    __slots__ = ()

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    __hash__ = object.__hash__
# a condition that must hold (or not, polarity False) for an event to run
Lit = namedtuple("Lit", "node polarity")
# what one side's code does, in order: a call, an assignment, an exit, an
# else branch of a condition above the hunk
Event = namedtuple("Event", "kind node guards line")

_TOKEN = re.compile(r"""
    (?P<ws>\s+) |
    (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z)) |
    (?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*') |
    (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|[0-9]+[uUlL]*) |
    (?P<ident>[A-Za-z_]\w*(?:\s*\#\#\s*\w+)*) |
    (?P<punct>->|\+\+|--|<<=|>>=|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|%=|&=|
        \|=|\^=|<<|>>|\.\.\.|[{}()\[\];,.<>+\-*/%&|^!~?:=])
    """, re.X | re.S)
_BINARY = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
           "<": 7, "<=": 7, ">": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9,
           "-": 9, "*": 10, "/": 10, "%": 10}
_ASSIGN = ("=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=")
_EXITS = ("return", "goto", "break", "continue")
_TYPES = {"struct", "union", "enum", "unsigned", "signed", "const", "long",
          "int", "short", "char", "bool", "void", "u8", "u16", "u32", "u64",
          "s8", "s16", "s32", "s64", "size_t", "unsigned long", "volatile"}


def source_lines(lines):
    """The code of a side: its lines with preprocessor directives, line
    continuations and a comment the hunk starts inside blanked."""
    out, skip, in_comment = [], False, _starts_in_comment(lines)
    for text in lines:
        cont = text.rstrip().endswith("\\")
        code = text.rstrip()[:-1] if cont else text
        if in_comment:
            end = code.find("*/")
            code = "" if end < 0 else " " * (end + 2) + code[end + 2:]
            in_comment = end < 0
        elif skip:
            code = ""
        elif code.lstrip().startswith("#"):
            m = re.match(r"^\s*#\s*define\s+\w+(\([^)]*\))?", code)
            code = code[m.end():] if m else ""
            skip = cont and not m
        out.append(code)
        skip = skip and cont
    return out


def _starts_in_comment(lines):
    for text in lines:
        s = text.strip()
        if s:
            return s == "*" or s.startswith(("* ", "*/", "*\t"))
    return False


def tokens(lines):
    """[(kind, text, line index)] of the side's code."""
    code = source_lines(lines)
    starts, pos = [], 0
    for text in code:
        starts.append(pos)
        pos += len(text) + 1
    joined = "\n".join(code)
    out, i = [], 0
    while i < len(joined):
        m = _TOKEN.match(joined, i)
        if not m:               # a stray character ('@', '$', '`')
            i += 1
            continue
        kind = m.lastgroup
        if kind not in ("ws", "comment"):
            out.append((kind, re.sub(r"\s+", "", m.group()) if
                        kind == "ident" else m.group(), _line_of(starts, i)))
        i = m.end()
    return out


def _line_of(starts, pos):
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= pos:
            lo = mid
        else:
            hi = mid - 1
    return lo


class Reader:
    """The statements of one side, read into events (module doc)."""

    def __init__(self, toks):
        self.t, self.i, self.events = toks, 0, []
        self.exit_conds = {}    # {condition: the value not taking the exit}

    # ---- tokens ----
    def peek(self, k=0):
        j = self.i + k
        return self.t[j] if j < len(self.t) else (None, None, None)

    def take(self):
        tok = self.peek()
        self.i += 1
        return tok

    def at(self, text):
        return self.peek()[1] == text

    def line(self):
        tok = self.peek()
        return tok[2] if tok[2] is not None else (
            self.t[-1][2] if self.t else 0)

    # ---- statements ----
    def read(self):
        self.tail = []
        while self.i < len(self.t):
            self.tail = self.block_items([], top=True)

    def block_items(self, guards, top=False):
        """Statements up to the '}' that closes this block (or the end);
        an early exit guards every statement after it."""
        extra = []
        while self.i < len(self.t):
            if self.at("}"):
                if not top:
                    return extra
                self.take()
                if self.at("else"):     # the else of an if above the hunk
                    self.take()
                    self.events.append(Event("else", None, guards,
                                             self.line()))
                    self.statement(guards + [Lit(None, False)])
                continue
            if self.peek()[0] == "ident" and self.peek(1)[1] == ":" and \
                    self.peek()[1] not in ("default", "case"):
                self.take(), self.take()        # a label: a goto lands here
                extra = []
                continue
            exits = self.statement(guards + extra)
            for ex in exits:
                extra = extra + [_negation(ex)]
        return extra

    def statement(self, guards):
        """Read one statement; the guard lists (beyond @guards) under
        which it leaves the block."""
        kind, text, line = self.peek()
        if text == "{":
            self.take()
            start = len(self.events)
            self.block_items(guards)
            if self.at("}"):
                self.take()
            return self._block_exits(start, guards)
        if text == ";":
            self.take()
            return []
        if text == "if":
            return self.if_statement(guards)
        if text in ("for", "while", "switch"):
            return self.loop(guards)
        if text == "do":
            self.take()
            self.statement(guards)
            if self.at("while"):
                self.take()
                self.expression_statement(guards)
            return []
        if text in _EXITS:
            return self.exit_statement(guards)
        if text in ("case", "default"):
            while self.i < len(self.t) and not self.at(":"):
                self.take()
            self.take()
            return []
        self.expression_statement(guards)
        return []

    def _block_exits(self, start, guards):
        n = len(guards)
        return [e.guards[n:] for e in self.events[start:]
                if e.kind == "exit" and e.guards[:n] == guards]

    def if_statement(self, guards):
        self.take()
        cond = self.paren_expression(guards)
        lits = _split(Lit(cond, True)) if cond else []
        if self.peek()[1] in _EXITS and cond is not None:
            self.exit_conds[cond] = False
            if len(lits) == 1 and lits[0].node is not None:
                self.exit_conds[lits[0].node] = not lits[0].polarity
        exits = [lits + e for e in self.statement(guards + lits)]
        if self.at("else"):
            self.take()
            neg = [_negation(lits)] if lits else []
            exits += [neg + e for e in self.statement(guards + neg)]
        return exits

    def loop(self, guards):
        """A loop's body runs an unknown number of times: read as once,
        its events marked 'loop'."""
        self.take()
        line = self.line()
        self.paren_expression(guards, statement=True)
        self.events.append(Event("loop", None, guards, line))
        self.statement(guards)
        return []

    def exit_statement(self, guards):
        kind, _, line = self.take()
        expr = None if self.at(";") else self.expression(guards)
        if self.at(";"):
            self.take()
        self.events.append(Event("exit", expr, guards, line))
        return [[]]

    def expression_statement(self, guards):
        line, first = self.line(), len(self.events)
        if self._declaration():
            node = self.expression(guards) if not self.at(";") else None
        else:
            node = self.expression(guards)
        if self.at("{"):        # a function's (or a struct's) body follows
            if node is not None and node.kind == "call":
                del self.events[first:]         # its declaration, no call
                self.events.append(Event("function", node, guards, line))
            return
        while self.i < len(self.t) and not self.peek()[1] in (";", "}"):
            self.take()         # what the expression reader left
        if self.at(";"):
            self.take()
        if node is not None and node.kind in ("assign", "postfix",
                                              "prefix"):
            self.events.append(Event("assign", node, guards, line))

    def _declaration(self):
        """Skip a declaration's type and name: `int zero = 0` leaves
        `zero = 0`; True when one was skipped."""
        j = self.i
        while self.peek(j - self.i)[1] in _TYPES or (
                self.peek(j - self.i)[0] == "ident" and
                self.peek(j - self.i + 1)[0] == "ident"):
            j += 1
        while self.peek(j - self.i)[1] == "*":
            j += 1
        if j > self.i and self.peek(j - self.i)[0] == "ident":
            self.i = j
            return True
        return False

    def paren_expression(self, guards, statement=False):
        if not self.at("("):
            return None
        self.take()
        node = None
        if statement:           # for (a; b; c): its three parts
            while self.i < len(self.t) and not self.at(")"):
                if self.at(";"):
                    self.take()
                    continue
                self.expression(guards)
                if not self.peek()[1] in (";", ")"):
                    self.take()
        else:
            node = self.expression(guards)
        if self.at(")"):
            self.take()
        return node

    # ---- expressions ----
    def expression(self, guards):
        node = self.assignment(guards)
        while self.at(","):
            self.take()
            right = self.assignment(guards)
            node = Node("comma", (node, right), node.text + ", " +
                        right.text, node.line)
        return node

    def assignment(self, guards):
        left = self.conditional(guards)
        if self.peek()[1] in _ASSIGN:
            op = self.take()[1]
            right = self.assignment(guards)
            return Node("assign", (op, left, right), "%s %s %s" % (
                left.text, op, right.text), left.line)
        return left

    def conditional(self, guards):
        cond = self.binary(guards, 1)
        if not self.at("?"):
            return cond
        self.take()
        a = self.assignment(guards + [Lit(cond, True)])
        if self.at(":"):
            self.take()
        b = self.conditional(guards + [Lit(cond, False)])
        return Node("cond", (cond, a, b), "%s ? %s : %s" % (
            cond.text, a.text, b.text), cond.line)

    def binary(self, guards, level):
        left = self.unary(guards)
        while self.peek()[1] in _BINARY and _BINARY[self.peek()[1]] >= level:
            op = self.take()[1]
            rguards = guards
            if op == "&&":
                rguards = guards + _split(Lit(left, True))
            elif op == "||":
                rguards = guards + [_negation(_split(Lit(left, True)))]
            right = self.binary(rguards, _BINARY[op] + 1)
            left = Node("binary", (op, left, right), "%s %s %s" % (
                left.text, op, right.text), left.line)
        return left

    def unary(self, guards):
        kind, text, line = self.peek()
        if text in ("!", "~", "-", "+", "&", "*", "++", "--"):
            self.take()
            operand = self.unary(guards)
            return Node("prefix", (text, operand), text + operand.text, line)
        if text == "sizeof":
            self.take()
            operand = self.unary([])
            return Node("other", (), "sizeof " + operand.text, line)
        if text == "(" and self._cast():
            return self._cast_expression(guards)
        return self.postfix(guards, self.primary(guards))

    def _cast(self):
        j = 1
        while self.peek(j)[1] in _TYPES or self.peek(j)[1] == "*" or (
                self.peek(j)[0] == "ident" and self.peek(j)[1].endswith("_t")):
            j += 1
        return j > 1 and self.peek(j)[1] == ")" and \
            self.peek(j + 1)[0] in ("ident", "num") or \
            (j > 1 and self.peek(j)[1] == ")" and self.peek(j + 1)[1] == "(")

    def _cast_expression(self, guards):
        line = self.take()[2]
        parts = []
        while not self.at(")"):
            parts.append(self.take()[1])
        self.take()
        operand = self.unary(guards)
        return Node("cast", (" ".join(parts), operand), "(%s)%s" % (
            " ".join(parts), operand.text), line)

    def primary(self, guards):
        kind, text, line = self.take()
        if text == "(":
            node = self.expression(guards)
            if self.at(")"):
                self.take()
            return Node("paren", (node,), "(" + node.text + ")", line)
        if kind == "num":
            return Node("num", (text,), text, line)
        if kind == "ident":
            return Node("name", (text,), text, line)
        return Node("other", (), text or "", line if line is not None
                    else self.line())

    def postfix(self, guards, node):
        while True:
            text = self.peek()[1]
            if text == "(" and node.kind == "name":
                node = self.call(guards, node)
            elif text in ("->", "."):
                self.take()
                field = self.take()[1] or ""
                node = Node("member", (node, text, field), node.text + text +
                            field, node.line)
            elif text == "[":
                self.take()
                idx = self.expression(guards)
                if self.at("]"):
                    self.take()
                node = Node("index", (node, idx), "%s[%s]" % (
                    node.text, idx.text), node.line)
            elif text in ("++", "--"):
                self.take()
                node = Node("postfix", (text, node), node.text + text,
                            node.line)
            else:
                return node

    def call(self, guards, name):
        self.take()
        args = []
        while self.i < len(self.t) and not self.at(")"):
            args.append(self.assignment(guards))
            if self.at(","):
                self.take()
            elif not self.at(")"):
                self.take()
        if self.at(")"):
            self.take()
        node = Node("call", (name.text, tuple(args)), "%s(%s)" % (
            name.text, ", ".join(a.text for a in args)), name.line)
        self.events.append(Event("call", node, guards, name.line))
        return node


def _split(lit):
    """A condition as the literals that must all hold: `a && b` true is
    a and b true; `!a` true is a false; `(a)` is a."""
    node, pol = lit
    if node is None:
        return [lit]
    if node.kind == "paren":
        return _split(Lit(node.parts[0], pol))
    if node.kind == "prefix" and node.parts[0] == "!":
        return _split(Lit(node.parts[1], not pol))
    if node.kind == "binary" and node.parts[0] == ("&&" if pol else "||"):
        return _split(Lit(node.parts[1], pol)) + \
            _split(Lit(node.parts[2], pol))
    if node.kind == "call" and node.parts[0] in ("likely", "unlikely") and \
            node.parts[1]:
        return _split(Lit(node.parts[1][0], pol))
    return [lit]


def _negation(lits):
    """The one literal 'not all of @lits': a single literal negated, or
    an 'any-not' node the translator reduces by its assumptions."""
    if len(lits) == 1:
        node, pol = lits[0]
        return Lit(node, not pol)
    return Lit(Node("nand", tuple(lits), " && ".join(
        _lit_text(l) for l in lits), lits[0].node.line if lits and
        lits[0].node else 0), True)


def _lit_text(lit):
    if lit.node is None:
        return "(an if above the hunk)"
    return lit.node.text if lit.polarity else "!(" + lit.node.text + ")"


def read(lines):
    """The events of a side's lines (their texts), the conditions that
    guard an exit directly (`if (c) return;`), and the guards an exit
    leaves on what follows the lines (a `goto out` past them)."""
    r = Reader(tokens(lines))
    r.read()
    return r.events, r.exit_conds, r.tail
