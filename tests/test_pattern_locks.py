"""The jobs of a run checked together before any job's I/O (docs/pattern.md,
"Locks and layouts"): two locks taken in both orders, across alternatives
or across the sections on one file, a lock's place written by another
section, a slot or pair copy that does not fit the jobs' numbers: each is
refused by the engine under the real fio (processes and threads, fio's
create_serialize either way, fio's client and server) before any job ran
an I/O, and by the simulator at as many CPUs, in the same line."""

import os
import shutil
import subprocess

import pytest

from tests.analysis.test_clientserver import Servers

SIM = "flagcheck-sim"
TWO_CPUS = "2\n0 100\n100 0\n0 0\n"
AB = "spin_lock(a),spin_lock(b),work(10),spin_unlock(b),spin_unlock(a)"
BA = "spin_lock(b),spin_lock(a),work(10),spin_unlock(a),spin_unlock(b)"
ORDER = ("pattern: job 1's operation 2 'spin_lock(b)' takes b (byte 128 of "
         "the arena) while it holds a (byte 0 of the arena), and job 1's "
         "operation 7 'spin_lock(a)' takes a (byte 0 of the arena) while it "
         "holds b (byte 128 of the arena): the jobs on one file could each "
         "hold a lock another waits for: take the locks in one order in "
         "every alternative and job")
ALIASED = ("pattern: job 2's operation 1 'atomic_inc(c)' writes byte 0 of "
           "the arena, where job 1's operation 1 'spin_lock(lk)' takes lock "
           "lk: only spin_lock() and spin_unlock() write a lock word, in "
           "every job on the file")


def sim(build, words, pattern, cpus=2):
    matrix = "%d\n%s%s\n" % (cpus, "".join(
        " ".join("0" if a == b else "100" for b in range(cpus)) + "\n"
        for a in range(cpus)), " ".join("0" * cpus))
    return subprocess.run([os.path.join(build, SIM), "--words", words,
                           "--pattern", pattern, "--variant", "always",
                           "--ios", "20"], input=matrix,
                          capture_output=True, text=True, timeout=60)


def ours(err):
    """The engine's lines of fio's stderr."""
    return [ln for ln in err.splitlines() if ln.startswith("flagcheck: ")]


def refused_before_io(r, says):
    """fio failed, said @says once, and no job ran an I/O: none reported
    counters (a job that ran reports them at its end)."""
    assert r.rc != 0, r.err
    assert ours(r.err) == ["flagcheck: " + says], r.err
    assert r.stats == [], r.stats
    assert all(j["read"]["total_ios"] == 0 for j in r.json()["jobs"])


@pytest.mark.parametrize("thread,serialize", [(0, 1), (1, 1), (0, 0), (1, 0)],
                         ids=("processes", "threads", "processes-cs0",
                              "threads-cs0"))
def test_locks_in_both_orders_across_alternatives(ctx, build, thread,
                                                  serialize):
    """Two jobs, A and B in turn: job 1 in A holding a, job 2 in B holding
    b, each spins for ever (defect 3); one line, before any I/O, however
    fio runs its jobs; the simulator refuses it in the same line (8)."""
    r = ctx.fio_run(ctx.base_args(
        model="pattern", backend="null", numjobs=2, thread=thread,
        create_serialize=serialize, time_based=0, number_ios=100,
        pattern_words="a@0,b@2", pattern=AB + "|" + BA))
    refused_before_io(r, ORDER)
    p = sim(build, "a@0,b@2", AB + "|" + BA)
    assert p.returncode == 1 and p.stderr == "flagcheck-sim: %s\n" % ORDER
    # in one order they run, every I/O taking both
    r = ctx.fio_run(ctx.base_args(
        model="pattern", backend="null", numjobs=2, thread=thread,
        create_serialize=serialize, time_based=0, number_ios=100,
        pattern_words="a@0,b@2", pattern=AB + "|" + AB))
    assert r.rc == 0, r.err
    assert r.sum("ios") == 200 == sum(j["read"]["total_ios"]
                                      for j in r.json()["jobs"])


