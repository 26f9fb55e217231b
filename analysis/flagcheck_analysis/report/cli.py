"""flagcheck-report: read fio results, print the comparison and scaling
tables, write Markdown, CSV and plots."""

import argparse
import glob
import os
import sys

from ..results import (clients, corun, fiojson, lineprobes, manifest, matrix,
                       published, runsetup, safewrite)
from ..stats import compare, scaling, significance, usl
from . import (bigbox, catalogue, conditions, lru, perhost,
               plot, render, rmwcost, sections,
               sidebyside, summary)

PROG = "flagcheck-report"

EPILOG = """\
where the mode and numjobs of a run come from, first match wins:
  --group-by OPTION given: that fio job option names the mode, the job
    option numjobs gives numjobs (for every file);
  the results directory's manifest.json (written by flagcheck-run);
  the file name: <scenario>_<mode>_nj<numjobs>_r<repeat>.json;
  the fio job options variant (flag_check in older runs; or the stats file's
  variant) and numjobs.

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

runs of one scenario that differ in fio version, the engine's commit (or
build: its SHA-256, per run), host, kernel, job file (its SHA-256 in the
manifest), the engine's backend or its other options, or the job file's
variables (--set, and the environment's it reads: "variables") are never
averaged together: they are reported apart, the
scenario then named with what differs, e.g. "S1 filemap-odirect-read
(backend psync)", and a WARNING line says so.  A run that does not tell one
of these ("unknown") is a setup of its own, never averaged with runs that
do.  To set two such sets of runs side by side: --compare A B.

--compare A B: first, per scenario, numjobs and mode, B's gain against A's
(the geometric mean of each side's pairs' mode/--base ratios; Welch's
t-interval and test over the pairs' logs; busy runs never decide a
difference: the quiet pairs alone, or "cannot tell"); then per scenario,
mode and numjobs, B's IOPS against A's: both means, %change, the ratio's
95% bootstrap CI and the verdict (Welch's test, as in the report), busy
runs named; the header says in which of the fields
above B differs from A.  Not compared, with the reason: a scenario, or a
mode at a numjobs, found on one side only, and a scenario whose job shape
(rw, bs, iodepth, direct, buffered, thread, model) differs.  Exit status 1
when nothing could be compared.

the summary, printed last (report.md: first): per scenario, in S-number
order, the fix's IOPS against the pattern's at the highest numjobs with
both, its 95% CI, decided or not (as flagcheck-run --until-decided), the
published figure (docs/scenarios.md) and a verdict in words: reproduced
(same direction; same size, smaller or larger), not reproduced, or
undecided with what to do about it.

A bad input file gets one line on stderr naming it and what is wrong; the
other files are still reported.  So does a run holding an impossible value
(NaN, a string or a negative number where fio writes a number, no I/O).

exit status: 0 when at least one run was reported (even if some inputs were
bad), 1 when nothing could be reported or the output files could not be
written, 2 for a usage error."""


# what --format prints on stdout (the files are always written)
FORMATS = ("text", "markdown", "csv")


def _width(text):
    try:
        v = int(text)
    except ValueError:
        v = -1
    if v != 0 and not 60 <= v <= 10000:
        raise argparse.ArgumentTypeError(
            "%r is not valid: a width in columns, 60 to 10000, or 0 (no "
            "limit)" % text)
    return v


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog=PROG, description="Compare flagcheck modes from fio JSON "
        "output: an LKP-style table with a noise verdict per metric, a "
        "scaling table and plots.", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="*", metavar="DIR_OR_FILE",
                   help="a results directory of flagcheck-run (with "
                   "manifest.json) or a directory of fio JSON files, or fio "
                   "JSON files (plain, json+ or client/server output)")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"),
                   help="instead of the report: B's runs against A's, per "
                   "scenario, mode and numjobs (IOPS, %%change, verdict), "
                   "labelled with what differs between them; A and B are "
                   "each a results directory or several joined by commas "
                   "(dir1,dir2; a directory whose name holds a comma is "
                   "taken whole); writes sidebyside.md to --outdir")
    p.add_argument("--base", default="always", metavar="MODE",
                   help="the mode the others are compared against "
                   "(default: %(default)s)")
    p.add_argument("--outdir", metavar="DIR",
                   help="where to write report.md, the CSV files and the "
                   "plots (default: <first input directory>/report)")
    p.add_argument("--format", choices=FORMATS,
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
                   "(e.g. variant, ioengine) for every file, instead of "
                   "the manifest or the file name")
    p.add_argument("--width", type=_width, default=render.WIDTH,
                   metavar="COLS", help="the terminal's width in columns "
                   "(default %(default)s, 0: no limit); longer notes become "
                   "numbered footnotes under their table; report.md keeps "
                   "the full text")
    usl.add_arguments(p)
    bigbox.add_arguments(p)
    args = p.parse_args(argv)
    if bool(args.inputs) == bool(args.compare):
        p.error("give the results to report (DIR_OR_FILE ...) or "
                "--compare A B, not %s" % ("both" if args.inputs
                                           else "neither"))
    err = args.outdir is not None and safewrite.dir_error("--outdir",
                                                       args.outdir)
    if err:
        p.error(err)
    return args


