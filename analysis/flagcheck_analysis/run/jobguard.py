"""Before fio runs a job file: the block devices a writing job would
overwrite, and the commands it would have a fio server run.

A job writes when any rw= (or readwrite=) is neither read nor randread,
unless every ioengine is flagcheck's (or fio's null engine) on the null
backend, which opens nothing.  Every way a job names a file counts, as
fio 3.33 reads them: filename= lists split at ':' ('\\:' is a colon),
each also under every directory= (fio prefixes it even to an absolute
name), filename_format= with $jobname, $jobnum, $filenum, $clientuid
standing for anything (so every existing file it could make is checked),
a job's own name when it names no file, and symlinks followed.  opendir=
adds regular files only (filesetup.c recurse_dir), never a device.
Options come from the job file (after ${VAR} expansion and includes) and
from fio's command line, where an abbreviation counts as every option it
could stand for.

jobs/run-job runs this module before fio; flagcheck-run checks each job
file the same way.  FLAGCHECK_DESTROY=yes lets a job write a device."""

import argparse
import glob
import os
import re
import stat
import sys

from . import jobfile

WRITE_FREE_RW = ("read", "randread")
# the options that say where a job does I/O, whether it writes, and what
# it has a server run
WATCHED = ("filename", "filename_format", "directory", "rw", "readwrite",
           "backend", "ioengine", "name", "exec_prerun", "exec_postrun")
EXEC_OPTIONS = ("exec_prerun", "exec_postrun")
_KEYWORD = re.compile(r"\$(jobname|jobnum|filenum|clientuid)")
DEFAULT_FORMAT = "$jobname.$jobnum.$filenum"


class Refused(Exception):
    """One line: what would be destroyed or run, and how to allow it."""


def job_options(text, where):
    """[(section, key, value, origin)] of a job file's text."""
    out, section = [], None
    for line in text.splitlines():
        s = line.strip()
        if not s or s[0] in ";#":
            continue
        if s.startswith("["):
            section = s[1:].split("]", 1)[0]
            continue
        key, _, value = s.partition("=")
        key, value = key.strip(), value.strip()
        out.append((section, key, value, "%s=%s in %s" % (key, value,
                                                          where)))
    return out


def cmdline_options(args):
    """[(None, key, value, origin)] of the watched options in fio's
    command line: --opt=value, --opt value, -opt=value; an abbreviation
    (getopt_long_only takes any unambiguous one) as every watched option
    it begins."""
    out, i = [], 0
    while i < len(args):
        arg = args[i]
        i += 1
        if not arg.startswith("-") or arg in ("-", "--"):
            continue
        name, eq, value = arg.lstrip("-").partition("=")
        keys = [name] if name in WATCHED else [
            k for k in WATCHED if len(name) >= 3 and k.startswith(name)]
        if not keys:
            continue
        if not eq and i < len(args):
            value = args[i]
            i += 1
        out += [(None, k, value, "%s=%s on the command line" % (name, value))
                for k in keys]
    return out


def split_list(value):
    """fio's get_next_str: ':' separates, '\\:' is a colon."""
    out = []
    for part in re.split(r"(?<!\\):", value):
        part = part.replace("\\:", ":")
        if part:
            out.append(part)
    return out


def _values(opts, *keys):
    return [(v, origin) for _, k, v, origin in opts if k in keys]


def writes(opts):
    """The first rw= that writes, or None."""
    for value, _ in _values(opts, "rw", "readwrite"):
        if value.split(":")[0].strip() not in WRITE_FREE_RW:
            return value
    return None


def opens_nothing(opts):
    """Every ioengine is flagcheck's on the null backend, or fio's null."""
    engines = [v for v, _ in _values(opts, "ioengine")]
    backends = [v for v, _ in _values(opts, "backend")]
    ours = [e for e in engines if e.startswith("external:") and
            os.path.basename(e).startswith("fio-flagcheck")]
    if not engines or any(e not in ours and e != "null" for e in engines):
        return False        # fio's default engine, psync, writes
    return not ours or all(b == "null" for b in backends)