def two_sections(ctx, first, second, order=(0, 1)):
    sections = ["[x]\npattern_words=lk@0\n"
                "pattern=spin_lock(lk),work(100),spin_unlock(lk)\n",
                "[y]\npattern_words=%s\npattern=%s\n" % (first, second)]
    return ctx.jobfile(
        "[global]\nioengine=external:${FLAGCHECK_ENGINE}\nmodel=pattern\n"
        "backend=null\nfilename=flagcheck-locks\nsize=1g\nrw=randread\n"
        "number_ios=100\nflagcheck_stats=${FLAGCHECK_STATS}\n" +
        "".join(sections[i] for i in order))


@pytest.mark.parametrize("order", [(0, 1), (1, 0)], ids=("x-y", "y-x"))
def test_a_lock_written_by_another_section(ctx, order):
    """Section y's atomic_inc on section x's lock word, under another
    name: the lock never free again (defect 4); a load of it is fine."""
    r = ctx.fio_run([two_sections(ctx, "c@0", "atomic_inc(c)", order)])
    says = ALIASED if order == (0, 1) else ALIASED.replace(
        "job 2's", "job 0's").replace("job 1's", "job 2's").replace(
        "job 0's", "job 1's")
    refused_before_io(r, says)
    r = ctx.fio_run([two_sections(ctx, "c@0", "READ_ONCE(c)", order)])
    assert r.rc == 0, r.err
    assert r.sum("ios") == 200 and r.sum("rmw", job="x") == 100


@pytest.mark.parametrize("words,numjobs,says", [
    ("s@0:slot(4096)", 2, "pattern_words: slot word s at 2 jobs: job 2's "
     "slot is at byte 4096, past the arena (4096 bytes): at byte 0 a "
     "slot(4096) word holds jobs 1 to 1"),
    ("s@0:slot,d@0+16", 3, "pattern_words: slot word s at 3 jobs: job 3's "
     "slot is at byte 16, where word d is: each job's slot needs a place "
     "of its own"),
    ("s@62:pair", 4, "pattern_words: pair word s at 3 jobs: the copy of "
     "jobs 3 and 4 is at byte 4096, past the arena (4096 bytes): on line 62 "
     "a pair word holds jobs 1 to 2"),
    ("s@0:pair,x@3", 4, "pattern_words: pair word s at 3 jobs: the copy of "
     "jobs 3 and 4 (line 2) shares its line pair (128 bytes) with word x: "
     "each pair's copy needs a line pair to itself"),
])
def test_a_layout_that_does_not_fit_numjobs(ctx, build, words, numjobs,
                                            says):
    """Refused before job 1's I/O, not once job 2 starts after job 1 ran
    its runtime (defect 11); the simulator at as many CPUs states the
    rule in the engine's words (defect 17)."""
    r = ctx.fio_run(ctx.base_args(
        model="pattern", backend="null", numjobs=numjobs, time_based=0,
        number_ios=100, pattern_words=words, pattern="atomic_inc(s)"))
    refused_before_io(r, says)
    p = sim(build, words, "atomic_inc(s)", cpus=numjobs)
    assert p.returncode == 1 and p.stderr == "flagcheck-sim: %s\n" % says


def test_refused_through_a_fio_server(ctx):
    """fio's client and server: the server's process that runs the jobs
    runs the check, and the client prints its line."""
    servers = Servers(ctx.scratch())
    try:
        host = servers.start()
        job = two_sections(ctx, "c@0", "atomic_inc(c)")
        env = dict(os.environ, FLAGCHECK_ENGINE=ctx.engine,
                   FLAGCHECK_STATS=os.path.join(ctx.scratch(), "cs.jsonl"))
        p = subprocess.run([ctx.fio, "--client=" + host, job], env=env,
                           capture_output=True, text=True, timeout=120,
                           cwd=ctx.tmp)
        out = p.stdout + p.stderr
        assert ("flagcheck: " + ALIASED) in out, out
        assert not os.path.exists(env["FLAGCHECK_STATS"])
    finally:
        servers.stop()
        shutil.rmtree(servers.tmp)
