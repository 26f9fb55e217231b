#!/usr/bin/python3
"""Benchmark (not a test): model=pattern against the C models it mirrors,
and against fio's own null engine.

Runs, interleaved in every repeat so that machine drift hits all alike:
  each scenario's pattern job file (jobs/pattern/sN-*.fio) and the C
  model's job file it mirrors (jobs/*.fio), in both variants, the same
  job shape (null backend, NUMJOBS jobs, S5 one job and its mod1 section)
  fio's built-in null engine, numjobs 1 and N
  flagcheck, model=pattern with a one-test pattern
  (test_and_clear_bit(flags,0) in test_first: one test_bit() per I/O),
  mapping=private, numjobs 1 and N
  the operation and form rows (--forms, --list): one pattern per
  operation of the engine's table (build/flagcheck-pattern-ops), alone
  on one word, and one per form of FORMS (obj(N,RULE), slot,
  slot(STRIDE), /if_test, CAS loops retrying, 64 operations, A|B, cpu
  and job values; each from the catalogue file or docs/pattern.md example
  that uses it, without its work(ns)) with its base, the nearest pattern
  without the form; mapping=private, one job, variant=always unless
  the row says otherwise
and prints, for each pair, the median of the per-repeat IOPS ratios, the
ratio of the means with its 95% bootstrap interval, and the report's
verdict on the noise (Welch's test, stats.verdict): pattern/C is "within
noise" where the pattern model costs what the C model does; pattern/null
has the target >= 0.95 (median), as make bench's flagcheck/null; each
row, its ratio to fio's null engine at its numjobs and to its base, with
no target: a form's per-I/O cost, so that a regression of the
interpreter's path for it shows. Every run is pinned as
flagcheck run pins by default (job k on CPU k - 1: cpus_allowed=0-(N-1),
cpus_allowed_policy=split) and on one fio clock (flagcheck run's
--clocksource auto), as make bench does.
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "analysis"))
from flagcheck_analysis.run import clock  # noqa: E402
from flagcheck_analysis.stats import significance  # noqa: E402
from bench import fio_version, iops, median_ratio, print_runs  # noqa: E402

JOBS = os.path.join(TOP, "jobs")
# The operation rows: each operation of the engine's table
# (build/flagcheck-pattern-ops) alone, as test_pattern_ops.py writes it,
# on one word w@0=1 (so that atomic_inc_not_zero and atomic_add_unless
# add), variant=always, against fio's null engine.
# spin_lock() and spin_unlock() run only as a pair (a lock no one releases
# is refused): each one's row is the pair
LOCK_OPS = ("spin_lock", "spin_unlock")
LOCK_PAIR = "spin_lock(w),spin_unlock(w)"
OP_ARGS = {"word": "w", "bit": "3", "value": "1", "n": "2", "old": "0",
           "new": "1", "ns": "0", "u": "0"}
# The form rows: a pattern using each form of the grammar beyond one word
# shared by all, from the catalogue file or docs/pattern.md example that
# uses it, without its work(ns) (the path's other work, which would hide
# the form's own cost), against fio's null engine and against its base:
# the nearest pattern without the form, a (words, pattern) of its own
# (row "NAME base") or another row's name. A new form is one line here.
# name: (source, pattern_words, pattern, variant, jobs, mapping, base);
# jobs 1 or "N" (--jobs: the CAS loops retry only where jobs contend).
_MASKS = ("clear_bit(mask_a,0),set_bit(mask_b,0),clear_bit(mask_b,0),"
          "set_bit(mask_a,0)")
_BLK_MQ = ("READ_ONCE(ctx_bm),set_bit(ctx_bm,0),READ_ONCE(ctx_bm),"
           "clear_bit(ctx_bm,0)")
_KEYS = ",".join(f"k{i}@{4 * i}" for i in range(16))
_READ_KEYS = ",".join(f"READ_ONCE(k{i})" for i in range(16))
_DENTRY = "READ_ONCE(d_name),READ_ONCE(d_iname),"
FORMS = {
    "obj(400,random)": (
        "jobs/catalogue/mm-cpumask-lazy.fio",
        "mask_a@0:obj(400,random),mask_b@2:obj(400,random)", _MASKS,
        "always", 1, "private", ("mask_a@0,mask_b@2", _MASKS)),
    "obj(400,turn)": (
        "mm-cpumask-lazy.fio, rule turn",
        "mask_a@0:obj(400,turn),mask_b@2:obj(400,turn)", _MASKS,
        "always", 1, "private", "obj(400,random) base"),
    "obj(400,cpu)": (
        "mm-cpumask-lazy.fio, rule cpu",
        "mask_a@0:obj(400,cpu),mask_b@2:obj(400,cpu)", _MASKS,
        "always", 1, "private", "obj(400,random) base"),
    "obj(400,job)": (
        "mm-cpumask-lazy.fio, rule job",
        "mask_a@0:obj(400,job),mask_b@2:obj(400,job)", _MASKS,
        "always", 1, "private", "obj(400,random) base"),
    "slot": (
        "jobs/catalogue/blk-mq-ctx-map-sparse.fio", "ctx_bm@2:slot",
        _BLK_MQ, "always", 1, "private", ("ctx_bm@2:job", _BLK_MQ)),
    "slot(256)": (
        "jobs/catalogue/sk-refcnt-align.fio",
        _KEYS + ",ref@1+56:slot(256)=1",
        _READ_KEYS + ",atomic_inc_not_zero(ref),atomic_dec(ref)",
        "always", 1, "private",
        (_KEYS + ",ref@1+56:job=1",
         _READ_KEYS + ",atomic_inc_not_zero(ref),atomic_dec(ref)")),
    # __blk_mq_tag_busy(): test_first runs ?test_and_set_bit, whose test
    # the guard of atomic_inc reads
    "if_test": (
        "docs/pattern.md, __blk_mq_tag_busy()", "state@0:job,active_queues@2",
        "test_and_set_bit(state,1),atomic_inc(active_queues)/if_test=0",
        "test_first", 1, "private",
        ("state@0:job,active_queues@2", "test_and_set_bit(state,1)")),
    "CAS loops": (
        "jobs/catalogue/dentry-lockref-layout.fio",
        "d_name@0,d_iname@1,lockref@1+24=1",
        _DENTRY + "atomic_inc_not_zero(lockref),"
        "atomic_add_unless(lockref,18446744073709551615,0)",
        "always", "N", "shared",
        ("d_name@0,d_iname@1,lockref@1+24=1",
         _DENTRY + "atomic_inc(lockref),atomic_dec(lockref)")),
    "64 operations": (
        "tests/test_pattern_forms.py's 64-ops, as loads", "c@0",
        ",".join(["READ_ONCE(c)"] * 64), "always", 1, "private",
        ("c@0", ",".join(["READ_ONCE(c)"] * 16))),
    "A|B": (
        "docs/pattern.md, get_page()|put_page()", "refcount@0=1",
        "atomic_inc(refcount)|atomic_dec(refcount)", "always", 1, "private",
        ("refcount@0=1", "atomic_inc(refcount)")),
    "value cpu": (
        "docs/pattern.md, sk_incoming_cpu_update()", "w@0=1",
        "WRITE_ONCE(w,cpu)", "always", 1, "private", "op WRITE_ONCE"),
    "value job": (
        "tests/test_pattern_forms.py's value-job", "w@0=1",
        "WRITE_ONCE(w,job)", "always", 1, "private", "op WRITE_ONCE"),
}
# scenario: (pattern job file, C job file, C variants by variant, section,
# SIZE). S2 on one 64K page: there the C model's clear_buffer_new() path
# is the pattern's exactly (its job file's header); on a larger file the C
# model also keeps every page's heads, which the pattern leaves out.
PAIRS = {
    "S1": ("s1-filemap-odirect-read.fio", "filemap-odirect-read.fio", {},
           None, "1g"),
    "S2": ("s2-buffer-new-randwrite.fio", "buffer-new-randwrite.fio", {},
           None, "64k"),
    "S3": ("s3-aim7-creat-clo.fio", "aim7-creat-clo.fio", {}, None, "1g"),
    "S4": ("s4-fxmark-dwtl-uptodate.fio", "fxmark-dwtl-uptodate.fio", {},
           None, "1g"),
    "S5": ("s5-bh-lru-lookup.fio", "bh-lru-lookup.fio",
           {"always": "off", "test_first": "on"}, "mod1", "1g"),
}
VARIANTS = ("always", "test_first")


def ops_table(engine):
    """The engine's operation table: build/flagcheck-pattern-ops's JSON,
    from the engine's build directory."""
    tool = os.path.join(os.path.dirname(engine), "flagcheck-pattern-ops")
    if not os.path.exists(tool):
        sys.exit(f"{tool} missing: run make")
    out = subprocess.run([tool], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)


