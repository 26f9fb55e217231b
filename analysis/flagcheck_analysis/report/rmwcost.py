"""The report's "why" section: what the always-dirty pattern costs per RMW
inside the runs, how much of it this machine's calibrated cache-line cost
accounts for, the line's ceiling on always-mode IOPS and the share of the
jobs' time spent in the modelled path.  What the patch would gain on a
bigger box is the simulator's estimate (report/bigbox.py: the big-box
answer, and simulated beside measured at each numjobs).

Per scenario and numjobs N, with the means over the repeats:
  ns per I/O (per job)   1e9 * N / IOPS (fio's IOPS, summed over the jobs)
  RMWs per I/O           the counters' rmw / fio's own total_ios (per run)
  stores per I/O         the counters' plain stores / fio's total_ios
  line writes per I/O    RMWs + stores per I/O: each takes the line
  gap                    ns per I/O of always - ns per I/O of test_first
  ns per write in run    gap / (line writes per I/O of always - of
                         test_first)
  calibrated ns per RMW  always ns per RMW - test_first ns per test_bit, per
                         thread, at N threads (calibration.json)
  accounted              calibrated / in the run
  ceiling                the line's calibrated RMWs per second at N threads
                         / line writes per I/O of always: an upper bound on
                         always-mode IOPS per shared mapping
Time share of the modelled path (per run, then the mean): the engine times
1 model call in timed_every (256; 64 in older files), with timed_calls and
timed_ns in each counters line, the clock's own cost taken off: a job's
time in the path = timed_ns / timed_calls *
its model calls (its ios, which equal fio's total_ios: the report leaves out
runs where they do not); the share = the jobs' time in the path / fio's
job_runtime (summed over the jobs). Records of version 1 (timed_checks)
are read with checks as the calls.
On a busy machine a timed call preempted between its two clock reads lasts
microseconds to milliseconds and weighs as much as timed_every - 1 untimed
calls: where the counters line has the timed calls by log2 of their ns
(timed_log2, timed_log2_ns), the ns per call is the mean of the timed calls
at most TRIM_BUCKETS buckets (a factor 2 each) above the median call's
bucket, which no genuine run can put beyond fio's job_runtime."""

import os
from collections import namedtuple

from ..results import fiojson, matrix, published
from ..stats import significance
from ..calibrate import calibration
from . import linecosts, render, sections

# S1, 7fcbbaf18392 (Jens Axboe, linux-mm, May 2014): "40% of the time in
# filemap_check_errors()" before the fix (published.py)
S1_MODEL = "filemap_check_errors"
S1_SHARE = published.S1_SHARE

ALWAYS, TEST_FIRST = "always", "test_first"

Run = namedtuple("Run", "iops total_ios rmw_per_io share ns_per_check "
                 "model source stores_per_io robust", defaults=(True,))
# rmw_io, stores_io: {mode: per fio I/O}; ns_rmw: the gap per extra line
# write (RMW or plain store: each takes the line)
Gap = namedtuple("Gap", "scenario numjobs iops ns_io rmw_io gap ns_rmw "
                 "cal_ns_rmw accounted ceiling of_ceiling stores_io",
                 defaults=(None,))
Share = namedtuple("Share", "scenario numjobs mode n ns_per_check share "
                   "published")


# ---- one run ----

def _num(x):
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) \
        else None


def job_runtime_ms(doc):
    """fio's job_runtime summed over the entries (under group_reporting
    fio already sums its jobs' runtimes into the group's)."""
    return sum(_num(e.get("job_runtime")) or 0 for e in fiojson.fio_jobs(doc))


# timed calls more than this many log2 buckets (x16..x32) above the
# median call's are left out of the ns per call: preempted, not the path's
TRIM_BUCKETS = 4


def _buckets(r, t_calls, t_ns):
    """The job's (calls, ns) by log2 bucket, or None where the line has
    none or they do not add up to its timed_calls and timed_ns."""
    hist, hist_ns = r.get("timed_log2"), r.get("timed_log2_ns")
    if not isinstance(hist, list) or not isinstance(hist_ns, list) or \
            len(hist) != len(hist_ns) or \
            any(_num(v) is None or v < 0 for v in hist + hist_ns):
        return None
    if sum(hist) != t_calls or sum(hist_ns) != t_ns:
        return None
    return hist, hist_ns


def trimmed_ns_per_call(hist, hist_ns):
    """The mean ns of the timed calls up to TRIM_BUCKETS buckets above the
    median call's bucket (None without calls)."""
    total, seen = sum(hist), 0
    for median, n in enumerate(hist):
        seen += n
        if 2 * seen >= total and total:
            break
    else:
        return None
    keep = median + TRIM_BUCKETS + 1
    calls = sum(hist[:keep])
    return sum(hist_ns[:keep]) / calls