def warn(msg):
    print("%s: %s" % (PROG, msg), file=sys.stderr)


def _load_manifest(directory):
    try:
        return _relabel(manifest.load(os.path.join(directory,
                                                   manifest.NAME)))
    except fiojson.InputError as e:
        warn("unusable manifest: %s; reading the JSON files instead" % e)
        return None


def _relabel(mf):
    """The manifest with every scenario under its one name (published.label:
    "S1 filemap-odirect-read"), so that its runs, cells and job files meet
    the records' names."""
    if mf is None:                      # no manifest in the directory
        return None
    for key in ("runs", "cells"):
        for e in mf.get(key) or ():
            if isinstance(e, dict) and "scenario" in e:
                e["scenario"] = published.label(e["scenario"])
    sha = (mf.get("matrix") or {}).get("job_sha256")
    if isinstance(sha, dict):
        mf["matrix"]["job_sha256"] = {published.label(k): v
                                      for k, v in sha.items()}
    return mf


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
                               manifest.NAME, rmwcost.calibration.JSON_NAME)
                           and not os.path.islink(p))
            if not found:
                warn("%s: no fio JSON files in this directory" % item)
            files += [(p, None, None) for p in found]
            continue
        manifests.append(mf)
        where = os.path.join(item, manifest.NAME)
        for entry in mf["runs"]:
            if isinstance(entry, dict) and entry.get("status") == "ok":
                try:
                    path = manifest.file_in(item, entry.get("json"), where,
                                            "json")
                    bad = manifest.names_error(entry)
                    if bad:
                        raise fiojson.InputError(where, "%s: %s" % (
                            entry.get("name"), bad))
                    files.append((path, entry, mf))
                except fiojson.InputError as e:
                    warn("%s (run left out)" % e)
    return _once(files), manifests


def _once(files):
    """@files with each fio JSON file once: a second entry (or input)
    naming a file already taken is left out, said in one line."""
    seen, out = {}, []
    for item in files:
        key = os.path.realpath(item[0])
        if key in seen:
            warn("%s: named again (%s) after %s: each run's file is read "
                 "once (run left out)" % (item[0], _run_of(item),
                                          seen[key]))
            continue
        seen[key] = _run_of(item)
        out.append(item)
    return out


def _run_of(item):
    entry = item[1]
    return "run %s of %s" % (entry.get("name"), os.path.join(os.path.dirname(
        item[0]), manifest.NAME)) if entry else "an input"


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
    # the variant job option; flag_check: its older name, in older runs
    option = group_by or ("variant" if "variant" in opts else "flag_check")
    mode = opts.get(option)
    if mode is None and group_by is None and stats_records:
        mode = stats_records[0].get("variant",
                                    stats_records[0].get("flag_check"))
    if mode is None and group_by is not None:
        raise fiojson.InputError(path, "cannot tell the mode: --group-by "
                                 "%s: no such job option in this run (its "
                                 "options: %s)" % (
                                     group_by, ", ".join(sorted(opts))))
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
    """The run's counters (fiojson.load_stats); a bad file leaves the run
    out (InputError): its setup, its counts and its time share would be
    unknown, and it would stand apart from its scenario's other runs."""
    try:
        return fiojson.load_stats(path)
    except fiojson.InputError as e:
        e.args = ("%s (run left out)" % e,)
        raise


