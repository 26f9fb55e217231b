"""flagcheck catalogue's command line: the catalogue's runs beside what
their sources published (report/catalogue.py)."""

import os
import sys

from .. import width
from ..report import catalogue, conditions, render
from ..report.loadrecords import inputs_to_files, load_records

PROG = "flagcheck catalogue"

EPILOG = """\
input: flagcheck run results directories of catalogue job files
(jobs/catalogue/*.fio, run in both variants, always and test_first).  Each
run's scenario is its job file's name; the job file itself is found in the
directory's manifest.json (the runner records every job file's path), or
named with --job.  Its header's published-figure line gives the published
gain (jobs/catalogue/*.fio; the forms: flagcheck_analysis/report/catalogue.py).

columns: per scenario and numjobs the mean IOPS of each variant over its runs
(fio's own IOPS), the runs of each, test_first/always recomputed from those
means, and the gain the source published with its benchmark and machine.

exit status: 0 reported, 1 nothing to report (no runs of a job file with a
published figure, or a bad published-figure line), 2 usage error."""


def parse_args(argv):
    p = width.ArgumentParser(
        prog=PROG, description="Each catalogue job's test_first/always IOPS "
        "ratio beside the gain its source published.", epilog=EPILOG,
        formatter_class=width.HelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="DIR",
                   help="a flagcheck run results directory")
    p.add_argument("--job", action="append", default=[], metavar="FILE",
                   help="a catalogue job file whose runs the inputs hold, "
                   "when no manifest names it (repeatable)")
    p.add_argument("--format", choices=("text", "markdown"), default="text",
                   help="what to print (default: %(default)s)")
    return p.parse_args(argv)


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
    args = parse_args(argv)
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
    records = load_records(files, None, ["always", "test_first"])[0]
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

