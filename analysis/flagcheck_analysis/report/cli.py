"""flagcheck-report: read fio results, print the comparison and scaling
tables, write Markdown, CSV and plots."""

import argparse
import glob
import os
import sys
from collections import namedtuple

from ..results import clients, fiojson, manifest, matrix, runsetup as setups
from ..stats import compare, scaling, significance as stats, usl
from ..run import lineprobe
from . import (conditions, fixtable as threeway, lru, perhost as hosttable,
               plot, render, rmwcost as why)

PROG = "flagcheck-report"

EPILOG = """\
where the mode and numjobs of a run come from, first match wins:
  --group-by OPTION given: that fio job option names the mode, the job
    option numjobs gives numjobs (for every file);
  the results directory's manifest.json (written by flagcheck-run);
  the file name: <scenario>_<mode>_nj<numjobs>_r<repeat>.json;
  the fio job options flag_check (or the stats file's flag_check) and numjobs.

files written to --outdir: report.md, compare.csv, scaling.csv and, unless
--no-plot, <scenario>_iops.png/.svg and <scenario>_ratio.png/.svg.

with exactly three modes (e.g. S4: --modes before,always,test_first and
--base before) the report adds LKP's regression-and-fix table, the base, the
regression and the fix side by side (also in threeway.md).  Results of the
bh_lru model (S5) add the ns-per-lookup table against mod and its plot
(lru.md, lru.csv, bh_lru_ns_per_lookup.png/.svg), as flagcheck-lru does.

fio client/server output (flagcheck-run --hosts): the main tables hold the
aggregate, summed over the hosts; a table per scenario and numjobs has one
row per host, the sum of the hosts and fio's own 'All clients' entry, which
is checked against that sum (its I/O and byte counts must be equal).  The
flags word is per host: numjobs is per host, and jobs on two hosts never
share a cache line.  Runs where a host was down or returned no job results
("partial") are left out.

runs of one scenario that differ in fio version, host, job file (its
SHA-256 in the manifest), the engine's backend or its other options (known
for all of them) are never averaged together: they are reported apart, the
scenario then named with what differs, e.g. "s1 (backend psync)", and a
WARNING line says so.

A bad input file gets one line on stderr naming it and what is wrong; the
other files are still reported.  So does a run holding an impossible value
(NaN, a string or a negative number where fio writes a number, no I/O).

exit status: 0 when at least one run was reported (even if some inputs were
bad), 1 when nothing could be reported or the output files could not be
written, 2 for a usage error."""


# What --format prints on stdout: everything the report holds, as one
# string.  The tables of the comparison, of the three-way view and of the
# bh_lru model each have their text and their Markdown renderer.
Page = namedtuple("Page", "head sections lines order more records three pts")


def _page(main_table, three_table, lru_table):
    def show(page):
        out = main_table(page.head, page.sections, page.lines, page.order,
                         page.more)
        if page.three:
            out += "\n" + three_table(page.records, page.three)
        if page.pts:
            out += "\n" + lru_table(page.pts)
        return out
    return show


STDOUT = {
    "text": _page(render.text, threeway.text, lru.text),
    "markdown": _page(render.markdown, threeway.markdown, lru.markdown),
    "csv": lambda page: render.csv_text(page.sections, page.lines),
}


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog=PROG, description="Compare flagcheck modes from fio JSON "
        "output: an LKP-style table with a noise verdict per metric, a "
        "scaling table and plots.", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="DIR_OR_FILE",
                   help="a results directory of flagcheck-run (with "
                   "manifest.json) or a directory of fio JSON files, or fio "
                   "JSON files (plain, json+ or client/server output)")
    p.add_argument("--base", default="always", metavar="MODE",
                   help="the mode the others are compared against "
                   "(default: %(default)s)")
    p.add_argument("--outdir", metavar="DIR",
                   help="where to write report.md, the CSV files and the "
                   "plots (default: <first input directory>/report)")
    p.add_argument("--format", choices=tuple(STDOUT),
                   default="text", help="what to print on stdout "
                   "(default: %(default)s); the files are always written")
    p.add_argument("--no-plot", action="store_true",
                   help="do not draw the PNG/SVG plots (no matplotlib "
                   "needed)")
    p.add_argument("--exclude-busy", action="store_true",
                   help="leave out the runs flagcheck-run marked busy "
                   "(others' CPU time or steal above its --busy-threshold); "
                   "the header and the verdicts still count them")
    p.add_argument("--group-by", metavar="OPTION",
                   help="take each run's mode from this fio job option "
                   "(e.g. flag_check, ioengine) for every file, instead of "
                   "the manifest or the file name")
    usl.add_arguments(p)
    why.add_arguments(p)
    return p.parse_args(argv)


