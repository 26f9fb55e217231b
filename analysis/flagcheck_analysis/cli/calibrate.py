"""flagcheck-calibrate's command line: measure this machine's cache-line
costs, write calibration.json and the heatmap, print the tables.

The command joins two layers: the measurement (calibrate/calibration.py,
which flagcheck run shares) and its rendering (report/linecosts.py), so it
lives in report/, above both."""

import os
import sys

from ..calibrate.calibration import (DEFAULT_SECONDS, Interrupted,
    seconds_arg, PROG, Progress, calibrate, default_program)
from ..inputs.calibfile import JSON_NAME, PNG_NAME, CalibrationError
from .. import width
from . import argparser
from ..inputs import fiojson, numbers
from ..report import plot
from ..report.linecosts import heatmap, text

# what each step measures, the progress lines and the files in full are
# docs/analysis.md's "flagcheck calibrate", not --help's
EPILOG = """\
Runs build/flagcheck-calibrate on the CPUs it may use (taskset chooses), one pinned thread per CPU: each pair's
transfer latency, the always/test_first patterns and the line's visits at 1..N threads.
example: taskset -c 0-7 flagcheck calibrate --outdir build/calibration
exit status: 0 written, 1 the measurement failed or the files not written, 2 usage error.
What each step measures and the files in full: docs/analysis.md (flagcheck calibrate)."""


# --max-threads: a thread per CPU at most, of Linux's most CPUs
_threads = numbers.arg(" is not valid: a whole number of at least 1, at "
                       "most %d" % fiojson.NR_CPUS_MAX, whole=True, low=1,
                       high=fiojson.NR_CPUS_MAX)


def build_parser():
    p = argparser.ArgumentParser(
        prog=PROG, description="Measure this machine's cache-line costs; "
        "write calibration.json and a heatmap.", epilog=EPILOG)
    p.add_argument("--outdir", default=".", metavar="DIR",
                   help="where calibration.json and .png go (default: the "
                   "current directory)")
    p.add_argument("--seconds", type=seconds_arg, default=DEFAULT_SECONDS,
                   metavar="S", help="time budget, 0.01-3600 "
                   "(default %(default)g)")
    p.add_argument("--max-threads", type=_threads, metavar="N",
                   help="patterns at 1..N threads, 1-%d (default: every "
                   "usable CPU)" % fiojson.NR_CPUS_MAX)
    p.add_argument("--program", metavar="PATH",
                   help="program to run (default %s)"
                   % default_program())
    p.add_argument("--no-plot", action="store_true",
                   help="draw no calibration.png (no matplotlib needed)")
    p.add_argument("--quiet", action="store_true",
                   help="no progress lines on stderr (default: one per "
                   "step)")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
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

