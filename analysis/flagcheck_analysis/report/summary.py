"""The bottom line: one row per scenario, in S-number order: the fix's IOPS
against the pattern's at the highest numjobs with both, its 95% CI,
decided or not (stats/decide.py), the published figure beside it and a
verdict in words (undecided, reproduced, not reproduced). The rules:
docs/analysis.md, "The summary, two results side by side, the figures"."""

import math
import os
from collections import namedtuple

from ..inputs import corun, published
from ..stats import decide, interval, significance
from . import render

# corun: (median co-running percent or None, jobs that recorded it)
Row = namedtuple("Row", "scenario numjobs base variant decision busy runs "
                 "entry verdict corun", defaults=(None,))

# what to name in the advice: flagcheck run's flag, or the make variable
# that `make reproduce` passes it as (it says so in REPEATS_NAME_ENV)
REPEATS_FLAG = "--max-repeats"
REPEATS_NAME_ENV = "FLAGCHECK_REPEATS_NAME"


def _iops(records, scenario, numjobs, variant):
    return [r.metrics["iops"] for r in records
            if (r.scenario, r.numjobs, r.variant) == (scenario, numjobs, variant)
            and r.metrics.get("iops") is not None]


def decision(records, scenario, numjobs, base, variant,
             precision=decide.DEFAULT_PRECISION):
    """The Decision of one cell's variant against the base, on its pairs
    where the runs pair up (interval.pair_up); undecided where its jobs
    seldom ran together (decide.apart)."""
    d = decide.of_runs(interval.side(records, scenario, numjobs, base),
                       interval.side(records, scenario, numjobs, variant),
                       variant, precision)
    return decide.apart([d], numjobs, corun.records_share(
        records, scenario, numjobs)[0])[0]


def _variants(records, scenario, base, entry):
    """(base, variant) of the scenario's ratio: the registry's when it has
    runs of both, else the report's base (or, without runs of it, the
    scenario's first variant) and the next variant."""
    present = []
    for r in records:
        if r.scenario == scenario and r.variant not in present:
            present.append(r.variant)
    if entry and entry.base in present and entry.variant in present:
        return entry.base, entry.variant
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
        b, m = _variants(records, scenario, base, entry)
        both = [nj for nj in {r.numjobs for r in records
                              if r.scenario == scenario}
                if _iops(records, scenario, nj, b) and
                _iops(records, scenario, nj, m)]
        if m is None or not both:
            out.append(Row(scenario, None, b, m, None, None, None, entry,
                           "no runs of both %s and %s" % (b, m or "another "
                                                          "variant")))
            continue
        nj = max(both)
        d = decision(records, scenario, nj, b, m)
        busy, n = counts.get((scenario, nj), ([], 0))
        together = corun.records_share(records, scenario, nj)
        out.append(Row(scenario, nj, b, m, d, len(busy), n, entry,
                       verdict(d, entry, nj, len(busy), n,
                               repeats_name(), together[0]), together))
    return out


def seldom(numjobs, pct):
    """The words for a run whose jobs seldom ran together, or None."""
    return corun.seldom_text(numjobs, pct)


def marks(records, counts, base):
    """What the plots mark: ({(scenario, numjobs, variant): [why, ...]} of
    each variant's ratio to @base that is not decided, the reasons that
    apply to it (undecided_reasons()), {(scenario, numjobs): (busy runs,
    runs)} of the cells that had busy runs)."""
    undecided = {}
    for scenario, nj, variant in {(r.scenario, r.numjobs, r.variant)
                               for r in records if r.variant != base}:
        if _iops(records, scenario, nj, base):
            d = decision(records, scenario, nj, base, variant)
            if d.reason == "undecided":
                undecided[(scenario, nj, variant)] = undecided_reasons(
                    d, nj, corun.records_share(records, scenario, nj)[0])
    busy = {k: (len(b), n) for k, (b, n) in counts.items() if b}
    return undecided, busy


