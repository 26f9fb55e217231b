""":pair words under the real fio (docs/pattern.md, Words): jobs 2k+1 and
2k+2 (fio's job numbers, thread_number in the counters) use one copy, a
line pair of the shared arena to itself, counted exactly against fio's
total_ios:

  atomic_inc        4 jobs: one RMW a call, rmw == total_ios
  add_unless(CAP)   4 jobs of N I/Os, N < CAP < 2N: a copy adds until it
                    holds CAP, so each pair adds exactly CAP and skips
                    2N - CAP (one copy for all would add CAP in all, one
                    per job N per job): the copy ends at its own pair's
                    count
  WRITE_ONCE(,job)  test_first stores only over another job's value: on a
                    :job word once per job; on a :pair word a job stores
                    again only after its partner did, so the two counts of
                    a pair differ by at most one
  refusals          a pair's copy past the arena: refused at the job's
                    start in one line, before any of its I/O
"""
import pytest

POOL = 1500            # I/Os per job (number_ios)
CAP = 2000             # POOL < CAP < 2 x POOL


def run(ctx, words, pattern, variant="always", numjobs=4, **kw):
    r = ctx.fio_run(ctx.base_args(
        model="pattern", variant=variant, numjobs=numjobs, thread=1,
        backend="null", number_ios=POOL, time_based=0,
        pattern_words=words, pattern=pattern, **kw))
    assert r.rc == 0, r.err
    ios = sum(j["read"]["total_ios"] for j in r.json()["jobs"])
    assert ios > 0 and sum(s["ios"] for s in r.stats) == ios
    assert sorted(s["thread_number"] for s in r.stats) == \
        list(range(1, numjobs + 1))
    return ios, {s["thread_number"]: s for s in r.stats}


def path(s):
    (c,) = s["paths"].values()
    return c


@pytest.mark.parametrize("variant", ["always", "test_first"])
def test_each_call_is_one_rmw(ctx, variant):
    ios, by = run(ctx, "ref@0:pair", "atomic_inc(ref)", variant)
    assert sum(s["rmw"] for s in by.values()) == ios
    assert all(path(s)["rmw"] == s["ios"] for s in by.values())


@pytest.mark.parametrize("words,adds", [
    ("ref@0:pair", [CAP, CAP]),         # each pair its own copy
    ("ref@0", [CAP]),                   # one for all four jobs
    ("ref@0:job", [POOL] * 4),          # one per job
])
def test_a_copy_counts_its_own_pairs_ios(ctx, words, adds):
    ios, by = run(ctx, words, "atomic_add_unless(ref,1,%d)" % CAP)
    assert all(s["ios"] == POOL for s in by.values()) and ios == 4 * POOL
    added = {k: path(s)["rmw"] - path(s)["retries"] for k, s in by.items()}
    skipped = {k: path(s)["skipped"] for k, s in by.items()}
    assert all(added[k] + skipped[k] == POOL for k in by)
    if words.endswith(":pair"):
        # jobs 1, 2 on pair 0's copy, 3, 4 on pair 1's
        assert [added[1] + added[2], added[3] + added[4]] == adds
    elif words.endswith(":job"):
        assert [added[k] for k in sorted(added)] == adds
    else:
        assert [sum(added.values())] == adds


def test_a_job_sees_its_partners_stores_only(ctx):
    _, alone = run(ctx, "ref@0:job", "WRITE_ONCE(ref,job)", "test_first")
    assert all(path(s)["stores"] == 1 for s in alone.values())
    _, by = run(ctx, "ref@0:pair", "WRITE_ONCE(ref,job)", "test_first")
    st = {k: path(s)["stores"] for k, s in by.items()}
    assert all(st[k] + path(s)["stores_skipped"] == s["ios"]
               for k, s in by.items())
    # the first I/O stores over 0 or the partner's number; each later
    # store needs the partner's in between, and never another pair's
    assert all(n >= 1 for n in st.values())
    assert abs(st[1] - st[2]) <= 1 and abs(st[3] - st[4]) <= 1, st


def test_two_jobs_are_one_pair(ctx):
    ios, by = run(ctx, "ref@0:pair", "atomic_add_unless(ref,1,%d)" % CAP,
                  numjobs=2)
    assert sum(path(s)["rmw"] - path(s)["retries"]
               for s in by.values()) == CAP


@pytest.mark.parametrize("words,numjobs,says", [
    ("ref@62:pair", 3, "pattern_words: pair word ref at 3 jobs: the copy "
     "of jobs 3 and 4 is at byte 4096, past the arena (4096 bytes): on "
     "line 62 a pair word holds jobs 1 to 2"),
    ("ref@0:pair,x@2", 3, "pattern_words: pair word ref at 3 jobs: the "
     "copy of jobs 3 and 4 (line 2) shares its line pair (128 bytes) with "
     "word x: each pair's copy needs a line pair to itself"),
])
def test_a_copy_that_does_not_fit_is_refused(ctx, words, numjobs, says):
    r = ctx.fio_run(ctx.base_args(
        model="pattern", numjobs=numjobs, thread=1, backend="null",
        pattern_words=words, pattern="atomic_inc(ref)", time_based=0,
        number_ios=4), stats=False)
    assert r.rc != 0 and "flagcheck: " + says + "\n" in r.err, r.err


def test_a_bad_sharing_is_refused_in_one_line(ctx):
    r = ctx.fio_run(ctx.base_args(
        model="pattern", pattern_words="ref@0:pairs",
        pattern="atomic_inc(ref)", time_based=0, number_ios=4), stats=False)
    assert r.rc != 0 and "sharing 'pairs' is not known" in r.err, r.err
    line = [ln for ln in r.err.splitlines() if "'pairs'" in ln][0]
    assert "pair (jobs 2k+1 and 2k+2 one copy, at +128 x k)" in line
