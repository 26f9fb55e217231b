"""Every file fio 3.33 or the engine would write or remove for a job,
reading or not (fio's logs from fiologs.py, the counters file, --output,
--trigger-file, --bandwidth-log's files, the verify state), each judged
by the one rule for written paths (inputs/outpath.py) before fio starts;
the device guard (jobguard.py) raises the refusal. docs/analysis.md, "The
files fio writes"."""

import glob
import os

from ..inputs import outpath
from . import fiologs

ALLOWED = outpath.ALLOWED
AGG_LOGS = ("agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log")


def _what(path, remote):
    """What the rule refuses @path for, else None; @remote: also every
    name under /dev/ (the hosts' own devices can not be looked at)."""
    if remote and os.path.normpath(path).startswith("/dev/"):
        return "a name under /dev/ on the hosts"
    return outpath.what_is(path)


def _fio_values(fio_opts, name):
    return [(o.value, o.written) for o in fio_opts
            if o.name == name and o.value is not None]


def verify_states(job_names, fio_opts):
    """The existing verify state files fio would write for @job_names."""
    dirs = [v for v, _ in _fio_values(fio_opts, "aux-path")] or [""]
    out = []
    for d in dirs:
        for name in sorted(job_names):
            pattern = os.path.join(d, glob.escape(
                "local-%s-" % name.replace("/", ".")) + "*-verify.state")
            out += sorted(glob.glob(pattern))
    return out


def check(job, opts, job_names, fio_opts, remote=False):
    """The refusal (one line) of the first file fio would write or remove
    for job file @job and that the rule refuses, else None: @opts the
    job options [(section, key, value, origin)], @fio_opts fio's own
    options (fioargs.Option) of its command line."""
    for key, value, origin, log in fiologs.log_files(opts, job_names,
                                                     remote):
        # fio's client writes the logs of its servers here (NAME.HOST)
        what = _what(log, remote and key in fiologs.LOG_FILES)
        if what:
            return ("%s: %s=%s (from %s) %s %s: %s (fio writes its logs "
                    "whatever rw= is)" % (
                        job, key, value.strip(), origin,
                        "is" if log == value.strip() else
                        "writes %s, which is" % log, what, ALLOWED))
    for _, key, value, origin in opts:
        v = value.strip() if key == "flagcheck_stats" else ""
        what = v and _what(v, remote)
        if what:
            return ("%s: flagcheck_stats=%s (from %s) is %s: %s (the engine "
                    "writes it whatever rw= is)" % (job, value.strip(),
                                                    origin, what, ALLOWED))
    named = [("output", "fio writes its report there"),
             ("trigger-file", "fio removes it once it exists")]
    for name, does in named:
        for value, written in _fio_values(fio_opts, name):
            what = _what(value, remote)
            if what:
                return ("%s: --%s=%s (from %s on the command line) is %s: "
                        "%s (%s)" % (job, name, value, written, what,
                                     ALLOWED, does))
    bw = [o.written for o in fio_opts if o.name == "bandwidth-log"]
    derived = [(p, "%s on the command line" % bw[0], "fio writes its "
                "bandwidth log there") for p in AGG_LOGS if bw] + \
        [(p, "the job's verify state", "fio saves it there")
         for p in verify_states(job_names, fio_opts)]
    for path, origin, does in derived:
        what = _what(path, False)
        if what:
            return "%s: %s, %s, is %s: %s (%s)" % (job, origin, path, what,
                                                   ALLOWED, does)
    return None