def rows_of(table):
    """{row: (source, pattern_words, pattern, variant, jobs, mapping,
    base)}: one per operation of the table, then one per form of FORMS
    with its base after it, or after its base where that is another row
    (each run next to its base in a repeat); base None for fio's null
    engine alone."""
    out = []
    for o in table["operations"]:
        call = o["name"] + "(" + ",".join(
            OP_ARGS[x] for x in o["args"].split(",") if x) + ")"
        words = "w@0=1"
        if o["name"] in LOCK_OPS:   # a lock is taken and released, from 0
            call, words = LOCK_PAIR, "w@0"
        out.append((f"op {o['name']}", ("the operation table", words,
                                        call, "always", 1, "private", None)))
    for name, (src, words, pattern, v, nj, mp, base) in FORMS.items():
        if isinstance(base, tuple):
            out.append((name, (src, words, pattern, v, nj, mp,
                               f"{name} base")))
            out.append((f"{name} base", (f"{name} without the form",
                                         base[0], base[1], v, nj, mp, None)))
            continue
        at = len(out)
        if base:
            at = [k for k, _ in out].index(base) + 1
            while at < len(out) and out[at][1][6] == base:
                at += 1
        out.insert(at, (name, (src, words, pattern, v, nj, mp, base)))
    return dict(out)


