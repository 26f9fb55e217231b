"""What a run was measured on, so that runs of different setups are never
averaged together: the fio version, the engine's commit, the host and its
kernel, the job file, the engine's backend and its other options.  A
scenario whose runs differ in any of these is reported apart per setup, its
name then carrying what differs: "s1 (backend psync)".  A field a run does
not tell ("unknown") is a value of its own: such a run is never averaged
with runs where the field is known."""

import hashlib

from . import textfile

FIELDS = ("fio version", "engine", "host", "kernel", "job file", "backend",
          "engine options", "variables")
# what a manifest writes where it could not tell
_UNKNOWN = ("", "?", "unknown", None)
# the engine's options in a record of the counters file besides the model's own
# ("options"); the variant is the variant
_ENGINE_KEYS = ("model", "mapping", "inject", "inject_every")


def file_sha256(path):
    """The SHA-256 of the file at @path (a regular file of at most 256
    MiB: an engine build, a run's fio JSON), or None when it can not be
    read."""
    try:
        return hashlib.sha256(textfile.to_bytes(textfile.read_text(
            path, "file", 256 << 20))).hexdigest()
    except textfile.TextFileError:
        return None


def _one(values):
    values = sorted({v for v in values if v is not None}, key=repr)
    if not values:
        return None
    return values[0] if len(values) == 1 else " + ".join(map(str, values))


def _engine_options(rec):
    variant = rec.get("variant")
    opts = {k: rec[k] for k in _ENGINE_KEYS if k in rec}
    for k, v in (rec.get("options") or {}).items():
        if v != variant:            # the model's name for the variant
            opts[k] = v
    return " ".join("%s=%s" % kv for kv in sorted(opts.items()))


def of_run(doc, job_options, counters, entry, manifest):
    """{field: value, or None where the inputs do not say}."""
    scenario = (entry or {}).get("scenario")
    mf = manifest or {}
    host = (mf.get("host") or {}).get("hostname")
    if mf.get("hosts"):
        host = ", ".join(mf["hosts"])
    matrix = mf.get("matrix") or {}
    job = (entry or {}).get("job_sha256") or \
        (matrix.get("job_sha256") or {}).get(scenario) or \
        (matrix.get("jobs") or {}).get(scenario)
    backend = _one(r.get("backend") for r in counters or ()) \
        or job_options.get("backend")
    options = (_one(_engine_options(r) for r in counters) if counters
               else None)
    engine = (entry or {}).get("engine_sha256")
    out = {"fio version": doc.get("fio version"),
           "engine": "sha256 %s" % engine[:12] if engine
           else mf.get("engine_version"), "host": host,
           "kernel": (mf.get("host") or {}).get("kernel"), "job file": job,
           "backend": backend, "engine options": options,
           "variables": _variables(entry)}
    return {k: None if v in _UNKNOWN else v for k, v in out.items()}


def _variables(entry):
    """The job file's variables a run was made with: --set's and the
    environment's it reads (the run's settings and job_env)."""
    settings = (entry or {}).get("settings") or {}
    values = dict(settings.get("vars") or {})
    values.pop("FLAGCHECK_ENGINE", None)        # the engine: its own field
    values.update({k: "(unset)" if v is None else v for k, v in
                   ((entry or {}).get("job_env") or {}).items()})
    return " ".join("%s=%s" % kv for kv in sorted(values.items())) or None


def _short(field, value):
    if value is None:
        return "%s unknown" % field
    value = str(value)
    if field == "job file" and len(value) == 64:
        value = "sha256 " + value[:12]
    return "%s %s" % (field, value)


def split(scenarios, setups):
    """A label per run: its scenario, or, where the runs of a scenario
    differ in a field of FIELDS (unknown counting as a value where some
    runs know it), the scenario and its values of those fields.  Returns
    (labels, one line per split scenario naming what differs)."""
    labels, lines = list(scenarios), []
    for scenario in sorted(set(scenarios)):
        mine = [i for i, s in enumerate(scenarios) if s == scenario]
        differ = [f for f in FIELDS
                  if len({setups[i][f] for i in mine}) > 1]
        if not differ:
            continue
        for i in mine:
            labels[i] = "%s (%s)" % (scenario, ", ".join(
                _short(f, setups[i][f]) for f in differ))
        lines.append("WARNING: the runs of %s differ in %s: not averaged "
                     "together, reported apart as %s" % (
                         scenario, ", ".join(differ), "; ".join(
                             sorted({labels[i] for i in mine}))))
    return labels, lines
