"""The share of the jobs' time spent in the modelled path, from the engine's
timed sample of model calls (timed_every): per run, and per scenario,
numjobs and variant, with what a share beyond 100% says; a call preempted
between its clock reads is trimmed (TRIM_BUCKETS). docs/analysis.md,
"Calibration and the why section"; docs/engine-options.md."""

from collections import namedtuple

from ..inputs import fiojson, published
from ..stats import significance

# S1, 7fcbbaf18392 (Jens Axboe, linux-mm, May 2014): "40% of the time in
# filemap_check_errors()" before the fix (published.py), that is in the
# always variant
S1_MODEL = "filemap_check_errors"
S1_SHARE = published.S1_SHARE
S1_VARIANT = "always"

Share = namedtuple("Share", "scenario numjobs variant n ns_per_check share "
                   "published")


def job_runtime_ms(doc):
    """fio's job_runtime summed over the entries (under group_reporting
    fio already sums its jobs' runtimes into the group's)."""
    return sum(fiojson.number_or_none(e.get("job_runtime")) or 0
               for e in fiojson.fio_jobs(doc))


# timed calls more than this many log2 buckets (x16..x32) above the
# median call's are left out of the ns per call: preempted, not the path's
TRIM_BUCKETS = 4


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


def time_share(counters, runtime_ms):
    """(share in %, ns per call) of one run from its counters lines (the
    reader's: timed calls with their buckets); share None when a job ran
    model calls but timed none."""
    in_path, weighted, timed = 0.0, 0.0, 0
    for r in counters:
        calls = fiojson.number_or_none(r.get("ios")) or 0
        if not calls:
            continue                    # no model ran in this job: 0 ns
        t_calls = fiojson.number_or_none(r.get("timed_calls"))
        if not t_calls:
            return None, None
        per_call = trimmed_ns_per_call(r["timed_log2"], r["timed_log2_ns"])
        in_path += per_call * calls
        weighted += per_call * t_calls
        timed += t_calls
    if not runtime_ms:
        return None, None
    return (100.0 * in_path / (runtime_ms * 1e6),
            weighted / timed if timed else None)


def shares(groups):
    """One Share per scenario, numjobs and variant of @groups ({(scenario,
    numjobs, variant): [runfigures.Run]}): the means over its runs."""
    out = []
    for scenario, nj, variant in sorted(groups):
        rs = groups[(scenario, nj, variant)]
        s1 = any(r.model == S1_MODEL for r in rs)
        out.append(Share(scenario, nj, variant, len(rs),
                         significance.mean_of_known(
                             r.ns_per_check for r in rs),
                         significance.mean_of_known(r.share for r in rs),
                         S1_SHARE if s1 and variant == S1_VARIANT else None))
    return out


def share_warning(r):
    """What a run's time share beyond 100% says, or None: without the calls
    a busy machine preempted it cannot be genuine."""
    if r.share is None or r.share <= 100:
        return None
    return ("%s: its counters put %.1f%% of the jobs' time in the "
            "modelled path, more than fio's job_runtime even without "
            "the calls a busy machine preempted: timed_log2_ns, "
            "timed_calls or ios are wrong" % (r.source, r.share))
