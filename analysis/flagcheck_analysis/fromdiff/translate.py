"""A patch's hunks into the path before and after it: in each hunk the
region the patch changes (its changed statements, extended past an early
exit to the end of its block), each side read by ctext.py, each call
looked up in kernelnames.py, a call of another changed function followed
into it, and the functions that are one path merged.  What it does not
translate it says, one line each with the patch line.  docs/your-patch.md
("From a diff")."""

import re
from collections import namedtuple

from . import ctext, guards, kernelmacros, kernelnames

# one grammar step of a kernel call on one side: the step, the call node,
# its guards ([(ctext.Lit, the guards.Context of its code)]), its side's
# Context, the hunk and function, its patch line, a note to give with it
Ref = namedtuple("Ref", "step call lits ctx hunk func line note")
# a statement the translation leaves out: the patch line and why
Skip = namedtuple("Skip", "line why")
Path = namedtuple("Path", "before after functions hunks")
SIDES = {"before": " -", "after": " +"}
_EXIT = re.compile(r"\b(return|goto|break|continue)\b")
_MAX_DEPTH = 3


class NoPathError(Exception):
    """One line: the patch has no operation of the table to translate."""


def _code(text):
    s = text.strip()
    return bool(s) and not s.startswith(("/*", "*", "//", "#include"))


def _ends(text):
    s = re.sub(r"/\*.*?\*/|//.*$", "", text).strip()
    return not s or s.endswith((";", "{", "}", ":")) or s.startswith("#")


def region(hunk):
    """(lo, hi): the hunk lines the patch changes, extended to whole
    statements and, past a changed early exit, to its block's end; None
    where no code line changed."""
    lines = hunk.lines
    changed = [i for i, l in enumerate(lines)
               if l.kind != " " and _code(l.text)]
    if not changed:
        return None
    lo, hi = changed[0], changed[-1]
    while lo > 0 and lines[lo - 1].kind in " -+" and \
            _code(lines[lo - 1].text) and not _ends(lines[lo - 1].text):
        lo -= 1
    hi = max(_statement_end(lines, lo, hi, kinds) for kinds in
             SIDES.values())
    if any(_EXIT.search(lines[i].text) for i in changed):
        hi = max(_block_end(lines, lo, kinds) for kinds in SIDES.values())
    return lo, hi


def _depth(text):
    s = re.sub(r"/\*.*?\*/|//.*$|\"(?:\\.|[^\"])*\"", "", text)
    return s.count("{") - s.count("}")


def _statement_end(lines, lo, hi, kinds):
    depth, last = 0, None
    for i in range(lo, hi + 1):
        if lines[i].kind in kinds:
            depth += _depth(lines[i].text)
            last = lines[i].text
    i = hi
    while i + 1 < len(lines) and (depth > 0 or (last is not None and
                                                not _ends(last))):
        i += 1
        if lines[i].kind in kinds:
            depth += _depth(lines[i].text)
            last = lines[i].text
    return i


def _block_end(lines, lo, kinds):
    depth, end = 0, lo
    for i in range(lo, len(lines)):
        if lines[i].kind not in kinds:
            continue
        depth += _depth(lines[i].text)
        if depth < 0:
            break
        end = i
    return end