def _job_ns_per_call(r, t_calls, t_ns):
    """(ns per model call of one job, robust: from its buckets)"""
    b = _buckets(r, t_calls, t_ns)
    if b is None:
        return t_ns / t_calls, False
    return trimmed_ns_per_call(*b), True


def time_share(stats_records, runtime_ms):
    """(share in %, ns per check) of one run; share None when a job ran
    checks but has no timed ones (or the engine does not time them)."""
    share, ns, _ = time_share_of(stats_records, runtime_ms)
    return share, ns


def time_share_of(stats_records, runtime_ms):
    """(share in %, ns per check, robust): robust when every job's line
    has its timed calls by bucket (trimmed of preempted calls)."""
    in_path, weighted, timed, robust = 0.0, 0.0, 0, True
    for r in stats_records:
        if "timed_calls" in r:          # version 2: every I/O calls it
            checks = _num(r.get("ios")) or 0
            t_checks = _num(r.get("timed_calls"))
        else:
            checks = _num(r.get("checks")) or 0
            t_checks = _num(r.get("timed_checks"))
        if not checks:
            continue                    # no model ran in this job: 0 ns
        t_ns = _num(r.get("timed_ns"))
        if not t_checks or t_ns is None:
            return None, None, False
        per_call, job_robust = _job_ns_per_call(r, t_checks, t_ns)
        robust = robust and job_robust
        in_path += per_call * checks
        weighted += per_call * t_checks
        timed += t_checks
    if not runtime_ms:
        return None, None, False
    return (100.0 * in_path / (runtime_ms * 1e6),
            weighted / timed if timed else None, robust)


def run_figures(doc, stats_records, iops, source=None):
    """Run of one fio run and its counters (None: no counters)."""
    ios = fiojson.fio_total_ios(doc)
    rmw_io = share = ns_check = model = stores_io = None
    if stats_records:
        rmws = [_num(r.get("rmw")) for r in stats_records]
        if ios and None not in rmws:
            rmw_io = sum(rmws) / ios
        stores = [_num(r.get("stores")) for r in stats_records]
        if ios and None not in stores:      # counted by model=pattern
            stores_io = sum(stores) / ios
        share, ns_check, robust = time_share_of(stats_records,
                                                job_runtime_ms(doc))
        model = stats_records[0].get("model")
        return Run(iops, ios, rmw_io, share, ns_check, model, source,
                   stores_io, robust)
    return Run(iops, ios, rmw_io, share, ns_check, model, source, stores_io)


def _stats_of(record, stats):
    """The run's counters: the ones the report read for it (@stats,
    {fio JSON path: records}: its manifest entry's file), else the file
    beside its fio JSON, never through a link."""
    if stats is not None:
        return stats.get(record.source)
    path = matrix.stats_path_for_json(record.source)
    if os.path.islink(path):
        return None
    try:
        return fiojson.load_stats(path)
    except fiojson.InputError:
        return None                     # the report has named it already


def runs(records, docs, stats=None):
    """{(scenario, numjobs, mode): [Run]}; @stats: see _stats_of()."""
    out = {}
    for rec, doc in zip(records, docs):
        out.setdefault((rec.scenario, rec.numjobs, rec.mode), []).append(
            run_figures(doc, _stats_of(rec, stats), rec.metrics.get("iops"),
                        rec.source))
    return out


def _mean(values):
    values = [v for v in values if v is not None]
    return significance.mean(values) if values else None


# ---- the tables' figures ----

