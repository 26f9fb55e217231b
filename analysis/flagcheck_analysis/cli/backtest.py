"""flagcheck backtest: every job file with a published figure predicted
on its published machine, beside the published gain (predict/backtest.py);
docs/backtest.md is its table."""

import os
import sys

from ..inputs import jobheader
from ..machines import loader, profile
from .. import width
from . import argparser
from ..predict import backtest, fiocost, jobspec, simulate

PROG = "flagcheck backtest"


# what it reads and prints in full is docs/backtest.md's, not --help's
EPILOG = """\
Reads every model=pattern job file under %s with a published-figure,
published-machine and published-rest line; prints docs/backtest.md's table and the scores against docs/predict.md's
targets.
Nothing is measured: the same table on any machine.  example: flagcheck backtest --fio-ns 600
exit status: 0 printed, 1 a job file could not be read or simulated.  In full: docs/backtest.md.""" \
    % ", ".join(backtest.JOB_DIRS)


def build_parser():
    p = argparser.ArgumentParser(
        prog=PROG, description="The simulator's back-test (make backtest): "
        "every job file with a published figure, predicted on its published "
        "machine.",
        epilog=EPILOG)
    p.add_argument("--top", default=None, metavar="DIR",
                   help="the source tree (default: this one)")
    p.add_argument("--fio-ns", type=fiocost.fio_ns_arg, default=None,
                   metavar="NS", help="fio's ns per I/O for published-rest "
                   "fio files, 1-1e6 (default: skip them)")
    p.add_argument("--machines-dir", default=None, metavar="DIR",
                   type=profile.machines_dir_arg,
                   help="where profile names are looked up (default: the "
                   "tree's machines/)")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    here = os.path.dirname(os.path.realpath(__file__))
    top = args.top or os.path.dirname(os.path.dirname(os.path.dirname(
        here)))
    rows = []
    try:
        for path in backtest.job_files(top):
            if jobspec.is_pattern(path):
                rows.append(backtest.row(path, top, lambda n: loader.load(
                    n, args.machines_dir or os.path.join(top, "machines")),
                    args.fio_ns))
    except (ValueError, jobspec.SpecError, jobheader.FigureError,
            simulate.PredictError) as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
    if not any(r.pred is not None for r in rows):
        print(width.wrap("%s: --top %s: %s: nothing to back-test (a model="
                         "pattern job file with a published figure under %s)"
                         % (PROG, top, "no such directory"
                            if not os.path.isdir(top) else
                            "%d pattern job files, none back-tested (%s)" % (
                                len(rows), rows[0].why) if rows else
                            "no pattern job file",
                            ", ".join(backtest.JOB_DIRS))),
              file=sys.stderr)
        return 1
    sys.stdout.write(backtest.markdown(rows, top))
    return 0
