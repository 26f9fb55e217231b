"""flagcheck from-diff without fio: each fixture patch (tests/analysis/
fixtures/patches/, each with its source) translated to the operations,
guards and `; expect:` line a reader of the diff expects, its unknowns on
the band's `; assumed:` lines (the writers, a threshold's period: swept
by the band); the full ones
equal to the hand-written job files operation by operation; the table
generated from the engine's rows and the macros' declaration; pahole's
layout placing the words; bad input refused in one line with no job
file.  The runs under fio: test_fromdiff_runs.py."""

import os
import re

import pytest

import test_engine_catalogue as catalogue
from tests.analysis.helpers import FIXTURES, REPO, message, run_cli
from flagcheck_analysis.fromdiff import (build, jobtext, kernelmacros,
                                         kernelnames)
from flagcheck_analysis.inputs import jobheader, patchfile

PATCHES = os.path.join(FIXTURES, "patches")
LAYOUTS = os.path.join(FIXTURES, "layouts")
JOBS = os.path.join(REPO, "jobs")

# fixture: (pattern=, pattern_fixed= or None, the ; expect: line)
EXPECTED = {
    "s1-filemap-check-errors": (
        "test_and_clear_bit(mapping_flags,1),"
        "test_and_clear_bit(mapping_flags,0),work(1000)", None,
        "always rmw/io=2 stores/io=0; test_first rmw/io=0 stores/io=0"),
    "s2-clear-buffer-new": (
        "clear_bit(bh_b_state,5),work(1000)", None,
        "always rmw/io=1 stores/io=0; test_first rmw/io=0 stores/io=0"),
    "s3-set-buffer-bits": (
        "set_bit(bh_b_state,0),work(1000)", None,
        "always rmw/io=1 stores/io=0; test_first rmw/io<=1/1000 "
        "stores/io=0"),
    "s4-set-buffer-uptodate": (
        "smp_mb__before_atomic(),set_bit(bh_b_state,0),work(1000)",
        "test_bit(bh_b_state,0),smp_mb__before_atomic()/if_test=0,"
        "set_bit(bh_b_state,0)/if_test=0,work(1000)",
        "always rmw/io=1 stores/io=0; test_first rmw/io<=1/1000 "
        "stores/io=0"),
    "gup-pin-fast": (
        "atomic_set(mm_has_pinned,1),work(1000)", None,
        "always rmw/io=0 stores/io=1; test_first rmw/io=0 "
        "stores/io<=1/1000"),
    "mm-cpumask-lazy": (
        "clear_bit(mm_cpumask_prev,0),set_bit(mm_cpumask_next,0),work(1000)",
        "?set_bit(mm_cpumask_next,0),work(1000)",
        "always rmw/io=2 stores/io=0; test_first rmw/io<=1/1000 "
        "stores/io=0"),
    "memcg-flush-threshold": (
        "atomic_add(stats_flush_threshold,1),work(1000)",
        "atomic_add(stats_flush_threshold,1)/below=65,work(1000)",
        "always rmw/io=1 stores/io=0; test_first rmw/io<=13/200 "
        "stores/io=0"),
    "tg-load-avg-ratelimit": (
        "atomic_long_add(tg_load_avg,1),work(1000)",
        "atomic_long_add(tg_load_avg,1)/every_ns=1000000,work(1000)",
        "always rmw/io=1 stores/io=0; test_first rmw/io<=1 stores/io=0"),
    "bcache-dirty-stripes": (
        "clear_bit(d_full_dirty_stripes,0),work(1000)", None,
        "always rmw/io=1 stores/io=0; test_first rmw/io=0 stores/io=0"),
    "ext4-es-stats-percpu": (
        "READ_ONCE(stats_es_stats_cache_hits),"
        "WRITE_ONCE(stats_es_stats_cache_hits,1),work(1000)",
        "atomic_add(es_stats_cache_hits_counters,1),"
        "atomic_cmpxchg(es_stats_cache_hits_lock,0,1)/every=32,"
        "WRITE_ONCE(es_stats_cache_hits_count,32)/every=32,"
        "WRITE_ONCE(es_stats_cache_hits_lock,0)/every=32,work(1000)",
        "always rmw/io=0 stores/io=1; test_first rmw/io<=4129/4000 "
        "rmw/io>=1 stores/io<=129/2000"),
    "sched-balance-running": (
        "atomic_cmpxchg(sched_balance_running,0,1),"
        "atomic_set(sched_balance_running,0),work(1000)",
        "atomic_cmpxchg(sched_balance_running,0,1)/every=100,"
        "atomic_set(sched_balance_running,0)/every=100,work(1000)",
        "always rmw/io=1 stores/io=1; test_first rmw/io<=11/1000 "
        "stores/io<=11/1000"),
}
# the fixtures with a time check whose interval the diff does not give:
# the conditions on their `; assumed: period=` line
PERIODS = {"sched-balance-running": (
    "time_after_eq(jiffies, sd->last_balance + interval)",)}