def _job_names(opts):
    names = {s for s, _, _, _ in opts if s not in (None, "global")}
    return names | {v for v, _ in _values(opts, "name")}


def candidates(opts):
    """[(path or glob pattern, is_pattern, origin)] of every file the
    job could open."""
    dirs = [("", None)] + [(d, origin) for v, origin in
                           _values(opts, "directory")
                           for d in split_list(v)]

    def under(name, origin, pattern=False):
        return [((os.path.join(d, name.lstrip("/")) if d else name),
                 pattern, origin if not d_origin else
                 "%s under %s" % (origin, d_origin))
                for d, d_origin in dirs]
    out = []
    for value, origin in _values(opts, "filename"):
        for name in split_list(value):
            out += under(name, origin)
    formats = _values(opts, "filename_format") or [
        (DEFAULT_FORMAT, "fio's default file names")]
    names = sorted(_job_names(opts)) or [None]
    for value, origin in formats:
        for job in names:
            parts = _KEYWORD.split(value)
            pattern = glob.escape(parts[0])
            for keyword, literal in zip(parts[1::2], parts[2::2]):
                pattern += (glob.escape(job) if keyword == "jobname" and job
                            else "*") + glob.escape(literal)
            out += under(pattern, origin, pattern=True)
    for name in (n for n in names if n):
        out += under(name, "the job name %s" % name)
    return out


def block_devices(opts, remote=False):
    """[(path, origin, what)] of the existing block devices (symlinks
    followed) among the files the job could open; `remote`: also every name
    under /dev/, since another host's devices can not be looked at from
    here."""
    found = []
    for path, pattern, origin in candidates(opts):
        if remote and not pattern and \
                os.path.normpath(path).startswith("/dev/"):
            found.append((path, origin, "is a name under /dev/ on the "
                          "hosts, where it may be a block device"))
            continue
        for p in (glob.glob(path) if pattern else [path]):
            try:
                if stat.S_ISBLK(os.stat(p).st_mode):
                    found.append((p, origin, "is a block device"))
            except (OSError, ValueError):
                pass
    return found


def options_of(path, env, args=()):
    """Every option of job file `path` (${VAR} from env) and of fio's
    command line `args`; raises Refused for a job file fio would not
    read."""
    try:
        text = jobfile.render(path, env)
    except jobfile.JobFileError as e:
        raise Refused(str(e))
    return job_options(text, path) + cmdline_options(list(args))


def check_devices(path, env, args=(), remote=False):
    """Raises Refused when the job writes a block device and env lacks
    FLAGCHECK_DESTROY=yes (`remote`: see block_devices)."""
    opts = options_of(path, env, args)
    rw = writes(opts)
    if rw is None or opens_nothing(opts) or \
            env.get("FLAGCHECK_DESTROY") == "yes":
        return
    found = block_devices(opts, remote)
    if found:
        dev, origin, what = found[0]
        raise Refused("%s writes (rw=%s) and %s (from %s) %s: its data "
                      "would be lost; set FLAGCHECK_DESTROY=yes to run it "
                      "anyway" % (path, rw, dev, origin, what))


def check_exec(path, env):
    """Raises Refused when the job has a fio server run a command."""
    for _, key, value, _ in options_of(path, env):
        if key in EXEC_OPTIONS:
            raise Refused("%s: %s=%s would have every fio server run that "
                          "command, as the server's user; give --allow-exec "
                          "if you mean it" % (path, key, value))


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="run-job", description="Refuse a fio job that would write a "
        "block device (see the module's docstring for every way a job "
        "names one) unless FLAGCHECK_DESTROY=yes.  ${VARS} come from the "
        "environment.  Exit status 0: fine to run; 2: refused, one line "
        "on stderr says why.")
    p.add_argument("job", metavar="JOBFILE", help="the fio job file")
    p.add_argument("fio_args", nargs=argparse.REMAINDER, metavar="ARG",
                   help="fio's command-line options after the job file")
    args = p.parse_args(argv)
    try:
        check_devices(args.job, os.environ, args.fio_args)
    except Refused as e:
        print("run-job: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
