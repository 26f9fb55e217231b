"""What flagcheck-predict reads from a model=pattern job file: the pattern
options the engine would get (pattern_words, pattern, pattern_fixed,
pattern_writers) and the header lines of its published machine and rest.

The text is run/jobfile.py's render() (includes inlined, ${VAR} replaced
as fio does); options are fio's `key=value` lines, the job's section over
[global]. The header is the comments before the first section:

  ; published-machine: PROFILE N [PLACEMENT]
  ; published-rest: work|fio
  ; rest-rule: how the rest was derived (free text)
"""

import os
import re
from collections import namedtuple

from ..run import jobfile

PATTERN_KEYS = ("model", "pattern_words", "pattern", "pattern_fixed",
                "pattern_writers")
RESTS = ("work", "fio")

# profile  a machine profile's name, as --machine takes it
# cpus     the CPUs that ran the published workload
# placement  None or "nodes=0,1" (machine.cpus())
Published = namedtuple("Published", "profile cpus placement")
Spec = namedtuple("Spec", "path words pattern fixed writers published rest "
                  "rest_rule")


class SpecError(Exception):
    pass


def _options(text, path):
    """{key: value} of the [global] section, then the first job section's
    own values over them (fio's inheritance for one job)."""
    glob, job, section = {}, {}, None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("["):
            if section not in (None, "global") and line != "[global]":
                break           # a second job: the first is the one read
            section = line.strip("[]").strip()
            continue
        key, _, value = line.partition("=")
        key = key.strip()
        value = re.split(r"[;#]", value, maxsplit=1)[0].strip()
        if section is None:
            raise SpecError("%s:%d: option %r before any section"
                            % (path, n, key))
        (glob if section == "global" else job)[key] = value
    glob.update(job)
    return glob


def _header(path):
    """The header comments' key: value pairs (before the first section)."""
    out = {}
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise SpecError("%s: cannot read: %s" % (path, e.strerror or e))
    for n, line in enumerate(lines, 1):
        text = line.strip()
        if text.startswith("["):
            break
        m = re.match(r"^;\s*(published-machine|published-rest|rest-rule):"
                     r"\s*(.*?)\s*$", text)
        if m:
            if m.group(1) in out:
                raise SpecError("%s:%d: a second %s line" % (path, n,
                                                            m.group(1)))
            out[m.group(1)] = (m.group(2), n)
    return out


def is_pattern(path):
    """Whether job file @path is a model=pattern job."""
    try:
        text = jobfile.render(path, dict(os.environ, FLAG_CHECK="always"))
        return _options(text, path).get("model") == "pattern"
    except (jobfile.JobFileError, SpecError):
        return False


def parse_published(value, where):
    """Published from `PROFILE N [PLACEMENT]`; SpecError names the line."""
    parts = value.split()
    if len(parts) not in (2, 3) or not parts[1].isdigit() or \
            int(parts[1]) < 1 or (len(parts) == 3 and not re.match(
                r"^nodes=\d+(,\d+)*$", parts[2])):
        raise SpecError("%s: published-machine %r: allowed 'PROFILE N "
                        "[nodes=A[,B...]]', N a CPU count >= 1"
                        % (where, value))
    return Published(parts[0], int(parts[1]),
                     parts[2] if len(parts) == 3 else None)


def read(path):
    """The Spec of job file `path`; SpecError (one line) when it is not a
    model=pattern job or a header line is malformed."""
    try:
        text = jobfile.render(path, dict(os.environ, FLAG_CHECK="always"))
    except jobfile.JobFileError as e:
        raise SpecError(str(e))
    opts = _options(text, path)
    if opts.get("model") != "pattern":
        raise SpecError("%s: model=%s: flagcheck-predict takes "
                        "model=pattern job files (a C model's pattern twin "
                        "is in jobs/pattern/)" % (path, opts.get("model")))
    if not opts.get("pattern"):
        raise SpecError("%s: pattern is empty: model=pattern needs a "
                        "sequence of operations" % path)
    writers = opts.get("pattern_writers", "0") or "0"
    if not writers.isdigit():
        raise SpecError("%s: pattern_writers=%s: allowed a whole number "
                        ">= 0" % (path, writers))
    head = _header(path)
    pub = rest = None
    if "published-machine" in head:
        v, n = head["published-machine"]
        pub = parse_published(v, "%s:%d" % (path, n))
    if "published-rest" in head:
        v, n = head["published-rest"]
        rest = v.split()[0] if v.split() else ""
        if rest not in RESTS:
            raise SpecError("%s:%d: published-rest %r: allowed %s"
                            % (path, n, v, " or ".join(RESTS)))
    rule = head.get("rest-rule", (None, 0))[0]
    return Spec(path, opts.get("pattern_words", ""), opts["pattern"],
                opts.get("pattern_fixed", ""), int(writers), pub, rest, rule)