def row_jobs(a, row):
    """The numjobs of a row: 1, or N (--jobs) where it says "N"."""
    return a.jobs if a.rows[row][4] == "N" else 1


def job_config(path, variant, numjobs, section, size, a, engine):
    """A job file run: its variables in the environment, the pinning and
    the clock before it (fio applies options given after a job file to
    no job of that file)."""
    env = dict(os.environ, FLAGCHECK_ENGINE=engine, VARIANT=variant,
               NUMJOBS=str(numjobs), RUNTIME=str(a.runtime), SIZE=size,
               FILENAME="flagcheck-bench", BACKEND="null",
               FLAGCHECK_STATS="", CREAT_DIR="")
    argv = a.pin + ([f"--section={section}"] if section else []) + [path]
    return argv, env


def configs_of(a, engine):
    """{name: (argv, env)}, in the order they run in each repeat."""
    out = {}
    for scen in a.scenarios:
        pfile, cfile, cmodes, section, size = PAIRS[scen]
        nj = 1 if scen == "S5" else a.jobs
        for v in VARIANTS:
            out[f"{scen} {v} pattern"] = job_config(
                os.path.join(JOBS, "pattern", pfile), v, nj, section, size,
                a, engine)
            out[f"{scen} {v} C"] = job_config(
                os.path.join(JOBS, cfile), cmodes.get(v, v), nj, section,
                size, a, engine)
    common = ["--name=bench", "--filename=flagcheck-bench", "--size=1g",
              "--bs=4k", "--rw=randread", "--thread", "--time_based",
              f"--runtime={a.runtime}", "--group_reporting"] + a.pin
    pattern = [f"--ioengine=external:{engine}", "--backend=null",
               "--model=pattern", "--variant=test_first",
               "--mapping=private", "--pattern_words=flags@0",
               "--pattern=test_and_clear_bit(flags,0)"]
    for nj in sorted({1, a.jobs}):
        out[f"null nj={nj}"] = (common + ["--ioengine=null",
                                          f"--numjobs={nj}"], dict(os.environ))
        out[f"pattern one test nj={nj}"] = (
            common + pattern + [f"--numjobs={nj}"], dict(os.environ))
    for row, (_, words, pat, v, _, mp, _) in a.rows.items():
        out[row] = (common + [f"--ioengine=external:{engine}",
                              "--backend=null", "--model=pattern",
                              f"--variant={v}", f"--mapping={mp}",
                              f"--pattern_words={words}", f"--pattern={pat}",
                              f"--numjobs={row_jobs(a, row)}"],
                    dict(os.environ))
    return out


