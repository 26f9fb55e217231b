"""jobs/run-job's guard before fio runs a job file (guard/jobguard.py):
python3 -m flagcheck_analysis.cli.guard JOBFILE [fio options]."""

import argparse
import os
import sys

from .. import width
from . import argparser
from ..guard import jobguard


def main(argv=None):
    p = argparser.ArgumentParser(
        prog="run-job", description="Refuse a fio job that would write a "
        "block device (see the module's docstring for every way a job "
        "names one) unless FLAGCHECK_DESTROY=yes.  ${VARS} come from the "
        "environment.  Exit status 0: fine to run; 2: refused, one line "
        "on stderr says why.")
    p.add_argument("job", metavar="JOBFILE", help="the fio job file")
    p.add_argument("fio_args", nargs=argparse.REMAINDER, metavar="ARG",
                   help="fio's command-line options after the job file")
    args = p.parse_args(argv)
    try:
        jobguard.check_devices(args.job, os.environ, args.fio_args)
        jobguard.check_expect(args.job, jobguard.check_headers(args.job),
                              os.environ, os.environ.get("FIO", "fio"))
        for w in jobguard.check_patterns(args.job, os.environ, args.fio_args):
            print(width.wrap("run-job: warning: %s" % w), file=sys.stderr)
    except jobguard.Refused as e:
        print(width.wrap("run-job: %s" % e), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