def warn(msg):
    print("%s: %s" % (PROG, msg), file=sys.stderr)


def _load_manifest(directory):
    try:
        return manifest.load(os.path.join(directory, manifest.NAME))
    except fiojson.InputError as e:
        warn("unusable manifest: %s; reading the JSON files instead" % e)
        return None


def inputs_to_files(inputs):
    """[(json path, manifest run entry or None, manifest or None)],
    [manifests]; runs that did not finish on every host ("partial") are
    left out."""
    files, manifests = [], []
    for item in inputs:
        if not os.path.isdir(item):
            files.append((item, None, None))
            continue
        mf = _load_manifest(item)
        if mf is None:
            found = sorted(p for p in glob.glob(os.path.join(item, "*.json"))
                           if os.path.basename(p) not in (
                               manifest.NAME, why.calibrate.JSON_NAME))
            if not found:
                warn("%s: no fio JSON files in this directory" % item)
            files += [(p, None, None) for p in found]
            continue
        manifests.append(mf)
        for entry in mf["runs"]:
            if isinstance(entry, dict) and entry.get("status") == "ok":
                files.append((os.path.join(item, entry["json"]), entry, mf))
    return files, manifests


def identify(path, doc, stats_records, entry, group_by, modes):
    """(scenario, mode, numjobs, repeat) of one run; raises InputError."""
    opts = fiojson.job_options(doc)
    if group_by is None:
        if entry is not None:
            return (entry["scenario"], entry["mode"], int(entry["numjobs"]),
                    int(entry["repeat"]))
        run = matrix.parse_name(path, modes)
        if run is not None:
            return tuple(run)
    option = group_by or "flag_check"
    mode = opts.get(option)
    if mode is None and option == "flag_check" and stats_records:
        mode = stats_records[0].get("flag_check")
    if mode is None:
        raise fiojson.InputError(path, "cannot tell the mode: no %r job "
                                 "option and no naming convention; use "
                                 "--group-by" % option)
    try:
        numjobs = int(opts.get("numjobs", 1))
    except ValueError:
        raise fiojson.InputError(path, "numjobs job option %r is not a "
                                 "number" % opts.get("numjobs"))
    scenario = fiojson.fio_jobs(doc)[0].get("jobname", "fio")
    return (scenario, str(mode), numjobs, None)


def _stats(path):
    try:
        return fiojson.load_stats(path)
    except fiojson.InputError as e:
        warn("%s (engine counters left out for this run)" % e)
        return None


def host_stats(path, entry):
    """{'host:port': engine records or None} of a client/server run from
    its manifest entry (flagcheck-run --hosts)."""
    out = {}
    for info in ((entry or {}).get("hosts") or {}).values():
        if info.get("status") == "ok":
            out[info["key"]] = _stats(os.path.join(
                os.path.dirname(path), info["stats"])) \
                if info.get("stats") else None
    return out


def host_records(doc, per_host, path):
    """HostRecords of one client/server run (without its name) and the
    check of fio's 'All clients'; the aggregate's engine records, or None
    unless every host has them."""
    recs = []
    for host in clients.by_host(doc):
        recs.append((host, fiojson.run_metrics(clients.host_doc(doc, host),
                                               per_host.get(host))))
    agg = clients.all_clients(doc)
    if agg is not None:
        recs.append((hosttable.FIO_ROW, fiojson.run_metrics({"jobs": [agg]},
                                                            None)))
    counters = [per_host.get(h) for h in clients.by_host(doc)]
    together = (None if not counters or None in counters
                else [r for c in counters for r in c])
    return recs, hosttable.Check(path, clients.check_all_clients(doc)), \
        together