def report(a, cs, why, fio, res):
    version = fio_version(fio)
    print(f"fio {version}, {os.cpu_count()} CPUs, {a.repeats} interleaved "
          f"repeats of {a.runtime} s, job k pinned to CPU k - 1, fio "
          f"clocksource={cs or 'fio'} ({why})")
    print_runs({k: v for k, v in res.items() if k not in a.rows}, 28)

    print()
    for scen in a.scenarios:
        for v in VARIANTS:
            print(f"{scen} {v:10}: pattern/C   "
                  + pair_text(res, f"{scen} {v} pattern", f"{scen} {v} C"))
    for nj in sorted({1, a.jobs}):
        num, den = f"pattern one test nj={nj}", f"null nj={nj}"
        r = median_ratio(res, num, den)
        print(f"one test/null nj={nj}: " + pair_text(res, num, den)
              + f" (target >= 0.95: {'met' if r >= 0.95 else 'NOT met'})")
    if a.rows:
        rows_report(a, res)


def rows_settings(a):
    """'always, 1 job, mapping=private; /if_test: test_first; ...': the
    settings of most rows, then the rows that differ."""
    def of(row):
        _, _, _, v, _, mp, _ = a.rows[row]
        nj = row_jobs(a, row)
        return f"{v}, {nj} job{'s' if nj > 1 else ''}, mapping={mp}"
    usual = of(next(iter(a.rows)))
    other = [f"{row}: {of(row)}" for row in a.rows if of(row) != usual]
    return "; ".join([usual] + other)


def rows_report(a, res):
    """Each operation's and form's per-I/O cost: its IOPS against fio's
    null engine (of its numjobs) and against its base, interleaved with
    the rest."""
    print()
    print(f"operations and forms, one pattern each ({rows_settings(a)}), "
          "null backend:")
    print_runs({k: v for k, v in res.items() if k in a.rows}, 28)
    print()
    for row, (_, _, _, _, _, _, base) in a.rows.items():
        print(f"{row:24} against null nj={row_jobs(a, row)}: "
              + pair_text(res, row, f"null nj={row_jobs(a, row)}"))
        if base:
            print(f"{'':24} against {base}: " + pair_text(res, row, base))


def pair_text(res, num, den):
    """'median x0.981, means x0.975 95% CI 0.93..1.02, within noise: ...'"""
    v = significance.verdict(res[den], res[num])
    means = significance.mean(res[num]) / significance.mean(res[den])
    ci = "no CI" if v.ci is None else "95%% CI %.3f..%.3f" % v.ci
    return (f"median x{median_ratio(res, num, den):.3f}, means x{means:.3f} "
            f"{ci}, {v.text}")


ENGINE_QUEUE = "fio_flagcheck_queue"


def engine_instructions(path):
    """The instructions callgrind counted inside the engine's ->queue
    (model and backend included) in one output file; 0 if none ran."""
    p = subprocess.run(["callgrind_annotate", "--inclusive=yes", path],
                       capture_output=True, text=True, check=True)
    for line in p.stdout.splitlines():
        if line.rstrip().endswith("]") and f":{ENGINE_QUEUE} " in line:
            return int(line.split()[0].replace(",", ""))
    return 0


