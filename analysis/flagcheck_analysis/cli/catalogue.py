"""flagcheck catalogue's command line: the catalogue's runs beside what
their sources published (report/catalogue.py)."""

import os
import sys

from .. import width
from . import argparser
from ..report import catalogue, conditions, render
from ..report.loadrecords import inputs_to_files, load_records

PROG = "flagcheck catalogue"

# the inputs and the columns in full are docs/analysis.md's "flagcheck
# catalogue", not --help's
EPILOG = """\
Reads flagcheck run results of jobs/catalogue/*.fio (both variants); the published gain is each job file's header line.
example: flagcheck catalogue results
exit status: 0 reported, 1 nothing to report, 2 usage error.  In full: docs/analysis.md (flagcheck catalogue)."""


def build_parser():
    p = argparser.ArgumentParser(
        prog=PROG, description="Each catalogue job's test_first/always IOPS "
        "ratio beside the gain its source published.", epilog=EPILOG)
    p.add_argument("inputs", nargs="+", metavar="DIR",
                   help="a flagcheck run results directory")
    p.add_argument("--job", action="append", default=[], metavar="FILE",
                   help="catalogue job file of the runs, when no manifest "
                   "names it (repeatable)")
    p.add_argument("--format", choices=("text", "markdown"), default="text",
                   metavar="FORMAT",
                   help="text|markdown (default %(default)s)")
    return p


def job_files(manifests, named):
    """{scenario: job file path}: the manifests' job files, then --job."""
    out = {}
    for mf in manifests:
        jobs = (mf.get("matrix") or {}).get("jobs") or {}
        if isinstance(jobs, dict):
            out.update({s: p for s, p in jobs.items()
                        if isinstance(s, str) and isinstance(p, str)})
    for path in named:
        out[os.path.splitext(os.path.basename(path))[0]] = path
    return out


def main(argv=None):
    args = build_parser().parse_args(argv)
    for item in args.inputs:
        if not os.path.isdir(item):
            print(width.wrap("%s: %s: not a results directory" % (PROG, item)),
                  file=sys.stderr)
            return 2
    files, manifests = inputs_to_files(args.inputs)
    figures, without = {}, []
    for scenario, path in sorted(job_files(manifests, args.job).items()):
        try:
            fig = catalogue.read(path)
        except catalogue.FigureError as e:
            print(width.wrap("%s: %s" % (PROG, e)), file=sys.stderr)
            return 1
        if fig is not None:
            figures[scenario] = fig
        else:
            without.append(path)
    records = load_records(files, None)[0]
    rows = catalogue.rows(records, figures, conditions.cell_counts(
        conditions.ok_entries(manifests)))
    if not rows:
        print(width.wrap("%s: no runs of both variants of a job file with a "
              "published-figure line in %s%s" % (
                  PROG, ", ".join(args.inputs), "; no published-figure "
                  "line in %s" % ", ".join(without) if without else
                  "; no job file named (give --job FILE)")), file=sys.stderr)
        return 1
    out = render.in_format(args.format, catalogue.text,
                           catalogue.markdown)(rows)
    sys.stdout.write(width.wrap(out) if args.format == "text" else out)
    return 0

