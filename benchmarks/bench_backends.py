#!/usr/bin/python3
"""What flagcheck's real backends cost against fio's own engines.

For each backend (psync, libaio, io_uring) and iodepth (1, 32), fio's
built-in engine and flagcheck with the same backend (variant=test_first,
mapping=private: the model's cheapest form) run 4k random reads of the same
file from the page cache, one after the other, in alternating order, for
--repeats rounds. Each flagcheck run is divided by the fio run of its round;
the median of those ratios is the figure (target: at least 0.95). Every
run is on one fio clock (flagcheck run's --clocksource auto), which fio
would otherwise choose anew at each start.

    make bench-backends
    benchmarks/bench_backends.py --engine build/fio-flagcheck.so --repeats 9

--csv FILE writes every run, one line each, for plotting elsewhere.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "analysis"))
from flagcheck_analysis.run import clock  # noqa: E402
from bench import fio_version  # noqa: E402

TARGET = 0.95


def fio_json(text):
    """fio 3.33 may print text lines before its JSON."""
    i = text.find("\n{")
    return json.loads(text if text.startswith("{") else text[i + 1:])


def run(fio, args):
    p = subprocess.run([fio, "--output-format=json"] + args, text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode:
        sys.exit(f"fio failed ({' '.join(args)}):\n{p.stderr}")
    job = fio_json(p.stdout)["jobs"][0]
    return job["read"]["iops"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, allow_abbrev=False,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="build/fio-flagcheck.so",
                    help="the built engine (default: %(default)s)")
    ap.add_argument("--dir", default="build",
                    help="where the data file goes (a real file system)")
    ap.add_argument("--size", default="64m",
                    help="data file size, fio's size= (default: %(default)s)")
    ap.add_argument("--repeats", type=int, default=5,
                    help="rounds of every pair, at least 5 (default: "
                         "%(default)s)")
    ap.add_argument("--runtime", default="2", help="seconds per run")
    ap.add_argument("--backends", default="psync,libaio,io_uring",
                    help="comma-separated backends, each against fio's "
                         "engine of that name (default: %(default)s)")
    ap.add_argument("--depths", default="1,32",
                    help="comma-separated iodepths (default: %(default)s)")
    ap.add_argument("--cpu", help="pin every run to this CPU (cpus_allowed)")
    ap.add_argument("--csv", help="write every run here")
    ap.add_argument("--clocksource", choices=clock.CHOICES, default="auto",
                    help="fio's clock for every run, as flagcheck run's "
                         "(default: auto, here %s)" % clock.default_for_here())
    args = ap.parse_args()

    fio = shutil.which("fio")
    if not fio:
        sys.exit("fio not found on PATH")
    engine = os.path.abspath(args.engine)
    if not os.path.exists(engine):
        sys.exit(f"{engine} missing: run make")
    if args.repeats < 5:
        sys.exit("--repeats: at least 5")
    backends = args.backends.split(",")
    depths = [int(d) for d in args.depths.split(",")]
    path = os.path.join(os.path.abspath(args.dir), "bench-backends.dat")

    common = [f"--filename={path}", f"--size={args.size}", "--rw=randread",
              "--bs=4k", "--time_based", f"--runtime={args.runtime}",
              "--ramp_time=0.5", "--invalidate=0", "--name=bench"] \
        + clock.fio_args(clock.choose(args.clocksource,
                                      clock.kernel_clocksource())[0])
    if args.cpu is not None:
        common.append(f"--cpus_allowed={args.cpu}")

    # lay the file out, then read it all so that every run reads the cache
    run(fio, [f"--filename={path}", f"--size={args.size}", "--rw=write",
              "--bs=1m", "--name=layout", "--ioengine=psync"])
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass

    iops = {}   # (backend, depth, "fio"|"flagcheck") -> [per round]
    rows = []
    try:
        for rnd in range(args.repeats):
            for backend in backends:
                for depth in depths:
                    sides = {
                        "fio": [f"--ioengine={backend}"],
                        "flagcheck": [f"--ioengine=external:{engine}",
                                      f"--backend={backend}",
                                      "--variant=test_first",
                                      "--mapping=private"],
                    }
                    order = ["fio", "flagcheck"]
                    if rnd % 2:
                        order.reverse()
                    for side in order:
                        v = run(fio, common + [f"--iodepth={depth}"] + sides[side])
                        iops.setdefault((backend, depth, side), []).append(v)
                        rows.append((rnd, backend, depth, side, v))
            print(f"round {rnd + 1}/{args.repeats} done", file=sys.stderr, flush=True)
    finally:
        os.unlink(path)

    if args.csv:
        with open(args.csv, "w") as f:
            f.write("round,backend,iodepth,engine,iops\n")
            for r in rows:
                f.write("%d,%s,%d,%s,%.0f\n" % r)

    print(f"fio {fio_version(fio)}, "
          f"4k randread from page cache, {args.size} file, {args.runtime}s runs, "
          f"{args.repeats} rounds, fio and flagcheck alternating")
    print(f"{'backend':<9} {'iodepth':>7} {'fio IOPS':>10} {'flagcheck IOPS':>14} "
          f"{'ratio':>6} {'ratio range':>13} {'n':>3}")
    per_backend = {}
    for backend in backends:
        for depth in depths:
            a = iops[(backend, depth, "fio")]
            b = iops[(backend, depth, "flagcheck")]
            ratios = [y / x for x, y in zip(a, b)]
            per_backend.setdefault(backend, []).extend(ratios)
            print(f"{backend:<9} {depth:>7} {statistics.median(a):>10.0f} "
                  f"{statistics.median(b):>14.0f} {statistics.median(ratios):>6.3f} "
                  f"{min(ratios):>6.3f}-{max(ratios):<6.3f} {len(ratios):>3}")
    print()
    failed = []
    for backend, ratios in per_backend.items():
        m = statistics.median(ratios)
        verdict = "meets" if m >= TARGET else "BELOW"
        if m < TARGET:
            failed.append(backend)
        print(f"{backend:<9} median ratio {m:.3f} over {len(ratios)} pairs: "
              f"{verdict} the {TARGET} target")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
