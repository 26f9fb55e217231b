"""Every header line of a job file read at once, as flagcheck run and
jobs/run-job do before any fio starts: a bad line is one message naming
file:line before the runs, never a traceback after them.  Each form, with
an example: docs/your-patch.md ("The header lines")."""

from . import expect, jobheader

# each key's reader: one that parses a line of its key, or refuses it
READERS = (("published-figure", jobheader.read),
           ("published-machine", jobheader.published_machine),
           ("published-rest", jobheader.published_rest),
           ("rest-rule", jobheader.rest_rule),
           ("published-share", jobheader.published_share),
           ("published-stddev", jobheader.published_stddev),
           ("assumed", jobheader.assumed),
           ("pattern-twin", lambda p: jobheader.pattern_twin(p, False)),
           (expect.KEY, expect.read))
KEYS = tuple(k for k, _ in READERS)


def check(path):
    """{key: what its reader gives} of every header line of job file
    @path (None, or {} for assumed, where it has none); FigureError (one
    line) for the first bad one."""
    return {key: read(path) for key, read in READERS}
