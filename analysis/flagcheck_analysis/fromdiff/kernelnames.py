"""The one table from a kernel name to the grammar's operations: the
engine's rows (engine/pattern/ops.tbl through build/flagcheck-pattern-ops,
never typed here) in the kernel's argument order, with their ordering
variants (_acquire, _release, ...) and the parser's spellings (atomic_long_,
atomic64_); around them the kernel's helpers, generated from one
declaration of their macros (kernelmacros.py).  docs/your-patch.md."""

import functools
import json
import os
import subprocess
from collections import namedtuple

from . import kernelmacros

TOOL = "flagcheck-pattern-ops"
# a row: the grammar's operation (the JSON's fields, args split)
Row = namedtuple("Row", "name args counts test_first flip loop spin")
# what a kernel call runs: its steps (kernelmacros.Step, op a row name,
# '?' first for its test-first form) and where the meaning comes from
Meaning = namedtuple("Meaning", "steps source")
_SUFFIXES = ("_acquire", "_release", "_relaxed", "_lock", "_unlock")


class TableError(Exception):
    """One line: the operation table could not be read."""


def tool_path():
    """build/flagcheck-pattern-ops of this tree, or the installed one
    beside the analysis."""
    here = os.path.dirname(os.path.realpath(__file__))
    top = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    for p in (os.path.join(top, "build", TOOL), os.path.join(top, TOOL)):
        if os.path.exists(p):
            return p
    raise TableError("%s not found in %s/build: run make" % (TOOL, top))


@functools.lru_cache(maxsize=None)
def grammar():
    """({name: Row} of the engine's table, its alias prefixes)."""
    try:
        out = subprocess.run([tool_path()], capture_output=True, text=True,
                             timeout=60, check=True).stdout
        table = json.loads(out)
    except (OSError, subprocess.SubprocessError, ValueError) as e:
        raise TableError("%s: cannot read the operation table: %s"
                         % (TOOL, e))
    rows = {o["name"]: Row(o["name"], tuple(o["args"].split(",")) if
                           o["args"] else (), o["counts"], o["test_first"],
                           o["flip"], o["loop"], o["spin"])
            for o in table["operations"]}
    return rows, tuple(table.get("aliases", ()))


def row(name):
    """The Row of a grammar name or spelling ('?' and aliases allowed)."""
    rows, aliases = grammar()
    name = name.lstrip("?")
    for prefix in aliases:
        if name.startswith(prefix):
            return rows.get("atomic_" + name[len(prefix):])
    return rows.get(name)


def kernel_order(r):
    """The kernel's order of a row's arguments: a bitop takes (nr, addr),
    an atomic add or subtract (i, v); every other call the word first."""
    if len(r.args) == 2 and r.args[1] in ("bit", "n"):
        return (r.args[1], r.args[0])
    return r.args


def _direct(name):
    """The Meaning of a row's own name or an alias spelling of it."""
    r = row(name)
    if r is None or name in kernelmacros.NOT_KERNEL or name.startswith("?"):
        return None
    order = kernel_order(r)
    args = {a: "{%d}" % order.index(a) for a in order}
    return Meaning((kernelmacros.Step(name, args, None, None),), None)


@functools.lru_cache(maxsize=None)
def lookup(name):
    """The Meaning of a kernel name, or None: a row by its name or an
    ordering variant of it, a renamed spelling, a declared helper."""
    if "##" in name:
        return None
    found = _direct(name) or _direct(_strip_suffix(name))
    if found:
        return found
    for spelling in (name, _strip_suffix(name)):
        if spelling in kernelmacros.RENAMES:
            op, args, sharing = kernelmacros.RENAMES[spelling]
            return Meaning((kernelmacros.Step(op, args, sharing, None),),
                           "kernel API")
    return helpers().get(name)


def _strip_suffix(name):
    for s in _SUFFIXES:
        if name.endswith(s):
            return name[:-len(s)]
    return name


@functools.lru_cache(maxsize=None)
def helpers():
    """{function name: Meaning} generated from the declaration: each use
    of each macro, each function it generates; then the functions."""
    out = {}
    for macro in kernelmacros.MACROS:
        for use in macro.uses:
            params = dict(zip(macro.params, use))
            for fname, op in macro.generates:
                args = {a: _fill(t, params) for a, t in macro.args.items()
                        if a in row(op).args}
                out[_fill(fname, params)] = Meaning(
                    (kernelmacros.Step(op, args, None, None),), macro.source)
    for fname, (steps, source) in kernelmacros.FUNCTIONS.items():
        out[fname] = Meaning(steps, source)
    return out


def _fill(template, params):
    """@template with a macro's {PARAM}s filled, the call's {0} kept."""
    for k, v in params.items():
        template = template.replace("{%s}" % k, v)
    return template


def constant(text):
    """The value of a bit or time the declaration names, else None."""
    return kernelmacros.constants().get(text)
