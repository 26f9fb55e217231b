"""The analysis's rooms on five floors, bottom to top (FLOORS): a module
imports only rooms of a floor below its own, with no exemption, so no
room imports another of its floor and there is no circle, of rooms or of
modules. calibrate/ does not import run/ (run/ calibrates through it),
and nothing flagcheck run loads is part of report/ (the report's modules
and matplotlib stay out of a run)."""

import ast
import os
import subprocess

import pytest

from tests.analysis.helpers import REPO

PACKAGE = os.path.join(REPO, "analysis", "flagcheck_analysis")
NAME = "flagcheck_analysis"


def module_files():
    """{dotted module name: its file} of every module of the package."""
    out = {}
    for top, _, files in os.walk(PACKAGE):
        rel = os.path.relpath(top, os.path.dirname(PACKAGE))
        for f in files:
            if f.endswith(".py"):
                parts = rel.split(os.sep)
                if f != "__init__.py":
                    parts.append(f[:-3])
                out[".".join(parts)] = os.path.join(top, f)
    return out


def imports(name, path, known):
    """The package's modules that module @name imports, wherever in the
    module the import statement is (a function's own import counts)."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    is_pkg = path.endswith("__init__.py")
    here = name.split(".") if is_pkg else name.split(".")[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bases = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = here[:len(here) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            bases = [mod] + ["%s.%s" % (mod, a.name) for a in node.names]
        else:
            continue
        for b in bases:
            if b in known:
                out.add(b)
    return out


def closure(start, graph):
    seen, todo = set(), list(start)
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo += graph[m]
            # importing a.b.c runs a/__init__ and a/b/__init__ first
            parts = m.split(".")
            todo += [".".join(parts[:i]) for i in range(1, len(parts))]
    return seen


# bottom to top: a module reaches (imports, directly or through others) no
# module of a room on its floor or above but its own room's
FLOORS = (("width", "inputs"), ("machines", "stats", "fromdiff"),
          ("calibrate", "guard", "report"), ("run", "predict"), ("cli",))
LAYERS = tuple(r for floor in FLOORS for r in floor)


@pytest.fixture(scope="module")
def graph():
    files = module_files()
    return {m: imports(m, p, files) for m, p in files.items()}


def of(graph, layer):
    prefix = "%s.%s" % (NAME, layer)
    mods = [m for m in graph if m == prefix or m.startswith(prefix + ".")]
    assert mods, "no modules under %s" % prefix
    return mods


def reached(graph, layer, forbidden):
    out = {}
    bases = ["%s.%s" % (NAME, f) for f in forbidden]
    for m in of(graph, layer):
        bad = sorted(x for x in closure([m], graph)
                     if any(x == b or x.startswith(b + ".") for b in bases))
        if bad:
            out[m] = bad
    return out


def above(room):
    """The rooms on @room's floor and above, but @room."""
    at = [i for i, rooms in enumerate(FLOORS) if room in rooms][0]
    return [r for rooms in FLOORS[at:] for r in rooms if r != room]


def room_of(module):
    return module.split(".")[1] if "." in module else None


def room_graph(graph):
    """{room: the rooms its modules import}."""
    out = {}
    for m, deps in graph.items():
        if room_of(m):
            out.setdefault(room_of(m), set()).update(
                room_of(d) for d in deps if room_of(d) not in (None,
                                                                room_of(m)))
    return out


def floor(room, rooms, seen=()):
    """1 + the highest floor of the rooms @room imports (1: none; a
    circle: no floor, infinity)."""
    if room in seen:
        return float("inf")
    return 1 + max([floor(r, rooms, seen + (room,)) for r in rooms[room]]
                   or [0])


def circles(graph):
    """The strongly connected sets of more than one node (Tarjan)."""
    index, low, stack, out = {}, {}, [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = stack[stack.index(v):]
            del stack[stack.index(v):]
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_every_module_is_in_a_layer(graph):
    assert sorted(m for m in graph if m != NAME
                  and m.split(".")[1] not in LAYERS) == []


@pytest.mark.parametrize("layer", LAYERS)
def test_no_layer_reaches_a_layer_above(graph, layer):
    assert reached(graph, layer, above(layer)) == {}


def test_five_floors_as_the_imports_make_them(graph):
    rooms = room_graph(graph)
    assert {r: floor(r, rooms) for r in rooms} == {
        r: i + 1 for i, floor_ in enumerate(FLOORS) for r in floor_}


def test_no_circle_of_modules_or_rooms(graph):
    # a package's own __init__ is run by importing its modules: not an edge
    mods = {m: {d for d in deps if not d.startswith(m + ".")
                and not m.startswith(d + ".")} for m, deps in graph.items()}
    assert circles(mods) == []
    assert circles(room_graph(graph)) == []


def test_calibrate_never_imports_run(graph):
    # the runner calibrates through calibrate/, never the other way
    assert reached(graph, "calibrate", ["run"]) == {}


def test_the_walk_sees_imports(graph):
    # the report reads the line probes through inputs/: the walk would
    # see a layer importing one above it the same way
    assert NAME + ".inputs.lineprobes" in \
        closure([NAME + ".cli.report"], graph)


def renamed_imports(path):
    """[(line, module, alias)] of the package's modules imported under
    another name in @path: a grep for a module's name must find its uses."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        ours = node.level or (node.module or "").startswith(NAME)
        out += [(node.lineno, a.name, a.asname) for a in node.names
                if ours and a.asname and a.asname != a.name]
    return out


def test_modules_are_imported_by_their_names():
    bad = {p: r for p in module_files().values()
           for r in [renamed_imports(p)] if r}
    assert bad == {}


def test_run_help_loads_no_report_and_no_matplotlib():
    p = subprocess.run(
        ["/usr/bin/python3", "-X", "importtime",
         os.path.join(REPO, "analysis", "flagcheck"), "run", "--help"],
        capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    loaded = [line.rsplit("|", 1)[-1].strip()
              for line in p.stderr.splitlines()
              if line.startswith("import time:")]
    assert NAME + ".cli.run" in loaded
    assert [m for m in loaded if m == "matplotlib"
            or m.startswith("matplotlib.")
            or m.startswith(NAME + ".report")] == []
