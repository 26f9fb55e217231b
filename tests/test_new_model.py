"""A new model is one file plus its expectation row, nothing else.

docs/testing.md's minimal model, copied whole into engine/models/ of a
temporary copy of the tree: the engine built there lists it in `fio
--enghelp` (it registered itself); the invariant matrix of that tree picks
it up and fails for want of its row in tests/expectations.py, and passes
once docs/testing.md's row is added there, with no other edit. Only the
new model's cells run (null backend, thread and process mode).
"""
import os
import re
import shutil
import subprocess
import sys

import pytest

import fiorun

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "testing.md")


def doc_example():
    """(model source, expectation row) from docs/testing.md's example."""
    with open(DOC) as f:
        text = f.read()
    section = text.split("### A minimal model, whole", 1)[1]
    c = re.search(r"```c\n(.*?)```", section, re.S).group(1)
    row = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    return c, row


def fio_tree(build):
    """The fio source the engine of this test run was built against."""
    stamp = os.path.join(build, "fio-src.path")
    if os.path.exists(stamp):
        with open(stamp) as f:
            return f.read().strip()
    assert os.environ.get("FIO_SRC"), \
        f"{stamp} missing and FIO_SRC unset: no fio tree to build against"
    return os.environ["FIO_SRC"]


def copy_tree(dest, build):
    """The repository without its build outputs, as a user's clone."""
    skip = {".git", "__pycache__", os.path.basename(build), "build"}
    shutil.copytree(ROOT, dest, symlinks=True,
                    ignore=lambda d, names: [n for n in names if n in skip])


def invariants(tree, build, name):
    """The expectations test and the new model's matrix cells, in @tree."""
    k = f"every_model_has_its_expectations or " \
        f"(counts_equal_fios and null and {name})"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
         f"--build={build}", "tests/test_engine_invariants.py", "-k", k],
        cwd=tree, capture_output=True, text=True, timeout=600)


def add_row(tree, row):
    """The row, appended inside EXPECT's braces (its last line, "}")."""
    path = os.path.join(tree, "tests", "expectations.py")
    with open(path) as f:
        text = f.read()
    head, tail = text.rsplit("\n}\n", 1)
    with open(path, "w") as f:
        f.write(head + "\n" + row.rstrip("\n") + "\n}\n" + tail)


# slow: builds a copy of the tree, runs its tests
@pytest.mark.slow
def test_new_model_is_one_file_and_one_row(ctx, tmp_path):
    source, row = doc_example()
    name = re.search(r'struct fc_model \w+ = \{\s*\.name\s*= "(\w+)"',
                     source).group(1)
    tree, build = str(tmp_path / "tree"), str(tmp_path / "tree" / "build")
    copy_tree(tree, ctx.build)
    with open(os.path.join(tree, "engine", "models", name + ".c"), "w") as f:
        f.write(source)
    make = subprocess.run(["make", f"BUILD={build}",
                           f"FIO_SRC={fio_tree(ctx.build)}",
                           os.path.join(build, "fio-flagcheck.so")],
                          cwd=tree, capture_output=True, text=True,
                          timeout=600)
    assert make.returncode == 0, make.stdout + make.stderr
    engine = os.path.join(build, "fio-flagcheck.so")
    models = fiorun.engine_models(ctx.fio, engine)
    assert models == fiorun.engine_models(ctx.fio, ctx.engine) + [name]

    before = invariants(tree, build, name)
    assert before.returncode == 1, before.stdout + before.stderr
    assert f"models without their line in tests/expectations.py: " \
           f"['{name}']" in before.stdout, before.stdout
    assert "3 failed" in before.stdout, before.stdout

    add_row(tree, row)
    after = invariants(tree, build, name)
    assert after.returncode == 0, after.stdout + after.stderr
    assert "3 passed" in after.stdout, after.stdout
