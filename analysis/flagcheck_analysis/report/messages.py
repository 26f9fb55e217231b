"""flagcheck-report's name and its one-line messages on stderr, shared by
its command line and the loader of its records (which flagcheck-catalogue
uses too)."""

import sys

PROG = "flagcheck-report"


def warn(msg):
    print("%s: %s" % (PROG, msg), file=sys.stderr)
