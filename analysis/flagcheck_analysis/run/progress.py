"""What flagcheck run says on stderr while it runs: a live status line on
a terminal, one line per finished run otherwise, and its messages (only
errors with --quiet), each within 120 columns (width.py)."""

import datetime
import sys
import time

from .. import width

PROG = "flagcheck run"


def hms(seconds):
    return str(datetime.timedelta(seconds=int(seconds)))


class Progress:
    def __init__(self, quiet):
        self.quiet = quiet
        self.tty = sys.stderr.isatty() and not quiet

    def line(self, i, total, name, t0, durations, left, done=None):
        """Run @i of @total (@name) running since @t0, or @done (what it
        ended as); the ETA from the @durations so far, @left runs to go.
        @total and @left are the budget's worst case (every cell of
        --until-decided to --max-repeats): they only fall, as cells
        decide early, so the ETA does not grow with added repeats."""
        if self.quiet:
            return
        elapsed = time.monotonic() - t0
        eta = ("%s" % hms(sum(durations) / len(durations) * left)
               if durations else "?")
        msg = "[%d/%d] %s" % (i, total, name)
        if done is None:
            if self.tty:
                # one status line, cut to the width
                sys.stderr.write("\r\033[K" + ("%s running, elapsed %s, "
                                 "ETA %s" % (msg, hms(elapsed), eta))
                                 [:width.WIDTH])
                sys.stderr.flush()
            return
        line = "%s %s, elapsed %s, ETA %s" % (msg, done, hms(elapsed), eta)
        sys.stderr.write(("\r\033[K" if self.tty else "") +
                         width.wrap(line) + "\n")
        sys.stderr.flush()

    def say(self, msg, error=False):
        if error or not self.quiet:
            sys.stderr.write(("\r\033[K" if self.tty else "") +
                             width.wrap(msg) + "\n")
            sys.stderr.flush()
