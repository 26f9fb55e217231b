"""manifest.json of a flagcheck run results directory: its schema, what
a resumed run keeps from the previous one, the checks of a finished run's
entry, the read and the atomic write.  Plain values in and out: the
runner builds a manifest from its command (run/runmanifest.py)."""

import datetime
import json
import os
import re

from . import (safewrite, fiojson, matrix, numbers, runrecord, runsetup,
               schema)
from .schema import (BOOL, COUNT, INT, POSITIVE, STR, AtMost, List, Map, Obj,
    OneOf, Opt, Tuple, number, whole)

NAME = "manifest.json"
# what a finished run keeps from the previous manifest when resumed
KEPT = ("command", "cwd", "env", "rc", "started", "seconds", "hosts",
        "job_files", "placement", "interference", "line_probe", "settings",
        "job_sha256", "engine_sha256", "job_env", "json_sha256")


# What the runner and the report read of a manifest (schema.check): a
# hand-edited one is refused with one line, never a traceback.
# fio runs at most REAL_MAX_JOBS (4096, fio.h) jobs: numjobs beyond it
# is an edit
NUMJOBS = whole(1, 4096)
SECONDS = number(low=0)
# the CPU time of the run's CPUs (cpu_s) and its parts (run/interference)
_PARTS = ("busy_s", "not_ours_s", "others_s", "steal_s", "irq_s",
          "kthreads_s")
_SHARES = AtMost(Obj(dict(
    {k: Opt(SECONDS) for k in ("cpu_s",) + _PARTS},
    others_share=Opt(number(0, 1)), steal_share=Opt(number(0, 1)),
    kthreads=List(Tuple(STR, SECONDS)))), [(k, "cpu_s") for k in _PARTS])
_FREQ = Opt(Obj({"governor": Map(STR), "cur_khz": Map(Opt(SECONDS))}))
_INTERFERENCE = Obj({
    "busy": BOOL, "reasons": List(STR), "threshold": number(0, 1),
    "cpus": List(COUNT), "wall_s": SECONDS, "ours_s": SECONDS,
    "run_cpus": _SHARES, "machine": _SHARES,
    "loadavg_before": Opt(List(SECONDS)),
    "loadavg_after": Opt(List(SECONDS)),
    "cpufreq_before": _FREQ, "cpufreq_after": _FREQ})
# a probe's one-way transfer: more than 0 ns, at most 1 ms (calibration's)
_PROBE_NS = Opt(number(above=0, high=1e6))
_PLACEMENT = Obj({"pinned": BOOL, "policy": STR, "cpus_allowed": STR,
                  "cpus": List(COUNT), "jobs": List(COUNT),
                  "nodes": List(COUNT),
                  "smt_siblings": COUNT, "oversubscribed": BOOL,
                  "rule": STR})
_HOST_RUN = Obj({"spec": STR, "key": STR, "status": STR, "stats": STR,
                 "counters": STR,
                 "reason": OneOf(STR, List(STR))})
RUN_SCHEMA = Obj({
    "name": STR, "scenario": STR, "variant": STR, "numjobs": NUMJOBS,
    "repeat": POSITIVE, "json": STR, "stats": STR, "status": STR,
    "command": List(STR), "cwd": STR, "env": Map(STR), "rc": Opt(INT),
    "started": STR, "seconds": SECONDS, "resumed": BOOL,
    "outside_matrix": BOOL, "failure": STR, "failed_output": STR,
    "stderr_tail": List(STR), "hosts": Map(_HOST_RUN),
    "job_files": Map(STR), "placement": _PLACEMENT,
    "interference": _INTERFERENCE,
    "line_probe": Obj({"cpus": List(COUNT), "before_ns": _PROBE_NS,
                       "after_ns": _PROBE_NS}),
    "settings": runrecord.SETTINGS_SCHEMA, "job_sha256": Opt(STR),
    "engine_sha256": Opt(STR), "job_env": Map(Opt(STR)),
    "json_sha256": STR},
    required=("name", "scenario", "variant", "numjobs", "repeat", "json",
              "status"))
CELL_SCHEMA = Obj({
    "scenario": STR, "numjobs": NUMJOBS, "repeats": POSITIVE,
    "stopped": Opt(STR), "text": STR, "corun_pct": Opt(number(0, 100)),
    "decisions": List(Obj({"variant": STR, "reason": STR, "why": Opt(STR),
                           "ratio": Opt(number(above=0)),
                           "ci": Opt(List(number(above=0), 2)),
                           "by": Opt(STR)}))})
# what flagcheck run records of how the runs were made (runmanifest.py)
CONDITIONS = ("pinned", "ramp_s", "clocksource", "clocksource_why",
              "line_probe_s", "busy_threshold_pct", "until_decided",
              "max_repeats", "precision_pct", "topology", "numa_policies")
