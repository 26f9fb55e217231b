"""flagcheck report: read fio results, print the comparison and scaling
tables, write Markdown, CSV and plots."""

import argparse
import os
import sys

from ..predict import answer
from ..inputs import (fiojson, lineprobes, numbers, predictionfile, published,
                      safewrite)
from .. import width
from . import argparser
from ..stats import compare, scaling, usl
from ..report import (bigbox, catalogue, conditions, header, loadrecords,
    perhost, plot, render, sections, sidebyside, summary, sweep, usltable,
    why)
from ..report import messages
from ..report.messages import PROG, warn

# the rest (where a run's variant comes from, the files, three variants,
# hosts, setups reported apart, --compare, the summary, bad inputs, the
# scaling law) is docs/analysis.md's "flagcheck report", not --help's
EPILOG = """\
Reads a results directory of flagcheck run (or fio JSON files); writes report.md, compare.csv, scaling.csv and plots.
The big-box answer is rendered from DIR/prediction.json: flagcheck predict DIR --numjobs 64 computes it.
example: flagcheck predict results --numjobs 64 --machine epyc-2s-256; flagcheck report results
exit status: 0 a run was reported, 1 nothing reported or the files not written, 2 usage error.
Where variants come from, setups kept apart, --compare, the summary, the scaling law (sigma, kappa, no peak, no fit
possible), bad inputs: docs/analysis.md (flagcheck report), docs/predict.md, docs/errors.md."""


# the options that moved to flagcheck predict DIR, by its names for them:
# the report renders what it stored (docs/predict.md, "In the report")
MOVED = {"--predict": "--numjobs N", "--machine": "--machine NAME",
         "--fio-ns": "--fio-ns NS"}


# what --format prints on stdout (the files are always written)
FORMATS = ("text", "markdown", "csv", "json")


def _width(text):
    v = numbers.from_text(text, whole=True)
    if v != 0 and not numbers.in_range(v, 60, 10000, whole=True):
        raise argparse.ArgumentTypeError(
            "%s is not valid: a width in columns, 60 to 10000, or 0 (no "
            "limit)" % numbers.shown(text))
    return v


def build_parser(as_compare=False):
    """report's parser; @as_compare: `flagcheck compare A B`'s, whose A
    and B are its arguments (report's --compare A B)."""
    p = argparser.ArgumentParser(
        prog="flagcheck compare" if as_compare else PROG,
        description="B's runs against A's side by side (A, B: results "
        "dirs, or dir1,dir2); writes sidebyside.md." if as_compare else
        "Compare flagcheck variants from fio JSON: LKP-style tables with a "
        "noise verdict per metric, scaling, plots.",
        epilog=None if as_compare else EPILOG)
    if as_compare:
        p.add_argument("a", metavar="A", help="the results B is set against "
                       "(a results dir, or dir1,dir2)")
        p.add_argument("b", metavar="B", help="the results set against A")
        p.set_defaults(inputs=[])
    else:
        p.add_argument("inputs", nargs="*", metavar="DIR_OR_FILE",
                       help="results directory of flagcheck run, or fio "
                       "JSON files/directories (json, json+, client/server)")
        p.add_argument("--compare", nargs=2, metavar=("A", "B"),
                       help="B's runs against A's instead (A, B: results "
                       "dirs, or dir1,dir2); writes sidebyside.md")
    p.add_argument("--base", default="always", metavar="VARIANT",
                   help="the variant the others are compared against "
                   "(default %(default)s)")
    p.add_argument("--outdir", metavar="DIR",
                   help="where report.md, CSVs and plots go (default "
                   "<first input dir>/report)")
    p.add_argument("--format", choices=FORMATS, metavar="FORMAT",
                   default="text", help="stdout: %s (default "
                   "%%(default)s); the files are always written"
                   % "|".join(FORMATS))
    p.add_argument("--verbose", action="store_true",
                   help="text: every table, not only the short answer "
                   "(report.md has them all)")
    p.add_argument("--no-plot", action="store_true",
                   help="draw no PNG/SVG plots (no matplotlib needed)")
    p.add_argument("--exclude-busy", action="store_true",
                   help="leave out the runs flagcheck run marked busy "
                   "(the header still counts them)")
    p.add_argument("--group-by", metavar="OPTION",
                   help="fio job option naming each run's variant (e.g. "
                   "ioengine; default: manifest, file name)")
    p.add_argument("--width", type=_width, default=render.WIDTH,
                   metavar="COLS", help="table width, 60-10000, 0 no limit; "
                   "longer notes are footnotes (default %(default)s)")
    for option, now in MOVED.items():
        p.add_argument(option, action=argparser.Moved, now="flagcheck "
                       "predict DIR %s; the report renders what it stores"
                       % now)
    return p


