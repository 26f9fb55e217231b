"""manifest.json of a flagcheck-run results directory: the host, the
versions, the matrix and every run's command, environment and status;
what a resumed run keeps from the previous one, and the atomic write."""

import datetime
import json
import os
import platform
import shlex
import subprocess

from . import safewrite as atomic, fiojson, matrix, runsetup as setups

NAME = "manifest.json"
# The source tree, or $(PREFIX)/lib/flagcheck in an installed copy.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))))
# what a finished run keeps from the previous manifest when resumed
KEPT = ("command", "cwd", "env", "rc", "started", "seconds", "hosts",
        "job_files", "placement", "interference")


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


def load(path):
    """The manifest at `path`, or None where there is none.  Raises
    fiojson.InputError, naming the file, for one that can not be read or is
    not a flagcheck-run manifest."""
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
    a host) is done, and keeps what the previous manifest said of it."""
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
                            "(modes interleaved)",
                   "output_format": "json+" if args.json_plus else "json"},
        "vars": args.vars,
        "conditions": conditions(args),
        "hosts": [h.spec for h in args.hosts],
        "runs": run_entries(args.outdir, runs, old),
    }


def write(path, manifest):
    """Replace the manifest at `path` in one step; raises OSError naming
    `path`, and leaves the old manifest as it was."""
    atomic.write(path, json.dumps(manifest, indent=2) + "\n")