def load_records(files, group_by, modes, left_out=None):
    """(records, docs, host records, All clients checks, lines naming the
    scenarios whose runs differ in setup, reported apart); the runs left
    out because their counters disagree with fio's go to @left_out as
    (path, why)."""
    records, docs, hrecords, checks, setup = [], [], [], [], []
    for path, entry, mf in files:
        try:
            doc = fiojson.load_fio_json(path)
            per_host, checked = [], None
            if clients.is_client_output(doc) and entry is not None and \
                    entry.get("hosts"):
                per_host, checked, stats_records = host_records(
                    doc, host_stats(path, entry), path)
            else:
                stats_path = matrix.stats_path_for_json(path)
                if entry is not None and entry.get("stats"):
                    stats_path = os.path.join(os.path.dirname(path),
                                              entry["stats"])
                stats_records = _stats(stats_path)
                if clients.is_client_output(doc):
                    per_host, checked, _ = host_records(doc, {}, path)
            scenario, mode, numjobs, repeat = identify(
                path, doc, stats_records, entry, group_by, modes)
            why = fiojson.counts_disagree(doc, stats_records)
            if why:
                if left_out is not None:
                    left_out.append((path, why))
                raise fiojson.InputError(path, why + " (left out)")
            metrics = fiojson.run_metrics(doc, stats_records)
        except fiojson.InputError as e:
            warn(str(e))
            continue
        except (ValueError, TypeError, AttributeError, KeyError) as e:
            warn("%s: unexpected structure (%s: %s)"
                 % (path, type(e).__name__, e))
            continue
        records.append(compare.Record(scenario, mode, numjobs, repeat,
                                      metrics, path))
        docs.append(doc)
        setup.append(setups.of_run(doc, fiojson.job_options(doc),
                                   stats_records, entry, mf))
        if checked is not None:
            checks.append(checked)
            hrecords += [(len(records) - 1, hosttable.HostRecord(
                scenario, mode, numjobs, host, m)) for host, m in per_host]
            hrecords.append((len(records) - 1, hosttable.HostRecord(
                scenario, mode, numjobs, hosttable.SUM_ROW, metrics)))
    labels, apart = setups.split([r.scenario for r in records], setup)
    records = [r._replace(scenario=label)
               for r, label in zip(records, labels)]
    hrecords = [h._replace(scenario=labels[i]) for i, h in hrecords]
    return records, docs, hrecords, checks, apart


def host_header_lines(hrecords, checks, manifests):
    out = []
    partial = [e for m in manifests for e in m.get("runs", ())
               if isinstance(e, dict) and e.get("status") == "partial"]
    if hrecords:
        names = sorted({r.host for r in hrecords} - {hosttable.SUM_ROW,
                                                     hosttable.FIO_ROW})
        out.append("hosts: %d (%s), fio client/server; the tables above the "
                   "per-host ones sum the hosts" % (len(names),
                                                    ", ".join(names)))
        out.append("the flags word is per host: numjobs is per host, and "
                   "only jobs on the same host share its cache line")
        out += hosttable.check_lines(checks)
    for e in partial:
        down = ["%s (%s)" % (h.get("spec", "?"), h["status"])
                for h in (e.get("hosts") or {}).values()
                if h.get("status") in ("down", "failed")]
        out.append("WARNING: %s left out: ran without host(s) %s; "
                   "flagcheck-run again reruns it" % (
                       e.get("name", "?"), ", ".join(down)))
    return out


def header_lines(records, docs, manifests, base):
    out = ["runs: %d (%s)" % (len(records), ", ".join(
        "%s n=%d" % (m, sum(1 for r in records if r.mode == m))
        for m in compare.mode_order(records, base)))]
    for m in manifests:
        host = m.get("host") or {}
        out.append("host: %s, %s, %s cores, kernel %s" % (
            host.get("hostname", "?"), host.get("cpu_model", "?"),
            host.get("cores", "?"), host.get("kernel", "?")))
        out.append("fio: %s, engine: %s, started %s" % (
            m.get("fio_version", "?"), m.get("engine_version", "?"),
            m.get("started", "?")))
        if not m.get("complete"):
            out.append("WARNING: the matrix is incomplete "
                       "(manifest complete=false)")
    if not manifests:
        versions = sorted({d.get("fio version", "?") for d in docs})
        out.append("fio: %s" % ", ".join(versions))
    out.append("columns: per mode 'mean ± %%stddev' (sample stddev in %% of "
               "the mean); %%change against %s; ratio 95%% CI: percentile "
               "bootstrap of mean(mode)/mean(%s), %d resamples, seed %d; "
               "verdict: Welch's two-sided t-test at alpha %g"
               % (base, base, stats.BOOTSTRAP_ITERATIONS,
                  stats.BOOTSTRAP_SEED, stats.ALPHA))
    return out