def _entry_file(path, name, field):
    """The file a run's manifest entry names beside its fio JSON at
    `path` (manifest.file_in)."""
    directory = os.path.dirname(path)
    return manifest.file_in(directory, name, os.path.join(
        directory, manifest.NAME), field)


def host_stats(path, entry, used=None):
    """{'host:port': engine records or None} of a client/server run from
    its manifest entry (flagcheck-run --hosts)."""
    out = {}
    for info in ((entry or {}).get("hosts") or {}).values():
        if info.get("status") == "ok":
            out[info["key"]] = _stats(_use(used, _entry_file(
                path, info["stats"], "hosts stats"))) \
                if info.get("stats") else None
    return out


def _use(used, path):
    """@path, once: InputError where another run read it already (@used:
    {real path: that run's fio JSON})."""
    if used is None:
        return path
    key = os.path.realpath(path)
    if key in used:
        raise fiojson.InputError(path, "the counters of %s already: each "
                                 "counters file is one run's (run left out)"
                                 % used[key])
    used[key] = path
    return path


def _stats_path(path, entry):
    """The counters file of the run whose fio JSON is at @path: its
    manifest entry's, else the one beside it; never a link (nothing
    outside the results directory is read)."""
    if entry is not None and entry.get("stats"):
        return _entry_file(path, entry["stats"], "stats")
    stats_path = matrix.stats_path_for_json(path)
    if os.path.islink(stats_path):
        raise fiojson.InputError(stats_path, "a symbolic link (refused: "
                                 "nothing outside the results directory is "
                                 "read; run left out)")
    return stats_path


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
        recs.append((perhost.FIO_ROW, fiojson.run_metrics({"jobs": [agg]},
                                                            None)))
    counters = [per_host.get(h) for h in clients.by_host(doc)]
    together = (None if not counters or None in counters
                else [r for c in counters for r in c])
    return recs, perhost.Check(path, clients.check_all_clients(doc)), \
        together


def load_records(files, group_by, modes, left_out=None, setups_out=None,
                 stats_out=None):
    """(records, docs, host records, All clients checks, lines naming the
    scenarios whose runs differ in setup, reported apart); the runs left
    out because their counters disagree with fio's go to @left_out as
    (path, why), each record's setup (runsetup.of_run) to @setups_out, its
    counters to @stats_out ({fio JSON path: records or None}; its key
    None: the real paths of every counters file tried, named if bad)."""
    records, docs, hrecords, checks, setup = [], [], [], [], []
    used = {}
    if stats_out is not None:
        stats_out[None] = used
    for path, entry, mf in files:
        try:
            doc = fiojson.load_fio_json(path)
            per_host, checked = [], None
            if clients.is_client_output(doc) and entry is not None and \
                    entry.get("hosts"):
                per_host, checked, stats_records = host_records(
                    doc, host_stats(path, entry, used), path)
            else:
                stats_records = _stats(_use(used, _stats_path(path, entry)))
                if clients.is_client_output(doc):
                    per_host, checked, _ = host_records(doc, {}, path)
            if entry is not None:
                why = manifest.files_error(
                    entry, doc, stats_records,
                    ((mf or {}).get("matrix") or {}).get("modes") or ())
                if why:
                    raise fiojson.InputError(path, "%s (manifest entry %s; "
                                             "run left out)" % (
                                                 why, entry.get("name")))
            scenario, mode, numjobs, repeat = identify(
                path, doc, stats_records, entry, group_by, modes)
            scenario = published.label(scenario)
            why = fiojson.counts_disagree(doc, stats_records)
            if why:
                if left_out is not None:
                    left_out.append((path, why))
                raise fiojson.InputError(path, why + " (left out)")
            metrics = fiojson.run_metrics(doc, stats_records)
            metrics["corun_pct"] = corun.share(stats_records)
            metrics["corun_jobs"] = corun.jobs(stats_records)
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
        if stats_out is not None:
            stats_out[path] = stats_records
        setup.append(runsetup.of_run(doc, fiojson.job_options(doc),
                                   stats_records, entry, mf))
        if checked is not None:
            checks.append(checked)
            hrecords += [(len(records) - 1, perhost.HostRecord(
                scenario, mode, numjobs, host, m)) for host, m in per_host]
            hrecords.append((len(records) - 1, perhost.HostRecord(
                scenario, mode, numjobs, perhost.SUM_ROW, metrics)))
    labels, apart = runsetup.split([r.scenario for r in records], setup)
    records = [r._replace(scenario=label)
               for r, label in zip(records, labels)]
    hrecords = [h._replace(scenario=labels[i]) for i, h in hrecords]
    if setups_out is not None:
        setups_out += setup
    return records, docs, hrecords, checks, apart