def gaps(groups, cal):
    """One Gap per scenario and numjobs that has both always and
    test_first runs."""
    out = []
    for scenario, nj in sorted({(s, n) for s, n, _ in groups}):
        a, t = groups.get((scenario, nj, ALWAYS)), \
            groups.get((scenario, nj, TEST_FIRST))
        if not a or not t:
            continue
        iops = {m: _mean(r.iops for r in rs) for m, rs in ((ALWAYS, a),
                                                          (TEST_FIRST, t))}
        rmw = {m: _mean(r.rmw_per_io for r in rs)
               for m, rs in ((ALWAYS, a), (TEST_FIRST, t))}
        stores = {m: _mean(r.stores_per_io for r in rs)
                  for m, rs in ((ALWAYS, a), (TEST_FIRST, t))}
        writes = {m: None if rmw[m] is None else rmw[m] + (stores[m] or 0)
                  for m in rmw}
        ns_io = {m: 1e9 * nj / v if v else None for m, v in iops.items()}
        gap = ns_rmw = None
        if None not in ns_io.values():
            gap = ns_io[ALWAYS] - ns_io[TEST_FIRST]
            extra = None if None in writes.values() \
                else writes[ALWAYS] - writes[TEST_FIRST]
            ns_rmw = gap / extra if extra else None
        cal_ns = accounted = ceiling = of_ceiling = None
        pa = calibration.point(cal, ALWAYS, nj) if cal else None
        pt = calibration.point(cal, TEST_FIRST, nj) if cal else None
        if pa and pt:
            # test_first dearer: no cost per RMW (dearer_test_first)
            if pt["ns_per_op"] < pa["ns_per_op"]:
                cal_ns = pa["ns_per_op"] - pt["ns_per_op"]
            if cal_ns and ns_rmw and ns_rmw > 0:
                accounted = cal_ns / ns_rmw
            if writes[ALWAYS]:
                ceiling = pa["ops_per_s"] / writes[ALWAYS]
                if iops[ALWAYS]:
                    of_ceiling = iops[ALWAYS] / ceiling
        out.append(Gap(scenario, nj, iops, ns_io, rmw, gap, ns_rmw, cal_ns,
                       accounted, ceiling, of_ceiling, stores))
    return out


def shares(groups):
    out = []
    for scenario, nj, mode in sorted(groups):
        rs = groups[(scenario, nj, mode)]
        s1 = any(r.model == S1_MODEL for r in rs)
        out.append(Share(scenario, nj, mode, len(rs),
                         _mean(r.ns_per_check for r in rs),
                         _mean(r.share for r in rs),
                         S1_SHARE if s1 and mode == ALWAYS else None))
    return out


# ---- rendering ----

def _f(v, fmt="%.1f"):
    return "-" if v is None else fmt % v


def _pct(v):
    return "-" if v is None else "%.1f%%" % v


def _ns_rmw_text(g):
    """ns per line write in the run, or why there is none to give."""
    if g.gap is not None and g.gap <= 0:
        return "none: test_first not faster here"
    return _f(g.ns_rmw)


def _accounted_text(g):
    """calibrated / in the run, or why it cannot be read as a share."""
    if g.cal_ns_rmw is None:
        return "-"
    if g.gap is not None and g.gap <= 0:
        return "none: no gap to account for"
    if g.accounted is not None and g.accounted > 1:
        return ("beyond 100%% (x%.1f): the runs' RMWs cost less than the "
                "calibration's, as when the jobs seldom ran at once"
                % g.accounted)
    return _pct(None if g.accounted is None else 100 * g.accounted)


def gap_table(rows, cal):
    header = ["scenario", "numjobs", "always ns/io", "test_first ns/io",
              "gap ns/io", "RMW/io always", "RMW/io test_first",
              "stores/io always", "stores/io test_first",
              "ns/write in run", "ns/RMW calibrated", "accounted",
              "ceiling IOPS", "always/ceiling"]
    body = []
    for g in rows:
        stores = g.stores_io or {}
        body.append([g.scenario, str(g.numjobs), _f(g.ns_io[ALWAYS]),
                     _f(g.ns_io[TEST_FIRST]), _f(g.gap),
                     _f(g.rmw_io[ALWAYS], "%.3f"),
                     _f(g.rmw_io[TEST_FIRST], "%.3f"),
                     _f(stores.get(ALWAYS), "%.3f"),
                     _f(stores.get(TEST_FIRST), "%.3f"), _ns_rmw_text(g),
                     _f(g.cal_ns_rmw, "%.2f"), _accounted_text(g),
                     "-" if g.ceiling is None
                     else render.fmt_value(g.ceiling),
                     _pct(None if g.of_ceiling is None
                          else 100 * g.of_ceiling)])
    title = ("why: the cost of always-dirty per line write, an RMW or a "
             "plain store (per job: ns/io = 1e9 x numjobs / IOPS; RMW/io, "
             "stores/io = counters' rmw, stores / fio's total_ios; "
             "ns/write in run = gap / extra (RMW + stores)/io; calibrated: "
             "always - test_first per op at numjobs threads%s; ceiling = "
             "the line's calibrated RMW/s at numjobs threads / (RMW + "
             "stores)/io always)"
             % ("" if cal else ", no calibration.json: '-'"))
    return title, header, body, set(range(1, len(header)))


