"""The manifest of one flagcheck run command: built from its RunConfig
(this machine, fio's and the engine's versions, the matrix, the
conditions), and the previous one of its results directory, refused in
flagcheck run's words when damaged.  inputs/manifest.py reads, writes
and checks the file."""

import os
import platform
import shlex
import subprocess

from ..inputs import fiojson, manifest, runrecord, textfile

# The source tree, or $(PREFIX)/lib/flagcheck in an installed copy.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))))


def _cpu_model():
    for line in (textfile.read_system("/proc/cpuinfo") or "").splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "cpu model"):
            return value.strip()
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


def load_previous(path):
    """The manifest of an earlier run of this results directory, or {}.
    A damaged one is never replaced: it holds what the results alone do not
    (every finished run's command, environment and exit status).  Raises
    fiojson.InputError saying how to go on."""
    try:
        return manifest.load(path) or {}
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


def conditions(args):
    """How the runs were made trustworthy: pinning, warm-up, the busy mark
    and the stopping rule (flagcheck run --help explains each)."""
    return {"pinned": args.pinned, "ramp_s": args.ramp_s,
            "clocksource": args.clock[0],
            "clocksource_why": args.clock[1],
            "line_probe_s": args.line_probe_s,
            "busy_threshold_pct": args.busy_threshold,
            "until_decided": args.until_decided,
            "max_repeats": args.max_repeats if args.until_decided else None,
            "precision_pct": args.precision if args.until_decided else None,
            "topology": [dict(c._asdict()) for c in args.topology],
            "numa_policies": args.policies}


def build(args, runs, old):
    """A new manifest for this command over `runs`, resuming what the
    results directory already holds (`old`, load_previous())."""
    return {
        "flagcheck_manifest": 1,
        "complete": False,
        "started": old.get("started", manifest.now()),
        "updated": manifest.now(),
        "fio": args.fio,
        "fio_version": _output([args.fio, "--version"]) or "unknown",
        "engine_version": engine_version(),
        "host": host_info(),
        "matrix": {"jobs": args.scenarios,
                   "job_sha256": {s: runrecord.job_sha256(path)
                                  for s, path in args.scenarios.items()},
                   # what flagcheck compare says of two job files whose
                   # SHA-256s differ: only in their comments, which headers
                   "job_body_sha256": {s: runrecord.job_body_sha256(path)
                                       for s, path in
                                       args.scenarios.items()},
                   "job_headers": {s: runrecord.job_headers(path)
                                   for s, path in args.scenarios.items()},
                   "variants": args.variants,
                   "numjobs": args.numjobs,
                   "repeats": args.repeats,
                   "order": "scenario, numjobs, repeat, variant "
                            "(variants interleaved, reversed in even repeats: "
                            "ABBA)",
                   "output_format": "json+" if args.json_plus else "json"},
        "vars": args.vars,
        "conditions": conditions(args),
        "hosts": [h.spec for h in args.hosts],
        "runs": manifest.run_entries(args.outdir, runs, old)
        + manifest.others(old, runs),
        "cells": manifest.other_cells(old, runs),
    }
