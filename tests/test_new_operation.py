"""A new operation of model=pattern is one table row.

docs/testing.md's example row, appended as it stands there to
engine/pattern/ops.tbl of a temporary copy of the tree: everything built
there runs the operation with no other edit, and the build writes its row
into that tree's docs/pattern.md. The engine counts one RMW per call
against fio's total_ios (always), and one in all on one job (test first,
the bits set by the first call); the simulator and flagcheck predict of
that tree run it with the same counts; that tree's table tests pass; the
benchmark lists the operation's row.
"""
import json
import os
import re
import subprocess
import sys

import pytest

import fiorun
from test_new_model import copy_tree, fio_tree

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "testing.md")
DOC_ROW = "| `atomic_or(word,value)` | rmw | " \
    "`if ((atomic_read(w) & v) != v)` | no | no |"


def doc_example():
    """The table row from docs/testing.md's example."""
    with open(DOC) as f:
        section = f.read().split("### An operation of `model=pattern`", 1)[1]
    return re.search(r"```text\n(.*?)```", section, re.S).group(1).strip()


def add_op(tree, row):
    """The row after the table's last."""
    path = os.path.join(tree, "engine", "pattern", "ops.tbl")
    with open(path, "a") as f:
        f.write(row + "\n")


def build(tree, ctx):
    make = subprocess.run(["make", "-j2", f"FIO_SRC={fio_tree(ctx.build)}",
                           "all"], cwd=tree, capture_output=True, text=True,
                          timeout=900)
    assert make.returncode == 0, make.stdout[-3000:] + make.stderr[-3000:]
    return os.path.join(tree, "build")


def engine_counts(ctx, engine, variant, numjobs):
    r = ctx.fio_run(ctx.count_args(
        1000, ioengine=f"external:{engine}", model="pattern",
        variant=variant, numjobs=numjobs, thread=1, backend="null",
        pattern_words="w@0", pattern="atomic_or(w,6)"),
        engine=engine)
    assert r.rc == 0, r.err
    ios = sum(j["read"]["total_ios"] for j in r.json()["jobs"])
    assert ios > 0 and sum(s["ios"] for s in r.stats) == ios
    return ios, sum(s["rmw"] for s in r.stats), \
        sum(s["rmw_skipped"] for s in r.stats)


def predict(tree, job):
    p = subprocess.run([sys.executable, os.path.join(
        tree, "analysis", "flagcheck"), "predict", job, "--machine",
        "icelake-sp-2s", "--numjobs", "2", "--rest", "work", "--seeds", "1",
        "--json"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


# slow: builds a copy of the tree
@pytest.mark.slow
def test_new_operation_is_one_row(ctx, tmp_path):
    tree = str(tmp_path / "tree")
    copy_tree(tree, ctx.build)
    add_op(tree, doc_example())
    engine = os.path.join(build(tree, ctx), "fio-flagcheck.so")
    with open(os.path.join(tree, "docs", "pattern.md")) as f:
        docs = f.read().split("\n")
    with open(os.path.join(ROOT, "docs", "pattern.md")) as f:
        before = f.read().split("\n")
    end = before.index("<!-- end of the rows from engine/pattern/ops.tbl -->")
    assert docs == before[:end] + [DOC_ROW] + before[end:]

    ios, rmw, skipped = engine_counts(ctx, engine, "always", 2)
    assert (rmw, skipped) == (ios, 0)
    ios, rmw, skipped = engine_counts(ctx, engine, "test_first", 1)
    assert (rmw, skipped) == (1, ios - 1)

    job = tmp_path / "or.fio"
    job.write_text("[global]\nmodel=pattern\npattern_words=w@0\n"
                   "pattern=atomic_or(w,6),work(100)\n[j]\n")
    variants = predict(tree, str(job))["variants"]
    assert (variants["always"]["rmw_per_io"],
            variants["test_first"]["rmw_per_io"]) == (1, 0)

    table = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
         f"--build={os.path.join(tree, 'build')}",
         "tests/test_pattern_ops.py", "-k", "docs_table"],
        cwd=tree, capture_output=True, text=True, timeout=600)
    assert table.returncode == 0, table.stdout + table.stderr
    assert "2 passed" in table.stdout, table.stdout

    rows = subprocess.run(
        [sys.executable, os.path.join(tree, "benchmarks", "bench_pattern.py"),
         "--engine", engine, "--list"], capture_output=True, text=True,
        timeout=120)
    assert rows.returncode == 0, rows.stderr
    assert json.loads(rows.stdout)["op atomic_or"]["pattern"] == \
        "atomic_or(w,1)", rows.stdout
