"""jobs/run-job's way to run fio under a deadline (run/deadline.py):
python3 -m flagcheck_analysis.cli.deadline SECONDS FIO [ARGS]."""

import argparse
import sys

from ..inputs import numbers
from . import argparser
from ..run import deadline


seconds_arg = numbers.arg("want a whole number of seconds, 1 or more",
                          whole=True, low=1)


def main(argv=None):
    p = argparser.ArgumentParser(
        prog="python3 -m flagcheck_analysis.cli.deadline",
        description="Run fio until SECONDS have passed, then stop it and its "
        "job processes as flagcheck run does; exit 124 past the deadline.")
    p.add_argument("seconds", metavar="SECONDS", type=seconds_arg,
                   help="the deadline: SIGINT to fio, SIGKILL %d s later"
                   % deadline.GRACE)
    p.add_argument("argv", metavar="FIO", nargs=argparse.REMAINDER,
                   help="fio (or numactl ... fio) and its arguments")
    args = p.parse_args(argv)
    if not args.argv:
        p.error("no command to run")
    try:
        return deadline.run(args.argv, args.seconds)
    except OSError as e:
        print("%s: %s: %s" % (deadline.PROG, args.argv[0], e.strerror or e),
              file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main())
