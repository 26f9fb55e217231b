"""Published curves of a loop on one shared line (machines/curves/, each
file the source's rows as they are under a header naming the source, the
CPU, its family and profile, where the threads ran and the loop), each
simulated on its profile: the physics' own test (make physics).
Published: threads x 1e9 / the median ns per operation per thread;
simulated: flagcheck-sim's rate of the loop, rest 0, typical costs and
physics. Nothing is fitted: a row off by more than OFF names the
mechanism the simulator lacks. docs/predict.md, "The visit"."""

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
               "cpu", "family", "profile", "profile-rule", "placement",
               "placement-rule", "loop", "published")
FORMATS = ("travisdowns-csv", "perfbook-raw")
PLACEMENTS = ("compact", "spread")
# each loop of a source, written in the pattern grammar (docs/pattern.md)
LOOPS = {
    "atomic-add": ("c@0", "atomic_add(c,1)"),
    "cas-add": ("c@0=1", "atomic_inc_not_zero(c)"),
}
# I/Os per simulated CPU: 4000, fewer from 100 CPUs on (400,000 in all, as
# a prediction's budget), 50 at the least
IOS, MIN_IOS, BUDGET = 4000, 50, 400000
MAX_BYTES = 1 << 20     # a curve file (each is under 16 KiB)
MAX_CORES = simulate.MAX_CPUS   # the simulator's most CPUs
MAX_NS = 1e6            # ns per operation (1 ms: no atomic takes longer)
OFF = 1.25      # the target: every row within x1.25
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
    for key, allowed in (("format", FORMATS), ("placement", PLACEMENTS)):
        if meta.get(key, allowed[0]) not in allowed:
            raise CurveError("%s: %s %r: want one of %s" % (
                path, key, meta[key], ", ".join(allowed)))
    return slug


def _point(path, where, cores, ns):
    try:
        return (numbers.number(cores, "%s: %s: Cores" % (path, where),
                               low=1, high=MAX_CORES, whole=True),
                numbers.number(ns, "%s: %s: Nanos/Op" % (path, where),
                               above=0, high=MAX_NS))
    except numbers.NumberError as e:
        raise CurveError(str(e))


def _csv_points(path, lines):
    """travisdowns-csv: the Cores and Nanos/Op of each row."""
    rows = list(csv.DictReader(lines))
    for i, r in enumerate(rows, 1):
        if r.get("Cores") is None or r.get("Nanos/Op") is None:
            raise CurveError("%s: row %d: a row without Cores and Nanos/Op "
                             "numbers" % (path, i))
        yield _point(path, "row %d" % i, r["Cores"], r["Nanos/Op"])


def _raw_points(path, lines):
    """perfbook-raw: a line's thread count, then its runs' ns per update
    per thread ('-nan' where a run has none)."""
    for i, line in enumerate(lines, 1):
        f = line.split()
        runs = [x for x in f[1:] if x != "-nan"]
        if not f or not runs:
            raise CurveError("%s: line %d: want a thread count and one or "
                             "more runs' ns" % (path, i))
        for x in runs:
            yield _point(path, "line %d" % i, f[0], x)


def read(path):
    """The Curve of a file: {threads: published ns per op per thread}."""
    try:
        lines = textfile.read_text(path, "curve file",
                                   MAX_BYTES).splitlines()
    except textfile.TextFileError as e:
        raise CurveError(str(e))
    head = [x for x in lines if x.startswith("#")]
    meta = _header(path, head)
    loop = _loop(path, meta)
    body = [x for x in lines if x.strip() and not x.startswith("#")]
    read_rows = _raw_points if meta.get("format") == "perfbook-raw" \
        else _csv_points
    by = {}
    for cores, ns in read_rows(path, body):
        by.setdefault(cores, []).append(ns)
    if not by:
        raise CurveError("%s: no rows" % path)
    return Curve(path, meta, loop,
                 {n: statistics.median(v) for n, v in sorted(by.items())})


def curves(directory=CURVES_DIR):
    return [read(p) for p in sorted(glob.glob(os.path.join(directory,
                                                           "*.csv")))]


def cpus_of(curve, profile, threads):
    """The CPUs the curve's threads ran on: the profile's first N
    (compact), or its nodes in turn (spread)."""
    if curve.meta["placement"] == "compact":
        return profile.cpus(threads)
    nodes = sorted({profile.node(c) for c in
                    profile.cpus(profile.total_cpus)})
    return profile.cpus(threads, "nodes=" + ",".join(map(str, nodes)))


def simulated(curve, profile, threads, choice=None, seeds=SEEDS):
    """flagcheck-sim's operations per second, all CPUs (the mean of
    @seeds), at the profile's typical physics or @choice."""
    words, pattern = LOOPS[curve.loop]
    spec = Spec(curve.path, words, pattern, 0, "")
    cpus = cpus_of(curve, profile, threads)
    ios = max(MIN_IOS, min(IOS, BUDGET // threads))
    runs = [simulate.run_sim(spec, "always", profile, cpus, "typ", 0.0,
                             seed, ios, choice=choice) for seed in seeds]
    return statistics.mean(r["iops"] for r in runs)


def published(ns, threads):
    """The line's operations per second of @threads at @ns per operation
    per thread."""
    return threads * 1e9 / ns


def name_of(curve):
    return os.path.splitext(os.path.basename(curve.path))[0]


def source(curve):
    m = curve.meta
    return "%s %s @%s" % (m["source-repository"], m["source-path"].split()[0],
                          m["source-commit"][:12])


def profile_of(curve, machines_dir=None):
    """The curve's Machine, None where machines/ has no profile of it."""
    name = curve.meta["profile"]
    return None if name == "-" else loader.load(name, machines_dir)


Row = namedtuple("Row", "curve source cpu profile placement threads "
                 "published simulated ratio why")


def rows(items, machines_dir=None):
    """One Row per curve and thread count; a curve without a profile
    gets its rows with nothing simulated and the reason."""
    out = []
    for c in items:
        m = c.meta
        name = name_of(c)
        prof = profile_of(c, machines_dir)
        for n, ns in c.points.items():
            pub = published(ns, n)
            sim = simulated(c, prof, n) if prof else None
            ratio = pub / sim if sim else None
            if not prof:
                why = m["profile-rule"]
            elif max(ratio, 1 / ratio) > OFF:
                why = m.get("mechanism-missing") or "not known"
            else:
                why = "-"
            out.append(Row(name, source(c), m["cpu"], m["profile"],
                           m["placement"], n, pub, sim, ratio, why))
    return out


def sources(items):
    """The repositories the curves and their one-way costs come from."""
    return {c.meta[k] for c in items for k in ("source-repository",
                                               "cost-source-repository")
            if c.meta.get(k)}


def summary(table, items):
    """The last line: curves, sources, families, the worst pub/sim."""
    fams = {c.meta["family"] for c in items}
    ratios = [r.ratio for r in table if r.ratio]
    worst = max(ratios, key=lambda x: max(x, 1 / x)) if ratios else None
    return "physics: %d curves from %d sources on %d families, worst " \
        "pub/sim %s" % (len(items), len(sources(items)), len(fams),
                        "x%.2f" % worst if worst else "- (none simulated)")
