"""conditions: the report's header lines, per-cell and busy-run tables,
the verdict note and --exclude-busy, from a made-up manifest."""

import json

import pytest

from flagcheck_analysis.inputs import fiojson, manifest
from flagcheck_analysis.stats import compare, interval
from flagcheck_analysis.report import conditions


def entry(variant, nj, r, busy, others=0.0, cpus=(0,)):
    return {"name": "s1_%s_nj%d_r%d" % (variant, nj, r), "scenario": "s1",
            "variant": variant, "numjobs": nj, "repeat": r, "status": "ok",
            "json": "s1_%s_nj%d_r%d.json" % (variant, nj, r),
            "placement": {"pinned": True, "policy": "spread",
                          "cpus": list(cpus), "jobs": list(cpus),
                          "cpus_allowed": ",".join(map(str, cpus)),
                          "nodes": [0], "smt_siblings": 0,
                          "oversubscribed": False},
            "interference": {"busy": busy, "cpus": list(cpus),
                             "run_cpus": {"others_share": others,
                                          "steal_share": 0.0},
                             "loadavg_before": [0.5, 0, 0],
                             "loadavg_after": [1.25, 0, 0],
                             "cpufreq_before": None}}


RUNS = [entry("always", 1, 1, False), entry("test_first", 1, 1, False),
        entry("always", 2, 1, True, 0.25, (0, 1)),
        entry("test_first", 2, 1, False, 0.0, (0, 1)),
        entry("always", 2, 2, False, 0.0, (0, 1)),
        entry("test_first", 2, 2, True, 0.5, (0, 1))]
MANIFEST = {
    "conditions": {"pinned": True, "ramp_s": 1, "busy_threshold_pct": 10.0,
                   "until_decided": True, "max_repeats": 5,
                   "precision_pct": 2.0, "clocksource": "cpu",
                   "clocksource_why": "the kernel's clocksource is tsc",
                   "line_probe_s": None, "topology": [],
                   "numa_policies": {}},
    "cells": [{"scenario": "s1", "numjobs": 1, "repeats": 1,
               "stopped": "decided",
               "decisions": [{"variant": "test_first", "reason": "narrow"}],
               "text": "test_first/always x1.000"},
              {"scenario": "s1", "numjobs": 2, "repeats": 2,
               "stopped": "max_repeats",
               "decisions": [{"variant": "test_first", "reason": "undecided"}],
               "text": "test_first/always x1.100"}],
    "runs": RUNS + [dict(entry("always", 2, 3, True), status="failed")]}


class TestConditions:
    def test_counts_leave_out_unfinished_runs(self):
        ok = conditions.ok_entries([MANIFEST])
        assert len(ok) == 6
        counts = conditions.cell_counts(ok)
        assert {k: (len(b), n) for k, (b, n) in counts.items()} == \
            {("s1", 1): (0, 2), ("s1", 2): (2, 4)}

    def test_header(self):
        ok = conditions.ok_entries([MANIFEST])
        assert conditions.header_lines([MANIFEST], ok, False) == [
            "placement: s1 pinned, job k on the k-th CPU (fio cpus_allowed_"
            "policy=split), cores before SMT siblings, NUMA spread: nj1 CPU "
            "0 (node 0); nj2 CPUs 0,1 (node 0)",
            "clock: fio clocksource=cpu for every run (the kernel's "
            "clocksource is tsc)",
            "warm-up: fio ramp_time 1 s before each run, in no fio figure",
            "interference: machine busy in 2 of 6 runs (others' CPU time, "
            "user-space processes other than fio, or steal above 10% of the "
            "run's CPUs); load average (1 min) "
            "0.50..1.25; CPU frequency governor: not readable",
            "repeats: until decided (the IOPS ratio's 95% CI excludes 1, or "
            "is narrower than ±2%), at most 5 per variant"]
        assert "busy runs left out (--exclude-busy)" in \
            conditions.header_lines([MANIFEST], ok, True)[3]
        # no manifest, no lines
        assert conditions.header_lines([], ok, False) == []

    def test_a_manifest_without_its_conditions_is_refused(self, tmp_path):
        path = tmp_path / "manifest.json"
        path.write_text(json.dumps({"runs": RUNS}))
        with pytest.raises(fiojson.InputError) as e:
            manifest.load(str(path))
        assert str(e.value) == (
            "%s: no conditions.clocksource: a manifest from before "
            "flagcheck run recorded its conditions and clock; run the "
            "matrix again in another --outdir" % path)

    def test_tables(self):
        ok = conditions.ok_entries([MANIFEST])
        cells, busy = conditions.tables([MANIFEST], ok,
                                        conditions.cell_counts(ok))
        assert cells[2] == [
            ["s1", "1", "0", "1", "decided: CI narrower than ±2%",
             "test_first/always x1.000", "0 of 2"],
            ["s1", "2", "0,1", "2", "undecided at --max-repeats",
             "test_first/always x1.100",
             "2 of 4: always r1, test_first r2"]]
        assert busy[2] == [
            ["s1_always_nj2_r1", "0,1", "25%", "0%", "0.50 -> 1.25"],
            ["s1_test_first_nj2_r2", "0,1", "50%", "0%", "0.50 -> 1.25"]]

    def test_verdict_note_and_exclusion(self):
        ok = conditions.ok_entries([MANIFEST])
        counts = conditions.cell_counts(ok)
        recs = [compare.Record(e["scenario"], e["variant"], e["numjobs"],
                               e["repeat"], {"iops": 100.0 + i}, e["name"])
                for i, e in enumerate(RUNS)]
        secs = conditions.annotate(compare.compare(recs, "always"), counts,
                                   False)
        v1 = secs[0].rows[0].others[0].verdict.text
        v2 = secs[1].rows[0].others[0].verdict.text
        assert "machine busy" not in v1
        # r1 102 -> 103, r2 104 -> 105: two pairs, their one interval
        base, other = [(1, 102.0), (2, 104.0)], [(1, 103.0), (2, 105.0)]
        plain = interval.verdict(interval.of(base, other), [102.0, 104.0],
                                 [103.0, 105.0]).text
        assert plain.endswith(": 2 pairs, paired t-test p=0.0062"), plain
        assert v2 == plain + "; machine busy in 2 of 4 runs"
        secs = conditions.annotate(compare.compare(recs, "always"), counts,
                                   True)
        assert secs[1].rows[0].others[0].verdict.text.endswith(
            "; machine busy in 2 of 4 runs, left out")
        files = [(e["json"], e) for e in RUNS] + [("loose.json", None)]
        kept, dropped = conditions.exclude_busy(files)
        assert [e["name"] for e in dropped] == \
            ["s1_always_nj2_r1", "s1_test_first_nj2_r2"]
        assert len(kept) == 5
