"""How much of a run the jobs were on their CPUs at the same time: the
engine's stretches of each job (its "corun" record), merged here after the
run; share() is the percent of the run with at least two jobs running,
None where fewer than two jobs recorded any. docs/analysis.md, "The jobs
ran together"; docs/engine.md."""

from . import schema

# the "corun" object of a counters line: every field with its range
SCHEMA = schema.Obj({
    "every": schema.POSITIVE,
    "away_ns": schema.COUNT,
    "on_cpu_ns": schema.COUNT,
    "merged": schema.COUNT,
    "intervals": schema.List(schema.List(schema.COUNT, 2)),
}, required=("intervals",))

# below this share the jobs ran apart more than together: the run says
# little about the line's contention, and no verdict is decided on it
SELDOM_PCT = 50.0


def check(record):
    """Raise schema.Invalid at the first bad field of a record's "corun"
    (absent: nothing to check); a stretch must not end before it starts."""
    if "corun" not in record:
        return
    SCHEMA.check(record["corun"], "corun")
    for i, (start, end) in enumerate(record["corun"]["intervals"]):
        if end < start:
            raise schema.Invalid("corun.intervals[%d]" % i, [start, end],
                                 "[start, end] with end >= start")


def jobs(counters):
    """How many of the run's jobs wrote a record of their stretches."""
    return sum(1 for r in counters or ()
               if isinstance(r.get("corun"), dict)
               and r["corun"].get("intervals"))


def share(counters):
    """The percent (0..100) of the run during which two or more jobs ran
    at once, or None (see the module's text)."""
    jobs = [r["corun"]["intervals"] for r in counters or ()
            if isinstance(r.get("corun"), dict)
            and r["corun"].get("intervals")]
    if len(jobs) < 2:
        return None
    events = []
    for intervals in jobs:
        for start, end in intervals:
            events += [(start, 1), (end, -1)]
    events.sort()
    span = events[-1][0] - events[0][0]
    if span <= 0:
        return None
    together, running, last = 0, 0, events[0][0]
    for t, step in events:
        if running >= 2:
            together += t - last
        running += step
        last = t
    return 100.0 * together / span


def cell_share(values):
    """The median of a cell's runs' shares (None left out), or None."""
    vals = sorted(v for v in values if v is not None)
    if not vals:
        return None
    mid = len(vals) // 2
    return vals[mid] if len(vals) % 2 else (vals[mid - 1] + vals[mid]) / 2


def seldom(numjobs, pct):
    """True where a cell's jobs seldom ran together: two or more jobs, a
    share recorded (cell_share) and under SELDOM_PCT.  The one definition:
    the runner's stop, the report's verdicts, the summary, the catalogue
    and --compare all ask this."""
    return numjobs is not None and numjobs >= 2 and pct is not None and \
        pct < SELDOM_PCT


def records_share(records, scenario, numjobs):
    """(the cell's share, cell_share over its runs' "corun_pct" metric, or
    None; the most jobs a run of it recorded stretches for) of the report's
    records (loadrecords: metrics "corun_pct" and "corun_jobs")."""
    cell = [r.metrics for r in records
            if (r.scenario, r.numjobs) == (scenario, numjobs)]
    return (cell_share(m.get("corun_pct") for m in cell),
            max([m.get("corun_jobs") or 0 for m in cell] or [0]))


def seldom_text(numjobs, pct):
    """The words for a cell whose jobs seldom ran together, or None."""
    if not seldom(numjobs, pct):
        return None
    return ("the %d jobs ran together %.0f%% of the time: the line was "
            "seldom contended" % (numjobs, pct))