def main(argv=None):
    args = parse_args(argv)
    files, manifests = inputs_to_files(args.inputs)
    ok_runs = conditions.ok_entries(manifests)
    counts = conditions.cell_counts(ok_runs)
    if args.exclude_busy:
        files, _ = conditions.exclude_busy(files)
    modes = [args.base] + [m for m in matrix.DEFAULT_MODES if m != args.base]
    for m in manifests:
        modes += [x for x in (m.get("matrix") or {}).get("modes", [])
                  if x not in modes]
    left_out = []
    records, docs, hrecords, checks, apart = load_records(
        files, args.group_by, modes, left_out)
    if not records:
        warn("nothing to report: no readable fio JSON among the inputs")
        return 1
    if args.base not in {r.mode for r in records}:
        warn("no runs of the base mode %r; modes present: %s (see --base)"
             % (args.base, ", ".join(sorted({r.mode for r in records}))))

    sections = conditions.annotate(compare.compare(records, args.base),
                                   counts, args.exclude_busy,
                                   lineprobe.cell_spans(ok_runs))
    lines = scaling.scaling(records, args.base)
    order = compare.mode_order(records, args.base)
    head = header_lines(records, docs, manifests, args.base)
    head[-1:-1] = host_header_lines(hrecords, checks, manifests) + \
        conditions.header_lines(manifests, ok_runs, args.exclude_busy) + \
        apart
    for line in apart:
        warn(line[len("WARNING: "):])
    head[-1:-1] = ["left out (counters disagree with fio's): %s: %s"
                   % (path, why) for path, why in left_out]
    more = hosttable.tables(hrecords, order) + \
        conditions.tables(manifests, ok_runs, counts) + \
        [t for t in [lineprobe.table(files, records)] if t]
    fits = usl.fits(records, args.base)
    more += usl.tables(fits, args.predict)
    three = order if len(order) == 3 else None
    try:
        # engine stats files only: directories, or .jsonl files named
        pts = lru.points(lru.load(lru.stats_files(
            [i for i in args.inputs
             if os.path.isdir(i) or i.endswith(".jsonl")])))
    except fiojson.InputError as e:
        warn("%s (the bh_lru table is left out)" % e)
        pts = []
    sys.stdout.write(STDOUT[args.format](Page(
        head, sections, lines, order, more, records, three, pts)))

    outdir = args.outdir
    if outdir is None:
        first = args.inputs[0]
        outdir = os.path.join(first if os.path.isdir(first)
                              else os.path.dirname(first) or ".", "report")
    try:
        os.makedirs(outdir, exist_ok=True)
        for name, body in (
                ("report.md", render.markdown(head, sections, lines, order,
                                              more)),
                ("compare.csv", render.compare_csv(sections)),
                ("scaling.csv", render.scaling_csv(lines))) + \
                ((("threeway.md", threeway.markdown(records, three)),)
                 if three else ()) + \
                ((("lru.md", lru.markdown(pts)), ("lru.csv", lru.csv_text(pts)))
                 if pts else ()):
            with open(os.path.join(outdir, name), "w") as f:
                f.write(body)
    except OSError as e:
        warn("cannot write to %s: %s" % (outdir, e.strerror or e))
        return 1
    plotted = False
    if not args.no_plot:
        try:
            plotted = bool(plot.plot(lines, order, outdir, fits,
                                     args.predict))
            if pts:
                plotted = bool(lru.draw(pts, outdir)) or plotted
        except plot.PlotError as e:
            warn("plots skipped: %s" % e)
    if not why.emit(args, records, docs, outdir, warn):
        return 1
    print("%s: wrote report.md, compare.csv, scaling.csv%s to %s"
          % (PROG, " and plots" if plotted else "", outdir), file=sys.stderr)
    return 0