def share_table(rows):
    header = ["scenario", "numjobs", "mode", "runs", "ns per check",
              "share of job time", "published"]
    body = [[s.scenario, str(s.numjobs), s.mode, str(s.n),
             _f(s.ns_per_check), _pct(s.share),
             "-" if s.published is None else "%.0f%% (S1, before the fix)"
             % s.published] for s in rows]
    published_text = ("; published: 7fcbbaf18392, 'time in "
                      "filemap_check_errors()'"
                      if any(s.published is not None for s in rows) else "")
    return ("time share of the modelled path (engine-timed: a sample of the "
            "model's calls, timed_every in the counters; "
            "share = ns per check x checks / fio's job_runtime%s)"
            % published_text, header, body, {1, 3, 4, 5})


class Section(sections.Section):
    """The section's figures, rendered as text or markdown; it follows the
    report's body on stdout and in report.md, with the heatmap of the
    calibration beside report.md."""
    plots = "heatmap"

    def __init__(self, cal, gap_rows, share_rows, heatmap):
        self.cal, self.gap_rows, self.share_rows = cal, gap_rows, share_rows
        self.heatmap = heatmap

    def _tables(self):
        out = []
        if self.gap_rows:
            out.append(gap_table(self.gap_rows, self.cal))
        if self.share_rows:
            out.append(share_table(self.share_rows))
        return out

    def text(self):
        parts = [linecosts.text(self.cal).rstrip("\n")] if self.cal else []
        parts += [render.text_table(*t) for t in self._tables()]
        return "\n\n".join(parts) + "\n"

    def markdown(self):
        parts = [linecosts.markdown(self.cal, self.heatmap).rstrip("\n")] \
            if self.cal else []
        parts += [render.markdown_table(*t) for t in self._tables()]
        return "## Why\n\n" + "\n\n".join(parts) + "\n"

    def block(self, fmt):
        return getattr(self, fmt)()

    def draw(self, outdir):
        """The heatmap, named in the section's Markdown once drawn; not
        one of the report's "plots"."""
        if self.cal is not None:
            linecosts.heatmap(self.cal, os.path.join(outdir,
                                                     calibration.PNG_NAME))
            self.heatmap = calibration.PNG_NAME
        return False

    def appendix(self):
        return self.markdown()


# ---- the report's options and its one call ----

def _results_calibration(inputs, warn):
    for item in inputs:
        path = os.path.join(item, calibration.JSON_NAME)
        if os.path.isdir(item) and os.path.lexists(path):
            try:
                if os.path.islink(path):
                    raise calibration.CalibrationError(
                        "%s: a symbolic link (refused: nothing outside the "
                        "results directory is read)" % path)
                cal = calibration.load(path)
                for line in dearer_test_first(cal, path):
                    warn(line)
                return cal
            except calibration.CalibrationError as e:
                warn("%s (the calibrated columns are left out)" % e)
    return None


def dearer_test_first(cal, path):
    """A line per thread count where the calibration's test_first (a
    read) costs no less than always (two RMWs): no cost per RMW there
    (gaps() leaves it out), as when a busy machine preempted the
    threads."""
    out = []
    for i, t in enumerate(cal["patterns"][TEST_FIRST]):
        a = calibration.point(cal, ALWAYS, t["threads"])
        if a is not None and t["ns_per_op"] >= a["ns_per_op"]:
            out.append("%s: patterns.test_first[%d].ns_per_op is %g, not "
                       "below always's %g at %d threads: no calibrated cost "
                       "per RMW at %d jobs (measured on a busy machine?)"
                       % (path, i, t["ns_per_op"], a["ns_per_op"],
                          t["threads"], t["threads"]))
    return out


def share_warning(r):
    """What a run's time share beyond 100% says, or None: with the timed
    calls by bucket it cannot be genuine; without them (an older engine) a
    busy machine's preempted calls can do it."""
    if r.share is None or r.share <= 100:
        return None
    if r.robust:
        return ("%s: its counters put %.1f%% of the jobs' time in the "
                "modelled path, more than fio's job_runtime even without "
                "the calls a busy machine preempted: timed_log2_ns, "
                "timed_calls or ios are wrong" % (r.source, r.share))
    return ("%s: its counters put %.1f%% of the jobs' time in the modelled "
            "path, more than fio's job_runtime: its counters (an older "
            "engine) lack timed_log2, and a busy machine's preempted calls "
            "weigh in full there" % (r.source, r.share))


def build(args, records, docs, warn, stats=None):
    """The Section, or None when there is nothing to show; @stats: the
    counters the report read, {fio JSON path: records}."""
    cal = _results_calibration(args.inputs, warn)
    groups = runs(records, docs, stats)
    for r in (r for rs in groups.values() for r in rs):
        text = share_warning(r)
        if text:
            warn(text)
    share_rows = [s for s in shares(groups) if s.share is not None]
    if cal is None and not share_rows:
        return None
    return Section(cal, gaps(groups, cal), share_rows, None)
