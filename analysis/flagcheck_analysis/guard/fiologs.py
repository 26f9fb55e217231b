"""The files fio 3.33 writes its own logs to, whatever rw= is: the
write_*_log= logs under the names fio derives, write_iolog=,
merge_blktrace_file=, and a fio server's logs written here as NAME.HOST.
The device guard (jobguard.py) judges these names before fio runs.
docs/analysis.md, "The files fio writes"."""

import os
import re

# option: the log types fio writes for it (init.c add_job)
LOG_TYPES = {"write_bw_log": ("bw",), "write_iops_log": ("iops",),
             "write_lat_log": ("lat", "slat", "clat"),
             "write_hist_log": ("clat_hist",)}
# options naming the one file fio writes
LOG_FILES = ("write_iolog", "merge_blktrace_file")
LOG_OPTIONS = tuple(LOG_TYPES) + LOG_FILES
# the options that change the names
NAME_OPTIONS = ("per_job_logs", "log_store_compressed")


def _bools(opts, key, default):
    """The values boolean option @key may have in some job: its default
    and each one given (both where fio's number is not read here)."""
    out = {default}
    for _, k, v, _ in opts:
        if k == key:
            try:
                out.add(bool(int(v.strip(), 0)))
            except ValueError:
                out |= {True, False}
    return out


def _matching(prefix, names, remote):
    """The existing paths among fio's log names @prefix + one of @names
    (regular expressions), + .HOST where @remote."""
    whole = prefix + "_"
    folder = os.path.dirname(whole) or "."
    try:
        entries = sorted(os.listdir(folder))
    except OSError:
        return []
    host = r"\..+" if remote else ""
    start = re.escape(os.path.basename(whole))
    return [os.path.join(os.path.dirname(whole), e) for e in entries
            if any(re.fullmatch(start + n + host, e, re.S) for n in names)]


def log_files(opts, job_names, remote=False):
    """[(option, value, origin, path)] of every existing file fio would
    write a log of options @opts to ([(section, key, value, origin)],
    @job_names the names of the jobs), path the value itself for
    write_iolog= and merge_blktrace_file=."""
    numbered = _bools(opts, "per_job_logs", True)
    suffixes = sorted({"log.fz" if gz else "log" for gz in
                       _bools(opts, "log_store_compressed", False)})
    out = []
    for _, key, value, origin in opts:
        if key in LOG_FILES and value.strip():
            out.append((key, value, origin, value.strip()))
        if key not in LOG_TYPES:
            continue
        names = [re.escape(t) + (r"\.[0-9]+" if n else "") + r"\." +
                 re.escape(s) for t in LOG_TYPES[key] for n in numbered
                 for s in suffixes]
        for prefix in ([value.strip()] if value.strip()
                       else sorted(job_names)):
            out += [(key, value, origin, p)
                    for p in _matching(prefix, names, remote)]
    return out
