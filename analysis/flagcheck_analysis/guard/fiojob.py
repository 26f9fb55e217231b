"""A job file as fio reads it: `fio --showcmd JOBFILE`, with the
environment the run will have, prints the job after fio's own cut, ${VAR},
include and keywords; this module runs it once and splits what it prints
(docs/analysis.md#the-job-file-as-fio-reads-it)."""

import os
import re
import subprocess
from collections import namedtuple

from ..inputs import textfile

TIMEOUT_S = 30          # fio blocks on an included FIFO: never for ever
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))))
# fio's option names, and so every name it prints before '='
_NAME = re.compile(r"[A-Za-z0-9_]+")
_READ = {}              # what fio read, by fio, file, its text and env

# one option as fio printed it: @section the job's name (None before the
# first job: [global]), @value None where given without '=', @text the
# words fio printed for it (without the leading "--")
Option = namedtuple("Option", "section key value text")
# @sections the job names in order; @options every Option in order
Job = namedtuple("Job", "path sections options")


class FioJobError(Exception):
    """One line: the job file and why fio's reading of it is not taken;
    .why: the engine's own words where it refused the job ("flagcheck: "
    left off), else fio's first line, else that line."""

    def __init__(self, line, said=()):
        super().__init__(line)
        ours = [s[len("flagcheck: "):] for s in said
                if s.startswith("flagcheck: ")]
        self.why = (ours or list(said) or [line])[0]


def default_engine():
    """The engine beside an installed copy (make install puts both under
    $(PREFIX)/lib/flagcheck), else the one `make` builds in the tree."""
    installed = os.path.join(REPO, "fio-flagcheck.so")
    if os.path.isfile(installed):
        return installed
    return os.path.join(REPO, "build", "fio-flagcheck.so")


# Every variable the job files use; fio turns an unset one into "".
DEFAULT_VARS = {
    "FLAGCHECK_ENGINE": default_engine(),
    "RUNTIME": "3",
    "SIZE": "1g",
    "FILENAME": "flagcheck-null",
    "BACKEND": "null",
}


def check_file(path):
    """The text of job file @path, a regular file of bounded size (fio
    would block on a FIFO, read /dev/zero for ever); raises FioJobError."""
    try:
        return textfile.read_text(path)
    except textfile.TextFileError as e:
        raise FioJobError(str(e))


def read(path, env, fio=None, engine=None):
    """The Job of job file @path as @fio (else $FIO, else fio) reads it
    with the variables of @env; @engine: the ioengine a job that names
    none loads (flagcheck predict's default).  Raises FioJobError."""
    fio = fio or env.get("FIO") or "fio"
    key = (fio, os.path.abspath(path), check_file(path), engine,
           tuple(sorted(env.items())))
    if key not in _READ:        # one fio start per file and environment
        if len(_READ) > 64:
            _READ.clear()
        _READ[key] = _parse(path, _showcmd(fio, path, env, engine), env)
    return _READ[key]


def _showcmd(fio, path, env, engine):
    cmd = [fio, "--showcmd"]
    if engine:
        cmd.append("--ioengine=external:" + engine)
    try:
        p = subprocess.run(cmd + ["--", path], env=dict(env),
                           capture_output=True, timeout=TIMEOUT_S,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise FioJobError("%s: fio --showcmd did not finish within %d s (an "
                          "include of a FIFO or a device?)" % (path,
                                                               TIMEOUT_S))
    except OSError as e:
        raise FioJobError("%s: %s --showcmd, which reads the job file, could "
                          "not start: %s" % (path, fio, e.strerror or e))
    lines = [textfile.printable(line.strip()[:300]) for line in
             p.stderr.decode("utf-8", "replace").splitlines()
             if line.strip()][:3]
    said = "; ".join(lines)
    if p.returncode != 0:
        raise FioJobError("%s: fio refuses it: %s" % (
            path, said or "exit status %d" % p.returncode), lines)
    if said:        # fio 3.33 ends 0 after an include it refused
        raise FioJobError("%s: fio reads it with an error: %s: refused"
                          % (path, said), lines)
    return p.stdout.decode("utf-8", "surrogateescape")


def _held(out, env, what):
    """The first ${VAR} of @env whose value holds @what and shows in
    fio's output @out, or None."""
    return next((name for name, value in sorted(env.items())
                 if what in value and value in out), None)


def _parse(path, out, env):
    """The Job of fio --showcmd's output @out: "fio --OPT[=VALUE] ..."
    with "--name=JOB" where each job starts; raises FioJobError where a
    value makes it ambiguous (a line break, ' --' inside)."""
    body = out[:-1] if out.endswith("\n") else out
    for what, why in (("\n", "a line break: fio and its servers would read "
                       "a new line there"),
                      (" --", "' --': fio prints options unquoted, so where "
                       "a value ends is not certain")):
        name = _held(out, env, what)
        if name and what in body:
            raise FioJobError("%s: ${%s} holds %s: refused" % (path, name,
                                                                why))
    if "\n" in body:
        raise FioJobError("%s: fio --showcmd printed more than the job "
                          "(%s): refused" % (path, textfile.printable(
                              body[:160])))
    if not body.strip():        # fio prints "fio" for any section
        raise FioJobError("%s: fio --showcmd printed no job: not fio, or no "
                          "section in the job file: refused" % path)
    if body.strip() == "fio":
        return Job(path, [], [])        # [global] alone
    if not body.startswith("fio --"):
        raise FioJobError("%s: fio --showcmd printed %r, not options"
                          % (path, body[:80]))
    body = body[len("fio --"):]
    body = body[:-1] if body.endswith(" ") else body
    sections, options, section = [], [], None
    for text in body.split(" --"):
        key, eq, value = text.partition("=")
        if not _NAME.fullmatch(key):
            last = options[-1].text if options else ""
            raise FioJobError("%s: fio prints --%s --%s, unquoted: which "
                              "words are the value is not certain: refused"
                              % (path, last, text))
        value = value if eq else None
        if key == "description" and value and len(value) > 1 and \
                value[0] == value[-1] == '"':
            value = value[1:-1]         # the one option fio quotes
        if key == "name":
            section = value
            sections.append(value)
        options.append(Option(section, key, value, text))
    return Job(path, sections, options)


def job_text(job):
    """The text of a job file that fio reads as @job: [global] (the
    options before the first job), then one section per job."""
    out = ["; %s as fio --showcmd read it" % textfile.printable(job.path)]
    section = ()
    for o in job.options:
        if o.section != section:
            section = o.section
            out.append("[global]" if section is None else "[%s]" % section)
        if o.key != "name":
            out.append(o.key if o.value is None else
                       "%s=%s" % (o.key, o.value))
    return "\n".join(out) + "\n"
