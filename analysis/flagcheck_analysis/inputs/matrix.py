"""The run matrix: which runs, in which order, and what their files are
called (<scenario>_<variant>_nj<numjobs>_r<repeat>.json and .flagcheck.jsonl,
a host's own counters and job file on several hosts). docs/analysis.md,
"The commands" and "flagcheck run"."""

import os
import re
from collections import namedtuple

from . import fiojson

DEFAULT_VARIANTS = ("always", "test_first")

Run = namedtuple("Run", "scenario variant numjobs repeat")

def default_numjobs(ncpu):
    """1, 2, 4, ... up to ncpu, plus ncpu itself if it is not a power of two."""
    out, n = [], 1
    while n <= ncpu:
        out.append(n)
        n *= 2
    if out[-1] != ncpu:
        out.append(ncpu)
    return out


def variants_in_order(variants, repeat):
    """The order of the variants in one repeat: as given in odd repeats,
    reversed in even ones (A B, B A, A B, ...: ABBA), so that neither
    variant always runs first and a first-run effect cancels over the
    pairs."""
    return list(variants) if repeat % 2 else list(variants)[::-1]


def build(scenarios, variants, numjobs, repeats):
    """All runs in execution order: the variants are interleaved innermost,
    each repeat's runs back to back (A B B A A B ...), so slow drift of
    the machine hits every variant alike and each repeat is a pair."""
    return [Run(s, m, nj, r)
            for s in scenarios
            for nj in numjobs
            for r in range(1, repeats + 1)
            for m in variants_in_order(variants, r)]


def run_name(run):
    return "%s_%s_nj%d_r%d" % run


def json_path(outdir, run):
    return os.path.join(outdir, run_name(run) + ".json")


def counters_path(outdir, run):
    return os.path.join(outdir, run_name(run) + ".flagcheck.jsonl")


def host_counters_path(outdir, run, label):
    return os.path.join(outdir, "%s.%s.flagcheck.jsonl" % (run_name(run),
                                                          label))


def host_job_path(outdir, run, label):
    return os.path.join(outdir, "jobs", "%s.%s.fio" % (run_name(run), label))


def counters_path_for_json(path):
    """The engine counters file that sits beside a fio JSON file."""
    base = path[:-len(".json")] if path.endswith(".json") else path
    return base + ".flagcheck.jsonl"


def parse_name(filename, variants=DEFAULT_VARIANTS):
    """Run from a file name that follows the convention, else None.  The variant
    must be one of `variants`, since scenario and variant may both hold '_'."""
    base = os.path.basename(filename)
    for variant in sorted(variants, key=len, reverse=True):
        m = re.match(r"^(?P<scenario>.+)_%s_nj(?P<nj>\d+)_r(?P<r>\d+)\.json$"
                     % re.escape(variant), base)
        if m:
            return Run(m.group("scenario"), variant, int(m.group("nj")),
                       int(m.group("r")))
    return None


def is_done(outdir, run):
    """A run is finished when its JSON exists, is no symbolic link, and
    parses (resume skips it)."""
    if os.path.islink(json_path(outdir, run)):
        return False
    try:
        fiojson.load_fio_json(json_path(outdir, run))
        return True
    except fiojson.InputError:
        return False


# The job files' variables that each run of the matrix sets itself.
MATRIX_VARS = ("VARIANT", "NUMJOBS", "FLAGCHECK_STATS")


def run_env(variables, outdir, run, label=None):
    """The job files' variables for one run: `variables` plus the matrix's
    own, and on several hosts (`label`) that host's own counters file."""
    env = dict(variables)
    counters = (counters_path(outdir, run) if label is None else
                host_counters_path(outdir, run, label))
    env.update(VARIANT=run.variant, NUMJOBS=str(run.numjobs),
               FLAGCHECK_STATS=os.path.abspath(counters))
    return env
