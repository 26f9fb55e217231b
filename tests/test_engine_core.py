"""The engine itself under the real fio, on the null backend: the shared
object, runs and their counters, bad input, shared memory and its lifetime.
"""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

from fiorun import ok, run_program, shm_entries

VARIANTS = ("always", "test_first")
THREAD = pytest.mark.parametrize("thread", (True, False),
                                 ids=("thread", "process"))


# --- the engine as a shared object -----------------------------------------

def test_engine_exports_only_ioengine(ctx):
    rc, out = run_program(["nm", "-D", "--defined-only", ctx.engine])
    assert rc == 0, out
    syms = [line.split()[-1] for line in out.splitlines() if line.strip()]
    assert syms == ["ioengine"], f"exported: {syms}"


def test_engine_linked_nodelete(ctx):
    rc, out = run_program(["readelf", "-d", ctx.engine])
    assert rc == 0, out
    assert "NODELETE" in out, "not linked with -z nodelete"


# slow: builds the engine
@pytest.mark.slow
def test_engine_builds_with_clang(ctx):
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rc, out = run_program(["make", "-s", "-C", top, f"BUILD={ctx.build}",
                           "-W", "engine/flagcheck.c",
                           f"{ctx.build}/clang.ok"], timeout=300)
    assert rc == 0, f"clang -Wall -Wextra -Werror build failed:\n{out}"


def test_version_skew_is_refused(ctx):
    skew = os.path.join(ctx.build, "fio-flagcheck-skew.so")
    assert os.path.exists(skew), f"{skew} missing: make check builds it"
    ver = run_program([ctx.fio, "--version"])[1].strip()
    r = ctx.fio_run(ctx.base_args(ioengine=f"external:{skew}"), stats=False)
    assert r.rc != 0, "an engine built for other headers was accepted"
    assert "fio-0.0-skew" in r.err and ver in r.err, \
        f"message must name both versions:\n{r.err}"
    assert "issued rwts" not in r.out and '"jobs"' not in r.out, "I/O ran"


# --- runs ----------------------------------------------------------------

@pytest.mark.parametrize("variant,per_io", (("always", 2.0), ("test_first", 0.0)),
                         ids=VARIANTS)
@pytest.mark.parametrize("depth", (1, 16), ids=lambda d: f"iodepth{d}")
def test_runs_at_iodepth(ctx, depth, variant, per_io):
    r = ctx.fio_run(ctx.count_args(iodepth=depth, variant=variant))
    ok(r)
    jobs = r.json()["jobs"]
    ios = jobs[0]["read"]["total_ios"]
    assert ios > 1000, f"iodepth={depth} {variant}: only {ios} I/Os"
    assert len(r.stats) == 1, r.stats
    s = r.stats[0]
    # fio's own count, exactly: the model ran once per I/O fio issued
    assert s["ios"] == s["ios_read"] == ios, (s, ios)
    assert s["checks"] == s["ios"], s
    assert s["rmw"] / s["ios"] == per_io, \
        f"{variant}: {s['rmw'] / s['ios']} RMWs per I/O, want {per_io}"
    path = s["paths"]["filemap_check_errors"]
    assert path["rmw"] == s["rmw"], s
    assert s["rmw_skipped"] == path["skipped"] == \
        (2 * s["checks"] if variant == "test_first" else 0), s
    assert s["options"] == {"variant": variant, "inject": "none",
                            "inject_every": 1000}, s
    assert s["variant"] == variant and s["backend"] == "null", s


def sharing_job(ctx, variant, mapping, readers, thread):
    """One job injecting EIO on every 2nd I/O, `readers` jobs only checking,
    all on one file name."""
    return ctx.jobfile(f"""
[global]
ioengine=external:{ctx.engine}
filename=flagcheck-shared
size=1g
bs=4k
rw=randread
time_based=1
runtime=1
thread={1 if thread else 0}
variant={variant}
mapping={mapping}
continue_on_error=io
flagcheck_stats=${{FLAGCHECK_STATS}}

[injector]
inject=eio
inject_every=2

[reader]
numjobs={readers}
inject=none
""")


