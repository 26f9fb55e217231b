"""What each run of a flagcheck run command is made with, and resuming
only the same: the settings that change what a run measures
(settings()), the engine's build, the job file's text and the
environment variables it reads (run_record()); resume_error() refuses,
naming flagcheck run's flag, a resume that would average runs of other
ones.  inputs/runrecord.py records them."""

import os
import shlex

from ..inputs import fiojson, matrix, runrecord, runsetup


def settings(args):
    """What a run was made with that changes what it measures, beside its
    job file (job_sha256): recorded per run; resuming with other ones is
    refused (resume_error)."""
    return {"pinned": args.pinned, "ramp_s": args.ramp_s,
            "clocksource": args.clock[0], "vars": dict(args.vars),
            "output_format": "json+" if args.json_plus else "json"}


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
    if was["pinned"] != now["pinned"]:
        out.append(("--no-pin", "pinned jobs" if was["pinned"]
                    else "floating jobs", "pinned" if now["pinned"]
                    else "floating jobs", "leave out --no-pin"
                    if was["pinned"] else "give --no-pin"))
    if was["ramp_s"] != now["ramp_s"]:
        out.append(("--ramp", "a warm-up of %s s" % was["ramp_s"],
                    "%s s" % now["ramp_s"], "give --ramp %s" % was["ramp_s"]))
    if was["clocksource"] != now["clocksource"]:
        out.append(("--clocksource", "clocksource=%s" % fio(
            was["clocksource"]), fio(now["clocksource"]),
            "give --clocksource %s" % fio(was["clocksource"])))
    if was["output_format"] != now["output_format"]:
        out.append(("--json-plus", "--output-format=%s" % was["output_format"],
                    now["output_format"], "give --json-plus"
                    if was["output_format"] == "json+"
                    else "leave out --json-plus"))
    old_vars = was["vars"]
    for var in sorted(set(old_vars) | set(now["vars"])):
        if old_vars.get(var) != now["vars"].get(var):
            out.append(_var_difference(var, old_vars.get(var),
                                       now["vars"].get(var)))
    return out


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
        names = runrecord.job_variables(path) if path else []
        engine = args.vars.get("FLAGCHECK_ENGINE")
        cache[scenario] = {
            "settings": settings(args),
            "engine_sha256": runsetup.file_sha256(engine)
            if engine and "FLAGCHECK_ENGINE" in names else None,
            "job_sha256": runrecord.job_sha256(path) if path else None,
            "job_env": {v: os.environ.get(v) for v in names
                        if v not in args.vars and v not in
                        matrix.MATRIX_VARS}}
    return dict(cache[scenario])


def _record_differences(was, now, job):
    """[(what, then, now, what gives the same again)] of a finished run's
    job file (its text and its includes': runrecord.job_sha256), engine
    build and job environment and this command's."""
    def short(sha):
        return "sha256 %s" % sha[:12] if sha else "unknown"
    out = []
    if was.get("job_sha256") != now["job_sha256"]:
        out.append((job, "a job file of %s" % short(was.get("job_sha256")),
                    "one of %s" % short(now["job_sha256"]),
                    "restore the job file they were made with"))
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


def resume_error(old, args):
    """Why resuming the results directory with this command is refused
    (its finished runs were made with other settings, another engine
    build, job file or job environment: they would be averaged with runs
    that measure something else), or None."""
    now, cache = settings(args), {}
    try:
        finished = runrecord.finished_records(old, args.outdir)
    except fiojson.InputError as e:
        return str(e)
    for name, scenario, rec in finished:
        diff = _differences(rec["settings"], now)
        if not diff and scenario in args.scenarios:
            diff = _record_differences(rec, run_record(args, scenario,
                                                       cache),
                                       args.scenarios[scenario])
        if diff:
            return ("%s: %s has runs made with %s (%s), this command would "
                    "use %s: %s to resume it, or another --outdir"
                    % ((diff[0][0], args.outdir, diff[0][1], name) +
                       diff[0][2:]))
    return None