def undecided_reasons(d, numjobs, corun_pct=None):
    """Why @d is undecided, each reason in a few words, only those that
    apply: the jobs seldom ran together (@corun_pct), then what the
    figures say (_why())."""
    apart = seldom(numjobs, corun_pct)
    return ([apart] if apart else []) + [_why(d)]


def repeats_needed(d, precision=decide.DEFAULT_PRECISION):
    """Runs per variant that the spread so far says will decide @d: the CI's
    half-width shrinks as 1/sqrt(n), so n * (half-width / distance)^2,
    where distance is the larger of the ratio's distance to 1 (the CI
    clear of 1) and the precision (the CI narrow); where Welch's test held
    it back, the runs that bring its t to 2; for pairs, the pairs that
    bring 2 standard errors of their logs under the distance.  Never under
    n + 1 nor MIN_REPEATS."""
    n = max(d.n, 1)
    want = decide.MIN_REPEATS
    if d.by == "pairs" and d.ci is not None and d.ratio and n >= 2:
        # the pairs' t-interval: its log half-width is t(n-1) sd / sqrt(n);
        # the runs that bring 2 sd / sqrt(n) under the distance
        sd = math.log(d.ci[1] / d.ratio) * math.sqrt(n) / \
            significance.t_of(n - 1)
        reach = max(abs(math.log(d.ratio)), math.log(1 + precision))
        want = math.ceil((2.0 * sd / reach) ** 2)
    elif d.ci is not None and d.ratio:
        half = (d.ci[1] - d.ci[0]) / 2
        reach = max(abs(d.ratio - 1), precision * abs(d.ratio))
        want = math.ceil(n * (half / reach) ** 2)
        if d.why == "welch" and d.p is not None and 0 < d.p < 1:
            t = significance.z_of_p(d.p)
            want = max(want, math.ceil(n * (2.0 / t) ** 2))
    return max(want, n + 1, decide.MIN_REPEATS)


def _rerun(d, name):
    return "%s %d" % (name, repeats_needed(d)) if name.startswith("-") \
        else "%s=%d" % (name, repeats_needed(d))


def _why(d):
    """The statistical reason, read off the figures themselves so that
    the words cannot contradict them."""
    if d.n < decide.MIN_REPEATS:
        return "%d %s, at least %d needed" % (
            d.n, ("pair" if d.n == 1 else "pairs") if d.by == "pairs" else
            ("run" if d.n == 1 else "runs") + " per variant",
            decide.MIN_REPEATS)
    if d.ci is None:
        return "no CI (no spread to resample) after %d runs per variant" % d.n
    if d.by == "pairs":
        return ("the 95%% CI over %d pairs still holds 1" % d.n
                if d.ci[0] <= 1.0 <= d.ci[1] else
                "the 95%% CI over %d pairs excludes 1" % d.n)
    if d.ci[0] <= 1.0 <= d.ci[1]:
        return "the 95%% CI still holds 1 after %d runs per variant" % d.n
    if d.p is not None and d.p < significance.ALPHA:
        # Welch agrees: a cell undecided only as its jobs ran apart
        return "the 95%% CI excludes 1 after %d runs per variant" % d.n
    return ("the 95%% CI excludes 1 but Welch's test does not agree%s "
            "after %d runs per variant"
            % (" (p=%s)" % significance.fmt_p(d.p) if d.p is not None
               else "", d.n))


def _undecided(d, busy, runs, name=REPEATS_FLAG, apart=None):
    if apart:       # more runs of the same would not run them together
        text = "undecided: %s, so these runs cannot decide it (%s)" % (
            apart, _why(d))
        if busy:
            text += "; the machine was busy in %d of %d runs" % (busy, runs)
        return text + "; stop the other load: more runs like these " \
            "measure little contention"
    text = "undecided: " + _why(d)
    if busy:
        return text + ("; the machine was busy in %d of %d runs: rerun idle "
                       "or with more repeats (%s)"
                       % (busy, runs, _rerun(d, name)))
    return text + ": rerun with more repeats (%s)" % _rerun(d, name)


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