# An error one job injects reaches another only while both are on their
# CPUs at once (test_first clears it at once): measured as the runner does,
# by the jobs' corun stretches (inputs/corun.py), the run is repeated
# until the injector and a reader ran together TOGETHER_NS over the runs,
# at most TRIES runs; what holds however they were scheduled is asserted
# on every run.  (On a 2-CPU box the fewest cross-job reports seen were 3
# in 21 ms together: 50 ms leaves a run of none improbable.)
TOGETHER_NS = 50 * 1000 * 1000
TRIES = 8


def together_ns(stats):
    """ns during which the injector and at least one reader ran at once."""
    def stretches(job):
        return sorted(tuple(i) for s in stats if s["job"] == job
                      for i in s["corun"]["intervals"])
    readers, out = [], 0
    for start, end in stretches("reader"):      # the readers' union
        if readers and start <= readers[-1][1]:
            readers[-1][1] = max(readers[-1][1], end)
        else:
            readers.append([start, end])
    for a, b in stretches("injector"):
        out += sum(max(0, min(b, d) - max(a, c)) for c, d in readers)
    return out


# slow: runs until the jobs ran together 50 ms
@pytest.mark.slow
# serial: counts how long the jobs ran together
@pytest.mark.serial
@pytest.mark.parametrize("readers", (1, 2, 3), ids=lambda n: f"readers{n}")
@pytest.mark.parametrize("variant", VARIANTS)
@THREAD
def test_jobs_share_one_mapping(ctx, thread, variant, readers):
    what = f"thread={thread} {variant} numjobs={readers + 1}"
    both = crossed = 0
    for _ in range(TRIES):
        r = ctx.fio_run([sharing_job(ctx, variant, "shared", readers, thread)])
        ok(r)
        assert len(r.stats) == readers + 1, what
        assert len({s["pid"] for s in r.stats}) == \
            (1 if thread else readers + 1), \
            f"{what}: {[s['pid'] for s in r.stats]}"
        setn = r.sum("errors_set")
        rep = r.sum("errors_reported")
        assert setn > 0, what
        assert r.sum("errors_set", job="reader") == 0, what
        assert setn == rep == r.total_err(), \
            f"{what}: set {setn} reported {rep} fio total_err {r.total_err()}"
        both += together_ns(r.stats)
        crossed += r.sum("errors_reported", job="reader")
        if both >= TOGETHER_NS:
            assert crossed > 0, \
                f"{what}: the injector and the readers ran together " \
                f"{both / 1e6:.0f} ms, and no error injected by one job " \
                f"was reported by another"
            return
    pytest.skip(f"{what}: the injector and the readers ran together "
                f"{both / 1e6:.0f} ms in {TRIES} runs (a busy machine), "
                f"{TOGETHER_NS / 1e6:.0f} ms needed")


@pytest.mark.parametrize("variant", VARIANTS)
@THREAD
def test_private_mapping_shares_nothing(ctx, thread, variant):
    r = ctx.fio_run([sharing_job(ctx, variant, "private", 3, thread)])
    ok(r)
    what = f"thread={thread} {variant}"
    assert r.sum("errors_reported", job="reader") == 0, what
    assert r.sum("errors_set", job="injector") == \
        r.sum("errors_reported", job="injector") == r.total_err() > 0, what


@pytest.mark.parametrize("numjobs", (1, 2, 4), ids=lambda n: f"numjobs{n}")
@pytest.mark.parametrize("thread", (1, 0), ids=("thread", "process"))
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("inject,extra", (
    ("eio", []), ("enospc", ["--ignore_error=ENOSPC,ENOSPC"])),
    ids=("eio", "enospc"))
def test_injection_accounting_is_exact(ctx, inject, extra, variant, thread,
                                       numjobs):
    r = ctx.fio_run(ctx.count_args(
        variant=variant, inject=inject, inject_every=7,
        numjobs=numjobs, thread=thread,
        iodepth=4, continue_on_error="io") + extra)
    ok(r)
    what = f"{inject} {variant} thread={thread} numjobs={numjobs}"
    setn, rep = r.sum("errors_set"), r.sum("errors_reported")
    assert setn > 0, what
    assert setn == rep == r.total_err(), \
        f"{what}: set {setn} reported {rep} total_err {r.total_err()}"
    assert len(r.stats) == numjobs, what


