"""What B's runs were made with that A's were not: every field the
manifests and each run's own files (inputs/runsetup.py) record of how the
runs were made, each named once; a job file that differs only in its
comments is said so. docs/analysis.md, "The summary, two results side by
side"."""

import json
import os

from ..inputs import runrecord

# what a manifest holds that is no setup: its form, its dates, the runs'
# outcomes (runs: their setup is read below), the stopping rule's results
NOT_SETUP = ("flagcheck_manifest", "complete", "started", "updated",
             "stopped", "runs", "cells")
# the job file's fields, compared per scenario by job_file_lines()
JOB_FIELDS = ("matrix.jobs", "matrix.job_sha256", "matrix.job_body_sha256",
              "matrix.job_headers")
# the names of the fields (the rest: their place, "conditions.foo");
# a run's own "settings" are read under the manifest's names for them
NAMES = {
    "fio": "fio binary", "fio_version": "fio version",
    "engine_version": "engine version", "host.hostname": "host",
    "host.cpu_model": "CPU", "host.cores": "cores",
    "host.usable_cpus": "usable CPUs", "host.kernel": "kernel",
    "host.machine": "architecture", "matrix.variants": "variants",
    "matrix.numjobs": "numjobs", "matrix.repeats": "repeats",
    "matrix.order": "run order", "matrix.output_format": "fio output",
    "conditions.pinned": "pinning", "conditions.ramp_s": "ramp (warm-up)",
    "conditions.clocksource": "clock", "conditions.clocksource_why":
    "the kernel's clocksource", "conditions.line_probe_s": "line probe",
    "conditions.busy_threshold_pct": "busy threshold",
    "conditions.until_decided": "--until-decided",
    "conditions.max_repeats": "--max-repeats",
    "conditions.precision_pct": "--precision",
    "conditions.topology": "CPU topology",
    "conditions.numa_policies": "NUMA policy", "hosts": "fio servers",
    "calibration": "calibration", "placement": "placement",
}
# a run's "settings", under the manifest's names
SETTINGS = {"pinned": "conditions.pinned", "ramp_s": "conditions.ramp_s",
            "clocksource": "conditions.clocksource",
            "output_format": "matrix.output_format"}


def _show(field, value):
    if value is None:
        return "none"
    if field == "conditions.pinned":
        return "pinned" if value else "not pinned (--no-pin)"
    if field in ("conditions.ramp_s", "conditions.line_probe_s"):
        return "%g s" % value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list) and all(
            isinstance(v, (str, int, float)) for v in value):
        return ",".join(map(str, value))
    if isinstance(value, dict) and all(
            isinstance(v, (str, int, float)) for v in value.values()):
        return " ".join("%s=%s" % kv for kv in sorted(value.items()))
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    return str(value)


def _flat(doc, prefix=""):
    """{dotted field: value} of a manifest's setup: objects opened one
    level (host.kernel, conditions.pinned), the rest whole."""
    out = {}
    for k, v in doc.items():
        field = prefix + k
        if not prefix and k in NOT_SETUP:
            continue
        if not prefix and isinstance(v, dict) and k != "vars":
            out.update(_flat(v, field + "."))
        else:
            out[field] = v
    return out


def _placement(entry):
    p = entry.get("placement")
    if not isinstance(p, dict):
        return None
    return "%s nj%s %s CPUs %s" % (entry.get("scenario"), entry.get(
        "numjobs"), p.get("policy", "?"), p.get("cpus_allowed", "?"))


def _fields(manifests):
    """{field: {shown value}} over a side's manifests and their runs."""
    out = {}

    def add(field, value):
        out.setdefault(field, set()).add(_show(field, value))
    for mf in manifests:
        for field, value in _flat(mf).items():
            if field == "vars":
                for k, v in (value or {}).items():
                    add("variable " + k, v)
            elif field not in JOB_FIELDS:
                add(field, value)
        for e in mf.get("runs") or ():
            if not isinstance(e, dict) or e.get("status") != "ok":
                continue
            settings = e.get("settings") or {}
            for k, field in SETTINGS.items():
                if k in settings:
                    add(field, settings[k])
            for k, v in (settings.get("vars") or {}).items():
                add("variable " + k, v)
            for k, v in (e.get("job_env") or {}).items():
                add("variable " + k, "(unset)" if v is None else v)
            if _placement(e):
                add("placement", _placement(e))
    return out


