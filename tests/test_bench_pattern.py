"""make bench-pattern's operation and form rows (benchmarks/bench_pattern.py).

The benchmark times, besides S1-S5 against their C models, one pattern per
operation of the engine's table (build/flagcheck-pattern-ops) and one per
form of the grammar beyond one word shared by all, each against fio's
null engine and against its base, the nearest pattern without the form.
Here: its rows cover every operation of the table and each form, the
rows taken from a catalogue file are that file's own sequence, and one
short run prints a line for every row. A functional check: no speed is
asserted (the figures are in docs/results/).
"""
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "benchmarks", "bench_pattern.py")

# each form and how a row is seen to use it: (pattern_words, pattern,
# jobs, mapping) -> bool
FORMS = {
    "obj(N,turn)": lambda w, p, nj, mp: re.search(r":obj\(\d+,turn\)", w),
    "obj(N,random)": lambda w, p, nj, mp: re.search(r":obj\(\d+,random\)",
                                                     w),
    "obj(N,cpu)": lambda w, p, nj, mp: re.search(r":obj\(\d+,cpu\)", w),
    "obj(N,job)": lambda w, p, nj, mp: re.search(r":obj\(\d+,job\)", w),
    ":slot": lambda w, p, nj, mp: re.search(r":slot(?![(\w])", w),
    ":slot(STRIDE)": lambda w, p, nj, mp: re.search(r":slot\(\d+\)", w),
    "test_bit guarding another word (/if_test)":
        lambda w, p, nj, mp: "/if_test=" in p and len(words_of(p)) > 1,
    "CAS loops retrying (jobs contending on a shared word)":
        lambda w, p, nj, mp: nj == "N" and mp == "shared" and {
            "atomic_inc_not_zero", "atomic_add_unless"} <= set(op_names(p)),
    "64 operations": lambda w, p, nj, mp: len(op_names(p)) == 64,
    "A|B": lambda w, p, nj, mp: "|" in p,
    "value cpu": lambda w, p, nj, mp: re.search(r"\(\w+,cpu\)", p),
    "value job": lambda w, p, nj, mp: re.search(r"\(\w+,job\)", p),
}


def items(value):
    """A sequence's items: split at ',' and '|' outside parentheses."""
    return [x for x in re.split(r"[,|](?![^(]*\))", value) if x]


def op_names(pattern):
    return [x.lstrip("?").split("(", 1)[0].strip() for x in items(pattern)]


def words_of(pattern):
    """The words a sequence's operations name (their first argument)."""
    return {m[1] for m in re.finditer(r"\(\s*(\w+)", pattern)}


def bench(build, *args):
    return subprocess.run(
        [sys.executable, BENCH, "--engine",
         os.path.join(build, "fio-flagcheck.so"),
         "--fio", os.environ.get("FLAGCHECK_TEST_FIO", "fio")] + list(args),
        capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def rows(build):
    p = bench(build, "--list")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.fixture(scope="module")
def table(build):
    out = subprocess.run([os.path.join(build, "flagcheck-pattern-ops")],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def test_rows_cover_every_operation_of_the_table(rows, table):
    # spin_lock and spin_unlock only as their pair (one alone is refused)
    alone = {op_names(r["pattern"])[0] for r in rows.values()
             if len(op_names(r["pattern"])) == 1}
    pair = ["spin_lock", "spin_unlock"]
    alone |= {o for r in rows.values() if op_names(r["pattern"]) == pair
              for o in pair}
    ops = [o["name"] for o in table["operations"]]
    assert [o for o in ops if o not in alone] == []
    assert all(rows[f"op {o}"]["base"] is None for o in ops)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_rows_cover_each_form_against_a_base_without_it(rows, form):
    uses = FORMS[form]
    having = [name for name, r in rows.items()
              if uses(r["pattern_words"], r["pattern"], r["jobs"],
                      r["mapping"])]
    assert having, form
    for name in having:
        base = rows[name]["base"]
        if base is None:
            continue
        b = rows[base]
        assert not uses(b["pattern_words"], b["pattern"], b["jobs"],
                        b["mapping"]), (form, name, base)
        assert (b["jobs"], b["mapping"]) == \
            (rows[name]["jobs"], rows[name]["mapping"]), (name, base)


def catalogue_options(path):
    with open(os.path.join(ROOT, path)) as f:
        return dict(line.strip().split("=", 1) for line in f
                    if re.match(r"pattern(_fixed|_words)?=", line))


def test_catalogue_rows_are_the_files_sequences(rows):
    """A row taken from a catalogue file runs its pattern= or
    pattern_fixed= without work(ns), on words declared as the file does."""
    from_files = {n: r for n, r in rows.items()
                  if r["source"].startswith("jobs/catalogue/")}
    assert len(from_files) >= 4, sorted(rows)
    for name, r in from_files.items():
        opts = catalogue_options(r["source"])
        seqs = [",".join(x for x in items(opts[k])
                         if not x.startswith("work("))
                for k in ("pattern", "pattern_fixed") if k in opts]
        assert r["pattern"] in seqs, (name, seqs)
        assert set(items(r["pattern_words"])) <= \
            set(items(opts["pattern_words"])), name


# slow: a benchmark row per operation and form
@pytest.mark.slow
def test_one_short_run_prints_a_row_per_operation_and_form(build, rows):
    jobs = min(2, os.cpu_count())
    p = bench(build, "--repeats", "1", "--runtime", "1", "--scenarios", "",
              "--jobs", str(jobs))
    assert p.returncode == 0, p.stderr[-2000:]
    lines = p.stdout.splitlines()
    for name, r in rows.items():
        nj = jobs if r["jobs"] == "N" else 1
        at = [i for i, line in enumerate(lines)
              if line.startswith(f"{name:24} against null nj={nj}: median x")]
        assert len(at) == 1, (name, p.stdout)
        if r["base"]:
            assert lines[at[0] + 1].startswith(
                f"{'':24} against {r['base']}: median x"), (name, p.stdout)
        runs = re.compile(rf"{re.escape(name)} +\d+  \d+\.\d\d$")
        assert sum(bool(runs.match(line)) for line in lines) == 1, \
            (name, "runs table", p.stdout)
