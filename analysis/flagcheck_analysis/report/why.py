"""The report's "why" section: what the always-dirty pattern costs per line
write inside the runs against this machine's calibrated cache-line cost,
the line's ceiling on always-variant IOPS (gaps.py) and the share of the
jobs' time spent in the modelled path (timeshare.py), as tables, beside
the calibration's line costs and heatmap (linecosts.py).  What the patch
would gain on a bigger box is the simulator's estimate (report/bigbox.py:
the big-box answer, and simulated beside measured at each numjobs)."""

import os

from ..inputs import calibfile
from ..machines import calibmachine
from ..machines.profile import MachineError
from . import gaps, linecosts, render, runfigures, sections, timeshare
from .gaps import ALWAYS, TEST_FIRST


def _f(v, fmt="%.1f"):
    return "-" if v is None else fmt % v


def _pct(v):
    return "-" if v is None else "%.1f%%" % v


def _ns_rmw_text(g):
    """ns per line write in the run, or why there is none to give."""
    if g.gap is not None and g.gap <= 0:
        return "none: test_first not faster here"
    if g.gap is not None and g.ns_rmw is None and \
            None not in (g.rmw_io or {None: None}).values():
        return "none: both forms write the line as often"
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
    header = ["scenario", "numjobs", "variant", "runs", "ns per check",
              "share of job time", "published"]
    body = [[s.scenario, str(s.numjobs), s.variant, str(s.n),
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

    def __init__(self, cal, gap_rows, share_rows, heatmap, check=None):
        self.cal, self.gap_rows, self.share_rows = cal, gap_rows, share_rows
        self.heatmap = heatmap
        self.check = check      # calibmachine.ProbeCheck, or None

    def _tables(self):
        out = []
        if self.gap_rows:
            out.append(gap_table(self.gap_rows, self.cal))
        if self.share_rows:
            out.append(share_table(self.share_rows))
        return out

    def text(self):
        parts = [linecosts.text(self.cal, self.check).rstrip("\n")] \
            if self.cal else []
        parts += [render.text_table(*t) for t in self._tables()]
        return "\n\n".join(parts) + "\n"

    def markdown(self):
        parts = [linecosts.markdown(self.cal, self.heatmap,
                                    self.check).rstrip("\n")] \
            if self.cal else []
        parts += [render.markdown_table(*t) for t in self._tables()]
        return "## Why\n\n" + "\n\n".join(parts) + "\n"

    def block(self, fmt):
        return render.in_format(fmt, self.text, self.markdown)()

    def draw(self, outdir):
        """The heatmap, named in the section's Markdown once drawn; not
        one of the report's "plots"."""
        if self.cal is not None:
            linecosts.heatmap(self.cal, os.path.join(
                outdir, calibfile.PNG_NAME), self.check)
            self.heatmap = calibfile.PNG_NAME
        return False

    def appendix(self):
        return self.markdown()


def _results_calibration(inputs, warn):
    """(the results' calibration.json, its path), or (None, None)."""
    for item in inputs:
        path = os.path.join(item, calibfile.JSON_NAME)
        if os.path.isdir(item) and os.path.lexists(path):
            try:
                if os.path.islink(path):
                    raise calibfile.CalibrationError(
                        "%s: a symbolic link (refused: nothing outside the "
                        "results directory is read)" % path)
                cal = calibfile.load(path)
                for line in gaps.dearer_test_first(cal, path):
                    warn(line)
                return cal, path
            except calibfile.CalibrationError as e:
                warn("%s (the calibrated columns are left out)" % e)
    return None, None


def _check(cal, path, entries):
    """calibmachine.check_probes() of the calibration against the runs'
    line probes (@entries: manifest run entries), or None."""
    try:
        return calibmachine.check_probes(
            calibmachine.CalibratedMachine(cal, path), entries)
    except (MachineError, ValueError):
        return None


def build(args, records, docs, warn, counters=None, entries=()):
    """The Section, or None when there is nothing to show; @counters: the
    counters the report read, {fio JSON path: records}; @entries: the
    manifests' run entries, whose line probes say whether the report used
    the calibration between the runs' CPUs."""
    cal, path = _results_calibration(args.inputs, warn)
    groups = runfigures.runs(records, docs, counters)
    for r in (r for rs in groups.values() for r in rs):
        text = timeshare.share_warning(r)
        if text:
            warn(text)
    share_rows = [s for s in timeshare.shares(groups) if s.share is not None]
    if cal is None and not share_rows:
        return None
    return Section(cal, gaps.gaps(groups, cal), share_rows, None,
                   _check(cal, path, entries) if cal else None)
