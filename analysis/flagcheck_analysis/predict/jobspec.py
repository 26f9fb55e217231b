"""What flagcheck predict reads from a model=pattern job file: the pattern
options the engine would get (pattern_words, pattern, pattern_fixed,
pattern_writers), read as fio reads the file, and the header lines of its
published machine and rest (inputs/jobheader.py). One job section only.
docs/predict.md; the header lines: docs/pattern.md."""

import os
from collections import namedtuple

from ..inputs import jobheader
from ..inputs import jobfile
from ..guard import jobguard

RESTS = ("work", "fio")
MAX_NAMED = 4     # job sections named in a refusal, then "and N more"

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


def _env(cpus=None):
    """The job file's variables: VARIANT, and NUMJOBS the CPUs simulated
    (the jobs flagcheck run would start), where known."""
    env = dict(os.environ, VARIANT="always")
    env.pop("NUMJOBS", None)
    if cpus is not None:
        env["NUMJOBS"] = str(cpus)
    return env


def _read(path, env=None):
    """([section names], [Option]) as fio reads the file (inputs/jobfile.py:
    its cut, ${VAR}, keywords, includes)."""
    try:
        return jobfile.read(path, env or _env())
    except jobfile.JobFileError as e:
        raise SpecError(str(e))


def _options(path, read=None):
    """{key: value} of the [global] section, then the first job section's
    own values over them (fio's inheritance for one job); @read: _read()'s
    of @path, if read already."""
    sections, opts = read or _read(path)
    first = next((n for n in sections if not jobfile.is_global(n)), None)
    glob, job = {}, {}
    for o in opts:
        if o.value is None:
            continue
        if jobfile.is_global(o.section):
            glob[o.key] = o.value.strip()
        elif o.section == first:
            job[o.key] = o.value.strip()
    glob.update(job)
    return glob


def _one_job_section(path, sections):
    """SpecError for a file of several job sections: the simulator runs
    one job's pattern on --numjobs CPUs, and would silently leave the other
    sections' options out."""
    jobs = ["[%s]" % n for n in sections if not jobfile.is_global(n)]
    if len(jobs) < 2:
        return
    named = ", ".join(jobs[:MAX_NAMED])
    if len(jobs) > MAX_NAMED:
        named += " and %d more" % (len(jobs) - MAX_NAMED)
    raise SpecError("%s: job sections %s: only one job section is "
                    "simulated; keep one (--numjobs sets how many run it)"
                    % (path, named))


def _refused_as_the_engine_would(path, opts, env, cpus):
    """SpecError for what run-job and the engine refuse: a pattern line
    fio cuts at ';' or '#' inside the value, a pattern value that holds
    one after ${VAR} expansion (the engine refuses it), pattern_writers
    above numjobs (${NUMJOBS}: @cpus, the fewest CPUs simulated)."""
    try:
        jobguard.check_patterns(path, env)
    except jobguard.Refused as e:
        why = ""
        if "pattern_writers" in str(e):
            why = (" (NUMJOBS is %d, the fewest CPUs simulated)" % cpus
                   if cpus else " (NUMJOBS is unset here: give --numjobs)")
        raise SpecError(str(e) + why)
    for key in jobguard.PATTERN_OPTIONS:
        if any(c in opts.get(key, "") for c in ";#"):
            raise SpecError("%s: %s=%s: ';' and '#' are not operators: the "
                            "engine refuses them (separate operations with "
                            "',', docs/pattern.md)" % (path, key, opts[key]))


def is_pattern(path):
    """Whether job file @path is a model=pattern job."""
    try:
        return _options(path).get("model") == "pattern"
    except SpecError:
        return False


def _header(path):
    """(Published or None, rest kind, rest ns or None, rest rule) from the
    header, through inputs/jobheader.py's readers."""
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


def read(path, cpus=None):
    """The Spec of job file `path`; SpecError (one line) when it is not a
    model=pattern job, has more than one job section or a header line is
    malformed.  @cpus: the fewest CPUs simulated (--numjobs), else the
    published machine's: a numjobs=${NUMJOBS} reads it."""
    if cpus is None:
        try:
            pub = _header(path)[0]
        except SpecError:
            pub = None      # said below, after the model's check
        cpus = pub.cpus if pub else None
    env = _env(cpus)
    read = _read(path, env)
    opts = _options(path, read)
    if opts.get("model") != "pattern":
        raise SpecError("%s: model=%s: flagcheck predict takes "
                        "model=pattern job files (a C model's pattern twin "
                        "is in jobs/pattern/)" % (path, opts.get("model")))
    _one_job_section(path, read[0])
    if not opts.get("pattern"):
        raise SpecError("%s: pattern is empty: model=pattern needs a "
                        "sequence of operations" % path)
    _refused_as_the_engine_would(path, opts, env, cpus)
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