def test_stats_file_is_one_line_per_job_and_starts_afresh(ctx):
    path = os.path.join(ctx.tmp, "stats-afresh.jsonl")
    for _ in range(2):
        r = ctx.fio_run(ctx.count_args(numjobs=3, flagcheck_stats=path),
                        stats=False)
        ok(r)
        with open(path) as f:
            lines = [json.loads(line) for line in f]
        assert len(lines) == 3, f"{len(lines)} lines after a run of 3 jobs"
        assert sorted(s["thread_number"] for s in lines) == [1, 2, 3], lines
    os.unlink(path)


def test_stats_file_planted_link_is_refused(ctx):
    """A symbolic link in the counters file's place is never followed: at
    parse time it is refused, naming the option."""
    d = tempfile.mkdtemp(prefix="link-", dir=ctx.tmp)
    victim, link = os.path.join(d, "victim"), os.path.join(d, "s.jsonl")
    with open(victim, "w") as f:
        f.write("keep\n")
    os.symlink(victim, link)
    try:
        r = ctx.fio_run(ctx.count_args(flagcheck_stats=link), stats=False)
        assert r.rc != 0
        assert f"flagcheck_stats={link} is a symbolic link" in r.err, r.err
        with open(victim) as f:
            assert f.read() == "keep\n"
    finally:
        shutil.rmtree(d)


def test_stats_file_link_planted_during_the_run_is_not_followed(ctx):
    """The link planted after the file was checked, while the job runs: the
    job's line is not written through it (O_NOFOLLOW), fio exits non-zero
    and says why."""
    d = tempfile.mkdtemp(prefix="link-", dir=ctx.tmp)
    victim, path = os.path.join(d, "victim"), os.path.join(d, "s.jsonl")
    with open(victim, "w") as f:
        f.write("keep\n")
    argv = [ctx.fio] + ctx.base_args(runtime="2", flagcheck_stats=path)
    cwd = ctx.scratch()
    try:
        p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        for _ in range(100):        # the job made the file: it has started
            if os.path.exists(path):
                break
            time.sleep(0.05)
        os.unlink(path)
        os.symlink(victim, path)
        out, err = p.communicate(timeout=60)
        assert p.returncode != 0, out
        assert "it is a symbolic link" in err or "symbolic links" in err, err
        with open(victim) as f:
            assert f.read() == "keep\n"
    finally:
        shutil.rmtree(d)
        os.rmdir(cwd)


def test_counters_reach_the_text_output(ctx):
    argv = [ctx.fio] + ctx.count_args(variant="always")
    cwd = ctx.scratch()
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60)
    os.rmdir(cwd)
    assert p.returncode == 0, p.stderr
    assert "flagcheck: t (job 1): filemap_check_errors variant=always" in p.stdout, p.stdout
    assert "rmw=" in p.stdout and "(2.00/io)" in p.stdout, p.stdout


# --- bad input -------------------------------------------------------------

BAD_OPTIONS = [
    (["--variant=sometimes"], "variant=sometimes", "always, test_first"),
    (["--variant=alwaysx"], "variant=alwaysx", "always, test_first"),
    (["--model=filemap_check_errors", "--variant=before"],
     "variant=before is not valid for model=filemap_check_errors",
     "always, test_first"),
    (["--mapping=global"], "mapping=global", "shared, private"),
    (["--backend=spdk"], "backend=spdk", "null"),
    (["--inject=ebusy"], "inject=ebusy", "none, eio, enospc"),
    (["--inject=eio", "--inject_every=0"], "inject_every=0", "from 1 to"),
    (["--inject_every=0", "--inject=eio"], "inject_every=0", "from 1 to"),
    (["--inject_every=-5"], "inject_every=-5", "a whole number from"),
    (["--inject_every=ten"], "inject_every=ten", "a whole number from"),
    (["--inject_every=4294967296"], "inject_every=4294967296", "a whole number from"),
    (["--model=filemap"], "model=filemap", "filemap_check_errors"),
    (["--flagcheck_stats=/nonexistent-dir/x.jsonl"], "flagcheck_stats=/nonexistent-dir",
     "cannot create files"),
]