# the translations whose operations are the hand-written file's (docs/
# your-patch.md's table: "full"), and that file
FULL = {"s1-filemap-check-errors": "pattern/s1-filemap-odirect-read.fio",
        "gup-pin-fast": "catalogue/gup-pin-fast.fio",
        "tg-load-avg-ratelimit": "catalogue/tg-load-avg-ratelimit.fio"}
# the others of the bundle: the hand-written file, whose operations hold
# the translation's in order (the same shape, more of the workload)
PARTIAL = {"s2-clear-buffer-new": "pattern/s2-buffer-new-randwrite.fio",
           "s3-set-buffer-bits": "pattern/s3-aim7-creat-clo.fio",
           "s4-set-buffer-uptodate": "pattern/s4-fxmark-dwtl-uptodate.fio",
           "mm-cpumask-lazy": "catalogue/mm-cpumask-lazy.fio",
           "memcg-flush-threshold": "catalogue/memcg-flush-threshold.fio",
           "bcache-dirty-stripes": "catalogue/bcache-dirty-stripes.fio",
           "ext4-es-stats-percpu": "catalogue/ext4-es-stats-percpu.fio"}
OPTION = re.compile(r"^(pattern_words|pattern|pattern_fixed)=(.*)$", re.M)


def patch(name):
    return os.path.join(PATCHES, name + ".patch")


def job_text(name, layouts=None):
    return jobtext.text(build.translation(patchfile.read(patch(name)),
                                          layouts))


def options(text):
    return dict(OPTION.findall(text))


def counted_ops(text, variant):
    """The operations a variant runs that the counters count (rmw,
    store), normalized: the alias spellings to their row, the words and
    each word's bits renamed in order of first use, /if_test after a
    test of the operation's own bit read as its test-first form."""
    o = options(text)
    seq = o["pattern"] if variant == "always" else o.get("pattern_fixed")
    items = [_parse(i) for i in catalogue.items(seq or o["pattern"])]
    if variant == "test_first" and "pattern_fixed" not in o:
        items = [(bool(kernelnames.row(n).test_first) or tf, n, a, g)
                 for tf, n, a, g in items]
    words, bits, out = {}, {}, []
    for tf, name, args, g in items:
        r = kernelnames.row(name)
        if r.counts not in ("rmw", "store"):
            continue
        if g.pop("if_test", None) is not None:
            tf = True
        w = words.setdefault(args[0], "w%d" % len(words))
        rest = args[1:]
        if "bit" in r.args:
            b = bits.setdefault((w, rest[0]), len(
                [k for k in bits if k[0] == w]))
            rest = [str(b)] + rest[1:]
        out.append((tf, r.name, w, tuple(rest), tuple(sorted(g.items()))))
    return out


def _parse(item):
    m = re.match(r"^(\?)?(\w+)\(([^)]*)\)((?:/\w+=\d+)*)(?:\*\d+)?$",
                 item.strip())
    assert m, item
    guards = dict(g.split("=") for g in m.group(4).split("/")[1:])
    return bool(m.group(1)), m.group(2), m.group(3).split(","), guards


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_fixture_translates_to_what_its_diff_says(name):
    text = job_text(name)
    pattern, fixed, expect = EXPECTED[name]
    o = options(text)
    assert o["pattern"] == pattern
    assert o.get("pattern_fixed") == fixed
    assert "; expect: %s\n" % expect in text


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_header_names_the_source_and_every_assumption(name, tmp_path):
    path = tmp_path / (name + ".fio")
    path.write_text(job_text(name))
    head = path.read_text().split("\n[global]")[0]
    p = patchfile.read(patch(name))
    assert "Source: \"%s\"" % p.source.subject in re.sub(r"\n;\s+", " ",
                                                         head)
    if p.source.commit:
        assert "Commit: %s (" % p.source.commit in head
    # the band's form: every assumed line reads (calls, rest, the
    # writers, and the period of a threshold the diff gives no interval)
    got = jobheader.assumed(str(path))
    assert sorted(got) == sorted(["calls", "rest", "writers"] +
                                 (["period"] if name in PERIODS else []))
    assert jobheader.read(str(path)).form == "none"
    funcs = ", ".join("%s()" % f for f in
                      build.translation(p).functions)
    w = got["writers"]
    assert (w.point, w.low, w.high, w.words) == ("all", 1, "all", (funcs,))
    if name in PERIODS:
        t = got["period"]
        assert (t.point, t.low, t.high, t.words) == (100, 10, 1000,
                                                     PERIODS[name])
    # said on the band's lines, not again in words
    assert "the writers:" not in head
    assert "an interval the diff does not give" not in head
    for word in re.findall(r"(\w+)@\d+", options(path.read_text())[
            "pattern_words"]):
        assert "  %s@" % word in head, word