class Reading:
    """Every hunk's region read, per function and side (module doc)."""

    def __init__(self, patch):
        self.patch, self.skips = patch, []
        self.events = {}        # (function, side) -> [(event, ctx, hunk)]
        self.debug = set()      # the calls inside a debug check (by id)
        self.tails = {}         # (function, side) -> guards past its end
        self.order = []         # functions in patch order
        for hunk in patch.hunks:
            self._hunk(hunk)

    def _hunk(self, hunk):
        r = region(hunk)
        if r is None:
            self.skip(hunk.lineno, "hunk in %s: no code changed (comments, "
                      "blank lines)" % _where(hunk))
            return
        for side, kinds in SIDES.items():
            lines = [l for l in hunk.lines[r[0]:r[1] + 1] if l.kind in kinds]
            events, exits, tail = ctext.read([l.text for l in lines])
            nos = [l.lineno for l in lines]
            ctx = guards.Context(exits, _clocks(events), _consts(events),
                                 lambda i, nos=nos: nos[min(i, len(nos) - 1)])
            func = hunk.function or "?"
            # an exit in an earlier hunk of the function guards this one
            pre = self.tails.get((func, side), [])
            for ev in events:
                if ev.kind == "call" and ev.node.parts[0] in \
                        kernelmacros.DEBUG:
                    self.debug.update(_calls_inside(ev.node))
            for ev in events:
                if ev.kind == "function":
                    func = ev.node.parts[0]
                    continue
                key = (func, side)
                if func not in self.order:
                    self.order.append(func)
                self.events.setdefault(key, []).append(
                    (ev._replace(guards=pre + [(g, ctx) for g in
                                               ev.guards]), ctx, hunk))
            self.tails[(func, side)] = pre + [(g, ctx) for g in tail]

    def skip(self, line, why):
        if Skip(line, why) not in self.skips:
            self.skips.append(Skip(line, why))

    def callees(self, func, side, depth=0):
        """The changed functions @func's region calls, at any depth."""
        out = set()
        for ev, _, _ in self.events.get((func, side), ()):
            name = ev.node.parts[0] if ev.kind == "call" else None
            if name and name != func and (name, side) in self.events and \
                    depth < _MAX_DEPTH:
                out |= {name} | self.callees(name, side, depth + 1)
        return out

    def has_ops(self, func, side):
        return any(ev.kind == "call" and kernelnames.lookup(ev.node.parts[0])
                   for ev, _, _ in self.events.get((func, side), ()))

    def refs(self, func, side, outer=(), depth=0):
        """The Refs of @func's region on @side, a call of another changed
        function followed into it (its guards added to its steps)."""
        out = []
        for ev, ctx, hunk in self.events.get((func, side), ()):
            lits = list(outer) + list(ev.guards)     # [(Lit, Context)]
            if ev.kind == "call":
                out += self._call(ev, ctx, hunk, func, side, lits, depth)
            elif ev.kind == "assign":
                out += self._assign(ev, ctx, hunk, func, lits)
            elif ev.kind == "loop":
                self.skip(ctx.lineno(ev.line), "a loop in %s(): its "
                          "operations are written once per call" % func)
        return out

    def _call(self, ev, ctx, hunk, func, side, lits, depth):
        name = ev.node.parts[0]
        if id(ev.node) in self.debug:
            return []
        m = kernelnames.lookup(name)
        if m is not None:
            return [Ref(step, ev.node, lits, ctx, hunk, func,
                        ctx.lineno(ev.line), None) for step in m.steps]
        if name in kernelmacros.DEBUG:
            self.skip(ctx.lineno(ev.line), "%s(): compiled out without "
                      "CONFIG_DEBUG_VM (include/linux/mmdebug.h)" % name)
        elif name != func and depth < _MAX_DEPTH and any(
                self.has_ops(name, s) for s in SIDES):
            return self.refs(name, side, lits, depth + 1)
        return []

    def _assign(self, ev, ctx, hunk, func, lits):
        """A read-modify-write of a member (`p->n++`, `p->n += x`) is a
        plain load and store; a plain store to a member is left out."""
        node = ev.node
        target = node.parts[1]          # (op, target[, value])
        if target.kind not in ("member", "index"):
            return []
        op = node.parts[0]
        line = ctx.lineno(ev.line)
        if op == "=":
            self.skip(line, "`%s`: a plain C store, not an operation of "
                      "the table (a shared word is written WRITE_ONCE())"
                      % node.text)
            return []
        if op not in ("++", "--", "+=", "-=", "|=", "&=", "^="):
            return []
        note = "`%s`: a plain C read-modify-write: a load and a store " \
            "(READ_ONCE, WRITE_ONCE), the value written as 1" % node.text
        load = kernelmacros.Step("READ_ONCE", {"word": target.text}, None,
                                 None)
        store = kernelmacros.Step("WRITE_ONCE", {"word": target.text,
                                                 "value": "1"}, None, None)
        return [Ref(load, None, lits, ctx, hunk, func, line, note),
                Ref(store, None, lits, ctx, hunk, func, line, None)]