def parse_args(argv, as_compare=False):
    p = build_parser(as_compare)
    args = p.parse_args(argv)
    if as_compare:
        args.compare = [args.a, args.b]
    if bool(args.inputs) == bool(args.compare):
        p.error("give the results to report (DIR_OR_FILE ...) or "
                "--compare A B, not %s" % ("both" if args.inputs
                                           else "neither"))
    err = args.outdir is not None and safewrite.dir_error("--outdir",
                                                       args.outdir)
    if err:
        p.error(err)
    return args



def job_file_figures(manifests):
    """{scenario: published entry} of the job files the manifests name that
    carry their own published figure (the catalogue's header line); a job
    file that cannot be read, or has none, adds nothing (flagcheck catalogue
    names a bad one)."""
    out = {}
    for mf in manifests:
        jobs = (mf.get("matrix") or {}).get("jobs")
        for scenario, path in (jobs.items() if isinstance(jobs, dict)
                               else ()):
            label = published.label(scenario)
            if published.find(label) or not isinstance(path, str):
                continue
            try:
                fig = catalogue.read(path)
            except catalogue.FigureError:
                continue
            if fig is not None and fig.gain is not None:
                out[label] = published.from_job_file(label, fig.gain,
                                                     fig.what, path)
    return out


def load(inputs):
    """(records, manifests, their ok run entries) of @inputs, read as the
    report reads them by default (flagcheck predict DIR's runs)."""
    files, manifests = loadrecords.inputs_to_files(inputs)
    records = loadrecords.load_records(files, None)[0]
    return records, manifests, conditions.ok_entries(manifests)


def _group(group, say=True):
    """The inputs of one side of --compare: the one path `group` where it
    exists (a directory's name may hold a comma), else its comma-joined
    parts."""
    parts = [group] if os.path.exists(group) else \
        [g for g in group.split(",") if g]
    out, seen = [], set()
    for g in parts:
        real = os.path.realpath(g)
        if real in seen:
            if say:
                warn("--compare %s: %s named twice: read once" % (group, g))
            continue
        seen.add(real)
        out.append(g)
    return out


def _side(args, group):
    """sidebyside.Side of one side of --compare (comma-joined inputs)."""
    files, manifests = loadrecords.inputs_to_files(_group(group))
    counts = conditions.cell_counts(conditions.ok_entries(manifests))
    if args.exclude_busy:
        files, _ = conditions.exclude_busy(files)
    setup = []
    records, docs, _, _, apart = loadrecords.load_records(
        files, args.group_by, setups_out=setup)
    for line in apart:
        warn("%s: %s" % (group, line[len("WARNING: "):]))
    return sidebyside.Side(group, records, docs, setup, counts, manifests)


def _report_dir(outdir, default):
    """Make the report directory; False (said) where it, the default
    one inside a results directory, is a link, or holds one: the report
    follows no link.  Raises OSError."""
    if default and os.path.islink(outdir):
        warn("%s is a symbolic link: refused, nothing written (the report "
             "goes into the results directory itself; give --outdir to "
             "write elsewhere)" % outdir)
        return False
    os.makedirs(outdir, exist_ok=True)
    links = sorted(n for n in os.listdir(outdir)
                   if os.path.islink(os.path.join(outdir, n)))
    if links:
        warn("%s: %s is a symbolic link: refused, nothing written (remove "
             "it; the report follows no link)" % (outdir, links[0]))
        return False
    return True


def compare_main(args):
    a, b = (_side(args, g) for g in args.compare)
    ids = [{loadrecords.run_id(r.source) for r in side.records}
           for side in (a, b)]
    if ids[0] and ids[0] == ids[1]:
        warn("--compare: A and B are the same runs (%s, %s: the same fio "
             "output): every difference reads none" % tuple(args.compare))
    elif ids[0] & ids[1]:
        warn("--compare: B (%s) holds %d of A's runs (%s; the same fio "
             "output): they count on both sides" % (
                 args.compare[1], len(ids[0] & ids[1]), args.compare[0]))
    for side, name in ((a, "A"), (b, "B")):
        if not side.records:
            warn("--compare: nothing to compare: no readable fio JSON in "
                 "%s (%s)" % (name, side.name))
            return 1
    result = sidebyside.side_by_side(a, b, args.base)
    sys.stdout.write(sidebyside.stdout(args.format, result))
    outdir = args.outdir or os.path.join(_group(args.compare[1])[0],
                                         "report")
    try:
        if not _report_dir(outdir, args.outdir is None):
            return 1
        safewrite.write(os.path.join(outdir, "sidebyside.md"),
                     sidebyside.markdown(result))
    except OSError as e:
        warn("cannot write to %s: %s" % (outdir, e.strerror or e))
        return 1
    if not result.tables:
        warn("--compare: nothing could be compared (see the lines above)")
        return 1
    print("%s: wrote sidebyside.md to %s" % (PROG, outdir), file=sys.stderr)
    return 0