def host_header_lines(hrecords, checks, manifests):
    out = []
    partial = [e for m in manifests for e in m.get("runs", ())
               if isinstance(e, dict) and e.get("status") == "partial"]
    if hrecords:
        names = sorted({r.host for r in hrecords} - {perhost.SUM_ROW,
                                                     perhost.FIO_ROW})
        out.append("hosts: %d (%s), fio client/server; the tables above the "
                   "per-host ones sum the hosts" % (len(names),
                                                    ", ".join(names)))
        out.append("the flags word is per host: numjobs is per host, and "
                   "only jobs on the same host share its cache line")
        out += perhost.check_lines(checks)
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
               % (base, base, significance.BOOTSTRAP_ITERATIONS,
                  significance.BOOTSTRAP_SEED, significance.ALPHA))
    return out


def job_file_figures(manifests):
    """{scenario: published entry} of the job files the manifests name that
    carry their own published figure (the catalogue's header line); a job
    file that cannot be read, or has none, adds nothing (flagcheck-catalogue
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


def _modes(base, manifests):
    """The modes the file names may hold: the base, the default ones and
    every manifest's."""
    modes = [base] + [m for m in matrix.DEFAULT_MODES if m != base]
    for m in manifests:
        modes += [x for x in (m.get("matrix") or {}).get("modes", [])
                  if x not in modes]
    return modes


def _group(group):
    """The inputs of one side of --compare: the one path `group` where it
    exists (a directory's name may hold a comma), else its comma-joined
    parts."""
    return [group] if os.path.exists(group) else \
        [g for g in group.split(",") if g]


def _side(args, group):
    """sidebyside.Side of one side of --compare (comma-joined inputs)."""
    files, manifests = inputs_to_files(_group(group))
    counts = conditions.cell_counts(conditions.ok_entries(manifests))
    if args.exclude_busy:
        files, _ = conditions.exclude_busy(files)
    setup = []
    records, docs, _, _, apart = load_records(
        files, args.group_by, _modes(args.base, manifests),
        setups_out=setup)
    for line in apart:
        warn("%s: %s" % (group, line[len("WARNING: "):]))
    return sidebyside.Side(group, records, docs, setup, counts)


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
    for side, name in ((a, "A"), (b, "B")):
        if not side.records:
            warn("--compare: nothing to compare: no readable fio JSON in "
                 "%s (%s)" % (name, side.name))
            return 1
    result = sidebyside.side_by_side(a, b, args.base)
    sys.stdout.write(sidebyside.markdown(result) if args.format == "markdown"
                     else render.wrap(sidebyside.text(result)))
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


def _lru_points(inputs, tried=()):
    """The bh_lru table's points; a bad counters file is left out of it
    (named, unless the report named it already: in @tried)."""
    runs = []
    # engine stats files only: directories, or .jsonl files named
    for path in lru.stats_files([i for i in inputs if os.path.isdir(i)
                                 or i.endswith(".jsonl")]):
        try:
            runs += lru.load([path])
        except fiojson.InputError as e:
            if os.path.realpath(path) not in tried:
                warn("%s (left out of the bh_lru table)" % e)
    return lru.points(runs)