def _where(hunk):
    return "%s%s" % (hunk.path, " %s()" % hunk.function if hunk.function
                     else "")


def _calls_inside(node):
    """The ids of every call node inside @node's arguments."""
    out, todo = set(), list(node.parts[1])
    while todo:
        n = todo.pop()
        if not isinstance(n, ctext.Node):
            if isinstance(n, tuple):
                todo.extend(n)
            continue
        if n.kind == "call":
            out.add(id(n))
        todo.extend(p for p in n.parts if isinstance(p, (ctext.Node,
                                                         tuple)))
    return out


def _clocks(events):
    """The locals a clock's time is read into (`now = sched_clock()`)."""
    out = set()
    for ev in events:
        if ev.kind == "assign" and ev.node.kind == "assign" and \
                ev.node.parts[1].kind == "name" and set(re.findall(
                    r"[A-Za-z_]\w*", ev.node.parts[2].text)) & set(
                        kernelmacros.CLOCKS):
            out.add(ev.node.parts[1].text)
    return out


def _consts(events):
    """The locals given a number (`int zero = 0`): {name: its text}."""
    return {ev.node.parts[1].text: ev.node.parts[2].text for ev in events
            if ev.kind == "assign" and ev.node.kind == "assign" and
            ev.node.parts[0] == "=" and ev.node.parts[1].kind == "name" and
            ev.node.parts[2].kind == "num"}


def paths(patch):
    """The Path the patch changes: (before Refs, after Refs), the
    functions merged into it and its hunks; the Reading's skips name
    every other path.  NoPathError where no function has an operation."""
    rd = Reading(patch)
    called = {n for (f, s), evs in rd.events.items() for ev, _, _ in evs
              if ev.kind == "call" for n in [ev.node.parts[0]] if n != f}
    roots = [f for f in rd.order if rd.has_ops(f, "before")] or \
        [f for f in rd.order if rd.has_ops(f, "after")]
    roots = [f for f in roots if f not in called] or roots
    if not roots:
        raise NoPathError(_why_none(patch, rd))
    found = []
    for f in roots:
        before, after = rd.refs(f, "before"), rd.refs(f, "after")
        if not before and not after:
            continue
        found.append((f, before, after))
    if not found:
        raise NoPathError(_why_none(patch, rd))
    on_path = set(roots) | {n for f in roots for s in SIDES
                            for n in rd.callees(f, s)}
    for f in rd.order:
        if f not in on_path and any(rd.has_ops(f, s) for s in SIDES):
            line = min(ctx.lineno(ev.line) for s in SIDES
                       for ev, ctx, _ in rd.events.get((f, s), ()))
            rd.skip(line, "%s(): another path (not called from %s): not "
                    "this job's; write it in a job of its own" % (
                        f, ", ".join("%s()" % r for r in roots)))
    return found, rd


def _why_none(patch, rd):
    layout = [h for h in patch.hunks if re.match(r"^(struct|union)\s+\w+",
                                                  h.section)]
    what = "no operation of the table (docs/your-patch.md, \"The table\") "\
        "on a line the patch changes"
    if layout:
        what += "; it changes the layout of %s: the accesses to the members" \
            " it moves are not in the diff (write the pattern by hand, " \
            "docs/your-patch.md)" % ", ".join(sorted({
                " ".join(h.section.split()[:2]) for h in layout}))
    return "%s: no hot-path change: %s" % (patch.path, what)
