"""The report's header: the runs per variant, the host, fio and the engine
of each manifest, the hosts of a client/server run and the runs left out
without them, the conditions of the runs (conditions.py), the setups
reported apart, the runs whose counters disagree with fio's, and what the
comparison's columns mean."""

from ..inputs import textfile
from ..stats import compare, significance
from . import conditions, perhost
from .messages import warn


def _host_lines(hrecords, checks, manifests):
    out = []
    partial = [e for m in manifests for e in m.get("runs", ())
               if isinstance(e, dict) and e.get("status") == "partial"]
    if hrecords:
        names = sorted({r.host for r in hrecords} - {perhost.SUM_ROW,
                                                     perhost.FIO_ROW})
        out.append("hosts: %d (%s), fio client/server; the tables above the "
                   "per-host ones sum the hosts" % (len(names),
                                                    ", ".join(names)))
        out.append("the flags word is per host: numjobs is per host, and "
                   "only jobs on the same host share its cache line")
        out += perhost.check_lines(checks)
    for e in partial:
        down = ["%s (%s)" % (h.get("spec", "?"), h["status"])
                for h in (e.get("hosts") or {}).values()
                if h.get("status") in ("down", "failed")]
        out.append("WARNING: %s left out: ran without host(s) %s; "
                   "flagcheck run again reruns it" % (
                       e.get("name", "?"), ", ".join(down)))
    return out


def _run_lines(records, docs, manifests, base):
    out = ["runs: %d (%s)" % (len(records), ", ".join(
        "%s n=%d" % (m, sum(1 for r in records if r.variant == m))
        for m in compare.variant_order(records, base)))]
    for m in manifests:
        host = m.get("host") or {}
        out.append(textfile.printable("host: %s, %s, %s cores, kernel %s" % (
            host.get("hostname", "?"), host.get("cpu_model", "?"),
            host.get("cores", "?"), host.get("kernel", "?"))))
        out.append(textfile.printable("fio: %s, engine: %s, started %s" % (
            m.get("fio_version", "?"), m.get("engine_version", "?"),
            m.get("started", "?"))))
        if not m.get("complete"):
            out.append("WARNING: the matrix is incomplete "
                       "(manifest complete=false)")
    if not manifests:
        versions = sorted({d.get("fio version", "?") for d in docs})
        out.append("fio: %s" % ", ".join(versions))
    out.append("columns: per variant 'mean ± %%stddev' (sample stddev in %% of "
               "the mean); %%change against %s; ratio 95%% CI: the one "
               "interval of the ratio, the summary's and the plot's: over "
               "the pairs (variant/%s of each repeat, Student's t over their "
               "logs) where the runs pair up, else unpaired (the verdict "
               "says why): percentile bootstrap of mean(variant)/mean(%s), "
               "%d resamples, seed %d, with Welch's test; verdict: a "
               "difference beyond the noise where that CI excludes 1 "
               "(unpaired: and Welch agrees), two-sided at alpha %g"
               % (base, base, base, significance.BOOTSTRAP_ITERATIONS,
                  significance.BOOTSTRAP_SEED, significance.ALPHA))
    return out


def short(head):
    """The header lines of the short answer: the runs, and every
    warning (an incomplete matrix, a host left out, setups reported
    apart)."""
    return head[:1] + [l for l in head[1:] if l.startswith("WARNING: ")]


def lines(args, runs, manifests, ok_runs):
    """The header lines; runs: load_records() and the runs left out."""
    records, docs, hrecords, checks, apart, left_out = runs
    head = _run_lines(records, docs, manifests, args.base)
    head[-1:-1] = _host_lines(hrecords, checks, manifests) + \
        conditions.header_lines(manifests, ok_runs, args.exclude_busy) + \
        apart
    for line in apart:
        warn(line[len("WARNING: "):])
    head[-1:-1] = ["left out (counters disagree with fio's): %s: %s"
                   % (path, why) for path, why in left_out]
    return head
