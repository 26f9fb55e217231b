"""scripts/gen-pattern-ops.py, the generator of engine/pattern/ops.tbl: a
mistake in a row is refused in one line naming the table's file and line,
the row and what is allowed, and nothing is written; a row whose C the
compiler refuses is named by its functions (OP_X_run ...); the headers
it writes for the real table hold every row, in the table's order; a
document without the markers of its table is refused, left as it was."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = os.path.join(ROOT, "scripts", "gen-pattern-ops.py")
TABLE = os.path.join(ROOT, "engine", "pattern", "ops.tbl")
GOOD = ("atomic_or(word,value) ; rmw ; - ; if ((atomic_read(w) & v) != v) ; "
        "(read_once(w) & a) != a ; __atomic_fetch_or(w, a, __ATOMIC_RELAXED)"
        " ; - ; value")


def gen(tmp_path, last_row, *outs):
    """The generator on the real table with @last_row appended."""
    with open(TABLE) as f:
        text = f.read()
    table = tmp_path / "ops.tbl"
    table.write_text(text + last_row + "\n")
    args = [sys.executable, GEN, str(table)]
    for o in outs:
        args += ["--" + o, str(tmp_path / ("pattern_%s.h" % o))]
    p = subprocess.run(args, capture_output=True, text=True)
    return p, str(table), text.count("\n") + 1


def line_of(op):
    """The line of the table's row @op, 1 up."""
    with open(TABLE) as f:
        return [n for n, line in enumerate(f, 1)
                if line.startswith(op + " ")][0]


def fields(**change):
    cols = [c.strip() for c in GOOD.split(";")]
    names = ("operation", "counts", "loop", "form", "test", "run", "undo",
             "result")
    return " ; ".join(change.get(n, c) for n, c in zip(names, cols))


@pytest.mark.parametrize("row,what", [
    (fields(counts="rwm"), "counts 'rwm': one of load, store, rmw, other"),
    (fields(test="(read_once(w) & v) != v"),
     "test '(read_once(w) & v) != v': 'v' is none of w, a, b "
     "(a function is called)"),
    (fields(test="-"), "form 'if ((atomic_read(w) & v) != v)', test None: "
     "both or neither"),
    (fields(operation="atomic_or(word,val)"),
     "arguments 'word,val': each one of word, bit, value, old, new, n, u, "
     "ns, none twice"),
    (fields(operation="atomic_or"),
     "operation 'atomic_or': want NAME(ARGS), ARGS from word, bit, value, "
     "old, new, n, u, ns"),
    (fields(result="sum"), "result 'sum': value, none or tested=V (V 0 or 1)"),
    (fields(run="__atomic_fetch_or(w, a, __ATOMIC_RELAXED"),
     "run '__atomic_fetch_or(w, a, __ATOMIC_RELAXED': unbalanced "
     "parentheses"),
    (fields(loop="loop"), "a loop has a test, no form and no undo"),
    (fields(operation="set_bit(word,bit)"),
     "OP_SET_BIT again: first at line %d" % line_of("set_bit(word,bit)")),
    (fields(loop="spin", form="-", test="old == 0", run="1", undo="-"),
     "a loop counts rmw and its result is a value (a spin's: none)"),
    (fields(loop="lock"), "loop 'lock': loop, spin or -"),
])
def test_a_bad_row_is_named_and_nothing_written(tmp_path, row, what):
    p, table, line = gen(tmp_path, row, "ops", "does")
    name = row.split(";")[0].strip()
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr == "gen-pattern-ops.py: %s:%d: %s: %s\n" % (
        table, line, name, what)
    assert sorted(os.listdir(tmp_path)) == ["ops.tbl"]


def test_a_row_of_too_few_columns_is_named(tmp_path):
    p, table, line = gen(tmp_path, "atomic_or(word,value) ; rmw ; -", "ops")
    assert (p.returncode, p.stderr) == (1, "gen-pattern-ops.py: %s:%d: 3 "
                                        "columns, want 8: operation; counts;"
                                        " loop; form; test; run; undo; "
                                        "result\n" % (table, line))


def test_c_the_compiler_refuses_is_named_by_its_row(tmp_path):
    p, _, _ = gen(tmp_path, fields(run="atomic_long_orr(a, w)"), "ops",
                  "does")
    assert p.returncode == 0, p.stderr
    src = tmp_path / "use.c"
    src.write_text('#include "atomic.h"\n#include "bitops.h"\n'
                   "static inline void work_ns(unsigned long ns) "
                   "{ (void)ns; }\n#include \"pattern_does.h\"\n")
    cc = subprocess.run(
        ["cc", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
         "-I" + str(tmp_path), "-I" + os.path.join(ROOT, "engine"),
         "-I" + os.path.join(ROOT, "engine", "kernel"),
         "-I" + os.path.join(ROOT, "engine", "pattern"), str(src)],
        capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"))
    assert cc.returncode != 0
    assert "In function 'OP_ATOMIC_OR_run'" in cc.stderr, cc.stderr
    assert "atomic_long_orr" in cc.stderr, cc.stderr


def test_the_headers_hold_every_row_in_order(tmp_path):
    p, _, _ = gen(tmp_path, GOOD, "ops", "does")
    assert p.returncode == 0, p.stderr
    with open(TABLE) as f:
        names = [line.split("(")[0] for line in f
                 if line.strip() and not line.startswith("#")]
    codes = ["OP_" + n.upper() for n in names + ["atomic_or"]]
    ops = (tmp_path / "pattern_ops.h").read_text()
    does = (tmp_path / "pattern_does.h").read_text()
    assert re.findall(r"\tX\((\w+), \"(\w+)\"", ops) == \
        list(zip(codes, names + ["atomic_or"]))
    assert re.findall(r"\tPD_ROW\((\w+)\)", does) == codes
    for code in codes:
        for fn in ("_test(PD_ARGS)", "_run(PD_ARGS)", "_undo(PD_UNDO_ARGS)"):
            assert does.count(code + fn) == 1, code + fn


def test_a_doc_without_its_markers_is_refused_untouched(tmp_path):
    with open(os.path.join(ROOT, "docs", "pattern.md")) as f:
        text = f.read().replace(
            "<!-- end of the rows from engine/pattern/ops.tbl -->\n", "")
    doc = tmp_path / "pattern.md"
    doc.write_text(text)
    p = subprocess.run([sys.executable, GEN, TABLE, "--doc", str(doc)],
                       capture_output=True, text=True)
    assert (p.returncode, p.stderr) == (1, "gen-pattern-ops.py: %s: want its "
                                        "operation table between two "
                                        "markers, once each (DOC_BEGIN, "
                                        "DOC_END)\n" % doc)
    assert doc.read_text() == text
