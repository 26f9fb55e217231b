"""What each run of a results directory was made with (its record: the
settings that change what it measures, the engine's build, the job
file's text and the environment variables it reads), recorded per run in
the manifest and beside the run's fio JSON (<run>.setup, so that a resume
after the manifest is lost still sees them): their schema, the job
file's variables, the record's write and read, and the records of the
finished runs.  run/runsettings.py makes them from flagcheck run's
command and refuses a resume with other ones."""

import hashlib
import json
import os
import re

from . import (safewrite, fiojson, headers, jobheader, matrix, textfile,
               schema)
from .schema import BOOL, COUNT, STR, Map, Obj, Opt

# beside each run's fio JSON: what it was made with
SETUP_SUFFIX = ".setup"
SETTINGS_SCHEMA = Obj({"pinned": BOOL, "ramp_s": COUNT,
                       "clocksource": Opt(STR), "vars": Map(STR),
                       "output_format": STR},
                      required=("pinned", "ramp_s", "clocksource", "vars",
                                "output_format"))


_JOB_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_INCLUDE = re.compile(r"^\s*include\s+(\S.*?)\s*$", re.MULTILINE)
SETUP_SCHEMA = Obj({"name": STR, "scenario": STR,
                    "settings": SETTINGS_SCHEMA, "job_sha256": Opt(STR),
                    "engine_sha256": Opt(STR), "job_env": Map(Opt(STR)),
                    "json_sha256": STR},
                   required=("name", "scenario", "settings"))


def _job_texts(path):
    """[(path, text)] of the job file at @path and of every file it
    includes (as fio finds one: as given where it exists, else beside
    the including file), each once, in the order read; one that cannot
    be read is left out."""
    out, todo, seen = [], [path], set()
    while todo:
        p = todo.pop(0)
        if p in seen:
            continue
        seen.add(p)
        try:
            text = textfile.read_text(p)
        except textfile.TextFileError:
            continue
        out.append((p, text))
        todo += [m if os.path.exists(m) or "/" not in p else
                 os.path.join(os.path.dirname(p), m)
                 for m in _INCLUDE.findall(text)]
    return out


def job_variables(path):
    """The ${VAR}s that the job file at `path` (and the files it
    includes) reads, sorted; [] where it cannot be read."""
    return sorted({v for _, text in _job_texts(path)
                   for v in _JOB_VAR.findall(text)})


def job_sha256(path):
    """The identity of the job file at @path as fio runs it: the SHA-256 of
    its bytes, followed, where it includes files, by each one's name and
    bytes (an edited include is an edited job); None where it cannot be
    read.  A job file without includes keeps the SHA-256 of its bytes."""
    texts = _job_texts(path)
    if not texts or texts[0][0] != path:
        return None
    h = hashlib.sha256(textfile.to_bytes(texts[0][1]))
    for p, text in texts[1:]:
        h.update(b"\0" + textfile.to_bytes(p) + b"\0" +
                 textfile.to_bytes(text))
    return h.hexdigest()


def _is_comment(line):
    """fio skips the line: blank, or a comment (its first character that
    is not blank or control is ';' or '#', as fio's parser skips it)."""
    text = line.lstrip("".join(map(chr, range(33))) + "\x7f")
    return not text or text[0] in ";#"


def job_body_sha256(path):
    """job_sha256() of the job file's lines fio reads: its comment lines
    and blank lines left out, so that two job files whose header (or any
    other comment) is all that differs have the same; None where it
    cannot be read."""
    texts = _job_texts(path)
    if not texts or texts[0][0] != path:
        return None
    h = hashlib.sha256()
    for i, (p, text) in enumerate(texts):
        if i:
            h.update(b"\0" + textfile.to_bytes(p) + b"\0")
        h.update(textfile.to_bytes("\n".join(
            l for l in text.split("\n") if not _is_comment(l))))
    return h.hexdigest()


def job_headers(path):
    """The job file's header lines ("KEY: VALUE", inputs/headers.py's
    keys) in order, as written; [] where it cannot be read."""
    try:
        return [body for _, body, section in jobheader.comments(path)
                if section is None and body.split(":", 1)[0].strip()
                in headers.KEYS]
    except jobheader.FigureError:
        return []


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
    where there is none (flagcheck run writes it before fio starts); raises
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


def finished_records(old, outdir):
    """[(run name, scenario, its record)] of every finished run: the
    previous manifest's, and those whose record lies beside a fio JSON
    that the manifest does not hold (one moved away: mv manifest.json
    ...damaged)."""
    out, known = [], set()
    for entry in old.get("runs", []):
        if not isinstance(entry, dict) or entry.get("status") != "ok":
            continue
        known.add(entry.get("name"))
        if not isinstance(entry.get("settings"), dict):
            raise fiojson.InputError(
                os.path.join(outdir, "manifest.json"), "run %s has no "
                "\"settings\" (a manifest from before each run recorded "
                "its own): resume it in another --outdir"
                % entry.get("name"))
        rec = {k: entry[k] for k in ("job_sha256", "engine_sha256",
                                     "job_env", "settings") if k in entry}
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