SCHEMA = Obj({
    "flagcheck_manifest": INT, "complete": BOOL, "started": STR,
    "updated": STR, "stopped": STR, "fio": STR, "fio_version": STR,
    "engine_version": STR,
    "host": Obj({"hostname": STR, "cpu_model": STR, "cores": Opt(INT),
                 "usable_cpus": INT, "kernel": STR, "machine": STR}),
    "matrix": Obj({"jobs": Map(STR), "job_sha256": Map(Opt(STR)),
                   "job_body_sha256": Map(Opt(STR)),
                   "job_headers": Map(List(STR)),
                   "variants": List(STR), "numjobs": List(NUMJOBS),
                   "repeats": POSITIVE, "order": STR,
                   "output_format": STR}),
    "vars": Map(STR),
    "conditions": Obj({
        "pinned": BOOL, "ramp_s": COUNT, "clocksource": Opt(STR),
        "clocksource_why": Opt(STR), "line_probe_s": Opt(SECONDS),
        "busy_threshold_pct": number(0, 100), "until_decided": BOOL,
        "max_repeats": Opt(POSITIVE),
        "precision_pct": Opt(number(above=0, high=100)),
        "topology": List(Map(INT)), "numa_policies": Map(STR)},
        required=CONDITIONS),
    "hosts": List(STR), "calibration": Opt(STR),
    "runs": List(RUN_SCHEMA), "cells": List(CELL_SCHEMA)},
    required=("runs", "conditions"))


def path_in(outdir):
    return os.path.join(outdir, NAME)


def now():
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def file_in(directory, name, where, field):
    """The path of the file `name` that a manifest (at `where`) names in
    its results directory; raises fiojson.InputError, naming `field`, for
    one that is no plain file name there (a path, "..") or is a symbolic
    link: nothing outside the directory is ever read."""
    if not isinstance(name, str) or not name or name in (".", "..") \
            or "/" in name or "\0" in name:
        raise fiojson.InputError(where, "%s %r: not a file name in %s "
                                 "(refused: a manifest names files in its "
                                 "own directory only)" % (field, name,
                                                          directory))
    path = os.path.join(directory, name)
    if os.path.islink(path):
        raise fiojson.InputError(path, "a symbolic link (refused: nothing "
                                 "outside the results directory is read)")
    return path


def load(path):
    """The manifest at `path`, or None where there is none.  Raises
    fiojson.InputError, naming the file, for one that can not be read or is
    not a flagcheck run manifest, or is a symbolic link."""
    if os.path.islink(path):
        raise fiojson.InputError(path, "a symbolic link (refused: nothing "
                                 "outside the results directory is read)")
    text = fiojson.read_text(path, "manifest")
    if text is None:
        return None
    try:
        doc = fiojson.decode(path, text)
    except ValueError as e:
        raise fiojson.InputError(path, "malformed JSON at line %s: %s" % (
            getattr(e, "lineno", "?"), getattr(e, "msg", e)))
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        raise fiojson.InputError(path, "not a flagcheck run manifest (no "
                                 "'runs' list)")
    cond = doc.get("conditions", {})
    if isinstance(cond, dict) and "clocksource" not in cond:
        raise fiojson.InputError(path, "no conditions.clocksource: a "
                                 "manifest from before flagcheck run "
                                 "recorded its conditions and clock; run "
                                 "the matrix again in another --outdir")
    try:
        schema.check(doc, SCHEMA)
    except schema.Invalid as e:
        raise fiojson.InputError(path, str(e))
    return doc


def run_entries(outdir, runs, old):
    """One entry per run; a run whose JSON is there (and that did not miss
    a host) is done, and keeps what the previous manifest said of it.
    The previous manifest's runs outside `runs` (another --numjobs, say)
    are not entries of this command: see others()."""
    old_runs = {e.get("name"): e for e in old.get("runs", [])
                if isinstance(e, dict)}
    entries = []
    for run in runs:
        name = matrix.run_name(run)
        entry = {"name": name, "scenario": run.scenario,
                 "variant": run.variant, "numjobs": run.numjobs,
                 "repeat": run.repeat, "json": name + ".json",
                 "stats": name + ".flagcheck.jsonl"}
        prev = old_runs.get(name) or runrecord.read_setup(outdir, name) \
            or {}
        # a partial run (a host was down) is run again on all hosts
        if matrix.is_done(outdir, run) and prev.get("status") != "partial":
            _recorded_run(outdir, run, prev)
            entry.update({k: prev[k] for k in KEPT if k in prev})
            entry.update(status="ok", resumed=True)
        else:
            entry["status"] = "pending"
        entries.append(entry)
    return entries


def _recorded_run(outdir, run, prev):
    """Refuse a finished run's fio JSON that is not the run recorded under
    its name (its content's SHA-256, written when it finished): a copy of
    another run, or a file swapped in, is never resumed as this one."""
    path = matrix.json_path(outdir, run)
    sha, rec = runsetup.file_sha256(path), prev.get("json_sha256")
    if sha != rec:
        raise fiojson.InputError(path, "not the run recorded as %s (its "
                                 "sha256 %s, %s): a copy or another run's "
                                 "output; move its files (%s.*) away to run "
                                 "it again, or use another --outdir" % (
                                     matrix.run_name(run), str(sha)[:12],
                                     "recorded %s" % rec[:12] if rec else
                                     "none recorded", matrix.run_name(run)))