def callgrind_count(fio, argv, cwd, env):
    """(instructions, engine instructions, I/Os) of one fio run under
    callgrind: the totals of fio and of every job process it forks, those
    inside the engine's ->queue, and the sum of fio's total_ios."""
    outdir = tempfile.mkdtemp(dir=cwd)
    p = subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes",
                        f"--callgrind-out-file={outdir}/callgrind.%p", fio,
                        "--output-format=json", "--group_reporting"] + argv,
                       cwd=cwd, env=env, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"valgrind fio failed ({p.returncode}): {' '.join(argv)}\n"
                 f"{p.stderr[-2000:]}")
    total = engine = 0
    for name in os.listdir(outdir):
        path = os.path.join(outdir, name)
        with open(path) as f:
            total += next(int(line.split()[1]) for line in f
                          if line.startswith(("summary:", "totals:")))
        engine += engine_instructions(path)
    shutil.rmtree(outdir)
    text = p.stdout[p.stdout.find("{"):]
    ios = sum(j[d]["total_ios"] for j in json.loads(text)["jobs"]
              for d in ("read", "write"))
    return total, engine, ios


def per_io_instructions(a, fio, engine, cwd):
    """{configuration: (whole process, engine) instructions per I/O}, one
    job each: the whole process's from the difference of runs of RUNTIME
    and 2 x RUNTIME seconds, the engine's (exact: nothing but I/Os runs
    there) from the longer run."""
    runs = []
    for rt in (a.runtime, 2 * a.runtime):
        b = argparse.Namespace(**dict(vars(a), jobs=1, runtime=rt))
        runs.append({name: callgrind_count(fio, argv, cwd, env)
                     for name, (argv, env) in configs_of(b, engine).items()})
        print(f"callgrind runs of {rt} s done", file=sys.stderr)
    out = {}
    for name, (i1, _, n1) in runs[0].items():
        i2, e2, n2 = runs[1][name]
        if n2 <= n1:
            # a loaded box: the engine's own count is still exact
            print(f"{name}: {n2} I/Os in the longer run, {n1} in the "
                  "shorter: cannot take the difference (the whole "
                  "process's count: nan)", file=sys.stderr)
            out[name] = (float("nan"), e2 / n2)
            continue
        out[name] = ((i2 - i1) / (n2 - n1), e2 / n2)
    return out


def callgrind_report(a, fio, per_io):
    version = fio_version(fio)
    print(f"fio {version}, callgrind, one job, runs of {a.runtime} s and "
          f"{2 * a.runtime} s: instructions per fio I/O")
    print(f"{'configuration':28} {'process':>10} {'engine':>8}")
    for name, (whole, eng) in per_io.items():
        if name not in a.rows:
            print(f"{name:28} {whole:10.1f} {eng:8.1f}")
    print()
    for scen in a.scenarios:
        for v in VARIANTS:
            p = per_io[f"{scen} {v} pattern"]
            c = per_io[f"{scen} {v} C"]
            print(f"{scen} {v:10}: the pattern's engine {p[1] - c[1]:+.1f} "
                  f"instructions per I/O ({c[1]:.1f} -> {p[1]:.1f}); whole "
                  f"process C/pattern x{c[0] / p[0]:.3f}")
    p, n = per_io["pattern one test nj=1"][0], per_io["null nj=1"][0]
    met = "n/a" if math.isnan(n / p) else "met" if n / p >= 0.95 else \
        "NOT met"
    print(f"one test: whole process null/pattern x{n / p:.3f} ({p - n:+.1f} "
          f"per I/O; target >= 0.95: {met})")
    if a.rows:
        callgrind_rows_report(a, per_io)


