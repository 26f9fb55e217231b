"""A new physics setting is one row of sim/physics.def and reaches every layer.

docs/machines.md's row, appended to sim/physics.def of a temporary copy of
the tree: the simulator built there takes --NAME and refuses a value out of
its range, the profile loader gives every shipped profile the setting at
its default, simulate.physics() passes it, a profile may set it (and a
value out of range is refused), and the family file may give it a range.
"""
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from tests.analysis.helpers import REPO

DOC = os.path.join(REPO, "docs", "machines.md")


def doc_row():
    """(the row, its name) from docs/machines.md's example."""
    with open(DOC) as f:
        row = re.search(r"### A new setting.*?```c\n(.*?)```", f.read(),
                        re.S).group(1)
    return row, re.match(r"PHYSICS\((\w+),", row).group(1)


def copy_tree(dest):
    skip = {".git", "__pycache__", "build"}
    shutil.copytree(REPO, dest, symlinks=True,
                    ignore=lambda d, names: [n for n in names if n in skip])


def python(tree, code):
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=tree,
        env={**os.environ, "PYTHONPATH": os.path.join(tree, "analysis")},
        capture_output=True, text=True, timeout=120)


def run_sim(build, *args):
    return subprocess.run(
        [os.path.join(build, "flagcheck-sim"), "--words", "x@0",
         "--pattern", "atomic_inc(x)", "--variant", "always", "--ios", "10",
         "--warmup", "2"] + list(args), input="1\n0\n0\n",
        capture_output=True, text=True, timeout=60)


# slow: a copy of the tree and its tests
@pytest.mark.slow
def test_new_setting_is_one_row(tmp_path):
    row, name = doc_row()
    tree = str(tmp_path / "tree")
    build = os.path.join(tree, "build")
    copy_tree(tree)
    with open(os.path.join(tree, "sim", "physics.def"), "a") as f:
        f.write(row)
    make = subprocess.run(["make", "BUILD=" + build,
                           os.path.join(build, "flagcheck-sim")], cwd=tree,
                          capture_output=True, text=True, timeout=600)
    assert make.returncode == 0, make.stdout + make.stderr

    assert run_sim(build, "--" + name, "3").returncode == 0
    bad = run_sim(build, "--" + name, "9")
    assert (bad.returncode, bad.stderr) == (
        2, "flagcheck-sim: --%s 9: a number from 0 to 5\n" % name)

    p = python(tree, """
        from flagcheck_analysis.machines import loader, profile
        from flagcheck_analysis.predict import simulate
        for n in profile.names():
            m = loader.load(n)
            assert m.physics["%(n)s"] == 2.0, n
            assert m.physics_range["%(n)s"] == [2.0], n
        print(" ".join(simulate.physics(loader.load("milan-2s"))))
        """ % {"n": name})
    assert p.returncode == 0, p.stderr
    assert p.stdout.endswith(" --%s 2\n" % name)

    # a profile sets it; out of the row's range it is refused in one line
    path = os.path.join(tree, "machines", "milan-2s.toml")
    with open(path) as f:
        text = f.read()
    own = text.replace("\n[sources]\n", "\n[physics]\n%s = 4.5\n\n[sources]\n"
                       '"physics.%s" = "a test"\n' % (name, name))
    for value, out in (("4.5", "4.5 [4.5]"), ("9", None)):
        with open(path, "w") as f:
            f.write(own.replace("= 4.5", "= " + value))
        p = python(tree, """
            from flagcheck_analysis.machines import loader
            try:
                m = loader.load("milan-2s")
            except ValueError as e:
                print(e)
            else:
                print(m.physics["%(n)s"], m.physics_range["%(n)s"])
            """ % {"n": name})
        assert p.returncode == 0, p.stderr
        assert p.stdout == (out or "%s: physics.%s is 9: want a number from "
                            "0 to 5" % (path, name)) + "\n"

    # the family file gives it a typical value and a range
    with open(path, "w") as f:
        f.write(text)
    with open(os.path.join(tree, "machines", "families.toml"), "a") as f:
        f.write('\n[amd-x86.physics.%s]\ntypical = 1.0\nrange = [0.5, 4.0]'
                '\nsource = "a test"\n' % name)
    p = python(tree, """
        from flagcheck_analysis.machines import loader
        m = loader.load("milan-2s")
        print(m.physics["%(n)s"], m.physics_range["%(n)s"])
        """ % {"n": name})
    assert (p.returncode, p.stdout) == (0, "1.0 [0.5, 1.0, 4.0]\n"), p.stderr
