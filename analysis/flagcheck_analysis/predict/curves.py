"""Published curves of a loop on one shared line, each simulated on the
profile of its CPU: the physics' own test (make physics).

A curve is a file under machines/curves/ holding a published result as
its source has it (the rows of one loop at 1..N threads, one pinned per
CPU) and, in its '# key: value' header, where it comes from (repository,
path and commit, or paper and table), the CPU, the CPU family, the
profile it runs on (machines/NAME.toml, or '-' where machines/ has none
of that CPU, with the reason in profile-rule) and the loop.  The
published figure at a thread count is the median over the trials of the
source's ns per operation per thread, turned into the line's rate
(threads x 1e9 / ns: operations per second, all threads); the simulated
one is flagcheck-sim's I/Os per second (all CPUs) for the same loop
written as a pattern, nothing else per I/O (rest 0), on the profile's
first N CPUs at its typical costs.  pub/sim is the ratio of the rates.
Nothing here is fitted: a row off by more than OFF gets the curve's
mechanism-missing line (what the simulator lacks for it), or "not
known" where the file names none."""

import csv
import glob
import os
import statistics
from collections import namedtuple

from ..inputs import numbers, textfile
from ..machines import loader
from . import simulate

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))))
CURVES_DIR = os.path.join(REPO, "machines", "curves")
HEADER_KEYS = ("curve", "source-repository", "source-path", "source-commit",
               "cpu", "family", "profile", "profile-rule", "loop",
               "published")
# each loop of a source, written in the pattern grammar (docs/pattern.md)
LOOPS = {
    "atomic-add": ("c@0", "atomic_add(c,1)"),
    "cas-add": ("c@0=1", "atomic_inc_not_zero(c)"),
}
IOS = 4000      # per simulated CPU
MAX_BYTES = 1 << 20     # a curve file (each is under 16 KiB)
MAX_CORES = simulate.MAX_CPUS   # the simulator's most CPUs
MAX_NS = 1e6            # ns per operation (1 ms: no atomic takes longer)
OFF = 1.2       # the target: every row within 20%
SEEDS = (1, 2, 3)

Spec = namedtuple("Spec", "path words pattern writers fixed")
Curve = namedtuple("Curve", "path meta loop points")


class CurveError(ValueError):
    """One line naming the file, the field and what is allowed."""


def _header(path, lines):
    meta = {}
    for line in lines:
        key, sep, value = line[1:].strip().partition(":")
        if not sep:
            raise CurveError("%s: header line %r: want '# key: value'"
                             % (path, line.strip()))
        meta[key.strip()] = value.strip()
    missing = [k for k in HEADER_KEYS if not meta.get(k)]
    if missing:
        raise CurveError("%s: header lacks %s: every curve names its "
                         "source and CPU" % (path, ", ".join(missing)))
    return meta


def _loop(path, meta):
    slug = meta["curve"].split()[0]
    if slug not in LOOPS:
        raise CurveError("%s: curve %r: want one of %s" % (
            path, slug, ", ".join(sorted(LOOPS))))
    return slug


def read(path):
    """The Curve of a file: {threads: published ns per op per thread}."""
    try:
        lines = textfile.read_text(path, "curve file",
                                   MAX_BYTES).splitlines()
    except textfile.TextFileError as e:
        raise CurveError(str(e))
    head = [x for x in lines if x.startswith("#")]
    meta = _header(path, head)
    rows = list(csv.DictReader(x for x in lines if not x.startswith("#")))
    by = {}
    for i, r in enumerate(rows, 1):
        if r.get("Cores") is None or r.get("Nanos/Op") is None:
            raise CurveError("%s: row %d: a row without Cores and Nanos/Op "
                             "numbers" % (path, i))
        try:
            cores = numbers.number(r["Cores"], "%s: row %d: Cores" % (
                path, i), low=1, high=MAX_CORES, whole=True)
            ns = numbers.number(r["Nanos/Op"], "%s: row %d: Nanos/Op" % (
                path, i), above=0, high=MAX_NS)
        except numbers.NumberError as e:
            raise CurveError(str(e))
        by.setdefault(cores, []).append(ns)
    if not by:
        raise CurveError("%s: no rows" % path)
    return Curve(path, meta, _loop(path, meta),
                 {n: statistics.median(v) for n, v in sorted(by.items())})


def curves(directory=CURVES_DIR):
    return [read(p) for p in sorted(glob.glob(os.path.join(directory,
                                                           "*.csv")))]


def simulated(curve, profile, threads):
    """flagcheck-sim's operations per second, all CPUs (the mean of
    SEEDS)."""
    words, pattern = LOOPS[curve.loop]
    spec = Spec(curve.path, words, pattern, 0, "")
    cpus = profile.cpus(threads)
    runs = [simulate.run_sim(spec, "always", profile, cpus, "typ", 0.0,
                             seed, IOS) for seed in SEEDS]
    return statistics.mean(r["iops"] for r in runs)


Row = namedtuple("Row", "curve source cpu profile threads published "
                 "simulated ratio why")


def rows(items, machines_dir=None):
    """One Row per curve and thread count; a curve without a profile
    gets its rows with nothing simulated and the reason."""
    out = []
    for c in items:
        m = c.meta
        name = os.path.splitext(os.path.basename(c.path))[0]
        source = "%s %s @%s" % (m["source-repository"],
                                m["source-path"].split()[0],
                                m["source-commit"][:12])
        prof = None if m["profile"] == "-" else \
            loader.load(m["profile"], machines_dir)
        for n, ns in c.points.items():
            pub = n * 1e9 / ns
            sim = simulated(c, prof, n) if prof else None
            ratio = pub / sim if sim else None
            if not prof:
                why = m["profile-rule"]
            elif max(ratio, 1 / ratio) > OFF:
                why = m.get("mechanism-missing") or "not known"
            else:
                why = "-"
            out.append(Row(name, source, m["cpu"], m["profile"], n, pub,
                           sim, ratio, why))
    return out


def summary(table, items):
    """The last line: curves, sources, families, the worst pub/sim."""
    sources = {c.meta["source-repository"] for c in items}
    fams = {c.meta["family"] for c in items}
    ratios = [r.ratio for r in table if r.ratio]
    worst = max(ratios, key=lambda x: max(x, 1 / x)) if ratios else None
    return "physics: %d curves from %d sources on %d families, worst " \
        "pub/sim %s" % (len(items), len(sources), len(fams),
                        "x%.2f" % worst if worst else "- (none simulated)")
