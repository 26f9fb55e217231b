#!/usr/bin/python3
"""Benchmark (not a test): the engine's cost against fio's own null engine.

Runs, interleaved in every repeat so that machine drift hits all alike:
  fio's built-in null engine        numjobs 1 and N
  flagcheck, null backend, variant=test_first, mapping=private
                                    numjobs 1 and N
  flagcheck, variant=always and test_first, mapping=shared
                                    numjobs N
and prints the median ratios: flagcheck/null (target >= 0.95) and
test_first/always at N jobs. Thread mode, 4k random reads, time based.
Every run is pinned as flagcheck run pins by default: job k on CPU k - 1
(cpus_allowed=0-(N-1), cpus_allowed_policy=split), so that neither side
gains or loses by where the scheduler happens to put its jobs, and on one
fio clock (flagcheck run's --clocksource auto: fio otherwise picks its clock
at each start, and on a VM a run may get the slower one at random).
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(TOP, "tests"), os.path.join(TOP, "analysis")]
from flagcheck_analysis.run import clock  # noqa: E402
from fiorun import fio_version  # noqa: E402


def iops(fio, args, cwd, env=None):
    """The IOPS of one fio run, reads and writes, summed over its jobs."""
    p = subprocess.run([fio, "--output-format=json", "--group_reporting"] + args,
                       cwd=cwd, env=env, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"fio failed ({p.returncode}): {' '.join(args)}\n{p.stderr}")
    text = p.stdout[p.stdout.find("{"):]
    return sum(j[d]["iops"] for j in json.loads(text)["jobs"]
               for d in ("read", "write"))


def print_runs(res, width):
    """One line per configuration: its median IOPS and every run's."""
    print(f"{'configuration':{width}} {'median IOPS':>12}  runs (M IOPS)")
    for name, v in res.items():
        print(f"{name:{width}} {statistics.median(v):12.0f}  "
              + " ".join(f"{x / 1e6:.2f}" for x in v))


def median_ratio(res, num, den):
    """The median of the run-by-run ratios of two interleaved configurations."""
    return statistics.median(n / d for n, d in zip(res[num], res[den]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, allow_abbrev=False,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="build/fio-flagcheck.so",
                    help="the built engine (default: build/fio-flagcheck.so)")
    ap.add_argument("--before", metavar="ENGINE",
                    help="a second build (e.g. of the commit before a change): "
                         "its flagcheck runs interleaved with --engine's")
    ap.add_argument("--fio", default="fio", help="fio binary (default: fio on PATH)")
    ap.add_argument("--repeats", type=int, default=7,
                    help="interleaved repeats of every configuration (default "
                         "7: the median ratio stands with 3 of them upset by "
                         "the machine changing speed between two runs)")
    ap.add_argument("--runtime", type=float, default=2,
                    help="seconds per fio run (default 2)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count(),
                    help="N, the larger numjobs (default: the CPU count, %(default)s)")
    ap.add_argument("--clocksource", choices=clock.CHOICES, default="auto",
                    help="fio's clock for every run, as flagcheck run's "
                         "(default: auto, here %s)" % clock.default_for_here())
    a = ap.parse_args()
    cs, why = clock.choose(a.clocksource, clock.kernel_clocksource())
    fio = shutil.which(a.fio) or sys.exit(f"{a.fio} not found")
    builds = {"flagcheck": a.engine}
    if a.before:
        builds["before"] = a.before
    for b, so in builds.items():
        builds[b] = os.path.abspath(so)
        if not os.path.exists(builds[b]):
            sys.exit(f"{builds[b]} missing: run make")

    common = ["--name=bench", "--filename=flagcheck-bench", "--size=1g",
              "--bs=4k", "--rw=randread", "--thread", "--time_based",
              f"--runtime={a.runtime}", f"--cpus_allowed=0-{a.jobs - 1}",
              "--cpus_allowed_policy=split"] + clock.fio_args(cs)

    def fc(so, variant, mapping, nj):
        return [f"--ioengine=external:{so}", "--backend=null",
                f"--variant={variant}", f"--mapping={mapping}", f"--numjobs={nj}"]

    configs = {}
    for nj in sorted({1, a.jobs}):
        configs[f"null nj={nj}"] = ["--ioengine=null", f"--numjobs={nj}"]
        for b, so in builds.items():
            configs[f"{b} test_first private nj={nj}"] = fc(
                so, "test_first", "private", nj)
    for b, so in builds.items():
        for variant in ("always", "test_first"):
            configs[f"{b} {variant} shared nj={a.jobs}"] = fc(
                so, variant, "shared", a.jobs)

    res = {k: [] for k in configs}
    with tempfile.TemporaryDirectory() as cwd:
        for r in range(a.repeats):
            # every other repeat backwards: a steady drift of the machine
            # weighs on both ends of the list alike
            for name in list(configs)[::-1 if r % 2 else 1]:
                res[name].append(iops(fio, common + configs[name], cwd))
            print(f"repeat {r + 1}/{a.repeats} done", file=sys.stderr)

    print(f"fio {fio_version(fio)}, "
          f"{os.cpu_count()} CPUs, {a.repeats} interleaved repeats of {a.runtime:g} s, thread mode, "
          f"job k pinned to CPU k - 1, fio clocksource={cs or 'fio'} ({why})")
    print_runs(res, 44)

    def ratio(num, den):
        return median_ratio(res, num, den)

    for b in builds:
        print()
        for nj in sorted({1, a.jobs}):
            r = ratio(f"{b} test_first private nj={nj}", f"null nj={nj}")
            print(f"{b}/null ratio at numjobs={nj}: {r:.3f} "
                  f"(target >= 0.95: {'met' if r >= 0.95 else 'NOT met'})")
        r = ratio(f"{b} test_first shared nj={a.jobs}",
                  f"{b} always shared nj={a.jobs}")
        print(f"{b}: test_first/always ratio at numjobs={a.jobs} "
              f"(shared mapping): {r:.2f}x")


if __name__ == "__main__":
    main()