def others(old, runs):
    """The previous manifest's entries of runs outside `runs` (made with
    another --numjobs, --variants, --repeats or job file), kept as they were:
    their record is not this command's to drop."""
    names = {matrix.run_name(r) for r in runs}
    return [dict(e, outside_matrix=True) for e in old.get("runs", [])
            if isinstance(e, dict) and e.get("name") not in names]


def other_cells(old, runs):
    """The previous manifest's cells outside `runs`, kept as they were."""
    mine = {(r.scenario, r.numjobs) for r in runs}
    return [c for c in old.get("cells", []) if isinstance(c, dict)
            and (c.get("scenario"), c.get("numjobs")) not in mine]


def write(path, manifest):
    """Replace the manifest at `path` in one step; raises OSError naming
    `path`, and leaves the old manifest as it was."""
    safewrite.write(path, json.dumps(manifest, indent=2) + "\n")


def names_error(entry):
    """Why a finished run's entry does not name its own files, or None:
    its name ends in _<variant>_nj<numjobs>_r<repeat> of the entry
    (matrix.run_name; the scenario before it is the job file's stem, which
    the entry may call otherwise), its fio JSON is <name>.json, its
    counters <name>.flagcheck.jsonl or, per host,
    <name>.<host>.flagcheck.jsonl."""
    name = entry.get("name")
    if not isinstance(name, str):
        return "name is missing"
    variant, nj, rep = (entry.get(k) for k in ("variant", "numjobs", "repeat"))
    own = plain(name, numbers.NAME_SHOWN)
    if not re.match(r"^.+_%s_nj%s_r%s$" % tuple(
            re.escape(_text(v)) for v in (variant, nj, rep)), name):
        return ("name %s is not a run of variant %s, numjobs %s, repeat %s "
                "as the entry says" % (name_shown(name), plain(variant),
                                       plain(nj), plain(rep)))
    if entry.get("json") != name + ".json":
        return "json %s is not %s.json, the run's own" % (
            name_shown(entry.get("json")), own)
    if "stats" in entry and entry["stats"] != name + ".flagcheck.jsonl":
        return "stats %s is not %s.flagcheck.jsonl, the run's own" % (
            name_shown(entry["stats"]), own)
    for key, host in sorted((entry.get("hosts") or {}).items()):
        stats = host.get("stats")
        if stats is not None and not (stats.startswith(name + ".") and
                                      stats.endswith(".flagcheck.jsonl")):
            return ("hosts.%s.stats %s is not %s.HOST.flagcheck.jsonl, the "
                    "run's own" % (plain(key), name_shown(stats), own))
    return None


def plain(value, limit=numbers.SHOWN):
    """@value in a message, unquoted and cut (numbers.shown)."""
    return numbers.shown(value, limit, quote=False)


def name_shown(value):
    """A file name in a message: quoted, whole up to NAME_MAX."""
    return numbers.shown(value, numbers.NAME_SHOWN)


def _text(value):
    """str() of a manifest value; a whole number too long to print as
    text (past Python's 4300 digits) is no run's."""
    try:
        return str(value)
    except ValueError:
        return "-"


def files_error(entry, doc, counters, variants=()):
    """Why a finished run's fio JSON `doc` and its counters file's
    records `counters` (or None) are not the run its manifest entry describes, or None (its
    entry names its own files: names_error()): fio's flagcheck_stats option
    (the runner sets it to the run's counters file) names the entry's;
    fio's variant option is no other variant of the matrix (`variants`), nor
    its numjobs another numjobs; the counters' variant is fio's, and some
    of their jobs are fio's."""
    opts = fiojson.job_options(doc)
    own = [entry.get("stats")] + [h.get("stats") for h in (
        entry.get("hosts") or {}).values()]
    path = opts.get("flagcheck_stats")
    if isinstance(path, str) and os.path.basename(path) not in own:
        return ("its fio JSON wrote counters to %s, not to the entry's %s"
                % (os.path.basename(path), entry.get("stats")))
    variant = opts.get("variant")
    if variant is not None and str(variant) != entry.get("variant") and \
            str(variant) in variants:
        return ("its fio JSON ran variant=%s, the entry says variant %s"
                % (variant, entry.get("variant")))
    nj = opts.get("numjobs")
    if nj is not None and str(nj) != str(entry.get("numjobs")):
        return ("its fio JSON ran numjobs=%s, the entry says %s"
                % (nj, entry.get("numjobs")))
    for r in counters or ():
        if variant is not None and r.get("variant") not in (None, str(variant)):
            return ("its counters are of variant %s, its fio JSON ran "
                    "variant=%s" % (r.get("variant"), variant))
    # the engine writes fio's job name; a group's entry has its first's
    theirs = {e.get("jobname") for e in fiojson.fio_jobs(doc)} - {None}
    mine = {r.get("job") for r in counters or ()} - {None}
    if theirs and mine and not theirs & mine:
        return ("its counters are of job(s) %s, its fio JSON ran %s" % (
            ", ".join(sorted(mine)), ", ".join(sorted(theirs))))
    return None