def repeats_name():
    """The flag (or make variable) the advice names."""
    return os.environ.get(REPEATS_NAME_ENV) or REPEATS_FLAG


def verdict(d, entry, numjobs, busy, runs, name=REPEATS_FLAG,
            corun_pct=None):
    """The verdict in words (see the module's text); @corun_pct: the
    share of the runs the jobs ran together (inputs/corun.py)."""
    apart = seldom(numjobs, corun_pct)
    if apart or d.reason == "undecided" or d.ci is None:
        return _undecided(d, busy, runs, name, apart)
    way = _direction(d)
    if entry is None or entry.ratio is None:
        text = ("decided: %s %s" % (d.variant, "faster" if way > 0 else
                                    "slower") if way else
                "decided: no difference beyond ±%g%%"
                % (100 * decide.DEFAULT_PRECISION))
    elif way == 0:
        text = ("not reproduced: no difference beyond ±%g%% (published "
                "%+.1f%%)" % (100 * decide.DEFAULT_PRECISION,
                              100 * (entry.ratio - 1)))
    elif (way > 0) != (entry.ratio > 1):
        text = "not reproduced: the opposite direction"
        if busy:        # said first: the load may have made it
            return ("the machine was busy in %d of %d runs, and the runs "
                    "go against the published direction: rerun idle "
                    "before believing it; %s" % (busy, runs, text))
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
        ratio = "%s/%s x%.3f" % (row.variant, row.base, d.ratio)
        ci = render.fmt_ci(d.ci)
        decided = "undecided" if d.reason == "undecided" else \
            "decided (%s)" % ("pairs" if d.by == "pairs" else "Welch")
    e = row.entry
    if e is None or e.variant != row.variant:
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
         "highest numjobs: the geometric mean of the paired runs' ratios "
         "(each repeat's runs back to back, ABBA) and its 95%% t CI, "
         "decided (pairs) when the CI excludes 1 or is narrower than "
         "±%g%%; runs without pairs: the ratio of the means, 95%% "
         "bootstrap CI, decided (Welch) when it excludes 1 and Welch "
         "agrees; published: docs/scenarios.md"
         % (100 * decide.DEFAULT_PRECISION))
HEADER = ["scenario", "numjobs", "ratio", "95% CI", "decided", "published",
          "verdict"]


def table(summary_rows):
    """(title, header, rows, right) for render's text and Markdown."""
    return (TITLE, HEADER, [_cells(r) for r in summary_rows], {1, 2, 3})


def data(summary_rows):
    """The summary's rows as numbers, for --format json: per scenario the
    ratio, its CI, how and whether it is decided, the co-running share,
    the busy runs, the published ratio and the verdict in words."""
    out = []
    for r in summary_rows:
        d, e = r.decision, r.entry
        pct, jobs = r.corun or (None, 0)
        out.append({
            "scenario": r.scenario, "numjobs": r.numjobs, "base": r.base,
            "variant": r.variant,
            "ratio": d.ratio if d else None,
            "ci": list(d.ci) if d and d.ci else None,
            "n": d.n if d else None, "by": d.by if d else None,
            "decided": bool(d) and d.reason != "undecided",
            "reason": d.reason if d else None, "why": d.why if d else None,
            "p": d.p if d else None, "corun_pct": pct, "corun_jobs": jobs,
            "seldom_together": corun.seldom(r.numjobs, pct),
            "busy_runs": r.busy, "runs": r.runs,
            "published": e.ratio if e and e.variant == r.variant else None,
            "verdict": r.verdict})
    return out


def simulated_lines(summary_rows, simulated):
    """Per scenario with a big-box answer: "LABEL: on PROFILE at N CPUs:
    xG (lo..hi)", the simulator's gain there with its band, then on lines
    of their own what limits it and any caveat (@simulated:
    bigbox.summary_lines()); the text's wrap keeps each within 120
    columns."""
    return ["%s: %s" % (r.scenario, simulated[r.scenario])
            for r in summary_rows if r.scenario in (simulated or {})]


