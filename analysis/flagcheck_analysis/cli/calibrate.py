"""flagcheck-calibrate's command line: measure this machine's cache-line
costs, write calibration.json and the heatmap, print the tables.

The command joins two layers: the measurement (calibrate/calibration.py,
which flagcheck run shares) and its rendering (report/linecosts.py), so it
lives in report/, above both."""

import argparse
import os
import sys

from ..calibrate.calibration import (CalibrationError, DEFAULT_SECONDS,
    JSON_NAME, Interrupted, seconds_arg, PNG_NAME, PROG, Progress, calibrate,
    default_program)
from .. import width
from ..report import plot
from ..report.linecosts import heatmap, text

EPILOG = """\
what it measures (the C program flagcheck-calibrate, built by make), on the
CPUs this process may use (run it under taskset to choose them), one thread
pinned per CPU:
  transfer latency  for every pair of CPUs, two threads bounce one 64-byte
                    line with compare-and-swap; a sample times 64 round
                    trips (the program's --batch); the pair's figure is the
                    median sample / round trips / 2 (one way)
  always            two test_and_clear_bit() per iteration on one shared
                    word (filemap_check_errors() before 7fcbbaf18392), at
                    1..N threads: ns per RMW per thread (mean over threads)
  test_first        test_bit() first, the RMW only when the bit is set (the
                    fix): ns per test_bit per thread
  visits            lock xadd on one line at 1..N threads, each thread
                    keeping the values returned: their order says which
                    CPU the line served each RMW in, so the RMWs per visit
                    and the hand-over time; timed in stretches of 1024
                    RMWs, only the stretches where every thread ran are
                    counted (kept/all printed): the line RMW/s column
The bit operations are the engine's own (engine/bitops.h).  Up to half the
time goes to the pairs, the rest to the patterns.  Unless --quiet, a line on
stderr before each step says what it measures, how far the calibration is
(step K of N) and the time elapsed; flagcheck run prints the same lines.

files written to --outdir: calibration.json (the program's output, the CPU
model, NUMA nodes, SMT siblings, each pair's relation, the summary per
relation: SMT sibling, same node, other node) and, unless --no-plot,
calibration.png (the matrix as a heatmap).  flagcheck report reads
calibration.json from a results directory for its "why" section.

exit status: 0 written, 1 the measurement failed or the files could not be
written, 2 usage error."""


def _threads(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(
            "%r is not valid: a whole number of at least 1" % text)
    return int(text)


def parse_args(argv):
    p = width.ArgumentParser(
        prog=PROG, description="Measure this machine's cache-line costs: "
        "the transfer latency\nbetween every pair of usable CPUs and the "
        "always / test_first bit patterns\nat 1..N threads; write "
        "calibration.json and a heatmap.", epilog=EPILOG,
        formatter_class=width.HelpFormatter)
    p.add_argument("--outdir", default=".", metavar="DIR",
                   help="where to write calibration.json and calibration.png "
                   "(default: the current directory)")
    p.add_argument("--seconds", type=seconds_arg, default=DEFAULT_SECONDS,
                   metavar="S", help="time budget of the measurement, 0.01 "
                   "to 3600 (default: %(default)g)")
    p.add_argument("--max-threads", type=_threads, metavar="N",
                   help="run the patterns at 1..N threads only (default: "
                   "every usable CPU)")
    p.add_argument("--program", metavar="PATH",
                   help="the flagcheck-calibrate program (default: %s)"
                   % default_program())
    p.add_argument("--no-plot", action="store_true",
                   help="do not draw calibration.png (no matplotlib needed)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress lines on stderr (by default one per "
                   "step: each CPU pair's transfer latency, then each "
                   "pattern at each thread count, with the time elapsed)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    progress = None if args.quiet else Progress(PROG)
    try:
        doc = calibrate(args.outdir, args.seconds, args.program,
                        args.max_threads, progress=progress)
    except Interrupted as e:
        print(width.wrap("%s: %s; nothing written" % (PROG, e)),
              file=sys.stderr)
        return 128 + e.signum
    except CalibrationError as e:
        print(width.wrap("%s: %s" % (PROG, e)), file=sys.stderr)
        return 1
    except OSError as e:
        print(width.wrap("%s: cannot write to %s: %s" % (PROG, args.outdir,
                                              e.strerror or e)),
                                                  file=sys.stderr)
        return 1
    finally:
        if progress:
            progress.done()
    drawn = False
    if not args.no_plot:
        try:
            drawn = bool(heatmap(doc, os.path.join(args.outdir, PNG_NAME)))
        except plot.PlotError as e:
            print(width.wrap("%s: heatmap skipped: %s" % (PROG, e)),
                  file=sys.stderr)
    sys.stdout.write(width.wrap(text(doc)))
    print(width.wrap("%s: wrote %s%s to %s" % (
        PROG, JSON_NAME, " and " + PNG_NAME if drawn else "", args.outdir)),
        file=sys.stderr)
    return 0

