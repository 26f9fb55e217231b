"""flagcheck lru's command line: S5's table and plot alone, ns per
buffer_head lookup against mod, from counters files (report/sweep.py,
the report's section of it)."""

import os
import sys

from .. import width
from . import argparser
from ..inputs import safewrite
from ..inputs import published
from ..report import plot, sweep
from ..inputs.fiojson import InputError

PROG = "flagcheck lru"
# S5's declaration: the bh_lru model's ns per lookup against mod
LRU = [sw for sw in published.SWEEPS if sw.model == "bh_lru"][0]

# the inputs, columns and files in full are docs/analysis.md's
# "flagcheck lru", not --help's
EPILOG = """\
Reads the engine's counters files of jobs/bh-lru-lookup.fio runs; writes lru.md, lru.csv and the plot to --outdir.
example: flagcheck lru results
exit status: 0 reported, 1 no bh_lru records or an unreadable input or output, 2 usage error.
The columns and the published figures: docs/analysis.md (flagcheck lru), docs/scenarios.md."""


def build_parser():
    p = argparser.ArgumentParser(
        prog=PROG, description="S5: ns per __find_get_block() against "
        "mod, with and without the per-CPU buffer_head LRU, beside the "
        "published figures.", epilog=EPILOG)
    p.add_argument("inputs", nargs="+", metavar="DIR_OR_FILE",
                   help="a flagcheck run results directory, or counters "
                   "files (.flagcheck.jsonl)")
    p.add_argument("--outdir", metavar="DIR",
                   help="where lru.md, lru.csv and the plot go (default "
                   "<first input dir>/report)")
    p.add_argument("--format", choices=("text", "markdown", "csv"),
                   default="text", metavar="FORMAT",
                   help="stdout: text|markdown|csv (default %(default)s); "
                   "the files are always written")
    p.add_argument("--no-plot", action="store_true",
                   help="draw no plot (no matplotlib needed)")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        runs = sweep.load(LRU, sweep.counters_files(args.inputs))
    except InputError as e:
        print(width.wrap("%s: %s" % (PROG, e)), file=sys.stderr)
        return 1
    pts = sweep.points(LRU, runs)
    if not pts:
        print(width.wrap("%s: no bh_lru records in the inputs" % PROG),
              file=sys.stderr)
        return 1
    out = {"text": sweep.text, "markdown": sweep.markdown,
           "csv": sweep.csv_text}[args.format](LRU, pts)
    sys.stdout.write(width.wrap(out) if args.format == "text" else out)
    outdir = args.outdir
    if outdir is None:
        first = args.inputs[0]
        outdir = os.path.join(first if os.path.isdir(first)
                              else os.path.dirname(first) or ".", "report")
    try:
        os.makedirs(outdir, exist_ok=True)
        for name, body in (("lru.md", sweep.markdown(LRU, pts)),
                           ("lru.csv", sweep.csv_text(LRU, pts))):
            safewrite.write(os.path.join(outdir, name), body)
    except OSError as e:
        print(width.wrap("%s: cannot write to %s: %s" % (PROG, outdir,
                                              e.strerror or e)),
                                                  file=sys.stderr)
        return 1
    if not args.no_plot:
        try:
            sweep.draw(LRU, pts, outdir)
        except plot.PlotError as e:
            print(width.wrap("%s: plot skipped: %s" % (PROG, e)),
                  file=sys.stderr)
    print(width.wrap("%s: wrote lru.md, lru.csv%s to %s" % (
        PROG, "" if args.no_plot else " and the plot", outdir)),
            file=sys.stderr)
    return 0