def build_sections(args, runs, order, files, manifests, ok_runs, counts):
    """Every section of the report, in order; runs: load_records() and
    the counters it read ({fio JSON path: records})."""
    records, docs, hrecords = runs[:3]
    fits = usl.fits(records, args.base)
    figures = job_file_figures(manifests)
    out = [sections.Compare(conditions.annotate(
               compare.compare(records, args.base), counts,
               args.exclude_busy, lineprobes.cell_spans(ok_runs))),
           sections.Scaling(scaling.scaling(records, args.base), order, fits,
                           args.predict, summary.marks(records, counts,
                                                       args.base), figures),
           sections.Tables(perhost.tables(hrecords, order)),
           sections.Tables(conditions.tables(manifests, ok_runs, counts)),
           sections.Tables([t for t in [lineprobes.table(files, records)]
                           if t]),
           sections.Tables(usl.tables(fits, args.predict))]
    if len(order) == 3:
        out.append(sections.FixTable(records, order))
    pts = _lru_points(args.inputs, runs[5].get(None) or ())
    if pts:
        out.append(sections.Lru(pts))
    why_section = rmwcost.build(args, records, docs, warn, runs[5])
    if why_section is not None:
        out.append(why_section)
    simulated = {}
    out.append(sections.Tables(bigbox.table(args, manifests, warn, records,
                                           ok_runs, simulated) +
                              bigbox.beside(args, manifests, records, warn,
                                            ok_runs)))
    out.append(sections.Summary(summary.rows(records, counts, args.base,
                                            figures),
                               bigbox.summary_lines(
                                   simulated, {r.scenario for r in records})))
    return out


def report_header(args, runs, manifests, ok_runs):
    """The header lines; runs: load_records() and the runs left out."""
    records, docs, hrecords, checks, apart, left_out = runs
    head = header_lines(records, docs, manifests, args.base)
    head[-1:-1] = host_header_lines(hrecords, checks, manifests) + \
        conditions.header_lines(manifests, ok_runs, args.exclude_busy) + \
        apart
    for line in apart:
        warn(line[len("WARNING: "):])
    head[-1:-1] = ["left out (counters disagree with fio's): %s: %s"
                   % (path, why) for path, why in left_out]
    return head


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
    """The plots, stdout, then report.md and every section's files; 0, or
    1 when the files could not be written."""
    outdir = _outdir(args)
    try:
        if not _report_dir(outdir, args.outdir is None):
            return 1
        unwritable = None
    except OSError as e:
        unwritable = e
    plotted = False if args.no_plot or unwritable else _draw(secs, outdir)
    sys.stdout.write(sections.stdout(args.format, head, secs))
    report_md = sections.report_md(head, secs)
    try:
        if unwritable is not None:
            raise unwritable
        for name, body in [("report.md", report_md)] + \
                [f for s in secs for f in s.files()]:
            safewrite.write(os.path.join(outdir, name), body)
    except OSError as e:
        warn("cannot write to %s: %s" % (outdir, e.strerror or e))
        return 1
    print("%s: wrote report.md, compare.csv, scaling.csv%s to %s"
          % (PROG, " and plots" if plotted else "", outdir), file=sys.stderr)
    return 0


def main(argv=None):
    args = parse_args(argv)
    render.set_width(args.width)
    if args.compare:
        return compare_main(args)
    files, manifests = inputs_to_files(args.inputs)
    ok_runs = conditions.ok_entries(manifests)
    counts = conditions.cell_counts(ok_runs)
    busy = []
    if args.exclude_busy:
        files, busy = conditions.exclude_busy(files)
    left_out, stats_read = [], {}
    runs = load_records(files, args.group_by,
                        _modes(args.base, manifests), left_out,
                        stats_out=stats_read)
    records = runs[0]
    if not records:
        warn("nothing to report: %s" % (
            "--exclude-busy left out all %d runs (each is marked busy); "
            "leave it out to report them" % len(busy) if busy and not files
            else "no readable fio JSON among the inputs"))
        return 1
    if args.base not in {r.mode for r in records}:
        warn("--base %s: no runs of that mode; the modes there are: %s"
             % (args.base, ", ".join(sorted({r.mode for r in records}))))
        return 2
    order = compare.mode_order(records, args.base)
    head = report_header(args, runs + (left_out,), manifests, ok_runs)
    secs = build_sections(args, runs + (stats_read,), order, files,
                          manifests, ok_runs, counts)
    return write(args, head, secs)
