#!/usr/bin/python3
"""Soak (not a test): one fio job run many times, each with a timeout; on a
timeout, gdb's backtrace of every thread of every fio process of that run
(gdb -batch -p), then the run is killed.

The default job is the libaio injection case of
tests/test_engine_backends.py::test_injection_issues_nothing: backend=libaio,
inject=eio inject_every=7, numjobs=2, iodepth=32, iodepth_batch_submit=16,
rw=randrw, continue_on_error=io, 4m per job on a 16m file. --fio-engine
runs the same job with fio's own libaio engine (no injection: fio has
none), to tell a hang of fio's from one of the engine's. Run it beside
other load (make -j2, another fio) to get the timing a loaded machine
gives; a run that ends with an error exit is counted, not fatal.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(TOP, "tests"), os.path.join(TOP, "analysis")]
import fiorun  # noqa: E402


def job_argv(a, d):
    common = [f"--filename={os.path.join(d, 'inject')}", "--size=16m",
              "--bs=4k", "--numjobs=2", f"--thread={a.thread}",
              "--rw=randrw", "--iodepth=32", "--iodepth_batch_submit=16",
              "--io_size=4m", "--continue_on_error=io",
              "--verify_state_save=0", "--output-format=json", "--name=t"]
    if a.fio_engine:
        return [a.fio, "--ioengine=libaio"] + common
    return [a.fio, f"--ioengine=external:{os.path.abspath(a.engine)}",
            "--backend=libaio", f"--variant={a.variant}", "--inject=eio",
            "--inject_every=7",
            f"--flagcheck_stats={os.path.join(d, 'stats.jsonl')}"] + common


def main():
    ap = argparse.ArgumentParser(description=__doc__, allow_abbrev=False,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fio", default="fio",
                    help="the fio binary (default: fio on PATH)")
    ap.add_argument("--engine", default="build/fio-flagcheck.so",
                    help="the engine, built for that fio (default: "
                    "build/fio-flagcheck.so)")
    ap.add_argument("--fio-engine", action="store_true",
                    help="run the job with fio's own libaio engine instead")
    ap.add_argument("--variant", default="always", choices=("always", "test_first"),
                    help="variant= (default: always)")
    ap.add_argument("--thread", type=int, default=1, choices=(0, 1),
                    help="fio's thread= (default: 1)")
    ap.add_argument("--runs", type=int, default=1000,
                    help="how many runs (default: 1000)")
    ap.add_argument("--timeout", type=float, default=30,
                    help="seconds a run may take before it counts as hung "
                    "(default: 30; a run takes under 1 s)")
    ap.add_argument("--dir", default="build/tests",
                    help="where each run's file goes (default: build/tests)")
    ap.add_argument("--out", default="build/soak",
                    help="prefix of the backtrace files (default: build/soak)")
    a = ap.parse_args()
    fio = shutil.which(a.fio)
    if not fio:
        sys.exit(f"--fio {a.fio}: not found")
    a.fio = os.path.abspath(fio)    # the runs start in their own directory
    if not shutil.which("gdb"):
        sys.exit("gdb not found (apt-get install gdb): no backtrace on a hang")
    os.makedirs(a.dir, exist_ok=True)
    d = tempfile.mkdtemp(prefix="soak-", dir=os.path.abspath(a.dir))
    argv = job_argv(a, d)
    hangs = errors = 0
    t0 = time.monotonic()
    try:
        for run in range(1, a.runs + 1):
            p = subprocess.Popen(argv, cwd=d, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL,
                                 start_new_session=True)
            try:
                p.wait(timeout=a.timeout)
                errors += p.returncode != 0
            except subprocess.TimeoutExpired:
                hangs += 1
                path = f"{a.out}.hang{hangs}.txt"
                with open(path, "w") as f:
                    f.write(f"run {run}: {' '.join(argv)}\n")
                    f.write(fiorun.stop_hung(p.pid))
                p.wait()
                print(f"run {run}: no end in {a.timeout:g} s, backtraces "
                      f"in {path}", flush=True)
            if run % 100 == 0:
                print(f"{run} runs, {hangs} hung, {errors} exited non-zero, "
                      f"{time.monotonic() - t0:.0f} s", flush=True)
    finally:
        shutil.rmtree(d)
    print(f"{a.runs} runs: {hangs} hung, {errors} exited non-zero, "
          f"{time.monotonic() - t0:.0f} s")
    return 1 if hangs else 0


if __name__ == "__main__":
    sys.exit(main())
