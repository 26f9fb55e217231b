"""What each run of a results directory was made with, and resuming only
the same: the settings that change what a run measures (settings()), the
engine's build, the job file's text and the environment variables it
reads (run_record()), recorded per run in the manifest and beside the
run's fio JSON (<run>.setup, so that a resume after the manifest is lost
still sees them); resume_error() refuses a resume that would average runs
of other ones."""

import json
import os
import re
import shlex

from . import (safewrite, fiojson, matrix, textfile,
               runsetup, schema)
from .schema import BOOL, COUNT, STR, Map, Obj, Opt

# beside each run's fio JSON: what it was made with
SETUP_SUFFIX = ".setup"
SETTINGS_SCHEMA = Obj({"pinned": BOOL, "ramp_s": COUNT,
                       "clocksource": Opt(STR), "vars": Map(STR),
                       "output_format": STR})


def settings(args):
    """What a run was made with that changes what it measures, beside its
    job file (job_sha256): recorded per run; resuming with other ones is
    refused (resume_error)."""
    return {"pinned": args.pinned, "ramp_s": args.ramp_s,
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


_JOB_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_INCLUDE = re.compile(r"^\s*include\s+(\S.*?)\s*$", re.MULTILINE)
SETUP_SCHEMA = Obj({"name": STR, "scenario": STR,
                    "settings": SETTINGS_SCHEMA, "job_sha256": Opt(STR),
                    "engine_sha256": Opt(STR), "job_env": Map(Opt(STR))},
                   required=("name", "scenario", "settings"))


def job_variables(path):
    """The ${VAR}s that the job file at `path` (and the files it
    includes) reads, sorted; [] where it cannot be read."""
    names, todo, seen = set(), [path], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            text = textfile.read_text(p)
        except textfile.TextFileError:
            continue
        names.update(_JOB_VAR.findall(text))
        todo += [os.path.join(os.path.dirname(p), m)
                 for m in _INCLUDE.findall(text)]
    return sorted(names)


def run_record(args, scenario, cache=None):
    """What a run of `scenario` is made with besides settings(args): the
    engine's build (the SHA-256 of FLAGCHECK_ENGINE, where the job file
    reads it), the job file's text
    (its SHA-256) and the values of the environment variables it reads
    that neither --set nor the matrix sets (None: unset).  @cache (a dict)
    keeps the hashes of one command."""
    cache = {} if cache is None else cache
    if scenario not in cache:
        path = args.scenarios.get(scenario)
        names = job_variables(path) if path else []
        engine = args.vars.get("FLAGCHECK_ENGINE")
        cache[scenario] = {
            "settings": settings(args),
            "engine_sha256": runsetup.job_file_id(engine)
            if engine and "FLAGCHECK_ENGINE" in names else None,
            "job_sha256": runsetup.job_file_id(path) if path else None,
            "job_env": {v: os.environ.get(v) for v in names
                        if v not in args.vars and v not in
                        matrix.MATRIX_VARS}}
    return dict(cache[scenario])


def setup_path(outdir, name):
    return os.path.join(outdir, name + SETUP_SUFFIX)


def write_setup(outdir, run, record):
    """The record of `run` (matrix.Run) beside its fio JSON, written
    before fio runs; raises OSError."""
    name = matrix.run_name(run)
    safewrite.write(setup_path(outdir, name), json.dumps(dict(
        record, name=name, scenario=run.scenario), indent=1) + "\n")


def read_setup(outdir, name):
    """The record of run `name` beside its fio JSON (SETUP_SCHEMA), or None
    where there is none (a run from before it was written); raises
    fiojson.InputError for one that cannot be read or is not one."""
    path = setup_path(outdir, name)
    if not os.path.lexists(path):
        return None
    if os.path.islink(path):
        raise fiojson.InputError(path, "a symbolic link (refused: nothing "
                                 "outside the results directory is read)")
    try:
        doc = fiojson.decode(path, fiojson.read_text(path, "run record",
                                                     1 << 20))
        schema.check(doc, SETUP_SCHEMA)
        if doc["name"] != name:
            raise schema.Invalid("name", doc["name"], name)
    except ValueError as e:
        raise fiojson.InputError(path, "%s; remove it with the run's files "
                                 "(%s.*) to run it again" % (
                                     getattr(e, "msg", e), name))
    return doc


def _record_differences(was, now):
    """[(what, then, now, what gives the same again)] of a finished run's
    engine build and job environment and this command's (an edited job
    file is no refusal: its runs are reported apart, runsetup)."""
    def short(sha):
        return "sha256 %s" % sha[:12] if sha else "unknown"
    out = []
    if was.get("engine_sha256") and now["engine_sha256"] and \
            was["engine_sha256"] != now["engine_sha256"]:
        out.append(("FLAGCHECK_ENGINE", "an engine build of %s" % short(
            was["engine_sha256"]), "one of %s" % short(now["engine_sha256"]),
            "build or give (--set FLAGCHECK_ENGINE=) the engine they were "
            "made with"))
    env = was.get("job_env")
    if isinstance(env, dict):
        for var in sorted(set(env) & set(now["job_env"])):
            if env[var] != now["job_env"][var]:
                out.append(("$%s" % var, "%s=%s" % (var, env[var]) if
                            env[var] is not None else "%s unset" % var,
                            "%s=%s" % (var, now["job_env"][var]) if
                            now["job_env"][var] is not None else
                            "%s unset" % var,
                            "export %s=%s" % (var, shlex.quote(env[var]))
                            if env[var] is not None else "unset %s" % var))
    return out


def _finished_records(old, outdir):
    """[(run name, scenario, its record)] of every finished run: the
    previous manifest's, and those whose record lies beside a fio JSON
    that the manifest does not hold (one moved away: mv manifest.json
    ...damaged)."""
    out, known = [], set()
    for entry in old.get("runs", []):
        if not isinstance(entry, dict) or entry.get("status") != "ok":
            continue
        known.add(entry.get("name"))
        rec = {k: entry[k] for k in ("job_sha256", "engine_sha256",
                                     "job_env") if k in entry}
        rec["settings"] = _old_settings(old, entry)
        out.append((entry.get("name"), entry.get("scenario"), rec))
    try:
        names = sorted(os.listdir(outdir))
    except OSError:
        names = []
    for n in names:
        name = n[:-len(SETUP_SUFFIX)]
        if not n.endswith(SETUP_SUFFIX) or name in known or \
                not os.path.isfile(os.path.join(outdir, name + ".json")):
            continue
        rec = read_setup(outdir, name)
        out.append((name, rec["scenario"], rec))
    return out


def resume_error(old, args):
    """Why resuming the results directory with this command is refused
    (its finished runs were made with other settings, another engine
    build, job file or job environment: they would be averaged with runs
    that measure something else), or None."""
    now, cache = settings(args), {}
    try:
        finished = _finished_records(old, args.outdir)
    except fiojson.InputError as e:
        return str(e)
    for name, scenario, rec in finished:
        diff = _differences(rec["settings"], now)
        if not diff and scenario in args.scenarios:
            diff = _record_differences(rec, run_record(args, scenario,
                                                       cache))
        if diff:
            return ("%s: %s has runs made with %s (%s), this command would "
                    "use %s: %s to resume it, or another --outdir"
                    % ((diff[0][0], args.outdir, diff[0][1], name) +
                       diff[0][2:]))
    return None