def sweeps(inputs, tried=()):
    """[(sweep, its points)] of each metric against a parameter a model
    declares (inputs/published.py's SWEEPS) whose counters the inputs
    hold; a bad counters file is left out of it (named, unless the report
    named it already: in @tried)."""
    out = []
    # the engine's counters files only: directories, or .jsonl files named
    paths = sweep.counters_files([i for i in inputs if os.path.isdir(i) or
                                  i.endswith(".jsonl")])
    for sw in published.SWEEPS:
        runs = []
        for path in paths:
            try:
                runs += sweep.load(sw, [path])
            except fiojson.InputError as e:
                if os.path.realpath(path) not in tried:
                    warn("%s (left out of the %s table)" % (e, sw.model))
        pts = sweep.points(sw, runs)
        if pts:
            out.append((sw, pts))
    return out


NO_PREDICTION = {"cpus": None, "note": None, "warnings": [],
                 "scenarios": [], "beside": []}


def stored_prediction(inputs, manifests):
    """The big-box answers flagcheck predict stored in the input
    directories (their prediction.json), one per scenario; where none
    holds one and the results have pattern jobs, one line naming the
    command that computes it."""
    out = dict(NO_PREDICTION, scenarios=[], beside=[], warnings=[])
    dirs = [d for d in inputs if os.path.isdir(d)]
    found = False
    for d in dirs:
        try:
            doc = predictionfile.read(d)
        except fiojson.InputError as e:
            warn("%s (the big-box answer is left out)" % e)
            continue
        if doc is None:
            continue
        found = True
        for key in ("cpus", "note"):
            out[key] = out[key] or doc[key]
        out["warnings"] += doc["warnings"]
        for key in ("scenarios", "beside"):
            have = {s["label"] for s in out[key]}
            out[key] += [s for s in doc[key] if s["label"] not in have]
    if not found and dirs and answer.job_files(manifests):
        warn("no prediction.json in %s: the big-box answer is left out "
             "(flagcheck predict %s computes it)" % (dirs[0], dirs[0]))
    return out


def build_sections(args, runs, order, files, manifests, ok_runs, counts):
    """Every section of the report, in order; runs: load_records() and
    the counters it read ({fio JSON path: records})."""
    records, docs, hrecords = runs[:3]
    stored = stored_prediction(args.inputs, manifests)
    for line in stored["warnings"]:
        warn(line)
    fits = usl.fits(records, args.base)
    figures = job_file_figures(manifests)
    out = [sections.Compare(conditions.annotate(
               compare.compare(records, args.base), counts,
               args.exclude_busy, lineprobes.cell_spans(ok_runs),
               records)),
           sections.Scaling(scaling.scaling(records, args.base), order, fits,
                           stored["cpus"], summary.marks(records, counts,
                                                       args.base), figures),
           sections.Tables(perhost.tables(hrecords, order)),
           sections.Tables(conditions.tables(manifests, ok_runs, counts)),
           sections.Tables([t for t in [lineprobes.table(files, records)]
                           if t]),
           sections.Tables(usltable.tables(fits, stored["cpus"]))]
    if len(order) == 3:
        out.append(sections.FixTable(records, order))
    out += [sections.Sweep(sw, pts)
            for sw, pts in sweeps(args.inputs, runs[5].get(None) or ())]
    why_section = why.build(args, records, docs, warn, runs[5], ok_runs)
    if why_section is not None:
        out.append(why_section)
    checked = bigbox.beside(stored["beside"], records)
    cav = bigbox.caveats(checked)
    out.append(sections.Tables(bigbox.table(stored, cav) + checked))
    out.append(sections.BigBoxPlot(stored, records))
    out.append(sections.Data("bigbox", bigbox.data(stored)))
    out.append(sections.Summary(summary.rows(records, counts, args.base,
                                            figures),
                               bigbox.summary_lines(
                                   stored, {r.scenario for r in records},
                                   cav)))
    return out


