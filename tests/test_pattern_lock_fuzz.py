"""The lock and layout grammar under generated job files, with the real fio
(seeded, a few dozen runs): 1 to 3 sections on one file, 1 to 4 jobs,
sequences of spin_lock(), spin_unlock(), work()*N and atomic operations on
words that often share a place, A|B alternatives, slot and pair words.
What fio accepts runs to its end (each job its number_ios, counted exactly,
no error: no hang, no refusal once an I/O ran); what it refuses, it
refuses in one line before any job's I/O. flagcheck-sim, given a single
section at as many CPUs (predict refuses several sections), accepts and
refuses the same, in the same line. The C fuzz of the check itself
(tests/unit/test_pattern_lock_fuzz.c) covers many more cases."""

import os
import random
import subprocess

import pytest

SEED = 0x10cc
CASES = 36
NUMBER_IOS = 20
# flagcheck-sim's exit status past its budget of events (sim/main.c)
SIM_OVER_BUDGET = 3
# the most a run may take before it counts as a hang (it takes well
# under a second); a bound, never a measure
HANG = 60


def words(rnd, tidy):
    sharing = ["", "", "", ":slot", ":pair", ":job", ":slot(16)"]
    return ",".join("w%d@%d%s%s%s" % (
        i, rnd.randrange(4), "" if rnd.randrange(3) else "+8",
        rnd.choice(sharing), "" if tidy or rnd.randrange(12) else "=1")
        for i in range(1 + rnd.randrange(3)))


def other_op(rnd, nw, locked):
    """work(), or an operation on a word; in a tidy case never a write of
    a word the section locks"""
    w = rnd.randrange(nw)
    ops = ["work(10)", "work(500000)*2", "work(400)*3", "READ_ONCE(w%d)" % w]
    if locked is None or w not in locked:
        ops += ["atomic_inc(w%d)" % w, "WRITE_ONCE(w%d,0)" % w]
    return rnd.choice(ops)


def alternative(rnd, nw, locks, tidy):
    """Locks taken in some order, an operation, the locks released: in
    reverse (in a tidy case), else now and then not, or out of turn"""
    ops = ["spin_lock(w%d)" % w for w in locks]
    ops.append(other_op(rnd, nw, set(locks) if tidy else None))
    for i in reversed(range(len(locks))):
        if tidy or rnd.randrange(10):
            ops.append("spin_unlock(w%d)" % locks[
                i if tidy or rnd.randrange(6) else len(locks) - 1 - i])
    if not rnd.randrange(3):
        ops.append(other_op(rnd, nw, set(locks) if tidy else None))
    return ",".join(ops)


def case(rnd, tidy):
    """[(words, pattern, numjobs)], at most 4 jobs in all"""
    sections, jobs = [], 0
    for _ in range(1 + rnd.randrange(3)):
        w = words(rnd, tidy)
        nw = w.count(",") + 1
        n = min(1 + rnd.randrange(2), 4 - jobs)
        if not n:
            break
        jobs += n
        locks = [rnd.randrange(nw) for _ in range(rnd.randrange(3))]
        locks = sorted(set(locks)) if tidy else locks
        alts = [alternative(rnd, nw, locks if k == 0 or not tidy else
                            rnd.sample(locks, len(locks)), tidy)
                for k in range(1 + rnd.randrange(2))]
        sections.append((w, "|".join(alts), n))
    return sections


def job_file(ctx, sections, thread):
    text = ("[global]\nioengine=external:${FLAGCHECK_ENGINE}\n"
            "model=pattern\nvariant=always\nbackend=null\n"
            "filename=flagcheck-lock-fuzz\nsize=1g\nrw=randread\n"
            "time_based=0\nnumber_ios=%d\nthread=%d\n"
            "flagcheck_stats=${FLAGCHECK_STATS}\n" % (NUMBER_IOS, thread))
    for i, (w, p, n) in enumerate(sections):
        text += "[s%d]\npattern_words=%s\npattern=%s\nnumjobs=%d\n" % (
            i, w, p, n)
    return ctx.jobfile(text)


def sim(build, w, p, cpus):
    rows = "".join(" ".join("0" if a == b else "100" for b in range(cpus))
                   + "\n" for a in range(cpus))
    return subprocess.run(
        [os.path.join(build, "flagcheck-sim"), "--words", w, "--pattern", p,
         "--variant", "always", "--ios", "4", "--warmup", "1"],
        input="%d\n%s%s\n" % (cpus, rows, " ".join("0" * cpus)),
        capture_output=True, text=True, timeout=HANG)


# even cases tidy: each lock taken and released in turn, no write of it
CASE_LIST = [case(random.Random(SEED + i), i % 2 == 0) for i in range(CASES)]


@pytest.mark.parametrize("i", range(CASES))
def test_generated_locks_run_or_are_refused_first(ctx, build, i):
    sections = CASE_LIST[i]
    r = ctx.fio_run([job_file(ctx, sections, i // 2 % 2)], timeout=HANG)
    said = [ln[len("flagcheck: "):] for ln in r.err.splitlines()
            if ln.startswith("flagcheck: ")]
    # refused while fio parses: fio starts no job and writes no JSON
    jobs = r.json()["jobs"] if r.rc == 0 or "{" in r.out else []
    if r.rc == 0:
        want = NUMBER_IOS * sum(n for _, _, n in sections)
        assert sum(j["read"]["total_ios"] for j in jobs) == want
        assert r.sum("ios") == want and r.sum("errors_reported") == 0
        assert len(r.stats) == len(jobs) and not said, r.err
    else:
        assert len(said) == 1, r.err
        assert r.stats == [] and all(j["read"]["total_ios"] == 0
                                     for j in jobs), r.err
    if len(sections) == 1:
        w, p, n = sections[0]
        s = sim(build, w, p, n)
        # accepted: simulated, or past its budget of events (a long spin)
        assert (s.returncode in (0, SIM_OVER_BUDGET)) == (r.rc == 0), \
            (r.err, s.stderr)
        if r.rc:
            assert s.stderr == "flagcheck-sim: %s\n" % said[0]
