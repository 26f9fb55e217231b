"""A record of the engine's counters file (a JSON Lines line that
engine/stats.c writes, one per job): its version, its fields and what one
record can hold.  fiojson.load_counters reads the file through check()."""

from . import corun, schema

# the version engine/stats.c writes ("flagcheck": 2): the variant named
# "variant", every I/O one model call (ios, by direction), timed_calls
# with their log2 buckets
VERSION = 2
# the engine's counts in a record, each a whole number of 0 or more
COUNTERS = ("ios", "checks", "rmw", "rmw_skipped", "stores", "errors_set",
            "errors_reported", "stores_skipped")
U64_MAX = 2 ** 64 - 1
# fio's job options as fio JSON holds them, the engine's "options" alike
OPTIONS = schema.Map(schema.OneOf(schema.STR, schema.NUM, schema.BOOL))
_U64 = schema.whole(0, U64_MAX)
_U64S = schema.List(_U64)
# what the report reads of a counters line (engine/stats.c writes it):
# strings where the engine writes strings, its counts unsigned 64-bit
STATS_SCHEMA = schema.Obj(dict(
    {k: _U64 for k in COUNTERS + ("ios_read", "ios_write", "ios_other",
                                  "issued", "timed_calls", "timed_ns",
                                  "inject_every")},
    job=schema.STR, thread_number=schema.whole(1, U64_MAX),
    pid=schema.INT, model=schema.STR, variant=schema.STR,
    mapping=schema.STR, backend=schema.STR,
    inject=schema.STR, timed_every=schema.whole(1, U64_MAX),
    options=OPTIONS, timed_log2=_U64S, timed_log2_ns=_U64S,
    paths=schema.Map(schema.Map(_U64))))
# (model_stats: read by the bh_lru table alone, which checks its own)
# Each path's counts (rmw, skipped, stores, stores_skipped, retries) are
# unsigned 64-bit; a retry (a failed compare-and-swap attempt) is also one
# of the path's rmw, so a path has at most as many retries as rmw.


def _check_retries(rec):
    for name, counts in (rec.get("paths") or {}).items():
        retries, rmw = counts.get("retries", 0), counts.get("rmw", 0)
        if retries > rmw:
            raise schema.Invalid("paths.%s.retries" % name, retries,
                                 "at most the path's rmw (%d): each retry "
                                 "is one of its attempts" % rmw)


def _check_timed(rec):
    """The timed calls by log2 bucket (timed_log2, timed_log2_ns) come
    with any timed call and add up to timed_calls and timed_ns."""
    if not rec.get("timed_calls") and not rec.get("timed_ns") and \
            "timed_log2" not in rec and "timed_log2_ns" not in rec:
        return                          # nothing timed: nothing to bucket
    for key, total in (("timed_log2", "timed_calls"),
                       ("timed_log2_ns", "timed_ns")):
        if key not in rec:
            raise schema.Invalid(key, schema.MISSING, "the %s by log2 "
                                 "bucket beside %s (an engine before them "
                                 "wrote none: record the run again)"
                                 % (total, total))
        if sum(rec[key]) != rec.get(total):
            raise schema.Invalid(key, rec[key], "buckets that add up to "
                                 "%s (%r)" % (total, rec.get(total)))
    if len(rec["timed_log2"]) != len(rec["timed_log2_ns"]):
        raise schema.Invalid("timed_log2_ns", rec["timed_log2_ns"],
                             "as many buckets as timed_log2 (%d)"
                             % len(rec["timed_log2"]))


def check(rec):
    """schema.Invalid unless the record is one the engine can write: its
    fields (STATS_SCHEMA), its timed calls some of its model calls and
    their buckets adding up, its "corun" stretches (corun.py)."""
    schema.check(rec, STATS_SCHEMA)
    _check_retries(rec)
    calls, timed = rec.get("ios"), rec.get("timed_calls")
    if isinstance(calls, int) and isinstance(timed, int) and timed > calls:
        raise schema.Invalid("timed_calls", timed, "at most the model "
                             "calls (%d): a sample of them" % calls)
    _check_timed(rec)
    corun.check(rec)


