"""The published figures flagcheck compares itself with, in one place: one
entry per scenario (its S-number, short name, the names its runs carry and
its published ratio), S1-S4's read from their pattern twins' headers, the
catalogue's through from_job_file(), and each model's metric against a
parameter (SWEEPS). Every figure and its source: docs/scenarios.md."""

import os
import re
from collections import namedtuple

from . import jobheader

# the source tree's jobs/, or $(PREFIX)/share/flagcheck/jobs installed
# beside $(PREFIX)/lib/flagcheck
_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))))
JOB_DIRS = (os.path.join(_REPO, "jobs"),
            os.path.normpath(os.path.join(_REPO, "..", "..", "share",
                                          "flagcheck", "jobs")))
TWINS = {"S1": "s1-filemap-odirect-read.fio",
         "S2": "s2-buffer-new-randwrite.fio",
         "S3": "s3-aim7-creat-clo.fio",
         "S4": "s4-fxmark-dwtl-uptodate.fio"}


def twin_path(number):
    """The pattern twin of scenario S1..S4 (its header holds the figure)."""
    for d in JOB_DIRS:
        path = os.path.join(d, "pattern", TWINS[number])
        if os.path.exists(path):
            return path
    raise jobheader.FigureError("%s: no %s in %s: its published figure is "
                                "read from there" % (number, TWINS[number],
                                                     " or ".join(JOB_DIRS)))


def _fmt(v):
    """1700000 -> "1.7M", 930 -> "930" (as the tables have always shown
    them)."""
    if v >= 1e6 and v % 1e5 == 0:
        return "%.1fM" % (v / 1e6)
    return "%d" % v if v == int(v) else "%g" % v


def twin_figure(number):
    """(gain, "A -> B UNIT", (A, B)) of a twin's before -> after line."""
    path = twin_path(number)
    fig = jobheader.read(path)
    if fig is None or fig.form != "before -> after":
        raise jobheader.FigureError("%s: want one 'published-figure: A -> B "
                                    "higher|lower WHAT' line" % path)
    unit = fig.what.split(",")[0].strip()
    return (fig.gain, "%s -> %s %s" % (_fmt(fig.values[0]),
                                       _fmt(fig.values[1]), unit),
            fig.values)

# number    "S1"; name: short name ("S1 filemap-odirect-read" in tables)
# aliases   job file stems, fio job names and engine models of its runs
# base, variant  the ratio is variant / base (what the fix gains)
# ratio     the published variant / base, as a speed (higher is faster); None
#           where the published result is not one ratio of the job's IOPS
# figure    the published figures the ratio comes from, as quoted
# machine   where they were measured
# sharers   how many CPUs (jobs, processes) shared the line there, None
#           where the source does not say; sharers_text says it in words
# source    the commit or message, docs/scenarios.md has the rest
Scenario = namedtuple("Scenario", "number name aliases base variant ratio figure "
                      "machine sharers sharers_text source")

_FIG = {n: twin_figure(n) for n in TWINS}

# S1, 7fcbbaf18392 (Jens Axboe, linux-mm, May 2014): IOPS before and after
# the fix, and the % of the time in filemap_check_errors() before it
S1_BEFORE, S1_AFTER = _FIG["S1"][2]
S1_SHARE = jobheader.published_share(twin_path("S1")).percent

# S5, Marcelo Tosatti, 27 Jun 2023: ns per __find_get_block() with the
# per-CPU LRU in front (mod 1..19) and per __find_get_block_slow()
S5_LRU_NS = dict(enumerate(
    (41, 41, 42, 43, 45, 48, 48, 49, 51, 52, 54, 56, 58, 60, 61, 63,
     138, 138, 138), start=1))
S5_SLOW_NS = dict(enumerate(
    (70, 71, 71, 71, 71, 72, 71, 72, 71, 71, 71, 71, 71, 71, 71, 71, 72,
     72, 72), start=1))
S5_SOURCE = "Tosatti, 27 Jun 2023, docs/scenarios.md"

# A metric against a parameter (report/sweep.py, docs/analysis.md): the
# counters lines of one model, each at one value of its option
# @parameter; a run's metric at a value is its lines' model_stats @total
# over their @per; @share: the two counts whose first's share of both the
# table gives; @depth: counts the CSV adds; @published: (name, CSV column,
# {value: figure}, what the plot calls it); @ratio: the two variants set
# against each other; @marker: a value the plot marks (or None)
Sweep = namedtuple("Sweep", "model parameter total per metric column share "
                   "depth published ratio source title xlabel ylabel marker "
                   "stem")
