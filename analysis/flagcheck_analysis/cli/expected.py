"""After jobs/run-job's fio: the run's counters against the job file's
expect line (run/expected.py), each term that breaks one line on stderr,
exit status 1; nothing to say, 0 (docs/your-patch.md)."""

import sys

from .. import width
from ..inputs import fiojson, jobheader
from ..run import expected
from . import argparser


def main(argv=None):
    p = argparser.ArgumentParser(
        prog="run-job", description="Hold a run's counters to its job "
        "file's expect line. Exit status 0: they hold (or there is no "
        "line); 1: one line on stderr per term they break.")
    p.add_argument("job", metavar="JOBFILE", help="the fio job file")
    p.add_argument("stats", metavar="STATS", help="the engine's counters "
                   "file of its run (FLAGCHECK_STATS)")
    args = p.parse_args(argv)
    try:
        lines = expected.failures(args.job, args.stats)
    except (jobheader.FigureError, fiojson.InputError) as e:
        lines = [str(e)]
    for line in lines:
        print(width.wrap("run-job: %s" % line), file=sys.stderr)
    return 1 if lines else 0


if __name__ == "__main__":
    sys.exit(main())
