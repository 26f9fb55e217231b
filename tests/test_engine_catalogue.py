"""The catalogue (jobs/catalogue/*.fio, model=pattern) under the real fio.

Every file there is found here by itself. Its header must cite its source
(commit, function, the code before and after, the published figure in the
fixed published-figure form, what the model leaves out); each runs in both
variants through jobs/run-job (short, 2 jobs, the null backend) and its
counters must be what its own pattern says, read from the job file:

  every RMW or store operation  ran + skipped == repeat x fio's total_ios
                                (each call either runs it or a test or a
                                guard skips it: exact)
  as written, no guard          ran == repeat x total_ios, skipped == 0
  /every=N                      ran == repeat x ceil(ios / N), per job
  '?' form, no flip             1 <= ran <= jobs (the first call of each
                                job at most: the word then holds the value);
                                of an obj(N,RULE) word: <= jobs x N
  /below=T on an add of 1       T <= ran <= T + jobs - 1 (racing reads)
  /every_ns=T                   1 <= ran per job, ran <= runtime / T + 1
  /flip_every=N                 the model's flips == ceil(ios / N) per job
  /if_test=V                    ran + skipped only (its test_bit decides)
  in A|B|C, alternative k of n  each count above on the I/Os i with
                                i % n == k, per job, not on every I/O
  the CAS loops (the listing's  per job and per path, the loop's attempts
  "loop")                       (rmw + skipped) - its retries == its calls;
                                every other path's retries == 0
and the record's rmw and stores (and model_stats' retries) are the sums of
its paths'.
"""
import functools
import glob
import json
import math
import os
import re
import subprocess

import pytest

from fiorun import load_fio_json
from jobrun import (JOB_VARS, JOBS, VARIANTS, check_run, clean_env, job_vars,
                    run_job)

CATALOGUE = os.path.join(JOBS, "catalogue")
FILES = sorted(glob.glob(os.path.join(CATALOGUE, "*.fio")))
IDS = [os.path.basename(f) for f in FILES]
RUNS = [(f, m) for f in FILES for m in VARIANTS]
RUN_IDS = [f"{os.path.basename(f)}-{m}" for f, m in RUNS]
NUMJOBS = 2



@functools.lru_cache(maxsize=None)
def grammar():
    """The engine's operation table (build/flagcheck-pattern-ops): the
    names counted as RMWs, as stores, those with a test-first form, and
    the regular expression of one operation."""
    out = subprocess.run(
        [os.path.join(os.environ["FLAGCHECK_TEST_BUILD"],
                      "flagcheck-pattern-ops")],
        check=True, capture_output=True, text=True).stdout
    table = json.loads(out)
    ops = table["operations"]
    names = "|".join(re.escape(o["name"]) for o in ops)
    guards = "|".join(re.escape(g) for g in table["guards"])
    return {
        "rmw": {o["name"] for o in ops if o["counts"] == "rmw"},
        "store": {o["name"] for o in ops if o["counts"] == "store"},
        "test_first": {o["name"] for o in ops if o["test_first"]},
        "loop": {o["name"] for o in ops if o["loop"]},
        "op": re.compile(rf"^(\?)?({names})\(([^)]*)\)"
                         rf"((?:/(?:{guards})=[0-9]+)*)(?:\*([0-9]+))?$"),
    }


def options(path):
    """The [global] options of a job file: {name: value}."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith((";", "#", "[")) and "=" in line:
                k, v = line.split("=", 1)
                out[k.strip()] = v.strip()
    return out


def items(text):
    """The items of a value: separated by ',' outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur]


def parse_ops(text):
    """[(test_first, name, args, {guard: N}, repeat)] of a sequence; in
    A|B|C the guards also hold "alt": (k, n), alternative k of n."""
    ops, alts = [], text.split("|")
    for k, alt in enumerate(alts):
        for token in items(alt):
            m = grammar()["op"].match(token.strip())
            assert m, f"cannot read the operation {token!r}"
            guards = dict((g.split("=")[0], int(g.split("=")[1]))
                          for g in m.group(4).split("/")[1:])
            guards["alt"] = (k, len(alts))
            ops.append((bool(m.group(1)), m.group(2), m.group(3), guards,
                        int(m.group(5) or 1)))
    return ops


