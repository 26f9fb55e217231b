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
Options come from the job file as fio reads it (jobfile.read: each line
ended at its first ';' or '#', then ${VAR} expanded, then fio's keywords
$pagesize, $mb_memory and $ncpus replaced with this machine's values,
includes followed, every [section] a job name, with options or without)
and from fio's
command line, where an abbreviation counts as every option it could stand
for.  A watched value that holds ';' or '#' after ${VAR} expansion or on
the command line is refused: fio ends it there for some options and on its
servers, not for others, so the guard can not know what fio would use;
so is a watched value in which fio replaces a keyword and then has bc
compute it, and, for fio servers, one in which it replaces a keyword with
the server's own value.  The engine's counters file (flagcheck_stats=)
is written by every job, reading or not: an existing one that is not a
regular file (a device, a FIFO, a socket) is refused, as the engine
refuses it; so is every other file fio writes or removes whatever rw= is
(its logs, --output, --trigger-file, the verify state: fiopaths.py), by
the one rule for written paths (inputs/outpath.py: a regular file or
absent, never a link).  A job with read_iolog= writes where its log holds
a write or trim action (fio replays the log whatever rw= says), onto the
files the log names or replay_redirect= (replay.py); a log not read here
(a blktrace, stdin, a socket) is refused unless replay_redirect= names
where it goes.  fio's command line is read as fio reads it (fioargs.py):
short options (-o FILE, -oFILE), every job file it names (each read as
the first is), and fio's server and client options, refused here.

