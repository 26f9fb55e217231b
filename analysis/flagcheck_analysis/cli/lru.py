"""flagcheck lru's command line: S5's table and plot, ns per buffer_head
lookup against mod (report/lru.py)."""

import os
import sys

from .. import width
from ..inputs import safewrite
from ..report import lru, plot
from ..inputs.fiojson import InputError

PROG = "flagcheck lru"

EPILOG = """\
input: the engine's stats files (flagcheck_stats=, JSON Lines) of runs of
jobs/bh-lru-lookup.fio: a results directory of flagcheck run (every
*.flagcheck.jsonl in it) or the files themselves.  Lines of other models
are ignored.  One file is one run; each line of it is one job of one mod
section.

columns: per mod first the figures published in the 2023 thread (Marcelo
Tosatti, 27 Jun 2023; docs/scenarios.md records them with their source):
ns per __find_get_block() with the LRU (41..63 for mod 1..16, 138 past 16),
ns per __find_get_block_slow() alone (70..72), and their ratio; then ours:
per variant (bh_lru=on, off) ns per lookup, the mean over runs of each run's
sum of lookup_ns over its sum of lookups (± the stddev over runs when there
are several), and the share of lookups that hit the LRU; on/off, the ratio
of our means.  Mods past 19 have no published figure ("-").

files written to --outdir: lru.md, lru.csv (with the hit depth histogram,
index 1..16, and the published figures) and, unless --no-plot,
bh_lru_ns_per_lookup.png/.svg (ours with error bars, the published per-mod
figures dashed and dotted).

exit status: 0 reported, 1 no bh_lru records or an unreadable input or
output, 2 usage error."""


def parse_args(argv):
    p = width.ArgumentParser(
        prog=PROG, description="ns per __find_get_block() against mod, "
        "with and without\nthe per-CPU buffer_head LRU (scenario S5): a "
        "table beside the published\nfigures, and a plot.", epilog=EPILOG,
        formatter_class=width.HelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="DIR_OR_FILE",
                   help="a flagcheck run results directory, or engine stats "
                   "files (.flagcheck.jsonl)")
    p.add_argument("--outdir", metavar="DIR",
                   help="where to write lru.md, lru.csv and the plot "
                   "(default: <first input directory>/report)")
    p.add_argument("--format", choices=("text", "markdown", "csv"),
                   default="text", help="what to print on stdout (default: "
                   "%(default)s); the files are always written")
    p.add_argument("--no-plot", action="store_true",
                   help="do not draw the plot (no matplotlib needed)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        runs = lru.load(lru.counters_files(args.inputs))
    except InputError as e:
        print(width.wrap("%s: %s" % (PROG, e)), file=sys.stderr)
        return 1
    pts = lru.points(runs)
    if not pts:
        print(width.wrap("%s: no bh_lru records in the inputs" % PROG),
              file=sys.stderr)
        return 1
    out = {"text": lru.text, "markdown": lru.markdown,
           "csv": lru.csv_text}[args.format](pts)
    sys.stdout.write(width.wrap(out) if args.format == "text" else out)
    outdir = args.outdir
    if outdir is None:
        first = args.inputs[0]
        outdir = os.path.join(first if os.path.isdir(first)
                              else os.path.dirname(first) or ".", "report")
    try:
        os.makedirs(outdir, exist_ok=True)
        for name, body in (("lru.md", lru.markdown(pts)),
                           ("lru.csv", lru.csv_text(pts))):
            safewrite.write(os.path.join(outdir, name), body)
    except OSError as e:
        print(width.wrap("%s: cannot write to %s: %s" % (PROG, outdir,
                                              e.strerror or e)),
                                                  file=sys.stderr)
        return 1
    if not args.no_plot:
        try:
            lru.draw(pts, outdir)
        except plot.PlotError as e:
            print(width.wrap("%s: plot skipped: %s" % (PROG, e)),
                  file=sys.stderr)
    print(width.wrap("%s: wrote lru.md, lru.csv%s to %s" % (
        PROG, "" if args.no_plot else " and the plot", outdir)),
            file=sys.stderr)
    return 0

