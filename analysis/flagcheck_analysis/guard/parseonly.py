"""fio --parse-only of a job file with one run's variables: every option
fio and the engine check while fio parses a job (the variant against the
job's own model, the pattern's grammar, the engine's ranges), before any
run starts, in the engine's own words."""

import subprocess

# seconds fio may take to parse a job file (it takes tens of ms)
TIMEOUT = 60


def error(fio, path, env, args=()):
    """None where fio parses job file @path with @env (and fio options
    @args), else one line: the engine's message (its "flagcheck: " left
    off), or fio's own first one."""
    try:
        p = subprocess.run([fio, "--parse-only"] + list(args) + [path],
                           env=env, capture_output=True, text=True,
                           errors="replace", timeout=TIMEOUT,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "%s --parse-only: %s" % (fio, e)
    if p.returncode == 0:
        return None
    lines = [l.strip() for l in (p.stderr + "\n" + p.stdout).splitlines()
             if l.strip()]
    ours = [l[len("flagcheck: "):] for l in lines
            if l.startswith("flagcheck: ")]
    return (ours or lines or ["fio exited %d" % p.returncode])[0]
