"""Each model's expectations, in one table, for the tests that run every
model the engine lists (fio --enghelp, built from fc_models[]): a new model
(one file in engine/models/, registered by itself) without its line here
fails test_every_model_has_its_expectations in test_engine_invariants.py.

A line: the model's always-form options, its exact RMWs of one job's fio
I/Os (the counters line s, fio's reads r and writes w -> (got, want)), and
its model calls (checks) for those I/Os."""
from collections import namedtuple

Expect = namedtuple("Expect", "always rmw checks")

EXPECT = {
    # S1: two test_and_clear_bit() per check, one check per I/O
    "filemap_check_errors": Expect(
        ["--variant=always"],
        lambda s, r, w: (s["rmw"], 2 * (r + w)),
        lambda r, w: r + w),
    # S2: clear_buffer_new() on each of a 64K page's 16 heads per 4k write
    "block_commit_write": Expect(
        ["--variant=always", "--page_size=64k"],
        lambda s, r, w: (s["paths"]["clear_buffer_new"]["rmw"], 16 * w),
        lambda r, w: w),
    # S3: set_bit(BH_Verified) at creat and at unlink
    "set_buffer_verified": Expect(
        ["--variant=always"],
        lambda s, r, w: (s["rmw"], 2 * (r + w)),
        lambda r, w: r + w),
    # S4: set_bit(BH_Uptodate) on each of metadata_bhs=3 buffers
    "set_buffer_uptodate": Expect(
        ["--variant=always", "--metadata_bhs=3"],
        lambda s, r, w: (s["paths"]["set_buffer_uptodate"]["rmw"],
                         3 * (r + w)),
        lambda r, w: r + w),
    # S5: lookups_per_io=4 lookups, each a check
    "bh_lru": Expect(
        ["--variant=on", "--lookups_per_io=4", "--mod=8"],
        lambda s, r, w: (s["checks"], 4 * (r + w)),
        lambda r, w: 4 * (r + w)),
    # a pattern written in the job file: S1's two test_and_clear_bit(),
    # then one of each of docs/pattern.md's new shapes: an add on one of 4
    # objects in turn, an add on the job's own slot of a shared line, a
    # set_bit guarded by a test of another bit (never set: it always
    # runs), a CAS loop on a word that is never 0 (its calls are its
    # attempts less its retries) and ten loads: 17 operations, past the
    # 16 a sequence once held, 6 RMWs; every other I/O (from the second)
    # takes the alternative after '|' instead: an add on the slot and a
    # store of the job's CPU
    "pattern": Expect(
        ["--variant=always",
         "--pattern_words=flags@0,o@1:obj(4,turn),s@20:slot,c@3=1,v@4",
         "--pattern=test_and_clear_bit(flags,0),test_and_clear_bit(flags,1),"
         "atomic_inc(o),atomic_inc(s),test_bit(flags,0),"
         "set_bit(flags,2)/if_test=0,atomic_inc_not_zero(c)," +
         ",".join(["READ_ONCE(flags)"] * 10) +
         "|atomic_inc(s),WRITE_ONCE(v,cpu)"],
        lambda s, r, w: ((s["rmw"] - s.get("model_stats", {}).get(
            "retries", 0), s["stores"]),
            (6 * ((r + w + 1) // 2) + (r + w) // 2, (r + w) // 2)),
        lambda r, w: r + w),
}
