"""flagcheck from-diff's job files under the real fio, one job a variant,
a fixed number of I/Os (LOOPS passes over 64k): every translation runs in
both variants with the engine's I/O count equal to fio's total_ios and its
counters within its own `; expect:` line; a full translation's counters
equal the hand-written job file's, exactly where they are exact (docs/
your-patch.md's table)."""

import os
import re
from fractions import Fraction

import pytest

from jobrun import clean_env, run_job
from test_pattern_jobs import LOOPS, counted, counted_shape
from tests.analysis.test_fromdiff import EXPECTED, FULL, JOBS, patch
from tests.analysis.helpers import run_cli

VARIANTS = ("always", "test_first")
COUNTERS = ("rmw", "stores", "rmw_skipped", "stores_skipped")
_OPS = {"=": Fraction.__eq__, "<=": Fraction.__le__, "<": Fraction.__lt__,
        ">=": Fraction.__ge__, ">": Fraction.__gt__}


def both_variants(ctx, path):
    """@path with a fixed count of I/Os and its one section replaced by
    one section a variant, each job its own words (mapping=private): the
    counters of each variant, summed, and its fio I/O count."""
    shaped = counted_shape(ctx, path)
    with open(shaped) as f:
        text = f.read()
    text = text.rsplit("\n[", 1)[0].replace(
        "[global]\n", "[global]\nmapping=private\n", 1)
    text += "".join("\n[%s]\nvariant=%s\nstonewall\n" % (v, v)
                    for v in VARIANTS)
    with open(shaped, "w") as f:
        f.write(text)
    try:
        p, stats = run_job(ctx, shaped, clean_env(
            VARIANT="always", NUMJOBS=1, SIZE="64k"))
    finally:
        os.unlink(shaped)
    counted(p, stats, os.path.basename(path))
    out = {}
    for v in VARIANTS:
        mine = [s for s in stats if s["variant"] == v]
        assert len(mine) == 1, (v, len(stats))
        out[v] = {c: mine[0][c] for c in COUNTERS + ("ios",)}
        assert out[v]["ios"] == 16 * LOOPS
    return out


def expect_terms(path):
    """{variant: [(counter, op, value)]} of the job file's expect line."""
    with open(path) as f:
        line = re.search(r"^; expect: (.*)$", f.read(), re.M).group(1)
    out = {}
    for group in line.split(";"):
        variant, *terms = group.split()
        out[variant] = [re.match(r"^(\w+)/io(<=|>=|=|<|>)(\d+)(?:/(\d+))?$",
                                 t).groups() for t in terms]
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    d = tmp_path_factory.mktemp("fromdiff")
    out = {}
    for name in EXPECTED:
        out[name] = str(d / (name + ".fio"))
        p = run_cli("from-diff", patch(name), "-o", out[name])
        assert p.returncode == 0, p.stderr
    return out


# slow: job files under the real fio
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_job_runs_and_gives_its_expected_counters(ctx, generated, name):
    runs = both_variants(ctx, generated[name])
    for variant, terms in expect_terms(generated[name]).items():
        c = runs[variant]
        for counter, op, num, den in terms:
            got = Fraction(c[counter], c["ios"])
            want = Fraction(int(num), int(den or 1))
            assert _OPS[op](got, want), \
                "%s %s: %s/io %s, expected %s %s" % (
                    name, variant, counter, got, op, want)


# slow: job files under the real fio
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FULL))
def test_a_full_translation_counts_what_the_hand_written_file_does(
        ctx, generated, name):
    """1 job, the same I/Os: every counter equal; a rate (/every_ns) is a
    count of time, so there the calls (run + skipped) are."""
    mine = both_variants(ctx, generated[name])
    theirs = both_variants(ctx, os.path.join(JOBS, FULL[name]))
    with open(generated[name]) as f:
        rate = "/every_ns=" in f.read()
    for v in VARIANTS:
        if v == "test_first" and rate:
            for kind in ("rmw", "stores"):
                assert mine[v][kind] + mine[v][kind + "_skipped"] == \
                    theirs[v][kind] + theirs[v][kind + "_skipped"], v
            assert mine[v]["rmw"] >= 1 and theirs[v]["rmw"] >= 1
        else:
            assert mine[v] == theirs[v], v
