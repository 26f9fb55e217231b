"""flagcheck report's name and its one-line messages on stderr, shared by
its command line, its header and the loader of its records (which
flagcheck catalogue uses too, so its messages name flagcheck report)."""

import sys

from .. import width

PROG = "flagcheck report"


# every message warn() printed, in order: --format json carries them
WARNINGS = []


def warn(msg):
    """One message, wrapped within 120 columns; kept in WARNINGS."""
    WARNINGS.append(msg)
    print(width.wrap("%s: %s" % (PROG, msg)), file=sys.stderr)
