"""A new operation of model=pattern is one table row and one docs row.

docs/testing.md's example row (C) and docs row (Markdown), appended as
they stand there to engine/pattern/pattern_ops.h and docs/pattern.md of a
temporary copy of the tree: everything built there runs the operation
with no other edit. The engine counts one RMW per call against fio's
total_ios (always), and one in all on one job (test first, the bits set
by the first call); the simulator and flagcheck predict of that tree run
it with the same counts; that tree's table test passes; the benchmark
lists the operation's row.
"""
import json
import os
import re
import subprocess
import sys

import fiorun
from test_new_model import copy_tree, fio_tree

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "testing.md")


def doc_example():
    """(table row, docs row) from docs/testing.md's example."""
    with open(DOC) as f:
        section = f.read().split("### An operation of `model=pattern`", 1)[1]
    row = re.search(r"```c\n(.*?)```", section, re.S).group(1)
    doc = re.search(r"```markdown\n(.*?)```", section, re.S).group(1)
    return row.rstrip("\n"), doc.rstrip("\n")


def add_op(tree, row, doc):
    """The row after the table's last; the docs row after its last."""
    path = os.path.join(tree, "engine", "pattern", "pattern_ops.h")
    with open(path) as f:
        text = f.read()
    head, tail = text.split("\n\n/* The guards", 1)
    with open(path, "w") as f:
        f.write(head + "\t\\\n" + row + "\n\n/* The guards" + tail)
    path = os.path.join(tree, "docs", "pattern.md")
    with open(path) as f:
        lines = f.read().split("\n")
    last = max(i for i, l in enumerate(lines) if l.startswith("| `"))
    lines.insert(last + 1, doc)
    with open(path, "w") as f:
        f.write("\n".join(lines))


def build(tree, ctx):
    make = subprocess.run(["make", "-j2", f"FIO_SRC={fio_tree(ctx.build)}",
                           "all"], cwd=tree, capture_output=True, text=True,
                          timeout=900)
    assert make.returncode == 0, make.stdout[-3000:] + make.stderr[-3000:]
    return os.path.join(tree, "build")


def engine_counts(ctx, engine, variant, numjobs):
    r = ctx.fio_run(ctx.base_args(
        ioengine=f"external:{engine}", model="pattern", variant=variant,
        numjobs=numjobs, thread=1, backend="null", number_ios=1000,
        runtime="100ms", pattern_words="w@0", pattern="atomic_or(w,6)"),
        engine=engine)
    assert r.rc == 0, r.err
    ios = sum(j["read"]["total_ios"] for j in r.json()["jobs"])
    assert ios > 0 and sum(s["ios"] for s in r.stats) == ios
    return ios, sum(s["rmw"] for s in r.stats), \
        sum(s["rmw_skipped"] for s in r.stats)


def predict(tree, job):
    p = subprocess.run([sys.executable, os.path.join(
        tree, "analysis", "flagcheck"), "predict", job, "--machine",
        "icelake-sp-2s", "--cpus", "2", "--rest", "work", "--seeds", "1",
        "--json"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_new_operation_is_one_row_and_one_docs_row(ctx, tmp_path):
    row, doc = doc_example()
    tree = str(tmp_path / "tree")
    copy_tree(tree, ctx.build)
    add_op(tree, row, doc)
    engine = os.path.join(build(tree, ctx), "fio-flagcheck.so")

    ios, rmw, skipped = engine_counts(ctx, engine, "always", 2)
    assert (rmw, skipped) == (ios, 0)
    ios, rmw, skipped = engine_counts(ctx, engine, "test_first", 1)
    assert (rmw, skipped) == (1, ios - 1)

    job = tmp_path / "or.fio"
    job.write_text("[global]\nmodel=pattern\npattern_words=w@0\n"
                   "pattern=atomic_or(w,6),work(100)\n[j]\n")
    modes = predict(tree, str(job))["modes"]
    assert (modes["always"]["rmw_per_io"],
            modes["test_first"]["rmw_per_io"]) == (1, 0)

    table = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
         f"--build={os.path.join(tree, 'build')}",
         "tests/test_pattern_ops.py", "-k", "docs_table"],
        cwd=tree, capture_output=True, text=True, timeout=600)
    assert table.returncode == 0, table.stdout + table.stderr
    assert "1 passed" in table.stdout, table.stdout

    rows = subprocess.run(
        [sys.executable, os.path.join(tree, "benchmarks", "bench_pattern.py"),
         "--engine", engine, "--list"], capture_output=True, text=True,
        timeout=120)
    assert rows.returncode == 0, rows.stderr
    assert json.loads(rows.stdout)["op atomic_or"]["pattern"] == \
        "atomic_or(w,1)", rows.stdout