def objects(path):
    """{word: N} of the job file's obj(N,RULE) words: a word with N copies,
    each I/O on one of them."""
    out = {}
    for item in items(options(path).get("pattern_words", "")):
        m = re.match(r"^\s*(\w+)@[^:]*:obj\(([0-9]+),\w+\)", item)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def sequence(path, variant):
    """The operations the engine runs in `variant`, as the grammar says:
    always runs pattern=, test_first pattern_fixed= or else pattern= with
    every operation that has a test-first form in that form."""
    o = options(path)
    if variant == "always":
        return parse_ops(o["pattern"])
    if "pattern_fixed" in o:
        return parse_ops(o["pattern_fixed"])
    return [(tf or name in grammar()["test_first"], name, args, g, r)
            for tf, name, args, g, r in parse_ops(o["pattern"])]


# --- the files themselves ------------------------------------------------------

def test_there_are_at_least_six():
    assert len(FILES) >= 6, FILES


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_header_cites_its_source(path):
    with open(path) as f:
        lines = f.read().splitlines()
    head = "\n".join(l for l in lines if l.startswith(";"))
    for needed in ("Source:", "Commit:", "Before:", "After:", "Published:",
                   "published-figure:", "Model (model=pattern",
                   "Not modelled:", "run-job defaults:"):
        assert needed in head, f"{os.path.basename(path)}: lacks {needed!r}"
    assert re.search(r"Commit: [0-9a-f]{12} \(", head), path
    missing = JOB_VARS - job_vars(path)
    assert not missing, f"{path}: lacks ${{{sorted(missing)}}}"
    o = options(path)
    assert o.get("model") == "pattern" and \
        o.get("variant") == "${VARIANT}", o
    for variant in VARIANTS:
        assert sequence(path, variant), f"{path}: no operations for {variant}"


# --- the files under fio -----------------------------------------------------

def by_position(record):
    """The record's paths in sequence order: [(name, counters)]."""
    return sorted(record["paths"].items(),
                  key=lambda kv: int(kv[0].split(":", 1)[0]))


def ran_of(counts):
    return counts["rmw"] + counts["stores"]


def calls_of(ios, guards):
    """A job's calls of an operation: every I/O, or in A|B|C the I/Os that
    take its alternative k of n (i % n == k)."""
    k, n = guards["alt"]
    return (ios - k + n - 1) // n


def check_cas_loops(what, ops, stats, paths):
    """Per job and per path: a CAS loop's attempts (each an rmw, or a skip
    where the loop found its bar) less its own retries are exactly its
    calls; a path of no loop retries never; the record's retries are the
    sum of its paths'."""
    loops = grammar()["loop"]
    for s, ps in zip(stats, paths):
        for op, (path, c) in zip(ops, ps):
            calls = op[4] * calls_of(s["ios"], op[3])
            if op[1] not in loops:
                assert c["retries"] == 0, f"{what} {path}: {c}"
                continue
            assert c["rmw"] + c["skipped"] - c["retries"] == calls, \
                f"{what} {path}: {c['rmw']} rmw + {c['skipped']} skipped " \
                f"- {c['retries']} retries != {calls} calls"
        assert s.get("model_stats", {}).get("retries", 0) == \
            sum(c["retries"] for _, c in ps), f"{what}: {s}"