def _outdir(args):
    if args.outdir is not None:
        return args.outdir
    first = args.inputs[0]
    return os.path.join(first if os.path.isdir(first)
                        else os.path.dirname(first) or ".", "report")


def _draw(secs, outdir):
    plotted = False
    for s in secs:
        try:
            plotted = s.draw(outdir) or plotted
        except plot.PlotError as e:
            warn("%s skipped: %s" % (s.plots, e))
    return plotted


def write(args, head, secs):
    """The plots, report.md and every section's files, then stdout, its
    bottom line last: 0, or 1 when the files could not be written."""
    outdir = _outdir(args)
    try:
        if not _report_dir(outdir, args.outdir is None):
            return 1
        unwritable = None
    except OSError as e:
        unwritable = e
    plotted = False if args.no_plot or unwritable else _draw(secs, outdir)
    before, bottom = sections.stdout_parts(args.format, head, secs,
                                           args.verbose)
    report_md = sections.report_md(head, secs)
    try:
        if unwritable is not None:
            raise unwritable
        for name, body in [("report.md", report_md)] + \
                [f for s in secs for f in s.files()]:
            safewrite.write(os.path.join(outdir, name), body)
    except OSError as e:
        sys.stdout.write(before + bottom)
        warn("cannot write to %s: %s" % (outdir, e.strerror or e))
        return 1
    sys.stdout.write(before)
    sys.stdout.flush()
    # said before the bottom line, which is the last thing printed
    print(width.wrap("%s: wrote report.md, compare.csv, scaling.csv%s to %s"
                     "%s" % (PROG, " and plots" if plotted else "", outdir,
                             "" if args.verbose or args.format != "text"
                             else "; every table: report.md there, or "
                             "--verbose")),
          file=sys.stderr)
    sys.stderr.flush()
    sys.stdout.write(bottom)
    return 0


def bottom_line(outdir, base):
    """The short answer's bottom line of the results directory @outdir,
    as flagcheck run prints it at its end (the big-box answer is left to
    flagcheck predict and report); "" where it has no runs to read."""
    files, manifests = loadrecords.inputs_to_files([outdir])
    counts = conditions.cell_counts(conditions.ok_entries(manifests))
    records = loadrecords.load_records(files, None)[0]
    if not records:
        return ""
    if base not in {r.variant for r in records}:
        base = records[0].variant
    rows = summary.rows(records, counts, base, job_file_figures(manifests))
    return render.wrap(summary.short_text(rows, title=(
        "bottom line: each scenario's fix against its pattern, IOPS at the "
        "highest numjobs (every table and the big-box answer: flagcheck "
        "predict %s; flagcheck report %s)" % (outdir, outdir))))


def main(argv=None, as_compare=False):
    """flagcheck report (@as_compare: flagcheck compare A B). The warnings
    it keeps start empty and the width it sets is put back, so that a
    process may run one after another (the tests run it in theirs)."""
    del messages.WARNINGS[:]
    try:
        return _main(argv, as_compare)
    finally:
        render.set_width(render.WIDTH)


def _main(argv, as_compare):
    args = parse_args(argv, as_compare)
    render.set_width(args.width)
    if args.compare:
        return compare_main(args)
    files, manifests = loadrecords.inputs_to_files(args.inputs)
    ok_runs = conditions.ok_entries(manifests)
    counts = conditions.cell_counts(ok_runs)
    busy = []
    if args.exclude_busy:
        files, busy = conditions.exclude_busy(files)
    left_out, counters_read = [], {}
    runs = loadrecords.load_records(files, args.group_by, left_out,
                                    counters_out=counters_read)
    records = runs[0]
    if not records:
        warn("nothing to report: %s" % (
            "--exclude-busy left out all %d runs (each is marked busy); "
            "leave it out to report them" % len(busy) if busy and not files
            else "no readable fio JSON among the inputs"))
        return 1
    if args.base not in {r.variant for r in records}:
        warn("--base %s: no runs of that variant; the variants there are: %s"
             % (args.base, ", ".join(sorted({r.variant for r in records}))))
        return 2
    for line in conditions.cold_first_runs(records):
        warn(line)
    order = compare.variant_order(records, args.base)
    head = header.lines(args, runs + (left_out,), manifests, ok_runs)
    secs = build_sections(args, runs + (counters_read,), order, files,
                          manifests, ok_runs, counts)
    return write(args, head, secs)
