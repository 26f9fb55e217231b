"""manifest.json of a flagcheck-run results directory: the host, the
versions, the matrix and every run's command, environment and status;
what a resumed run keeps from the previous one, and the atomic write."""

import datetime
import json
import os
import platform
import shlex
import subprocess

from . import safewrite as atomic, fiojson, matrix, runsetup as setups, schema
from .schema import (BOOL, COUNT, INT, NUM, POSITIVE, STR, List, Map, Obj,
                     OneOf, Opt)

NAME = "manifest.json"
# The source tree, or $(PREFIX)/lib/flagcheck in an installed copy.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))))
# what a finished run keeps from the previous manifest when resumed
KEPT = ("command", "cwd", "env", "rc", "started", "seconds", "hosts",
        "job_files", "placement", "interference", "line_probe", "settings",
        "job_sha256")


# What the runner and the report read of a manifest (schema.check): a
# hand-edited one is refused with one line, never a traceback.
_SHARES = Obj(dict(
    {k: Opt(NUM) for k in ("cpu_s", "busy_s", "not_ours_s", "others_s",
                           "steal_s", "irq_s", "kthreads_s",
                           "others_share", "steal_share")},
    kthreads=List(List(OneOf(STR, NUM), 2))))
_INTERFERENCE = Obj({
    "busy": BOOL, "reasons": List(STR), "threshold": NUM,
    "cpus": List(INT), "wall_s": NUM, "ours_s": NUM,
    "run_cpus": _SHARES, "machine": _SHARES,
    "loadavg_before": Opt(List(NUM)), "loadavg_after": Opt(List(NUM)),
    "cpufreq_before": Opt(Obj({"governor": Map(STR),
                               "cur_khz": Map(Opt(NUM))})),
    "cpufreq_after": Opt(Obj({"governor": Map(STR),
                              "cur_khz": Map(Opt(NUM))}))})
_PLACEMENT = Obj({"pinned": BOOL, "policy": STR, "cpus_allowed": STR,
                  "cpus": List(INT), "jobs": List(INT), "nodes": List(INT),
                  "smt_siblings": COUNT, "oversubscribed": BOOL,
                  "rule": STR})
_HOST_RUN = Obj({"spec": STR, "key": STR, "status": STR, "stats": STR,
                 "counters": STR,
                 "reason": OneOf(STR, List(STR))})
_SETTINGS = Obj({"pinned": BOOL, "ramp_s": COUNT,
                 "clocksource": Opt(STR), "vars": Map(STR),
                 "output_format": STR})
RUN_SCHEMA = Obj({
    "name": STR, "scenario": STR, "mode": STR, "numjobs": POSITIVE,
    "repeat": POSITIVE, "json": STR, "stats": STR, "status": STR,
    "command": List(STR), "cwd": STR, "env": Map(STR), "rc": Opt(INT),
    "started": STR, "seconds": NUM, "resumed": BOOL,
    "outside_matrix": BOOL, "failure": STR, "failed_output": STR,
    "stderr_tail": List(STR), "hosts": Map(_HOST_RUN),
    "job_files": Map(STR), "placement": _PLACEMENT,
    "interference": _INTERFERENCE,
    "line_probe": Obj({"cpus": List(INT), "before_ns": Opt(NUM),
                       "after_ns": Opt(NUM)}),
    "settings": _SETTINGS, "job_sha256": Opt(STR)},
    required=("name", "scenario", "mode", "numjobs", "repeat", "json",
              "status"))
CELL_SCHEMA = Obj({
    "scenario": STR, "numjobs": POSITIVE, "repeats": POSITIVE,
    "stopped": Opt(STR), "text": STR,
    "decisions": List(Obj({"mode": STR, "reason": STR, "ratio": Opt(NUM),
                           "ci": Opt(List(NUM, 2)), "by": Opt(STR)}))})
SCHEMA = Obj({
    "flagcheck_manifest": INT, "complete": BOOL, "started": STR,
    "updated": STR, "stopped": STR, "fio": STR, "fio_version": STR,
    "engine_version": STR,
    "host": Obj({"hostname": STR, "cpu_model": STR, "cores": Opt(INT),
                 "usable_cpus": INT, "kernel": STR, "machine": STR}),
    "matrix": Obj({"jobs": Map(STR), "job_sha256": Map(Opt(STR)),
                   "modes": List(STR), "numjobs": List(POSITIVE),
                   "repeats": POSITIVE, "order": STR,
                   "output_format": STR}),
    "vars": Map(STR),
    "conditions": Obj({
        "pinned": BOOL, "ramp_s": COUNT, "clocksource": Opt(STR),
        "clocksource_why": Opt(STR), "line_probe_s": Opt(NUM),
        "busy_threshold_pct": NUM, "until_decided": BOOL,
        "max_repeats": Opt(POSITIVE), "precision_pct": Opt(NUM),
        "topology": List(Map(INT)), "numa_policies": Map(STR)}),
    "hosts": List(STR), "calibration": Opt(STR),
    "runs": List(RUN_SCHEMA), "cells": List(CELL_SCHEMA)},
    required=("runs",))