SWEEPS = (
    Sweep("bh_lru", "mod", "lookup_ns", "lookups", "ns/lookup",
          "ns_per_lookup", ("hits", "misses"),
          tuple("hit_idx%d" % i for i in range(1, 17)),
          (("LRU ns", "published_lru_ns", S5_LRU_NS, "with the LRU"),
           ("slow ns", "published_slow_ns", S5_SLOW_NS, "slow path only")),
          ("on", "off"), S5_SOURCE, "ns per __find_get_block() by mod",
          "mod (distinct blocks looked up in turn; the LRU holds 16)",
          "ns per lookup", 16.5, "lru"),
)

SCENARIOS = (
    Scenario("S1", "filemap-odirect-read",
             ("filemap-odirect-read", "odirect-randread",
              "filemap_check_errors"),
             "always", "test_first", _FIG["S1"][0], _FIG["S1"][1],
             "4-socket box", None, "4 sockets",
             "7fcbbaf18392"),
    Scenario("S2", "buffer-new-randwrite",
             ("buffer-new-randwrite", "randwrite", "block_commit_write"),
             "always", "test_first", _FIG["S2"][0], _FIG["S2"][1],
             "arm64 Kunpeng 920, 16 jobs", 16, "16 jobs",
             "fs/buffer.c, Feb 2021"),
    Scenario("S3", "aim7-creat-clo",
             ("aim7-creat-clo", "creat-clo", "set_buffer_verified"),
             "always", "test_first", _FIG["S3"][0], _FIG["S3"][1],
             "2-socket Broadwell, 3000 processes",
             3000, "3000 processes", "60f91826ca62"),
    # the fixed kernel against the regressed one at 54 processes
    Scenario("S4", "fxmark-dwtl-uptodate",
             ("fxmark-dwtl-uptodate", "dwtl", "set_buffer_uptodate"),
             "always", "test_first", _FIG["S4"][0], _FIG["S4"][1],
             "LKP, 54 processes", 54,
             "54 processes", "2f79cdfe58c1"),
    # ns per lookup against mod, not one ratio: the job's IOPS sum every
    # mod, so its figures are set beside the per-mod table (lru.py)
    Scenario("S5", "bh-lru-lookup", ("bh-lru-lookup", "bh_lru"),
             "off", "on", None, "68 -> 42 ns per lookup at mod 1",
             "per mod: the bh_lru table", 1, "one CPU", S5_SOURCE),
)

_BY_NUMBER = {s.number.lower(): s for s in SCENARIOS}
_BY_ALIAS = {a.lower(): s for s in SCENARIOS for a in s.aliases}


def from_job_file(name, gain, what, path):
    """The entry of a scenario whose job file publishes its own figure:
    the fix's gain (test_first/always) and what was measured where."""
    return Scenario("", name, (name,), "always", "test_first", gain, what,
                    "its job file", None, "the published machine", path)


def find(name, extra=None):
    """The Scenario a run's scenario name (job file stem) stands for, or
    None: "s1-...", "S1 ...", one of an entry's aliases, or a name in
    @extra ({name: Scenario}, from_job_file)."""
    if not name:
        return None
    if extra and name in extra:
        return extra[name]
    low = str(name).lower()
    m = re.match(r"^(s\d+)[-_ ]", low)
    if m and m.group(1) in _BY_NUMBER:
        return _BY_NUMBER[m.group(1)]
    return _BY_ALIAS.get(low)


def label(name):
    """The one name of a scenario: "S1 filemap-odirect-read"; a name the
    registry does not know stays as it is."""
    s = find(name)
    return "%s %s" % (s.number, s.name) if s else name


def of_scenario(label, labels):
    """The run labels of scenario @label among @labels: itself, and the
    labels the report gives its runs of differing setups ("LABEL (job
    file sha256 ..., ...)": a C model and its twin run together)."""
    return {x for x in labels if x == label or x.startswith(label + " (")}


def order_key(name):
    """Sort key: the registry's scenarios in S-number order, then the
    others by name."""
    s = find(name)
    if s is None:
        return (1, 0, str(name))
    return (0, int(s.number[1:]), str(name))