@pytest.mark.parametrize("extra,named,allowed", BAD_OPTIONS,
                         ids=[" ".join(b[0]) for b in BAD_OPTIONS])
def test_bad_options_fail_before_io(ctx, extra, named, allowed):
    r = ctx.fio_run(ctx.base_args() + extra, stats=False)
    what = " ".join(extra)
    assert r.rc != 0, f"{what}: fio exited 0"
    assert named in r.err and allowed in r.err, \
        f"{what}: message must name the value and what is allowed:\n{r.err}"
    assert "Traceback" not in r.err and "Segmentation" not in r.err, r.err
    assert '"jobs"' not in r.out, f"{what}: fio ran jobs"


def test_bad_option_in_second_job_stops_the_first(ctx):
    job = ctx.jobfile(f"""
[global]
ioengine=external:{ctx.engine}
filename=flagcheck-shared
size=1g
time_based=1
runtime=1
[good]
[bad]
mapping=bogus
""")
    r = ctx.fio_run([job], stats=False)
    assert r.rc != 0
    assert "mapping=bogus" in r.err and "shared, private" in r.err, r.err
    assert '"jobs"' not in r.out, "the good job ran I/O"


def test_counters_line_is_json_whatever_the_job_is_named(ctx):
    """A job name with a tab, a quote and a Latin-1 byte (fio takes any):
    the counters line is still UTF-8 JSON, the byte as U+FFFD."""
    cwd = ctx.scratch()
    stats = os.path.join(cwd, "s.jsonl")
    args = [a for a in ctx.count_args() if not a.startswith("--name=")]
    p = subprocess.run([os.fsencode(ctx.fio), b"--name=t\t\"x\xe9"] +
                       [os.fsencode(a) for a in args] +
                       [os.fsencode("--flagcheck_stats=" + stats)],
                       cwd=cwd, capture_output=True, timeout=120)
    try:
        assert p.returncode == 0, p.stderr
        with open(stats, "rb") as f:
            lines = [json.loads(line) for line in f]  # strict UTF-8
    finally:
        shutil.rmtree(cwd)
    assert [s["job"] for s in lines] == ["t\t\"x\ufffd"], lines


def test_a_refusal_at_job_init_is_printed_once(ctx):
    """A model's refusal when the job starts (a pattern word never
    declared): its reason once, not again as the engine's "model: errno"."""
    r = ctx.fio_run(ctx.base_args(model="pattern", pattern="set_bit(a,1)"),
                    stats=False)
    assert r.rc != 0, r.out[:2000]
    lines = [ln for ln in r.err.splitlines() if ln.startswith("flagcheck:")]
    assert len(lines) == 1 and "unknown word 'a'" in lines[0], r.err


# --- shared memory and its lifetime -----------------------------------------

