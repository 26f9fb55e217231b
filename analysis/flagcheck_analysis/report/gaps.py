"""What the always-dirty pattern costs per line write inside the runs, and
how much of it this machine's calibrated cost accounts for, per scenario
and numjobs: ns per I/O, RMWs and stores per I/O, the gap, ns per write in
the run, the calibrated ns per RMW, the share accounted for and the line's
ceiling. Each column: docs/analysis.md, "Calibration and the why section"."""

from collections import namedtuple

from ..stats import significance
from ..inputs import calibfile

ALWAYS, TEST_FIRST = "always", "test_first"

# rmw_io, stores_io: {variant: per fio I/O}; ns_rmw: the gap per extra line
# write (RMW or plain store: each takes the line)
Gap = namedtuple("Gap", "scenario numjobs iops ns_io rmw_io gap ns_rmw "
                 "cal_ns_rmw accounted ceiling of_ceiling stores_io",
                 defaults=(None,))


def _writes(run):
    if run.rmw_per_io is None:
        return None
    return run.rmw_per_io + (run.stores_per_io or 0)


def real_extra(a, t, extra):
    """True where @extra (always's line writes per I/O less
    test_first's, over the runs @a and @t) is a difference of counts, not
    the residue of dividing equal counts by each run's own total_ios:
    larger than one write in the shortest run and than the spread of
    either form's per-run writes per I/O."""
    if not extra:
        return False
    floor = [1.0 / r.total_ios for r in list(a) + list(t) if r.total_ios]
    for runs in (a, t):
        w = [x for x in map(_writes, runs) if x is not None]
        if w:
            floor.append(max(w) - min(w))
    return abs(extra) > max(floor or [0.0])


def gaps(groups, cal):
    """One Gap per scenario and numjobs of @groups ({(scenario, numjobs,
    variant): [runfigures.Run]}) that has both always and test_first runs."""
    out = []
    for scenario, nj in sorted({(s, n) for s, n, _ in groups}):
        a, t = groups.get((scenario, nj, ALWAYS)), \
            groups.get((scenario, nj, TEST_FIRST))
        if not a or not t:
            continue
        mean = significance.mean_of_known
        iops = {m: mean(r.iops for r in rs) for m, rs in ((ALWAYS, a),
                                                         (TEST_FIRST, t))}
        rmw = {m: mean(r.rmw_per_io for r in rs)
               for m, rs in ((ALWAYS, a), (TEST_FIRST, t))}
        stores = {m: mean(r.stores_per_io for r in rs)
                  for m, rs in ((ALWAYS, a), (TEST_FIRST, t))}
        writes = {m: None if rmw[m] is None else rmw[m] + (stores[m] or 0)
                  for m in rmw}
        ns_io = {m: 1e9 * nj / v if v else None for m, v in iops.items()}
        gap = ns_rmw = None
        if None not in ns_io.values():
            gap = ns_io[ALWAYS] - ns_io[TEST_FIRST]
            extra = None if None in writes.values() \
                else writes[ALWAYS] - writes[TEST_FIRST]
            ns_rmw = gap / extra if real_extra(a, t, extra) else None
        cal_ns = accounted = ceiling = of_ceiling = None
        pa = calibfile.point(cal, ALWAYS, nj) if cal else None
        pt = calibfile.point(cal, TEST_FIRST, nj) if cal else None
        if pa and pt:
            # test_first dearer: no cost per RMW (dearer_test_first)
            if pt["ns_per_op"] < pa["ns_per_op"]:
                cal_ns = pa["ns_per_op"] - pt["ns_per_op"]
            if cal_ns and ns_rmw and ns_rmw > 0:
                accounted = cal_ns / ns_rmw
            rate = calibfile.line_rate(cal, nj)[0]
            if writes[ALWAYS] and rate:
                ceiling = rate / writes[ALWAYS]
                if iops[ALWAYS]:
                    of_ceiling = iops[ALWAYS] / ceiling
        out.append(Gap(scenario, nj, iops, ns_io, rmw, gap, ns_rmw, cal_ns,
                       accounted, ceiling, of_ceiling, stores))
    return out


def dearer_test_first(cal, path):
    """A line per thread count where the calibration's test_first (a
    read) costs no less than always (two RMWs): no cost per RMW there
    (gaps() leaves it out), as when a busy machine preempted the
    threads."""
    out = []
    for i, t in enumerate(cal["patterns"][TEST_FIRST]):
        a = calibfile.point(cal, ALWAYS, t["threads"])
        if a is not None and t["ns_per_op"] >= a["ns_per_op"]:
            out.append("%s: patterns.test_first[%d].ns_per_op is %g, not "
                       "below always's %g at %d threads: no calibrated cost "
                       "per RMW at %d jobs (measured on a busy machine?)"
                       % (path, i, t["ns_per_op"], a["ns_per_op"],
                          t["threads"], t["threads"]))
    return out
