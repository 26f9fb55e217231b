"""The bottom line: one row per scenario, in S-number order: the fix's IOPS
against the pattern's (test_first/always) at the highest numjobs with both,
its 95% CI and whether it is decided (decide.py, flagcheck-run's
--until-decided rule), the published figure beside it (published.py), and
a verdict in words.

The verdict:
  undecided       the CI is neither clear of 1 nor narrow; the reason named
                  first that applies: the machine was busy in k of n runs,
                  fewer than decide.MIN_REPEATS runs per mode, or the CI
                  still holds 1
  reproduced      decided, the same direction as the published figure: same
                  size where the published ratio is inside the CI, else
                  smaller or larger (smaller is expected with fewer jobs on
                  the line than the published machine had)
  not reproduced  decided, but no difference (a CI narrower than the
                  precision around 1) or the opposite direction
A scenario without a published ratio gets the direction alone."""

from collections import namedtuple

from ..results import published
from ..stats import decide
from . import render

Row = namedtuple("Row", "scenario numjobs base mode decision busy runs "
                 "entry verdict")

REPEATS_HINT = 10


def _iops(records, scenario, numjobs, mode):
    return [r.metrics["iops"] for r in records
            if (r.scenario, r.numjobs, r.mode) == (scenario, numjobs, mode)
            and r.metrics.get("iops") is not None]


def _modes(records, scenario, base, entry):
    """(base, mode) of the scenario's ratio: the registry's when it has
    runs of both, else the report's base (or, without runs of it, the
    scenario's first mode) and the next mode."""
    present = []
    for r in records:
        if r.scenario == scenario and r.mode not in present:
            present.append(r.mode)
    if entry and entry.base in present and entry.mode in present:
        return entry.base, entry.mode
    if base not in present:
        base = present[0]
    others = [m for m in present if m != base]
    return base, (others[0] if others else None)


def rows(records, counts, base, extra=None):
    """One Row per scenario; @counts: conditions.cell_counts; @extra: the
    entries of job files that publish their own figure (published.find)."""
    out = []
    for scenario in sorted({r.scenario for r in records},
                           key=published.order_key):
        entry = published.find(scenario, extra)
        b, m = _modes(records, scenario, base, entry)
        both = [nj for nj in {r.numjobs for r in records
                              if r.scenario == scenario}
                if _iops(records, scenario, nj, b) and
                _iops(records, scenario, nj, m)]
        if m is None or not both:
            out.append(Row(scenario, None, b, m, None, None, None, entry,
                           "no runs of both %s and %s" % (b, m or "another "
                                                          "mode")))
            continue
        nj = max(both)
        d = decide.decide(_iops(records, scenario, nj, b),
                          _iops(records, scenario, nj, m), m)
        busy, n = counts.get((scenario, nj), ([], 0))
        out.append(Row(scenario, nj, b, m, d, len(busy), n, entry,
                       verdict(d, entry, nj, len(busy), n)))
    return out


def marks(records, counts, base):
    """What the plots mark: ({(scenario, numjobs, mode): True} of each
    mode's ratio to @base that is not decided, {(scenario, numjobs):
    (busy runs, runs)} of the cells that had busy runs)."""
    undecided = {}
    for scenario, nj, mode in {(r.scenario, r.numjobs, r.mode)
                               for r in records if r.mode != base}:
        b = _iops(records, scenario, nj, base)
        if b:
            d = decide.decide(b, _iops(records, scenario, nj, mode), mode)
            if d.reason == "undecided":
                undecided[(scenario, nj, mode)] = True
    busy = {k: (len(b), n) for k, (b, n) in counts.items() if b}
    return undecided, busy


def _rerun(d):
    return "REPRO_REPEATS=%d" % max(REPEATS_HINT, 2 * d.n)


def _undecided(d, busy, runs):
    if busy:
        return ("undecided: the machine was busy in %d of %d runs: rerun "
                "idle or with more repeats (%s)" % (busy, runs, _rerun(d)))
    if d.n < decide.MIN_REPEATS:
        return ("undecided: %d run%s per mode, at least %d needed: rerun "
                "with more repeats (%s)" % (d.n, "" if d.n == 1 else "s",
                                            decide.MIN_REPEATS, _rerun(d)))
    return ("undecided: the 95%% CI still holds 1 after %d runs per mode: "
            "rerun with more repeats (%s)" % (d.n, _rerun(d)))


