"""flagcheck report's name and its one-line messages on stderr, shared by
its command line, its header and the loader of its records (which
flagcheck catalogue uses too, so its messages name flagcheck report)."""

import sys

from .. import width

PROG = "flagcheck report"


def warn(msg):
    """One message, wrapped within 120 columns."""
    print(width.wrap("%s: %s" % (PROG, msg)), file=sys.stderr)