def check_op(what, op, per_job, total_ios, runtime_ns, copies=1):
    """per_job: [(job ios, its counters of this op, its flips)]; copies:
    how many copies of its word there are (obj(N,RULE): N)."""
    tf, name, _, guards, repeat = op
    ran = sum(ran_of(c) for _, c, _ in per_job)
    skipped = sum(c["skipped"] + c["stores_skipped"] for _, c, _ in per_job)
    total_ios = sum(calls_of(ios, guards) for ios, _, _ in per_job)
    rmw, store = grammar()["rmw"], grammar()["store"]
    if name not in rmw | store:
        assert ran == skipped == 0, f"{what}: {per_job}"
        return
    if name in grammar()["loop"]:
        # each attempt is an rmw, each failed one also a retry of the path
        retries = sum(c["retries"] for _, c, _ in per_job)
        assert ran + skipped - retries == repeat * total_ios, \
            f"{what}: {ran} attempts + {skipped} skipped - {retries} " \
            f"retries != {repeat} x {total_ios}"
        return
    assert ran + skipped == repeat * total_ios, \
        f"{what}: {ran} ran + {skipped} skipped != {repeat} x {total_ios}"
    kind = "rmw" if name in rmw else "stores"
    assert all(c["stores" if kind == "rmw" else "rmw"] == 0 and
               c["stores_skipped" if kind == "rmw" else "skipped"] == 0
               for _, c, _ in per_job), f"{what}: counted as the other kind"
    if "flip_every" in guards:
        n = guards["flip_every"]
        for ios, _, flips in per_job:
            assert flips in (ios // n, math.ceil(ios / n)), \
                f"{what}: {flips} flips in {ios} I/Os, one every {n}"
    if "every" in guards:
        n = guards["every"]
        for ios, c, _ in per_job:
            assert ran_of(c) == repeat * math.ceil(ios / n), \
                f"{what}: {ran_of(c)} in {ios} I/Os, once every {n}"
    elif "every_ns" in guards:
        t = guards["every_ns"]
        assert all(ran_of(c) >= 1 for _, c, _ in per_job), what
        assert ran <= repeat * (runtime_ns / t + len(per_job)), \
            f"{what}: {ran} in {runtime_ns} ns, once every {t} ns a job"
    elif "below" in guards:
        t = guards["below"]
        assert t <= ran <= t + len(per_job) - 1, f"{what}: {ran}, below {t}"
    elif "if_test" in guards:
        pass    # as its test_bit() says: ran + skipped, above, is exact
    elif tf and "flip_every" not in guards:
        assert 1 <= ran <= len(per_job) * repeat * copies, f"{what}: {ran}"
    elif not tf:
        assert ran == repeat * total_ios and skipped == 0, \
            f"{what}: {ran} of {repeat} x {total_ios}"


# slow: job files under the real fio for whole seconds
@pytest.mark.slow
@pytest.mark.parametrize("job,variant", RUNS, ids=RUN_IDS)
def test_catalogue_job_counts_what_its_pattern_says(ctx, job, variant):
    p, stats = run_job(ctx, job, clean_env(
        VARIANT=variant, NUMJOBS=NUMJOBS, RUNTIME=1, SIZE="64m"))
    total = check_run(p, stats, job, variant, NUMJOBS, "null")
    name = os.path.basename(job)
    assert {s["model"] for s in stats} == {"pattern"}, name
    runtime_ns = sum(j["job_runtime"] for j in load_fio_json(p.stdout)["jobs"]
                     ) * 1e6
    ops = sequence(job, variant)
    paths = [by_position(s) for s in stats]
    assert all(len(ps) == len(ops) for ps in paths), \
        f"{name} {variant}: {len(ops)} operations, paths {paths}"
    for s, ps in zip(stats, paths):
        assert s["rmw"] == sum(c["rmw"] for _, c in ps), name
        assert s["stores"] == sum(c["stores"] for _, c in ps), name
    copies = objects(job)
    for i, op in enumerate(ops):
        per_job = [(s["ios"], ps[i][1], s.get("model_stats", {}).get("flips"))
                   for s, ps in zip(stats, paths)]
        check_op(f"{name} {variant} {paths[0][i][0]}", op, per_job, total,
                 runtime_ns, copies.get(op[2].split(",")[0].strip(), 1))
    check_cas_loops(f"{name} {variant}", ops, stats, paths)