def corun_lines(summary_rows):
    """Per row whose runs recorded when their jobs ran: "co-running, LABEL
    at N jobs: the jobs ran together P% of the run (median over its
    runs)", or "not applicable (one job)" at 1 job."""
    out = []
    for r in summary_rows:
        pct, jobs = r.corun or (None, 0)
        if r.numjobs is None or not jobs:
            continue
        out.append("co-running, %s at %d job%s: %s" % (
            r.scenario, r.numjobs, "" if r.numjobs == 1 else "s",
            "not applicable (one job)" if r.numjobs == 1
            else "not measured" if pct is None else
            "the jobs ran together %.0f%% of the run (median over its "
            "runs)" % pct))
    return out


def lines(summary_rows, simulated=None):
    """The lines under the summary's table."""
    return simulated_lines(summary_rows, simulated) + \
        corun_lines(summary_rows)


SHORT_TITLE = ("bottom line: each scenario's fix against its pattern, IOPS "
               "at the highest numjobs (how it decides: report.md)")


# of the big-box text (bigbox.summary_lines()), the short answer keeps the
# band, --numjobs N's and the caveat; what limits the gain is in report.md
BOX_KEPT = ("--numjobs ", "caveat: ")


def _interval_text(d):
    """"x1.164, 95% CI 0.691..1.960 over 2 pairs": the ratio and the
    interval the table, the plot and the JSON show (stats/interval.py)."""
    out = "x%.3f" % d.ratio
    if d.ci is not None:
        out += ", 95%% CI %.3f..%.3f" % d.ci
    if d.by == "pairs":
        return out + " over %d pair%s" % (d.n, "" if d.n == 1 else "s")
    return out + ", unpaired" + (" (%s)" % d.unpaired if d.unpaired else "")


def _headline(verdict_text):
    """(the verdict's headline, its reasons): its words split at "; ",
    a long first part split once more after its first word."""
    parts = verdict_text.split("; ")
    word, _, first = parts[0].partition(": ")
    if len(parts[0]) <= 50 or not first:
        return parts[0], parts[1:]
    return word, [first] + parts[1:]


def short_lines(summary_rows, simulated=None, title=SHORT_TITLE):
    """The short answer's bottom line, hyperfine's way: per scenario one
    line of its ratio, interval and verdict, then on a line each the
    published figure, the big-box band (@simulated: bigbox.summary_lines())
    and its caveat, and each reason of the verdict."""
    out = [title]
    for r in summary_rows:
        d = r.decision
        if d is None or d.ratio is None:
            out.append("%s: %s" % (r.scenario, r.verdict))
            continue
        head, reasons = _headline(r.verdict)
        out.append("%s at %d job%s: %s/%s %s: %s" % (
            r.scenario, r.numjobs, "" if r.numjobs == 1 else "s",
            r.variant, r.base, _interval_text(d), head))
        pub = _cells(r)[5]
        if pub != "-":
            out.append("  published: " + pub)
        box = (simulated or {}).get(r.scenario)
        if box:
            first, *rest = box.split("\n")
            out.append("  big box, an estimate: " + first)
            out += ["    " + l.strip() for l in rest
                    if l.strip().startswith(BOX_KEPT)]
        out += ["  - " + why for why in reasons]
    return out


def short_text(summary_rows, simulated=None, title=SHORT_TITLE):
    """short_lines(), as text."""
    return "".join(l + "\n" for l in short_lines(summary_rows, simulated,
                                                  title))


def text(summary_rows, simulated=None):
    return render.text_table(*table(summary_rows)) + "\n" + \
        "".join(l + "\n" for l in lines(summary_rows, simulated))


def markdown(summary_rows, simulated=None):
    under = lines(summary_rows, simulated)
    return render.markdown_table(*table(summary_rows)) + "\n" + \
        ("\n" + "".join("- " + l + "\n" for l in under) if under else "")