@pytest.mark.parametrize("name", sorted(FULL))
def test_a_full_translation_runs_the_hand_written_operations(name):
    text = job_text(name)
    with open(os.path.join(JOBS, FULL[name])) as f:
        hand = f.read()
    for variant in ("always", "test_first"):
        assert counted_ops(text, variant) == counted_ops(hand, variant), \
            variant


@pytest.mark.parametrize("name", sorted(PARTIAL))
def test_a_partial_translation_is_the_hand_written_shape_in_part(name):
    """Each operation the translation counts appears, in order and of
    the same row, among the hand-written file's (which holds more of the
    workload than the diff: more heads, buffers, switches, a fold)."""
    text = job_text(name)
    with open(os.path.join(JOBS, PARTIAL[name])) as f:
        hand = f.read()
    for variant in ("always", "test_first"):
        mine = [op[1] for op in counted_ops(text, variant)]
        theirs = iter(op[1] for op in counted_ops(hand, variant))
        assert all(any(t == m for t in theirs) for m in mine), \
            (variant, mine)


def test_the_expect_line_is_the_shared_form():
    term = r"[a-z_]+/io(=|<=|<|>=|>)\d+(/\d+)?"
    group = r"(always|test_first) %s( %s)*" % (term, term)
    for name in EXPECTED:
        line = re.search(r"^; expect: (.*)$", job_text(name), re.M).group(1)
        assert re.fullmatch(r"%s(; %s)*" % (group, group), line), line


def test_pahole_layout_puts_each_word_on_its_line():
    """flags beside nrpages before (byte 8 of line 0), on a line of its
    own after (line 1): the fixed variant's word is its moved twin."""
    layouts = tuple(
        __import__("flagcheck_analysis.inputs.pahole",
                   fromlist=["read"]).read(os.path.join(
                       LAYOUTS, "address-space-%s.pahole" % s))
        for s in ("before", "after"))
    o = options(job_text("s1-filemap-check-errors", layouts))
    assert o["pattern_words"] == "mapping_flags@0+8,mapping_flags_moved@1"
    assert o["pattern_fixed"].startswith(
        "?test_and_clear_bit(mapping_flags_moved,1)")


def test_the_table_is_the_engines_rows_and_the_declared_macros():
    rows, aliases = kernelnames.grammar()
    assert aliases == ("atomic_long_", "atomic64_")
    for name, r in rows.items():
        if name not in kernelmacros.NOT_KERNEL:
            assert kernelnames.lookup(name).steps[0].op == name
            assert kernelnames.lookup(name + "_acquire") is not None or \
                name.endswith("_bit") or not name.startswith("atomic")
    assert kernelnames.lookup("atomic64_add").steps[0].op == "atomic64_add"
    # every use of a declared macro generates its functions, and no more
    helpers = kernelnames.helpers()
    for bit, name in kernelmacros.BH_USES:
        assert helpers["set_buffer_" + name].steps[0].op == "?set_bit"
        assert helpers["clear_buffer_" + name].steps[0].args["bit"] == \
            "BH_" + bit
    assert helpers["TestClearPageActive"].steps[0].op == "test_and_clear_bit"
    assert "SetPageLocked" not in helpers      # TESTPAGEFLAG only
    assert kernelnames.constant("BH_New") == 5
    assert kernelnames.constant("AS_ENOSPC") == 1


def test_a_statement_it_leaves_out_is_named_with_its_patch_line(tmp_path):
    out = tmp_path / "mine.fio"
    p = run_cli("from-diff", patch("mm-cpumask-lazy"), "-o", str(out))
    assert p.returncode == 0, p.stderr
    err = message(p.stderr)
    assert "not translated: mm-cpumask-lazy.patch:47: flush_tlb_func(): " \
        "another path" in err
    assert "mm-cpumask-lazy.patch:28: VM_WARN_ON_ONCE(): compiled out" in err
    assert "wrote %s" % out in message(p.stdout)


