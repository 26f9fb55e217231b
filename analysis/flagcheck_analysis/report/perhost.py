"""Runs on several hosts (fio client/server): one row per host, the sum
of the hosts, and fio's own 'All clients' entry, per scenario and numjobs;
and what the check of 'All clients' against the sum found."""

from collections import namedtuple

from ..stats import significance
from .render import fmt_mean_sd, fmt_value
from ..stats.compare import cell

SUM_ROW = "sum of hosts"
FIO_ROW = "fio 'All clients'"

# One host (or SUM_ROW / FIO_ROW) in one run; metrics as fiojson.run_metrics.
HostRecord = namedtuple("HostRecord", "scenario variant numjobs host metrics")
# One run's check (clients.check_all_clients) and where it came from.
Check = namedtuple("Check", "source result")


def _group(records):
    out = {}
    for r in records:
        out.setdefault((r.scenario, r.numjobs), {}).setdefault(
            r.host, {}).setdefault(r.variant, []).append(r.metrics)
    return out


def tables(records, variants):
    """(title, header, rows, right) per scenario and numjobs."""
    base = variants[0]
    out = []
    for (scenario, numjobs), by_host in sorted(_group(records).items()):
        header = ["host"]
        for variant in variants:
            header.append("%s iops" % variant)
        for variant in variants[1:]:
            header += ["%change", "verdict"]
        header += ["%s rmw/io" % variant for variant in variants]
        header += ["%s stores/io" % variant for variant in variants]
        rows = []
        order = sorted(h for h in by_host if h not in (SUM_ROW, FIO_ROW))
        for host in order + [SUM_ROW, FIO_ROW]:
            runs = by_host.get(host)
            if runs is None:
                continue
            cells = {m: cell(m, runs.get(m, []), "iops") for m in variants}
            row = [host] + [fmt_mean_sd(cells[m]) for m in variants]
            for variant in variants[1:]:
                change = significance.pct_change(cells[base].mean,
                                                 cells[variant].mean)
                row += ["-" if change is None else "%+.1f%%" % change,
                        significance.verdict(cells[base].values,
                                      cells[variant].values).text]
            for key in ("rmw_per_io", "stores_per_io"):
                for variant in variants:
                    c = cell(variant, runs.get(variant, []), key)
                    row.append(fmt_value(c.mean) if c.n else "-")
            rows.append(row)
        right = set(range(1, len(header)))
        right -= {1 + len(variants) + 2 * i + 1 for i in range(len(variants) - 1)}
        out.append(("hosts: %s, numjobs=%d per host (IOPS mean ± %%stddev; "
                    "rmw/io and stores/io from each host's engine counters)"
                    % (scenario, numjobs), header, rows, right))
    return out


def check_lines(checks):
    """What the check of fio's 'All clients' entry against the sum of the
    hosts found, over all runs: a few lines for the report's header."""
    if not checks:
        return []
    absent = [c for c in checks if c.result["status"] == "absent"]
    differs = [c for c in checks if c.result["status"] == "differs"]
    equal = [c for c in checks if c.result["status"] == "equal"]
    out = ["fio 'All clients' against the sum of the hosts, %d runs: I/O "
           "and byte counts equal in %d, differ in %d, entry absent in %d"
           % (len(checks), len(equal), len(differs), len(absent))]
    offs = []
    for c in equal + differs:
        fio_v, sum_v = c.result["fields"].get("iops", (None, None))
        if fio_v is not None and sum_v:
            offs.append(100.0 * (fio_v - sum_v) / sum_v)
    if offs:
        out.append("fio 'All clients' iops against the sum: %+.2f%% .. "
                   "%+.2f%% (fio divides all I/Os by the longest job's "
                   "runtime); the tables use the sum"
                   % (min(offs), max(offs)))
    for c in differs:
        f = c.result["fields"]
        out.append("WARNING: %s: fio 'All clients' %s" % (c.source, ", ".join(
            "%s=%s, sum of hosts %s" % (k, fmt_value(v[0]), fmt_value(v[1]))
            for k, v in f.items() if k != "iops" and v[0] != v[1])))
    for c in absent:
        if c.result["entries"] > 1:
            out.append("note: %s: no 'All clients' entry (fio omits it "
                       "when a client left early or sent one entry)"
                       % c.source)
    return out
