"""What flagcheck predict reads from a model=pattern job file: the pattern
options the engine would get (pattern_words, pattern, pattern_fixed,
pattern_writers), as fio reads them (guard/fiojob.py, the engine loaded),
and the header lines of its published machine and rest (jobheader.py).
One job section (docs/analysis.md#the-job-file-as-fio-reads-it)."""

import os
from collections import namedtuple

from ..inputs import jobheader
from ..guard import fiojob, jobguard

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
    """The job file's variables: flagcheck run's defaults where unset,
    VARIANT, and NUMJOBS the CPUs simulated (the jobs flagcheck run would
    start), else 1 (fio's numjobs)."""
    env = dict(fiojob.DEFAULT_VARS, **os.environ)
    env.update(VARIANT="always", NUMJOBS=str(cpus or 1))
    return env


def _read(path, env=None):
    """fio's reading of the job file (fiojob.Job), the engine loaded for
    a job that names no ioengine."""
    env = env or _env()
    try:
        return fiojob.read(path, env, engine=env["FLAGCHECK_ENGINE"])
    except fiojob.FioJobError as e:
        raise SpecError(str(e))


def _options(path, job=None):
    """{key: value} of the global options, then the first job's own
    values over them (fio's inheritance for one job); @job: _read()'s of
    @path, if read already."""
    job = job or _read(path)
    first = job.sections[0] if job.sections else None
    out = {}
    for o in job.options:
        if o.value is not None and o.section in (None, first) and \
                o.key != "name":
            out[o.key] = o.value.strip()
    return out


def _one_job_section(path, sections):
    """SpecError for a file of several job sections: the simulator runs
    one job's pattern on --numjobs CPUs, and would silently leave the other
    sections' options out."""
    jobs = ["[%s]" % n for n in sections]
    if len(jobs) < 2:
        return
    named = ", ".join(jobs[:MAX_NAMED])
    if len(jobs) > MAX_NAMED:
        named += " and %d more" % (len(jobs) - MAX_NAMED)
    raise SpecError("%s: job sections %s: only one job section is "
                    "simulated; keep one (--numjobs sets how many run it)"
                    % (path, named))


def _refused_as_the_engine_would(job, env, cpus):
    """SpecError for what run-job refuses (the engine refused the rest
    while fio read the job): a pattern line fio cuts at ';' or '#' inside
    the value, pattern_writers above numjobs (${NUMJOBS}: @cpus, the
    fewest CPUs simulated)."""
    try:
        jobguard.check_patterns(job, env)
    except jobguard.Refused as e:
        why = ""
        if "pattern_writers" in str(e):
            why = (" (NUMJOBS is %d, the fewest CPUs simulated)" % cpus
                   if cpus else " (NUMJOBS is unset here: give --numjobs)")
        raise SpecError(str(e) + why)


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
    job = _read(path, env)
    opts = _options(path, job)
    if opts.get("model") != "pattern":
        raise SpecError("%s: model=%s: flagcheck predict takes "
                        "model=pattern job files (a C model's pattern twin "
                        "is in jobs/pattern/)" % (path, opts.get("model")))
    _one_job_section(path, job.sections)
    if not opts.get("pattern"):
        raise SpecError("%s: pattern is empty: model=pattern needs a "
                        "sequence of operations" % path)
    _refused_as_the_engine_would(job, env, cpus)
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