def callgrind_rows_report(a, per_io):
    """Each operation's and form's instructions per I/O: the engine's,
    the whole process's, and the engine's against its base's."""
    one = argparse.Namespace(**dict(vars(a), jobs=1))
    print()
    print(f"operations and forms, one pattern each ({rows_settings(one)}):")
    print(f"{'configuration':28} {'process':>10} {'engine':>8}  engine "
          "against the base")
    for row, (_, _, _, _, _, _, base) in a.rows.items():
        whole, eng = per_io[row]
        vs = "" if not base else \
            f"  {eng - per_io[base][1]:+.1f} ({base})"
        print(f"{row:28} {whole:10.1f} {eng:8.1f}{vs}")


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="build/fio-flagcheck.so",
                    help="the built engine (default: build/fio-flagcheck.so)")
    ap.add_argument("--fio", default="fio",
                    help="fio binary (default: fio on PATH)")
    ap.add_argument("--repeats", type=int, default=5,
                    help="interleaved repeats of every configuration "
                         "(default 5; the ratios are medians of the "
                         "per-repeat ratios)")
    ap.add_argument("--runtime", type=int, default=2,
                    help="whole seconds per fio run (default 2; the job "
                         "files take RUNTIME in whole seconds, S5's section "
                         "runs a tenth of it)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count(),
                    help="N, the jobs of every scenario but S5 (one, as its "
                         "job file), the larger numjobs against null and "
                         "the CAS loops row's (default: the CPU count, "
                         "%(default)s)")
    ap.add_argument("--scenarios", default=",".join(PAIRS),
                    help="which pairs to run, comma-separated, '' for "
                         "none (default: %(default)s)")
    ap.add_argument("--forms", default="", metavar="REGEX",
                    help="which operation and form rows to run: those whose "
                         "name the regular expression finds (default: all; "
                         "'none' for none)")
    ap.add_argument("--list", action="store_true",
                    help="print the operation and form rows as JSON (name: "
                         "source, pattern_words, pattern, variant, jobs, "
                         "mapping, base) and exit")
    ap.add_argument("--callgrind", action="store_true",
                    help="count instructions per I/O under valgrind's "
                         "callgrind instead of timing (one job, runs of "
                         "RUNTIME and 2 x RUNTIME s; --repeats unused; "
                         "the whole process's count nan where the longer "
                         "run did no more I/Os)")
    ap.add_argument("--clocksource", choices=clock.CHOICES, default="auto",
                    help="fio's clock for every run, as flagcheck run's "
                         "(default: auto, here %s)" % clock.default_for_here())
    a = ap.parse_args()
    a.scenarios = [s.strip() for s in a.scenarios.split(",") if s.strip()]
    bad = [s for s in a.scenarios if s not in PAIRS]
    if bad or a.repeats < 1 or a.runtime < 1 or a.jobs < 1:
        ap.error(f"--scenarios takes {', '.join(PAIRS)}; --repeats, "
                 f"--runtime and --jobs 1 or more (got {bad or ''})")
    cs, why = clock.choose(a.clocksource, clock.kernel_clocksource())
    a.pin = [f"--cpus_allowed=0-{a.jobs - 1}",
             "--cpus_allowed_policy=split"] + clock.fio_args(cs)
    fio = shutil.which(a.fio) or sys.exit(f"{a.fio} not found")
    engine = os.path.abspath(a.engine)
    if not os.path.exists(engine):
        sys.exit(f"{engine} missing: run make")
    rows = rows_of(ops_table(engine))
    if a.list:
        json.dump({k: dict(zip(("source", "pattern_words", "pattern",
                                "variant", "jobs", "mapping", "base"), v))
                   for k, v in rows.items()}, sys.stdout, indent=1)
        print()
        return
    try:
        pick = re.compile(a.forms)
    except re.error as e:
        ap.error(f"--forms {a.forms!r}: not a regular expression ({e})")
    picked = set() if a.forms == "none" else \
        {k for k in rows if pick.search(k)}
    picked |= {rows[k][6] for k in picked if rows[k][6]}
    a.rows = {k: v for k, v in rows.items() if k in picked}

    if a.callgrind:
        if not shutil.which("valgrind"):
            sys.exit("--callgrind: valgrind not found (apt-get install "
                     "valgrind)")
        with tempfile.TemporaryDirectory() as cwd:
            callgrind_report(a, fio, per_io_instructions(a, fio, engine, cwd))
        return
    configs = configs_of(a, engine)
    res = {k: [] for k in configs}
    with tempfile.TemporaryDirectory() as cwd:
        for r in range(a.repeats):
            for name, (argv, env) in configs.items():
                res[name].append(iops(fio, argv, cwd, env))
            print(f"repeat {r + 1}/{a.repeats} done", file=sys.stderr)
    report(a, cs, why, fio, res)


if __name__ == "__main__":
    main()