def test_two_runs_at_once_share_nothing(ctx):
    a_args = ctx.base_args(inject="eio", inject_every=1, runtime=2,
                           variant="always", continue_on_error="io")
    cwd = ctx.scratch()
    a = subprocess.Popen([ctx.fio, "--output-format=json"] + a_args, cwd=cwd,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(0.3)
        r = ctx.fio_run(ctx.base_args(runtime=1, variant="always",
                                      continue_on_error="io"))
        ok(r)
        assert r.sum("errors_reported") == 0 == r.total_err(), \
            "a run saw the errors injected by another run on the same file name"
    finally:
        a.wait(timeout=30)
        os.rmdir(cwd)


def run_and_signal(ctx, sig, thread):
    before = shm_entries()
    cwd = ctx.scratch()
    p = subprocess.Popen([ctx.fio] + ctx.base_args(runtime=30, thread=int(thread),
                                                   numjobs=2, inject="eio",
                                                   inject_every=1,
                                                   continue_on_error="io"),
                         cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    time.sleep(1.0)
    os.kill(p.pid, sig)
    try:
        rc = p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        raise AssertionError(f"fio did not stop on signal {sig}")
    if sig == signal.SIGKILL:
        try:
            os.killpg(p.pid, signal.SIGKILL)  # orphaned job processes
        except ProcessLookupError:
            pass
    # every process of the run is gone
    for _ in range(50):
        if subprocess.run(["pgrep", "-s", str(p.pid)], capture_output=True).returncode:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("processes of the run are still alive")
    os.rmdir(cwd)
    new = shm_entries() - before
    assert not new, f"left in /dev/shm after signal {sig}: {new}"
    return rc


# serial: /dev/shm is compared whole, and a test beside it may add to it
@pytest.mark.serial
@THREAD
def test_nothing_left_after_normal_run(ctx, thread):
    before = shm_entries()
    ok(ctx.fio_run(ctx.count_args(numjobs=2, thread=int(thread))))
    assert shm_entries() - before == set()


# serial: /dev/shm is compared whole, and a test beside it may add to it
@pytest.mark.serial
@THREAD
@pytest.mark.parametrize("sig", (signal.SIGINT, signal.SIGTERM),
                         ids=("SIGINT", "SIGTERM"))
def test_nothing_left_after_signal(ctx, sig, thread):
    run_and_signal(ctx, sig, thread)


# serial: /dev/shm is compared whole, and a test beside it may add to it
@pytest.mark.serial
@THREAD
def test_sigkilled_run_is_never_attached(ctx, thread):
    run_and_signal(ctx, signal.SIGKILL, thread)
    # the killed run left error bits set on its mapping; a new run on
    # the same file name must start from a clean one
    r = ctx.fio_run(ctx.count_args(numjobs=2, thread=int(thread),
                                   continue_on_error="io"))
    ok(r)
    assert r.sum("errors_reported") == 0 == r.total_err(), \
        "a later run saw the state of a SIGKILLed one"


# slow: gdb's backtraces of a hung fio
@pytest.mark.slow
def test_a_run_past_its_timeout_is_stopped_with_its_backtraces(ctx):
    """A hung fio fails its test with gdb's backtrace of every thread of
    every fio process, so that a rare hang can be read from the failure."""
    with pytest.raises(AssertionError) as e:
        ctx.fio_run(ctx.base_args(runtime=60, numjobs=2, thread=1),
                    timeout=3)
    msg = str(e.value)
    assert "fio did not finish in 3s" in msg, msg
    if not shutil.which("gdb"):
        pytest.skip("no gdb (make check installs it): no backtraces")
    assert msg.count("=== pid ") == 1, msg      # thread=1: one process
    # fio's main thread and its two job threads, each with its frames
    assert msg.count("\nThread ") >= 3 and "#0 " in msg, msg


# slow: gdb's backtraces of a hung fio
@pytest.mark.slow
# serial: the stop is timed
@pytest.mark.serial
def test_a_hung_fios_job_processes_are_stopped_too(ctx):
    """Job processes (each in a session of its own, outside fio's process
    group) are found, backtraced and killed with fio: the test ends at once,
    not when their runtime does, and none of them is left."""
    name = f"hung{os.getpid()}"
    t0 = time.monotonic()
    with pytest.raises(AssertionError) as e:
        ctx.fio_run(ctx.base_args(name=name, runtime=60, numjobs=2),
                    timeout=3)
    assert time.monotonic() - t0 < 40, "waited for the job processes"
    msg = str(e.value)
    assert "fio did not finish in 3s" in msg, msg
    for _ in range(50):
        left = subprocess.run(["pgrep", "-f", f"--name={name}"],
                              capture_output=True, text=True).stdout.split()
        if not left:
            break
        time.sleep(0.1)
    assert left == [], f"job processes left: {left}"
    if shutil.which("gdb"):
        assert msg.count("=== pid ") == 3, msg  # fio and its two jobs