def test_the_job_file_is_named_after_the_patch_or_goes_to_stdout(tmp_path):
    p = run_cli("from-diff", patch("gup-pin-fast"), cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr
    assert os.listdir(tmp_path) == ["gup-pin-fast.fio"]
    p = run_cli("from-diff", patch("gup-pin-fast"), "-o", "-")
    assert p.returncode == 0 and p.stdout == \
        (tmp_path / "gup-pin-fast.fio").read_text()


def refused(tmp_path, path, *args):
    out = tmp_path / "out.fio"
    p = run_cli("from-diff", str(path), "-o", str(out), *args)
    assert p.returncode == 1, p
    assert len(message(p.stderr).splitlines()) == 1, p.stderr
    assert p.stderr.startswith("flagcheck from-diff: ")
    assert "Traceback" not in p.stderr and not out.exists()
    return message(p.stderr)


def test_bad_input_gets_one_line_and_no_job_file(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("a mail about a patch, with no diff in it\n")
    assert "not a diff: no hunk" in refused(tmp_path, text)
    binary = tmp_path / "blob.patch"
    binary.write_bytes(b"diff --git a/x b/x\n\0\1\2")
    assert "a binary file" in refused(tmp_path, binary)
    big = tmp_path / "big.patch"
    with open(big, "wb") as f:
        f.truncate(100 << 20)
    assert "larger than %d bytes" % patchfile.MAX_BYTES in \
        refused(tmp_path, big)
    assert "cannot read" in refused(tmp_path, tmp_path / "absent.patch")
    cut = tmp_path / "cut.patch"
    with open(patch("gup-pin-fast")) as f:
        cut.write_text(f.read()[:-200])
    assert "hunk cut short" in refused(tmp_path, cut)


def test_a_diff_with_no_hot_path_change_gets_one_line(tmp_path):
    comments = tmp_path / "comments.patch"
    comments.write_text("--- a/mm/x.c\n+++ b/mm/x.c\n@@ -1,3 +1,3 @@ f()\n"
                        " {\n-\t/* old words */\n+\t/* new words */\n }\n")
    assert "no hot-path change" in refused(tmp_path, comments)
    # 18a5daf0e497 moves d_lockref: the accesses are not in the diff
    assert "changes the layout of struct dentry" in \
        refused(tmp_path, patch("dentry-lockref-layout"))


# a time check beside a per-CPU count's batch (BATCH): the check's
# interval is assumed, the batch is the diff's
BATCH_AND_TIME = """\
--- a/kernel/x.c
+++ b/kernel/x.c
@@ -10,4 +10,6 @@ void f(struct s *p)
 {
-\tatomic_long_add(1, &p->count);
+\tpercpu_counter_add_batch(&p->pc, 1, BATCH);
+\tif (time_after(jiffies, p->next))
+\t\tatomic_long_add(1, &p->count);
 }
"""


def test_the_period_line_sets_only_the_assumed_threshold(tmp_path):
    """The band sets the suffixes of the period line's value: the diff's
    own batch of 64 keeps its /every=64; a batch of 100, the assumed
    interval's own value, would move with it, so the interval is said in
    words instead, with why."""
    from flagcheck_analysis.predict import band, jobspec
    path = tmp_path / "x.patch"
    path.write_text(BATCH_AND_TIME.replace("BATCH", "64"))
    job = tmp_path / "x.fio"
    job.write_text(jobtext.text(build.translation(patchfile.read(
        str(path)))))
    a = jobheader.assumed(str(job))["period"]
    assert a.words == ("time_after(jiffies, p->next)",)
    fixed = options(job.read_text())["pattern_fixed"]
    assert "/every=64," in fixed and \
        "atomic_long_add(p_count,1)/every=100," in fixed
    assert band.threshold(jobspec.read(str(job)), a) == "every"
    path.write_text(BATCH_AND_TIME.replace("BATCH", "100"))
    text = jobtext.text(build.translation(patchfile.read(str(path))))
    assert not re.search(r"^; assumed: period=", text, re.M)
    assert "the diff's own /every=100 would move with it" in \
        " ".join(re.sub(r"\n;\s+", " ", text).split())


def test_from_diffs_assumed_lines_are_swept_by_the_band(tmp_path, monkeypatch):
    """The sched fix's job file, given a machine: the band sweeps the
    writers (every job..one) and the period (10..1000 calls) and sets
    the fix's /every=100 to each end."""
    from tests.analysis import helpers
    from tests.analysis.standin_machine import Machine
    from flagcheck_analysis.predict import band, jobspec
    monkeypatch.setenv("FLAGCHECK_SIM",
                       os.path.join(helpers.BUILD, "flagcheck-sim"))
    text = job_text("sched-balance-running")
    job = tmp_path / "sched.fio"
    job.write_text(text.replace(
        "; published-figure: none: a diff gives no figure\n",
        "; published-figure: none: a diff gives no figure\n"
        "; published-machine: standin 4\n; published-rest: work\n"))
    spec = jobspec.read(str(job))
    b = band.band(spec, Machine(cores=8), 0.0)
    assert b["dims"]["writers"]["values"] == ["all", 1]
    assert b["dims"]["period"]["values"] == [100, 10, 1000]
    assert b["_sim"].threshold == ("every", 100)
    at = band._period(spec, "every", 100, 10)
    assert at.fixed == spec.fixed.replace("/every=100", "/every=10")
    assert at.pattern == spec.pattern