On fio servers (remote) a writing job's names are also refused where
what they lead to there is not known here: a relative one (opened from
the server's working directory), one with '..', one under /proc/.

jobs/run-job runs it before fio (cli/guard.py); flagcheck run checks each job
file the same way.  FLAGCHECK_DESTROY=yes lets a job write a device."""

import glob
import os
import re
import stat

from . import fioargs, fiologs, fiopaths, parseonly, replay
from ..inputs import headers, jobfile, jobheader
from ..machines import profile

WRITE_FREE_RW = ("read", "randread")
# the options that say where a job does I/O, whether it writes, and what
# it has a server run
WATCHED = ("filename", "filename_format", "directory", "opendir", "rw",
           "readwrite", "backend", "ioengine", "name", "exec_prerun",
           "exec_postrun", "flagcheck_stats", "read_iolog",
           "replay_redirect") + fiologs.LOG_OPTIONS + fiologs.NAME_OPTIONS
EXEC_OPTIONS = ("exec_prerun", "exec_postrun")
# the engine's options whose value is a pattern (docs/pattern.md)
PATTERN_OPTIONS = ("pattern", "pattern_fixed", "pattern_words")
# the watched options whose value, from ${VAR} or the command line, may
# not hold ';' or '#' (see _check_cut)
CUT_WATCHED = ("filename", "filename_format", "directory", "opendir", "rw",
               "readwrite", "backend", "ioengine", "flagcheck_stats",
               "read_iolog", "replay_redirect") + fiologs.LOG_OPTIONS
# fio's own options that make it a server, or a client of servers: the
# jobs then run elsewhere, unseen here (flagcheck run --hosts runs them)
SERVER_OPTIONS = ("server", "daemonize", "client", "remote-config")
_ASKERS = {}
_KEYWORD = re.compile(r"\$(jobname|jobnum|filenum|clientuid)")
DEFAULT_FORMAT = "$jobname.$jobnum.$filenum"


class Refused(Exception):
    """One line: what would be destroyed or run, and how to allow it."""


def _check_keyword(o, remote):
    """Refused: a watched value in which fio replaced a keyword and then
    has bc compute it, or (@remote) replaced one with a fio server's own
    value: which file it names is not known here."""
    why = None
    if o.keyword == "bc":
        why = "fio replaces the keyword and then computes the value with bc"
    elif o.keyword and remote:
        why = "each fio server replaces the keyword with its own value"
    if why and o.key in CUT_WATCHED:
        raise Refused("%s: %s=%s (%s=%s as written): %s, so which file or "
                      "engine it would use is not certain: refused (name it "
                      "without $pagesize, $mb_memory or $ncpus)"
                      % (o.where, o.key, o.value, o.key, o.written, why))


def job_options(path, env, remote=False):
    """[(section, key, value, origin)] of job file @path as fio reads it
    (jobfile.read: its cut at ';' and '#', ${VAR} from @env, includes),
    and (name, None, None, origin) for every job section, with options or
    without: fio opens a job's name when it names no file.  A section
    name is also taken with ${VAR} expanded (fio servers get it so).
    Raises Refused."""
    try:
        sections, opts = jobfile.read(path, env)
    except jobfile.JobFileError as e:
        raise Refused(str(e))
    out = []
    for name in sections:
        for n in {name, jobfile.expand(name, env)}:
            if not jobfile.is_global(n):
                out.append((n, None, None, "the job name [%s] in %s"
                            % (n, path)))
    for o in opts:
        if o.value is None and o.key in fiologs.LOG_TYPES:
            o = o._replace(value="", written="")    # the job's name
        if o.value is None:
            continue
        _check_keyword(o, remote)
        where = o.where.rsplit(":", 1)[0]
        origin = "%s=%s in %s" % (o.key, o.value, where)
        if o.value != o.written:
            _check_cut(o.key, o.value, "%s=%s in %s (from %s=%s)" % (
                o.key, o.value, o.where, o.key, o.written))
        out.append((o.section, o.key, o.value.strip(), origin))
    return out


def _check_cut(key, value, origin):
    """Refused: a watched value holding ';' or '#' that fio did not cut
    where the guard reads it (after ${VAR} expansion, on the command
    line): fio ends it there for some options (filename=: options.c
    str_filename_cb; every option on a fio server, which reads the
    expanded text) and not for others (directory=, ioengine=)."""
    if key in CUT_WATCHED and any(c in value for c in ";#"):
        raise Refused("%s: fio ends a value at ';' or '#' in some places "
                      "and not in others, so which file or engine it would "
                      "use is not certain: refused (name it without ';' "
                      "and '#')" % origin)


def fio_command_line(args, env=None):
    """fioargs.read() of fio's command line @args, asking @env's FIO (or
    fio) which job options take a value."""
    fio = (env or os.environ).get("FIO") or "fio"
    if fio not in _ASKERS:
        _ASKERS[fio] = fioargs.asking(fio)
    return fioargs.read(list(args), _ASKERS[fio])


def cmdline_options(args, watched=WATCHED, env=None):
    """[(None, key, value, origin)] of the watched job options in fio's
    command line, every way fio could read each word (fioargs.py):
    --opt=value, --opt value, -opt=value; an abbreviation (getopt_long_only
    takes any unambiguous one) as every watched option it begins; a log
    option without a value names the job's own name."""
    out = []
    for o in fio_command_line(args, env)[0]:
        if o.fio:
            continue
        keys = [o.name] if o.name in watched else [
            k for k in watched if len(o.name) >= 3 and k.startswith(o.name)]
        for k in keys:
            value = o.value
            if value is None and k in fiologs.LOG_TYPES:
                value = ""
            if value is None:
                continue
            origin = "%s=%s on the command line" % (o.name, value)
            _check_cut(k, value, origin)
            out.append((None, k, value, origin))
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
    """What makes the job write ("rw=randwrite", or a log's replay), or
    None."""
    for value, _ in _values(opts, "rw", "readwrite"):
        if value.split(":")[0].strip() not in WRITE_FREE_RW:
            return "rw=" + value
    for value, _ in _values(opts, REPLAY_WRITES):
        return value
    return None


def flagcheck_engines(opts):
    """The ioengine= values that load flagcheck's engine."""
    return [v for v, _ in _values(opts, "ioengine")
            if v.startswith("external:") and
            os.path.basename(v).startswith("fio-flagcheck")]


def opens_nothing(opts):
    """Every ioengine is flagcheck's on the null backend, or fio's null."""
    engines = [v for v, _ in _values(opts, "ioengine")]
    backends = [v for v, _ in _values(opts, "backend")]
    ours = flagcheck_engines(opts)
    if not engines or any(e not in ours and e != "null" for e in engines):
        return False        # fio's default engine, psync, writes
    return not ours or all(b == "null" for b in backends)


def _job_names(opts):
    names = {s for s, k, _, _ in opts if k is None}
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


def _applying(opts, section):
    """The options that apply to the job of @section: its own, every
    global section's and the command line's."""
    return [o for o in opts if o[0] in (section, None) or
            (o[0] is not None and jobfile.is_global(o[0]))]


def _opened_names(opts):
    """[(name, origin)] of every file name each job opens, as written:
    its filename= list, else its filename_format= (fio's default one) and
    its own name, each under every directory= (fio's init.c add_job)."""
    out = []
    jobs = {s for s, k, _, _ in opts if k is None}
    if any(s is None and k == "name" for s, k, _, _ in opts):
        jobs.add(None)      # a job of fio's command line (--name=)
    for job in sorted(jobs, key=str):
        own = _applying(opts, job)
        names = [(n, o) for v, o in _values(own, "filename")
                 for n in split_list(v)]
        if not names:
            names = _values(own, "filename_format") or [
                (DEFAULT_FORMAT, "fio's default file names")]
            names += [(n, "the job name %s" % n) for n in _job_names(own)]
        dirs = [d for v, _ in _values(own, "directory")
                for d in split_list(v)] or [""]
        out += [(os.path.join(d, n.lstrip("/")) if d else n, o)
                for n, o in names for d in dirs]
    return out


def _unknown_on_hosts(path):
    """Why what @path leads to on a fio server is not known here, or
    None: a relative name is opened from the server's working directory;
    a '..' after a link there, or a link under /proc/, leads anywhere."""
    if not os.path.isabs(path):
        return ("is a relative name, opened from the fio server's working "
                "directory, which is not known here")
    if ".." in path.split("/"):
        return "has a '..', which a link on the hosts may lead anywhere"
    if os.path.normpath(path).startswith("/proc/"):
        return "is a name under /proc/, whose links lead anywhere"
    return None


def _check_hosts_names(path, opts, rw):
    """Raises Refused for a name a writing job opens on fio servers whose
    target is not known here (_unknown_on_hosts)."""
    for name, origin in _opened_names(opts):
        why = _unknown_on_hosts(name)
        if why:
            raise Refused("%s writes (%s) on the hosts and %s (from %s) %s: "
                          "it may be a block device there; name an absolute "
                          "path (or set directory=), or set "
                          "FLAGCHECK_DESTROY=yes to run it anyway"
                          % (path, rw, name, origin, why))


def _command(path, env, args=(), remote=False):
    """(job options, fio's own options) of job file @path, every other
    job file fio's command line @args names (fioargs.py: each word fio
    may take as one), and the job options of @args; raises Refused."""
    fio_opts, jobs, maybe = fio_command_line(args, env)
    opts = job_options(path, env, remote)
    for job in jobs + [m for m in maybe if os.path.isfile(m)]:
        if job == "-":
            raise Refused("%s: fio would read a job file from stdin ('-' on "
                          "its command line), which is not judged here: "
                          "refused (name a job file)" % path)
        opts += job_options(job, env, remote)
    for o in fio_opts:
        if o.fio and o.name in SERVER_OPTIONS:
            raise Refused("%s: %s on fio's command line runs fio as a "
                          "server or a client of servers, whose jobs are "
                          "not judged here: refused (flagcheck run --hosts "
                          "runs jobs on fio servers)" % (path, o.written))
    return opts + cmdline_options(args, env=env), fio_opts


def options_of(path, env, args=(), remote=False):
    """Every job option of job file `path` (${VAR} from env), of every
    other job file fio's command line `args` names, and of `args`;
    raises Refused for a job file fio would not read."""
    return _command(path, env, args, remote)[0]


REPLAY_WRITES = "replay writes"     # a key no job option has


def _replayed(path, opts, guarded):
    """The options read_iolog= adds: each file its log names (or each
    replay_redirect= instead) as a filename=, and (REPLAY_WRITES, what)
    where the log writes.  Raises Refused, where @guarded, for a log not
    read here (replay.py) that no replay_redirect= sends elsewhere."""
    redirects = _values(opts, "replay_redirect")
    out = [(None, "filename", v, o) for v, o in redirects]
    for value, origin in _values(opts, "read_iolog"):
        for log in sorted(set(split_list(value)) | {value}):
            try:
                writes, files = replay.read_log(log)
            except replay.Unknown as e:
                if guarded and not redirects:
                    raise Refused(
                        "%s: read_iolog=%s (from %s): %s; fio replays every "
                        "action of the log, writes too, onto the files it "
                        "names, not known here: refused (give a text iolog "
                        "or replay_redirect=; FLAGCHECK_DESTROY=yes to run "
                        "it anyway)" % (path, log, origin, e))
                writes, files = True, []
            what = "the log read_iolog=%s (from %s) names" % (log, origin)
            if not redirects:
                out += [(None, "filename", f.replace(":", "\\:"),
                         "%s, in %s" % (f, what)) for f in files]
            if writes:
                out.append((None, REPLAY_WRITES, "read_iolog=%s replays "
                            "writes" % log, origin))
    return out


def check_devices(path, env, args=(), remote=False, cleared=()):
    """Raises Refused when the job writes a block device and env lacks
    FLAGCHECK_DESTROY=yes (`remote`: see block_devices), and for a file
    fio would write or remove that the rule refuses (fiopaths.py; a link
    at a path of @cleared is removed by the caller before fio starts)."""
    opts, fio_opts = _command(path, env, args, remote)
    destroy = env.get("FLAGCHECK_DESTROY") == "yes"
    if not destroy:
        why = fiopaths.check(path, opts, _job_names(opts), fio_opts, remote,
                             cleared)
        if why:
            raise Refused(why)
    opts = opts + _replayed(path, opts, not (destroy or opens_nothing(opts)))
    rw = writes(opts)
    if rw is None or opens_nothing(opts) or destroy:
        return
    if remote:
        _check_hosts_names(path, opts, rw)
    found = block_devices(opts, remote)
    if found:
        dev, origin, what = found[0]
        raise Refused("%s writes (%s) and %s (from %s) %s: its data "
                      "would be lost; set FLAGCHECK_DESTROY=yes to run it "
                      "anyway" % (path, rw, dev, origin, what))


def _engine_runs(value, env):
    """What ioengine=@value would have a fio server run, or None: fio's
    exec engine runs program=; any engine name fio does not build in is
    dlopen()ed, its code run (external:PATH, a path, a .so), unless it is
    the flagcheck engine the job files are given (FLAGCHECK_ENGINE)."""
    name = value.strip()
    if name.lower() == "exec":
        return "the program its program= names"
    lib = name[len("external:"):] if name.startswith("external:") else name
    if (lib != name or "/" in lib or ".so" in lib) and \
            lib != env.get("FLAGCHECK_ENGINE"):
        return "the code of that library (fio loads it)"
    return None


def check_exec(path, env):
    """Raises Refused when the job has a fio server run a program:
    exec_prerun=, exec_postrun=, ioengine=exec, or an ioengine library
    other than FLAGCHECK_ENGINE (fio's HOWTO: every option that does)."""
    for _, key, value, _ in options_of(path, env):
        if key in EXEC_OPTIONS:
            what = "that command"
        elif key == "ioengine":
            what = _engine_runs(value, env)
        else:
            continue
        if what:
            raise Refused("%s: %s=%s would have every fio server run %s, "
                          "as the server's user; give --allow-exec if you "
                          "mean it" % (path, key, value, what))


def _int(value):
    try:
        return int(value.strip(), 0)
    except ValueError:
        return None


def check_patterns(path, env, args=(), pinned=False):
    """The engine's pattern options as fio hands them over (docs/pattern.md):
    raises Refused for a pattern option whose job-file line fio cuts
    inside the value (`pattern=a;b` runs only `a`) and for pattern_writers
    above numjobs (every job would write, as with 0); returns the warnings
    (a `:node` word without cpus_allowed, unless @pinned: each job then
    uses the copy of whichever node it happens to start on)."""
    try:
        sections, opts = jobfile.read(path, env)
    except jobfile.JobFileError as e:
        raise Refused(str(e))
    for o in opts:
        if o.key in PATTERN_OPTIONS and o.comment[:1] in (";", "#") and \
                o.comment[1:].strip():
            raise Refused("%s: %s=%s%s: fio ends the line at '%s' (a "
                          "comment), so the engine would get %s=%s; "
                          "separate operations with ',' (docs/pattern.md), "
                          "and put a blank before a comment" % (
                              o.where, o.key, o.written, o.comment.rstrip(),
                              o.comment[0], o.key, o.value))
    every = [(o.section, o.key, o.value, o.where) for o in opts
             if o.value is not None] + \
        [(None, k, v, origin) for _, k, v, origin in cmdline_options(
            list(args), ("numjobs", "pattern_writers", "cpus_allowed"))]
    numjobs = [n for n in (_int(v) for _, k, v, _ in every
                           if k == "numjobs") if n is not None] or [1]
    for _, key, value, where in every:
        writers = _int(value) if key == "pattern_writers" else None
        if writers is not None and writers > max(numjobs):
            raise Refused("%s: pattern_writers=%d is above numjobs=%d: "
                          "every job would write, as with 0; want 0..%d"
                          % (where, writers, max(numjobs), max(numjobs)))
    warnings = []
    pinned = pinned or any(k == "cpus_allowed" for _, k, _, _ in every)
    for _, key, value, where in every:
        if key == "pattern_words" and not pinned and \
                re.search(r":\s*node\b", value):
            warnings.append("%s: pattern_words=%s has a :node word and no "
                            "cpus_allowed pins the jobs: each job uses the "
                            "copy of the node it happens to start on"
                            % (where, value))
    return warnings


def check_headers(path):
    """Every header line of job file @path (inputs/headers.py) and the
    profile its published-machine line names; returns its expect line
    (or None); raises Refused naming the bad one."""
    try:
        found = headers.check(path)
        machine = found["published-machine"]
        if machine is not None:
            profile.find(machine.profile)
    except jobheader.FigureError as e:
        raise Refused(str(e))
    except profile.MachineError as e:
        raise Refused("%s: published-machine: %s" % (path, e))
    return found[headers.expect.KEY]


def parse_error(path, env, fio):
    """fio --parse-only of a job file that loads flagcheck's engine, with
    @env (parseonly.py): None, or one line saying why it does not parse
    (a variant its model lacks, a bad option value)."""
    try:
        if not flagcheck_engines(options_of(path, env)):
            return None
    except Refused as e:
        return str(e)
    # the counters file's place is check_devices' to judge
    return parseonly.error(fio, path, dict(env, FLAGCHECK_STATS=""))


def check_expect(path, expect, env, fio):
    """Refused where the expect line names a variant that the job's model
    does not have, as fio says when it parses the job with it."""
    for variant in expect.groups if expect else ():
        why = parse_error(path, dict(env, VARIANT=variant), fio)
        if why:
            raise Refused("%s: expect names variant %s: %s"
                          % (expect.where, variant, why))
