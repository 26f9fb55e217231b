"""model=pattern's operation table, one table for all who read it.

build/flagcheck-pattern-ops prints the engine's table (compiled from
engine/pattern/ops.tbl) as JSON; docs/pattern.md's operation table, which
make writes from ops.tbl, is what the generator writes from it now and
says the same as the engine, row for row: the operation and its
arguments, what it counts, its test-first form, whether /flip_every may
undo it, whether it is a compare-and-swap loop (spin: one that spins
while its lock is held). The parser must accept
each operation with its arguments, and refuse '?' exactly on those
without a test-first form.
"""
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "pattern.md")
GEN = os.path.join(ROOT, "scripts", "gen-pattern-ops.py")
TABLE = os.path.join(ROOT, "engine", "pattern", "ops.tbl")
_ROW = re.compile(r"^\| `([A-Za-z_]+)\(([a-z,]*)\)` \| (\w+) \| (.+?) \| "
                  r"(yes|no) \| (yes|no|spin) \|$")


@pytest.fixture(scope="module")
def table(build):
    out = subprocess.run([os.path.join(build, "flagcheck-pattern-ops")],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def doc_rows():
    """docs/pattern.md's operation table:
    [(name, args, counts, tf, flip, loop)]."""
    with open(DOC) as f:
        rows = [_ROW.match(line.rstrip()) for line in f]
    return [(m[1], m[2], m[3],
             None if m[4] == "none" else m[4].strip("`").replace("\\|", "|"),
             m[5] == "yes", m[6] != "no") for m in rows if m]


def test_docs_table_is_what_make_writes_from_ops_tbl():
    out = subprocess.run([sys.executable, GEN, TABLE, "--doc-rows"],
                         check=True, capture_output=True, text=True).stdout
    with open(DOC) as f:
        text = f.read()
    begin = "<!-- The rows below are written by make from " \
        "engine/pattern/ops.tbl: edit the table there. -->\n"
    end = "<!-- end of the rows from engine/pattern/ops.tbl -->\n"
    assert text.split(begin, 1)[1].split(end, 1)[0] == out
    assert len(doc_rows()) == out.count("\n") - 2


def test_docs_table_is_the_engines(table):
    engine = [(o["name"], o["args"], o["counts"], o["test_first"], o["flip"],
               o["loop"]) for o in table["operations"]]
    assert doc_rows() == engine


# slow: a run per operation of the table
@pytest.mark.slow
def test_every_operation_parses_and_question_mark_follows_the_table(
        ctx, table):
    for o in table["operations"]:
        args = {"word": "w", "bit": "3", "value": "1", "n": "2", "old": "0",
                "new": "1", "ns": "10", "u": "0"}
        call = o["name"] + "(" + ",".join(
            args[a] for a in o["args"].split(",") if a) + ")"
        # a lock is taken and released in one I/O: each in its pair
        before, after = {"spin_lock": ("", ",spin_unlock(w)"),
                         "spin_unlock": ("spin_lock(w),", "")}.get(
                             o["name"], ("", ""))
        for prefix in ("", "?"):
            r = ctx.fio_run(ctx.base_args(
                model="pattern", pattern_words="w@0",
                pattern=before + prefix + call + after, time_based=0,
                number_ios=4), stats=False)
            ok = not prefix or o["test_first"] is not None
            assert (r.rc == 0) == ok, (call, prefix, r.err)
