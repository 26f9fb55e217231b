"""The simulator's files call one another as sim/sim_int.h's head says,
edge for edge, and so in no circle: each sim/*.c compiled alone, the
functions it defines and the ones it calls of the others read from its
symbol table (nm)."""

import os
import re
import subprocess

from tests.analysis import helpers

SIM_DIR = os.path.join(helpers.REPO, "sim")
_EDGE = re.compile(r"^ \*   (\S+(?:, \S+)*?)(?: \([^)]*\))? -> (.+)$")


def stated():
    """{file: {files it calls}} from sim_int.h's head."""
    with open(os.path.join(SIM_DIR, "sim_int.h")) as f:
        head = f.read().split("Who calls whom", 1)[1].split("*/", 1)[0]
    out = {}
    for line in head.splitlines():
        m = _EDGE.match(line)
        if not m:
            continue
        callees = set() if m[2] == "none" else set(m[2].split(", "))
        for name in m[1].split(", "):
            out[name] = callees
    return out


def symbols(src, tmp):
    """(defined, undefined) global functions of one compiled sim/ file."""
    obj = os.path.join(tmp, os.path.basename(src) + ".o")
    subprocess.run(["cc", "-std=gnu11", "-D_GNU_SOURCE", "-I" + SIM_DIR,
                    "-I" + os.path.join(helpers.REPO, "engine"),
                    "-I" + os.path.join(helpers.REPO, "engine", "kernel"),
                    "-I" + os.path.join(helpers.REPO, "engine", "pattern"),
                    "-I" + os.path.join(helpers.BUILD, "gen"),
                    "-c", src, "-o", obj], check=True)
    nm = subprocess.run(["nm", obj], check=True, capture_output=True,
                        text=True).stdout.split("\n")
    rows = [line.split() for line in nm if line.strip()]
    return ({r[2] for r in rows if len(r) == 3 and r[1] == "T"},
            {r[1] for r in rows if len(r) == 2 and r[0] == "U"})


def measured(tmp):
    files = sorted(f for f in os.listdir(SIM_DIR) if f.endswith(".c"))
    syms = {f: symbols(os.path.join(SIM_DIR, f), tmp) for f in files}
    where = {s: f for f, (defs, _) in syms.items() for s in defs}
    return {f: {where[u] for u in uses if u in where} - {f}
            for f, (_, uses) in syms.items()}


def test_the_files_call_as_sim_int_h_says(tmp_path):
    assert measured(str(tmp_path)) == stated()


def test_no_file_is_called_back_by_one_it_calls():
    graph = stated()
    done = set()

    def walk(f, path):
        assert f not in path, " -> ".join(path + [f])
        if f in done:
            return
        for g in graph.get(f, ()):
            walk(g, path + [f])
        done.add(f)

    for f in graph:
        walk(f, [])
    assert done == {f for f in os.listdir(SIM_DIR) if f.endswith(".c")}
