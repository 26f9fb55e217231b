"""What flagcheck-predict reads from a model=pattern job file: the pattern
options the engine would get (pattern_words, pattern, pattern_fixed,
pattern_writers) and the header lines of its published machine and rest.

The text is run/jobfile.py's render() (includes inlined, ${VAR} replaced
as fio does); options are fio's `key=value` lines, the job's section over
[global]. The header lines (results/jobheader.py reads them):

  ; published-machine: PROFILE N [PLACEMENT]
  ; published-rest: work | work NS | fio
  ; rest-rule: how the rest was derived (free text)
"""

import os
import re
from collections import namedtuple

from ..results import jobheader
from ..run import jobfile

RESTS = ("work", "fio")

# profile  a machine profile's name, as --machine takes it
# cpus     the CPUs that ran the published workload
# placement  None or "nodes=0,1" (machine.cpus())
Published = namedtuple("Published", "profile cpus placement")
# rest: "work" or "fio" (published-rest), rest_ns: its NS ("work NS": the
# pattern has no work() and the header gives the rest), else None
Spec = namedtuple("Spec", "path words pattern fixed writers published rest "
                  "rest_ns rest_rule")


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


def is_pattern(path):
    """Whether job file @path is a model=pattern job."""
    try:
        text = jobfile.render(path, dict(os.environ, FLAG_CHECK="always"))
        return _options(text, path).get("model") == "pattern"
    except (jobfile.JobFileError, SpecError):
        return False


def _header(path):
    """(Published or None, rest kind, rest ns or None, rest rule) from the
    header, through results/jobheader.py's readers."""
    try:
        pub = jobheader.published_machine(path)
        rest = jobheader.published_rest(path)
        rule = jobheader.rest_rule(path)
    except jobheader.FigureError as e:
        raise SpecError(str(e))
    if pub is not None:
        pub = Published(pub.profile, pub.cpus, pub.placement)
    return pub, rest.kind if rest else None, rest.ns if rest else None, \
        rule


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
    pub, rest, rest_ns, rule = _header(path)
    return Spec(path, opts.get("pattern_words", ""), opts["pattern"],
                opts.get("pattern_fixed", ""), int(writers), pub, rest,
                rest_ns, rule)


def published_gain(path):
    """The job file's published gain, None without a published-figure."""
    fig = jobheader.read(path)
    return fig.gain if fig else None