def _direction(d):
    """+1 faster, -1 slower, 0 no difference (a narrow CI around 1)."""
    if d.ci[0] > 1:
        return 1
    if d.ci[1] < 1:
        return -1
    return 0


def _size(d, entry, numjobs):
    lo, hi = d.ci
    if lo <= entry.ratio <= hi:
        return "reproduced: same direction and size (published inside " \
            "the CI)"
    smaller = hi < entry.ratio if entry.ratio > 1 else lo > entry.ratio
    if not smaller:
        return "reproduced: same direction; larger than published"
    if entry.sharers is None or numjobs < entry.sharers:
        return ("reproduced: same direction; smaller, as expected with %d "
                "job%s sharing the line instead of %s"
                % (numjobs, "" if numjobs == 1 else "s", entry.sharers_text))
    return "reproduced: same direction; smaller than published"


def verdict(d, entry, numjobs, busy, runs):
    """The verdict in words (see the module's text)."""
    if d.reason == "undecided" or d.ci is None:
        return _undecided(d, busy, runs)
    way = _direction(d)
    if entry is None or entry.ratio is None:
        text = ("decided: %s %s" % (d.mode, "faster" if way > 0 else
                                    "slower") if way else
                "decided: no difference beyond ±%g%%"
                % (100 * decide.DEFAULT_PRECISION))
    elif way == 0:
        text = ("not reproduced: no difference beyond ±%g%% (published "
                "%+.1f%%)" % (100 * decide.DEFAULT_PRECISION,
                              100 * (entry.ratio - 1)))
    elif (way > 0) != (entry.ratio > 1):
        text = "not reproduced: the opposite direction"
    else:
        text = _size(d, entry, numjobs)
    if busy:
        text += "; the machine was busy in %d of %d runs" % (busy, runs)
    return text


def _cells(row):
    if row.decision is None:
        ratio = ci = decided = "-"
    else:
        d = row.decision
        ratio = "%s/%s x%.3f" % (row.mode, row.base, d.ratio)
        ci = "-" if d.ci is None else "%.3f..%.3f" % d.ci
        decided = "undecided" if d.reason == "undecided" else "decided"
    e = row.entry
    if e is None or e.mode != row.mode:
        pub = "-"
    elif e.ratio is None:
        pub = "%s (%s)" % (e.figure, e.machine)
    elif not e.number:                  # a job file's own figure
        pub = "x%.2f (%s)" % (e.ratio, e.figure)
    else:
        pub = "x%.2f (%s, %s)" % (e.ratio, e.figure, e.machine)
    return [row.scenario, "-" if row.numjobs is None else str(row.numjobs),
            ratio, ci, decided, pub, row.verdict]


TITLE = ("summary: IOPS of each scenario's fix against its pattern at the "
         "highest numjobs, 95%% bootstrap CI, decided when the CI excludes "
         "1 (and Welch agrees) or is narrower than ±%g%%; published: "
         "docs/scenarios.md" % (100 * decide.DEFAULT_PRECISION))
HEADER = ["scenario", "numjobs", "ratio", "95% CI", "decided", "published",
          "verdict"]


def table(summary_rows):
    """(title, header, rows, right) for render's text and Markdown."""
    return (TITLE, HEADER, [_cells(r) for r in summary_rows], {1, 2, 3})


def simulated_lines(summary_rows, simulated):
    """Per scenario whose job file names its published machine: "LABEL:
    on PROFILE at N CPUs: xG (lo..hi)", the simulator's gain there with
    its band (@simulated: bigbox.summary_lines()); each within 120
    columns."""
    return ["%s: %s" % (r.scenario, simulated[r.scenario])
            for r in summary_rows if r.scenario in (simulated or {})]


def text(summary_rows, simulated=None):
    lines = simulated_lines(summary_rows, simulated)
    return render.text_table(*table(summary_rows)) + "\n" + \
        "".join(l + "\n" for l in lines)


def markdown(summary_rows, simulated=None):
    lines = simulated_lines(summary_rows, simulated)
    return render.markdown_table(*table(summary_rows)) + "\n" + \
        ("\n" + "".join("- " + l + "\n" for l in lines) if lines else "")