def _name(field):
    return NAMES.get(field, field)


def differences(a, b, named=()):
    """["pinning (A pinned, B not pinned (--no-pin))", ...]: every field
    the manifests @a and @b (each side's list) record differently, a field
    one side does not record reading "not recorded"; the fields @named
    (by their names) are left out, said already."""
    fa, fb = _fields(a), _fields(b)
    out = []
    for field in sorted(set(fa) | set(fb), key=lambda f: (
            f not in NAMES, list(NAMES).index(f) if f in NAMES else 0, f)):
        va = sorted(fa.get(field, {"not recorded"}))
        vb = sorted(fb.get(field, {"not recorded"}))
        if va != vb and _name(field) not in named:
            out.append("%s (A %s, B %s)" % (_name(field), " + ".join(va),
                                            " + ".join(vb)))
    return out + job_file_lines(a, b)


def _jobs(manifests):
    """{scenario: {(sha256, body sha256 or None, (header lines) or
    None)}} of a side's job files, the body and headers read from the
    file itself where the manifest is older than them and the file is
    still the one that ran."""
    out = {}
    for mf in manifests:
        m = mf.get("matrix") or {}
        shas = dict(m.get("job_sha256") or {})
        for e in mf.get("runs") or ():
            if isinstance(e, dict) and e.get("job_sha256"):
                shas.setdefault(e.get("scenario"), e["job_sha256"])
        for scenario, sha in shas.items():
            body = (m.get("job_body_sha256") or {}).get(scenario)
            heads = (m.get("job_headers") or {}).get(scenario)
            path = (m.get("jobs") or {}).get(scenario)
            if (body is None or heads is None) and isinstance(path, str) \
                    and os.path.isfile(path) and \
                    runrecord.job_sha256(path) == sha:
                body = runrecord.job_body_sha256(path)
                heads = runrecord.job_headers(path)
            out.setdefault(scenario, set()).add(
                (sha, body, None if heads is None else tuple(heads)))
    return out


def _headers_differ(ha, hb):
    """"published-figure (A '+3% OLTP', B '+5% OLTP')" of each header
    key whose lines differ."""
    def by_key(lines):
        out = {}
        for line in lines:
            key, _, value = line.partition(":")
            out.setdefault(key.strip(), []).append(value.strip())
        return out
    ka, kb = by_key(ha), by_key(hb)
    return ["%s (A %s, B %s)" % (k, " / ".join(
        "'%s'" % v for v in ka.get(k, ())) or "none", " / ".join(
        "'%s'" % v for v in kb.get(k, ())) or "none")
        for k in sorted(set(ka) | set(kb)) if ka.get(k) != kb.get(k)]


def _paths(manifests):
    out = {}
    for mf in manifests:
        for scenario, path in ((mf.get("matrix") or {}).get("jobs") or
                               {}).items():
            out.setdefault(scenario, set()).add(str(path))
    return out


def job_file_lines(a, b):
    """What differs in each scenario's job file between the sides: its
    path, and its text: only in its header lines (naming them) or in its
    other comments where the bodies fio reads are the same, else its
    SHA-256s."""
    ja, jb = _jobs(a), _jobs(b)
    pa, pb = _paths(a), _paths(b)
    out = ["job file path of %s (A %s, B %s)" % (
        s, " + ".join(sorted(pa[s])), " + ".join(sorted(pb[s])))
        for s in sorted(set(pa) & set(pb)) if pa[s] != pb[s]]
    for scenario in sorted(set(ja) & set(jb)):
        xa, xb = ja[scenario], jb[scenario]
        if {x[0] for x in xa} == {x[0] for x in xb}:
            continue
        bodies = {x[1] for x in xa | xb}
        heads = [x[2] for x in xa | xb]
        if len(bodies) == 1 and None not in bodies:
            diff = _headers_differ(next(iter(xa))[2], next(iter(xb))[2]) \
                if len(xa) == len(xb) == 1 and None not in heads else []
            out.append("job file of %s: only its header lines, %s" % (
                scenario, " and ".join(diff)) if diff else
                "job file of %s: only its comments%s" % (
                    scenario, " (its header lines are the same)"
                    if None not in heads else ""))
            continue
        out.append("job file of %s (A sha256 %s, B sha256 %s)" % (
            scenario, " + ".join(sorted(x[0][:12] for x in xa)),
            " + ".join(sorted(x[0][:12] for x in xb))))
    return out