def path_in(outdir):
    return os.path.join(outdir, NAME)


def now():
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "cpu model"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _output(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
        return out.stdout.strip() if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def host_info():
    return {"hostname": platform.node(), "cpu_model": _cpu_model(),
            "cores": os.cpu_count(),
            "usable_cpus": len(os.sched_getaffinity(0)),
            "kernel": platform.release(), "machine": platform.machine()}


def engine_version():
    # an installed copy is no git tree (and may sit inside another)
    return (_output(["git", "-C", REPO, "describe", "--always", "--dirty"])
            if os.path.exists(os.path.join(REPO, ".git")) else None) \
        or "unknown"


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
    not a flagcheck-run manifest, or is a symbolic link."""
    if os.path.islink(path):
        raise fiojson.InputError(path, "a symbolic link (refused: nothing "
                                 "outside the results directory is read)")
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return None
    except OSError as e:
        raise fiojson.InputError(path, "cannot read: %s" % e.strerror)
    try:
        doc = fiojson.decode(path, text)
    except ValueError as e:
        raise fiojson.InputError(path, "malformed JSON at line %s: %s" % (
            getattr(e, "lineno", "?"), getattr(e, "msg", e)))
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        raise fiojson.InputError(path, "not a flagcheck-run manifest (no "
                                 "'runs' list)")
    try:
        schema.check(doc, SCHEMA)
    except schema.Invalid as e:
        raise fiojson.InputError(path, str(e))
    return doc


def load_previous(path):
    """The manifest of an earlier run of this results directory, or {}.
    A damaged one is never replaced: it holds what the results alone do not
    (every finished run's command, environment and exit status).  Raises
    fiojson.InputError saying how to go on."""
    try:
        return load(path) or {}
    except fiojson.InputError as e:
        raise fiojson.InputError(path, "%s; left as it is, since it holds "
                                 "the commands, environment and status of "
                                 "the finished runs.  To go on: mv %s %s."
                                 "damaged and run the same command again "
                                 "(every run whose fio JSON parses is kept "
                                 "as done; the manifest's record of them is "
                                 "lost), or give another --outdir" % (
                                     str(e)[len(path) + 2:],
                                     shlex.quote(path),
                                     shlex.quote(path)))


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
                 "mode": run.mode, "numjobs": run.numjobs,
                 "repeat": run.repeat, "json": name + ".json",
                 "stats": name + ".flagcheck.jsonl"}
        prev = old_runs.get(name, {})
        # a partial run (a host was down) is run again on all hosts
        if matrix.is_done(outdir, run) and prev.get("status") != "partial":
            entry.update({k: prev[k] for k in KEPT if k in prev})
            entry.update(status="ok", resumed=True)
        else:
            entry["status"] = "pending"
        entries.append(entry)
    return entries


def others(old, runs):
    """The previous manifest's entries of runs outside `runs` (made with
    another --numjobs, --modes, --repeats or job file), kept as they were:
    their record is not this command's to drop."""
    names = {matrix.run_name(r) for r in runs}
    return [dict(e, outside_matrix=True) for e in old.get("runs", [])
            if isinstance(e, dict) and e.get("name") not in names]


def other_cells(old, runs):
    """The previous manifest's cells outside `runs`, kept as they were."""
    mine = {(r.scenario, r.numjobs) for r in runs}
    return [c for c in old.get("cells", []) if isinstance(c, dict)
            and (c.get("scenario"), c.get("numjobs")) not in mine]


def conditions(args):
    """How the runs were made trustworthy: pinning, warm-up, the busy mark
    and the stopping rule (flagcheck-run --help explains each)."""
    return {"pinned": not args.no_pin and not args.hosts,
            "ramp_s": 0 if args.hosts else args.ramp,
            "clocksource": args.clock[0],
            "clocksource_why": args.clock[1],
            "line_probe_s": args.line_probe_s,
            "busy_threshold_pct": args.busy_threshold,
            "until_decided": args.until_decided,
            "max_repeats": args.max_repeats if args.until_decided else None,
            "precision_pct": args.precision if args.until_decided else None,
            "topology": [dict(c._asdict()) for c in args.topology],
            "numa_policies": args.policies}


def settings(args):
    """What a run was made with that changes what it measures, beside its
    job file (job_sha256): recorded per run; resuming with other ones is
    refused (resume_error)."""
    return {"pinned": not args.no_pin and not args.hosts,
            "ramp_s": 0 if args.hosts else args.ramp,
            "clocksource": args.clock[0], "vars": dict(args.vars),
            "output_format": "json+" if args.json_plus else "json"}


def _old_settings(old, entry):
    """The settings of a finished run of the previous manifest; a run from
    before they were recorded per run has the manifest's own."""
    if isinstance(entry.get("settings"), dict):
        return entry["settings"]
    cond = old.get("conditions") if isinstance(old.get("conditions"),
                                               dict) else {}
    mat = old.get("matrix") if isinstance(old.get("matrix"), dict) else {}
    got = {"pinned": cond.get("pinned"), "ramp_s": cond.get("ramp_s"),
           "clocksource": cond.get("clocksource", _UNKNOWN),
           "vars": old.get("vars"), "output_format": mat.get("output_format")}
    return {k: v for k, v in got.items() if v is not None}


_UNKNOWN = object()


def _var_difference(var, was, now):
    option = "--runtime" if var == "RUNTIME" else "--set"
    if was is None:
        return (option, "%s unset" % var, "%s=%s" % (var, now),
                "leave out --set %s=%s" % (var, shlex.quote(now)))
    return (option, "%s=%s" % (var, was), "%s=%s" % (var, now) if now
            is not None else "%s unset" % var,
            "give --runtime %s" % was if var == "RUNTIME"
            else "give --set %s=%s" % (var, shlex.quote(was)))


def _differences(was, now):
    """[(option, then, now, what gives the same again)] of a finished
    run's settings and this command's."""
    def fio(cs):
        return cs or "fio"
    out = []
    if "pinned" in was and was["pinned"] != now["pinned"]:
        out.append(("--no-pin", "pinned jobs" if was["pinned"]
                    else "floating jobs", "pinned" if now["pinned"]
                    else "floating jobs", "leave out --no-pin"
                    if was["pinned"] else "give --no-pin"))
    if "ramp_s" in was and was["ramp_s"] != now["ramp_s"]:
        out.append(("--ramp", "a warm-up of %s s" % was["ramp_s"],
                    "%s s" % now["ramp_s"], "give --ramp %s" % was["ramp_s"]))
    if was.get("clocksource", _UNKNOWN) not in (_UNKNOWN,
                                                now["clocksource"]):
        out.append(("--clocksource", "clocksource=%s" % fio(
            was["clocksource"]), fio(now["clocksource"]),
            "give --clocksource %s" % fio(was["clocksource"])))
    if "output_format" in was and was["output_format"] != now["output_format"]:
        out.append(("--json-plus", "--output-format=%s" % was["output_format"],
                    now["output_format"], "give --json-plus"
                    if was["output_format"] == "json+"
                    else "leave out --json-plus"))
    old_vars = was.get("vars")
    if isinstance(old_vars, dict):
        for var in sorted(set(old_vars) | set(now["vars"])):
            if old_vars.get(var) != now["vars"].get(var):
                out.append(_var_difference(var, old_vars.get(var),
                                           now["vars"].get(var)))
    return out


def resume_error(old, args):
    """Why resuming the results directory with this command is refused
    (its finished runs were made with other settings: they would be
    averaged with runs that measure something else), or None."""
    now = settings(args)
    for entry in old.get("runs", []):
        if not isinstance(entry, dict) or entry.get("status") != "ok":
            continue
        diff = _differences(_old_settings(old, entry), now)
        if diff:
            return ("%s: %s has runs made with %s, this command would use "
                    "%s: %s to resume it, or another --outdir"
                    % ((diff[0][0], args.outdir) + diff[0][1:]))
    return None


def build(args, runs):
    """A new manifest for this command over `runs`, resuming what the
    results directory already holds."""
    old = load_previous(path_in(args.outdir))
    return {
        "flagcheck_manifest": 1,
        "complete": False,
        "started": old.get("started", now()),
        "updated": now(),
        "fio": args.fio,
        "fio_version": _output([args.fio, "--version"]) or "unknown",
        "engine_version": engine_version(),
        "host": host_info(),
        "matrix": {"jobs": args.scenarios,
                   "job_sha256": {s: setups.job_file_id(path)
                                  for s, path in args.scenarios.items()},
                   "modes": args.modes,
                   "numjobs": args.numjobs,
                   "repeats": args.repeats,
                   "order": "scenario, numjobs, repeat, mode "
                            "(modes interleaved, reversed in even repeats: "
                            "ABBA)",
                   "output_format": "json+" if args.json_plus else "json"},
        "vars": args.vars,
        "conditions": conditions(args),
        "hosts": [h.spec for h in args.hosts],
        "runs": run_entries(args.outdir, runs, old) + others(old, runs),
        "cells": other_cells(old, runs),
    }


def write(path, manifest):
    """Replace the manifest at `path` in one step; raises OSError naming
    `path`, and leaves the old manifest as it was."""
    atomic.write(path, json.dumps(manifest, indent=2) + "\n")
