"""The report's records: from its inputs (flagcheck run results
directories, with or without manifest.json, and fio JSON files) to one
compare.Record per run, with its fio JSON, its counters (the engine's
flagcheck_stats file) and, for client/server runs, one record per host.
flagcheck report and flagcheck catalogue read their runs through it; a bad
file or run is named on stderr and left out."""

import glob
import os

from ..inputs import (calibfile, clients, corun, fiojson, manifest, matrix,
                      numbers, predictionfile, published, runsetup)
from ..stats import compare
from . import perhost
from .messages import warn


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
    left out, and every run is taken once (_once)."""
    files, manifests, given = [], [], []
    for item in inputs:
        before = len(files)
        _input_files(item, files, manifests)
        given += [item] * (len(files) - before)
    had = {id(mf) for _, _, mf in files}
    files = _once(files, given)
    # a manifest all of whose runs are copies of runs taken: left out
    kept = {id(mf) for _, _, mf in files}
    return files, [m for m in manifests if id(m) in kept or id(m) not in had]


def _input_files(item, files, manifests):
    """The runs of input @item (a results directory, a directory of fio
    JSON files, a file) added to @files, its manifest to @manifests."""
    if not os.path.isdir(item):
        files.append((item, None, None))
        return
    mf = _load_manifest(item)
    if mf is None:
        found = sorted(p for p in glob.glob(os.path.join(item, "*.json"))
                       if os.path.basename(p) not in (
                           manifest.NAME, calibfile.JSON_NAME,
                           predictionfile.NAME)
                       and not os.path.islink(p))
        if not found:
            warn("%s: no fio JSON files in this directory" % item)
        files += [(p, None, None) for p in found]
        return
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
                        manifest.plain(entry.get("name"),
                                      numbers.NAME_SHOWN), bad))
                files.append((path, entry, mf))
            except fiojson.InputError as e:
                warn("%s (run left out)" % e)


def run_id(path):
    """A run's identity: the SHA-256 of its fio JSON (fio writes the
    run's start time to the millisecond and every figure into it: no two
    runs share it, and a copy of a run has it), else its real path."""
    return runsetup.file_sha256(path) or os.path.realpath(path)


def _once(files, given):
    """@files with each run once (run_id: a copy of a results directory
    holds the same runs); the runs taken already are left out, also from
    their manifest's runs, said in one line per input (@given: the input
    of each file)."""
    seen, out, again = {}, [], {}
    for item, came in zip(files, given):
        key = run_id(item[0])
        if key in seen:
            first, path = seen[key]
            if item[1] is not None:
                item[2]["runs"] = [e for e in item[2]["runs"]
                                   if e is not item[1]]
            if first == came:       # within one input: name the two
                warn("%s: the same run as %s (the same fio output: a copy, "
                     "or named twice): counted once" % (item[0], path))
                continue
            again.setdefault((came, first), []).append(item)
            continue
        seen[key] = (came, item[0])
        out.append(item)
    for (came, first), items in again.items():
        warn("%s: %s the same as %s in %s (the same fio output: a copy): "
             "each run is counted once" % (
                 came, "its %d runs are" % len(items) if len(items) > 1
                 else "run %s is" % items[0][0],
                 "runs" if len(items) > 1 else "a run", first))
    return out


def identify(path, doc, entry, group_by):
    """(scenario, variant, numjobs, repeat) of one run: its manifest entry
    (the record flagcheck run writes of it), else, for bare fio JSON, the
    variant from its job options (--group-by's, else variant=) and the
    cell from the file name where it follows the convention (fio's job
    name and numjobs where not); raises InputError."""
    if group_by is None and entry is not None:
        return (entry["scenario"], entry["variant"], int(entry["numjobs"]),
                int(entry["repeat"]))
    opts = fiojson.job_options(doc)
    option = group_by or "variant"
    variant = opts.get(option)
    if variant is None:
        raise fiojson.InputError(path, (
            "cannot tell the variant: --group-by %s: no such job option in "
            "this run (its options: %s)" % (group_by, ", ".join(sorted(opts))))
            if group_by is not None else "cannot tell the variant: no "
            "manifest entry and no variant job option; use --group-by")
    variant = str(variant)
    run = matrix.parse_name(path, [variant]) if group_by is None else None
    if run is not None:
        return (run.scenario, variant, run.numjobs, run.repeat)
    try:
        numjobs = int(opts.get("numjobs", 1))
    except ValueError:
        raise fiojson.InputError(path, "numjobs job option %r is not a "
                                 "number" % opts.get("numjobs"))
    scenario = fiojson.fio_jobs(doc)[0].get("jobname", "fio")
    return (scenario, variant, numjobs, None)


def _load_counters(path):
    """The run's counters (fiojson.load_counters); a bad file leaves the run
    out (InputError): its setup, its counts and its time share would be
    unknown, and it would stand apart from its scenario's other runs."""
    try:
        return fiojson.load_counters(path)
    except fiojson.InputError as e:
        e.args = ("%s (run left out)" % e,)
        raise


def _entry_file(path, name, field):
    """The file a run's manifest entry names beside its fio JSON at
    `path` (manifest.file_in)."""
    directory = os.path.dirname(path)
    return manifest.file_in(directory, name, os.path.join(
        directory, manifest.NAME), field)


def host_counters(path, entry, used=None):
    """{'host:port': engine records or None} of a client/server run from
    its manifest entry (flagcheck run --hosts)."""
    out = {}
    for info in ((entry or {}).get("hosts") or {}).values():
        if info.get("status") == "ok":
            out[info["key"]] = _load_counters(_use(used, _entry_file(
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


def _counters_path(path, entry):
    """The counters file of the run whose fio JSON is at @path: its
    manifest entry's, else the one beside it; never a link (nothing
    outside the results directory is read)."""
    if entry is not None and entry.get("stats"):
        return _entry_file(path, entry["stats"], "stats")
    counters_path = matrix.counters_path_for_json(path)
    if os.path.islink(counters_path):
        raise fiojson.InputError(counters_path, "a symbolic link (refused: "
                                 "nothing outside the results directory is "
                                 "read; run left out)")
    return counters_path


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


def _read_run(path, entry, used):
    """(fio JSON, counters, per-host metrics, All clients check) of one
    run (host_records(); a run on one host: [] and None); @used: see
    _use().  Raises InputError."""
    doc = fiojson.load_fio_json(path)
    per_host, checked = [], None
    if clients.is_client_output(doc) and entry is not None and \
            entry.get("hosts"):
        per_host, checked, counters = host_records(
            doc, host_counters(path, entry, used), path)
    else:
        counters = _load_counters(_use(used, _counters_path(path, entry)))
        if clients.is_client_output(doc):
            per_host, checked, _ = host_records(doc, {}, path)
    return doc, counters, per_host, checked


def load_records(files, group_by, left_out=None, setups_out=None,
                 counters_out=None):
    """(records, docs, host records, All clients checks, lines naming the
    scenarios whose runs differ in setup, reported apart); the runs left
    out because their counters disagree with fio's go to @left_out as
    (path, why), each record's setup (runsetup.of_run) to @setups_out, its
    counters to @counters_out ({fio JSON path: records or None}; its key
    None: the real paths of every counters file tried, named if bad)."""
    records, docs, hrecords, checks, setup = [], [], [], [], []
    used = {}
    if counters_out is not None:
        counters_out[None] = used
    for path, entry, mf in files:
        try:
            doc, counters, per_host, checked = _read_run(path, entry, used)
            if entry is not None:
                why = manifest.files_error(
                    entry, doc, counters,
                    ((mf or {}).get("matrix") or {}).get("variants") or ())
                if why:
                    raise fiojson.InputError(path, "%s (manifest entry %s; "
                                             "run left out)" % (
                                                 why, entry.get("name")))
            scenario, variant, numjobs, repeat = identify(
                path, doc, entry, group_by)
            scenario = published.label(scenario)
            why = fiojson.counts_disagree(doc, counters)
            if why:
                if left_out is not None:
                    left_out.append((path, why))
                raise fiojson.InputError(path, why + " (left out)")
            metrics = fiojson.run_metrics(doc, counters)
            metrics["corun_pct"] = corun.share(counters)
            metrics["corun_jobs"] = corun.jobs(counters)
        except fiojson.InputError as e:
            warn(str(e))
            continue
        except (ValueError, TypeError, AttributeError, KeyError) as e:
            warn("%s: unexpected structure (%s: %s)"
                 % (path, type(e).__name__, e))
            continue
        records.append(compare.Record(scenario, variant, numjobs, repeat,
                                      metrics, path))
        docs.append(doc)
        if counters_out is not None:
            counters_out[path] = counters
        setup.append(runsetup.of_run(doc, fiojson.job_options(doc),
                                   counters, entry, mf))
        if checked is not None:
            checks.append(checked)
            hrecords += [(len(records) - 1, perhost.HostRecord(
                scenario, variant, numjobs, host, m)) for host, m in per_host]
            hrecords.append((len(records) - 1, perhost.HostRecord(
                scenario, variant, numjobs, perhost.SUM_ROW, metrics)))
    labels, apart = runsetup.split([r.scenario for r in records], setup)
    records = [r._replace(scenario=label)
               for r, label in zip(records, labels)]
    hrecords = [h._replace(scenario=labels[i]) for i, h in hrecords]
    if setups_out is not None:
        setups_out += setup
    return records, docs, hrecords, checks, apart

