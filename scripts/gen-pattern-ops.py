#!/usr/bin/python3
"""model=pattern's operation table (engine/pattern/ops.tbl, whose head says
what each column means) into what reads it:

  --ops FILE    the rows as PATTERN_OPS(X), for the parser, the engine, the
                simulator and build/flagcheck-pattern-ops
  --does FILE   each row's test, run, undo and result as inline functions,
                OP_X_test() ..., and pattern_does[], for the engine and the
                simulator alike
  --doc FILE    the operation table of docs/pattern.md, between its markers
  --doc-rows    that table on stdout

A file is written only where its text changes. A bad row is refused in
one line naming the table's file and line, the row and what is allowed;
nothing is written then.
"""

import argparse
import os
import re
import sys

COLUMNS = ("operation", "counts", "loop", "form", "test", "run", "undo",
           "result")
COUNTS = ("load", "store", "rmw", "other")
ARGS = ("word", "bit", "value", "old", "new", "n", "u", "ns")
NAME = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\(([a-z,]*)\)$")
IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b(\s*\()?")
LOOPS = ("loop", "spin")
RESULT = re.compile(r"^(value|none|tested=[01])$")
DOC_BEGIN = "<!-- The rows below are written by make from engine/pattern/" \
    "ops.tbl: edit the table there. -->"
DOC_END = "<!-- end of the rows from engine/pattern/ops.tbl -->"


class TableError(Exception):
    pass


class Row:
    """One operation: its columns, '-' read as None."""

    def __init__(self, where, fields):
        self.where = where
        for col, val in zip(COLUMNS, fields):
            setattr(self, col, None if val == "-" else val)
        m = NAME.match(self.operation or "")
        if not m:
            self.fail("operation %r: want NAME(ARGS), ARGS from %s" %
                      (self.operation, ", ".join(ARGS)))
        self.name, self.args = m[1], m[2]
        self.code = "OP_" + self.name.upper()
        self.flip = self.undo is not None
        self.is_loop = self.loop in LOOPS
        self.is_spin = self.loop == "spin"

    def fail(self, what):
        raise TableError("%s: %s: %s" % (self.where, self.operation, what))


def check_args(row):
    args = row.args.split(",") if row.args else []
    bad = [a for a in args if a not in ARGS]
    if bad or len(set(args)) != len(args):
        row.fail("arguments %r: each one of %s, none twice" %
                 (row.args, ", ".join(ARGS)))
    if "word" in args[1:]:
        row.fail("arguments %r: word comes first" % row.args)
    if "ns" in args and args != ["ns"]:
        row.fail("arguments %r: ns stands alone (work())" % row.args)


def check_c(row, col):
    """A C column: balanced parentheses, no quotes; each lower-case name
    that is not called w, a, b (or old in a loop): a constant is in
    capitals."""
    text = getattr(row, col)
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            break
    if depth:
        row.fail("%s %r: unbalanced parentheses" % (col, text))
    if '"' in text or "\\" in text:
        row.fail("%s %r: no '\"' or '\\'" % (col, text))
    if col == "form":
        return
    names = ("w", "a", "b", "old") if row.is_loop else ("w", "a", "b")
    for m in IDENT.finditer(text):
        if not m[1] and m[0].islower() and m[0] not in names:
            row.fail("%s %r: '%s' is none of %s (a function is called)" %
                     (col, text, m[0], ", ".join(names)))


def check(row):
    """Every column of @row against what the table's head allows."""
    check_args(row)
    if row.counts not in COUNTS:
        row.fail("counts %r: one of %s" % (row.counts, ", ".join(COUNTS)))
    if row.loop not in (None,) + LOOPS:
        row.fail("loop %r: loop, spin or -" % row.loop)
    if row.result is None or not RESULT.match(row.result):
        row.fail("result %r: value, none or tested=V (V 0 or 1)" %
                 row.result)
    if row.run is None:
        row.fail("run: the operation's C, never -")
    if row.is_loop:
        if row.form or row.undo or row.test is None:
            row.fail("a loop has a test, no form and no undo")
        if row.counts != "rmw" or \
                row.result != ("none" if row.is_spin else "value"):
            row.fail("a loop counts rmw and its result is a value "
                     "(a spin's: none)")
    elif (row.form is None) != (row.test is None):
        row.fail("form %r, test %r: both or neither" % (row.form, row.test))
    for col in ("form", "test", "run", "undo"):
        if getattr(row, col) is not None:
            check_c(row, col)


def read_table(path):
    rows, seen = [], {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            where = "%s:%d" % (path, n)
            fields = [x.strip() for x in text.split(";")]
            if len(fields) != len(COLUMNS):
                raise TableError("%s: %d columns, want %d: %s" % (
                    where, len(fields), len(COLUMNS), "; ".join(COLUMNS)))
            row = Row(where, fields)
            check(row)
            if row.code in seen:
                row.fail("%s again: first at line %s" %
                         (row.code, seen[row.code]))
            seen[row.code] = n
            rows.append(row)
    if not rows:
        raise TableError("%s: no rows" % path)
    return rows


# ----- build/gen/pattern_ops.h -----

OPS_HEAD = """\
/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Written by scripts/gen-pattern-ops.py from engine/pattern/ops.tbl,
 * whose head says what each column means: edit the table, not this file.
 *
 * model=pattern's operations, one X() per row, in the table's order:
 *   X(code, name, kind, args, test_first, flip, loop)
 *     code        the opcode (enum pattern_opcode), OP_ and the name in
 *                 capitals
 *     name        the kernel's name, as written in a pattern
 *     kind        what one call counts: LOAD, STORE, RMW or OTHER
 *     args        its arguments, "word" first ("" for a barrier)
 *     test_first  its test-first form as the kernel writes it, or NULL
 *     flip        1: another path undoes its state (/flip_every)
 *     loop        0: one call; PATTERN_LOOP: a compare-and-swap loop;
 *                 PATTERN_SPIN: one that spins while its test refuses
 * What each does is pattern_does.h's, written from the same rows.
 */
#ifndef FLAGCHECK_PATTERN_OPS_H
#define FLAGCHECK_PATTERN_OPS_H

#define PATTERN_LOOP	1
#define PATTERN_SPIN	2

"""


def ops_h(rows):
    lines = ["#define PATTERN_OPS(X)"]
    for r in rows:
        loop = "PATTERN_" + r.loop.upper() if r.is_loop else "0"
        lines.append('\tX(%s, "%s", %s, "%s", %s, %d, %s)' % (
            r.code, r.name, r.counts.upper(), r.args,
            '"%s"' % r.form if r.form else "NULL", r.flip, loop))
    return OPS_HEAD + " \\\n".join(lines) + "\n\n#endif\n"


# ----- build/gen/pattern_does.h -----

DOES_HEAD = """\
/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Written by scripts/gen-pattern-ops.py from engine/pattern/ops.tbl,
 * whose head says what each column means: edit the table, not this file.
 *
 * model=pattern: what each operation does, four inline functions per row
 * (w the word, a its value, b its second, old a loop's value seen):
 *
 *   bool OP_X_test(w, a, b, old)           its test-first form runs it
 *   unsigned long OP_X_run(w, a, b, old)   the operation and its result
 *   void OP_X_undo(w, a)                   /flip_every's other path
 *   enum OP_X_result                       SUM, or a tested bit's value
 *                                          when the test-first form skips
 *
 * and pattern_does[], the four of each opcode, for a caller that has the
 * opcode only at run time (the simulator, /flip_every); the per-I/O path
 * calls OP_X_test and OP_X_run by name, inlined.
 *
 * The engine (pattern_ops.c) runs them on the shared arena with the
 * kernel's atomics; the simulator (sim/ops.c) on its simulated word, the
 * same functions on a word that one thread owns. An operation behaves the
 * same in both because it is written once. The includer provides the
 * kernel's API the rows use: bitops.h, atomic.h and work_ns().
 */
#ifndef FLAGCHECK_PATTERN_DOES_H
#define FLAGCHECK_PATTERN_DOES_H

#include <stdbool.h>

#include "pattern.h"

#define PD_UNUSED	__attribute__((unused))
#define PD_ARGS		unsigned long *w PD_UNUSED, unsigned long a PD_UNUSED, \\
			unsigned long b PD_UNUSED, unsigned long old PD_UNUSED
#define PD_UNDO_ARGS	unsigned long *w PD_UNUSED, unsigned long a PD_UNUSED

typedef bool pattern_test_fn(unsigned long *w, unsigned long a,
			     unsigned long b, unsigned long old);
typedef unsigned long pattern_run_fn(unsigned long *w, unsigned long a,
				     unsigned long b, unsigned long old);
typedef void pattern_undo_fn(unsigned long *w, unsigned long a);
"""

DOES_TAIL = """
/* Each opcode's four, by opcode */
struct pattern_row_fns {
	pattern_test_fn *test;
	pattern_run_fn *run;
	pattern_undo_fn *undo;
	int result;
};

#define PD_ROW(code) \\
	[code] = { code##_test, code##_run, code##_undo, code##_result },
static const struct pattern_row_fns pattern_does[PATTERN_NR_OPCODES] = {
%s
};
#undef PD_ROW

#endif
"""


def row_fns(r):
    run = ["\treturn %s;" % r.run] if r.result != "none" or r.is_loop else \
        ["\t%s;" % r.run, "\treturn 0;"]
    result = "SUM" if r.result in ("value", "none") else r.result[-1]
    return "\n".join([
        "", "/* %s: %s, counts: %s */" % (r.where, r.operation, r.counts),
        "static inline bool %s_test(PD_ARGS)" % r.code, "{",
        "\treturn %s;" % (r.test or "true"), "}", "",
        "static inline unsigned long %s_run(PD_ARGS)" % r.code, "{"] + run +
        ["}", "",
         "static inline void %s_undo(PD_UNDO_ARGS)" % r.code, "{"] +
        (["\t%s;" % r.undo] if r.undo else []) + ["}", "",
         "enum { %s_result = %s };" % (r.code, result)])


def does_h(rows):
    table = ["\tPD_ROW(%s)" % r.code for r in rows]
    return DOES_HEAD + "\n".join(row_fns(r) for r in rows) + "\n" + \
        DOES_TAIL % "\n".join(table)


# ----- docs/pattern.md -----

def doc_rows(rows):
    out = ["| operation | counted as | test-first form | `/flip_every` | "
           "CAS loop |", "|---|---|---|---|---|"]
    for r in rows:
        form = "`%s`" % r.form.replace("|", "\\|") if r.form else "none"
        out.append("| `%s` | %s | %s | %s | %s |" % (
            r.operation, r.counts, form, "yes" if r.flip else "no",
            "spin" if r.is_spin else "yes" if r.is_loop else "no"))
    return "\n".join(out) + "\n"


def doc_text(path, rows):
    with open(path) as f:
        text = f.read()
    if text.count(DOC_BEGIN) != 1 or text.count(DOC_END) != 1:
        raise TableError("%s: want its operation table between two "
                         "markers, once each (DOC_BEGIN, DOC_END)" % path)
    head, rest = text.split(DOC_BEGIN + "\n", 1)
    tail = rest.split(DOC_END, 1)[1]
    return head + DOC_BEGIN + "\n" + doc_rows(rows) + DOC_END + tail


def write(path, text):
    """@text into @path, unless it holds it already."""
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="gen-pattern-ops.py", allow_abbrev=False,
        description="model=pattern's operation table into its headers "
        "and docs/pattern.md's table")
    p.add_argument("table", help="engine/pattern/ops.tbl")
    p.add_argument("--ops", metavar="FILE", help="write pattern_ops.h")
    p.add_argument("--does", metavar="FILE", help="write pattern_does.h")
    p.add_argument("--doc", metavar="FILE", help="rewrite its table")
    p.add_argument("--doc-rows", action="store_true",
                   help="print the docs' table")
    a = p.parse_args(argv)
    try:
        rows = read_table(a.table)
        out = {}
        if a.ops:
            out[a.ops] = ops_h(rows)
        if a.does:
            out[a.does] = does_h(rows)
        if a.doc:
            out[a.doc] = doc_text(a.doc, rows)
    except (TableError, OSError) as e:
        print("gen-pattern-ops.py: %s" % e, file=sys.stderr)
        return 1
    for path, text in out.items():
        write(path, text)
    if a.doc_rows:
        sys.stdout.write(doc_rows(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
