import glob
import json
import os
import shutil
import subprocess
import tempfile

import pytest

from tests.analysis.helpers import CLIENTSERVER, CLIENTSERVER_HOSTS, RESULTS
from flagcheck_analysis.inputs import clients, fiojson
from flagcheck_analysis.stats import compare

ALWAYS_NJ2 = os.path.join(RESULTS, "flagcheck-fixture_always_nj2_r1.json")


class TestBadFiles:
    def setup_method(self):
        self.tmp = tempfile.TemporaryDirectory()
        with open(ALWAYS_NJ2) as f:
            self.good = f.read()

    def teardown_method(self):
        self.tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def error(self, path):
        with pytest.raises(fiojson.InputError) as cm:
            fiojson.load_fio_json(path)
        msg = str(cm.value)
        assert msg.startswith(path + ": "), msg
        assert "\n" not in msg
        return msg

    def test_truncated(self):
        path = self.write("t.json", self.good[:len(self.good) // 2])
        assert "truncated JSON" in self.error(path)

    def test_malformed(self):
        path = self.write("m.json", self.good.replace('"jobs" :', '"jobs" ',
                                                      1))
        assert "malformed JSON at line" in self.error(path)

    def test_empty_and_text_only(self):
        assert "no JSON object" in self.error(self.write("e.json", ""))
        assert "no JSON object" in \
            self.error(self.write("x.json", "fio: bad job\n"))

    def test_not_fio(self):
        assert "not fio JSON" in self.error(self.write("n.json", '{"a": 1}\n'))
        assert "no jobs" in self.error(self.write("j.json", '{"jobs": []}\n'))

    def test_missing_file(self):
        assert "cannot read" in self.error(os.path.join(self.tmp.name,
                                                        "none.json"))

    def test_leading_text_lines(self):
        path = self.write("l.json", "hostname=vm, be=0, 64-bit, os=Linux\n"
                          "<vm> fio: some warning {not json}\n" + self.good)
        assert fiojson.load_fio_json(path) == fiojson.load_fio_json(ALWAYS_NJ2)

    def test_bad_stats_line(self):
        path = self.write("s.jsonl", '{"flagcheck": 2, "ios": 1}\n{"ios": \n')
        with pytest.raises(fiojson.InputError) as cm:
            fiojson.load_counters(path)
        assert "line 2" in str(cm.value)
        assert fiojson.load_counters(path + ".absent") is None

    def refused(self, line):
        path = self.write("s.jsonl", json.dumps(line) + "\n")
        with pytest.raises(fiojson.InputError) as cm:
            fiojson.load_counters(path)
        return str(cm.value)[len(path) + 2:]

    def test_an_older_record_is_refused_naming_what_changed(self):
        assert self.refused({"flagcheck": 1, "ios": 1, "flag_check": "x"}) \
            == ('line 1: "flagcheck": 1: this report reads version 2 '
                'records (the variant as "variant", every I/O one model '
                'call); record the run again')
        assert self.refused({"ios": 1}) == \
            'line 1: not a flagcheck stats record (no "flagcheck": 2)'

    def test_timed_calls_come_with_their_buckets(self):
        rec = {"flagcheck": 2, "ios": 1000, "timed_calls": 4,
               "timed_ns": 400}
        assert self.refused(rec) == (
            "line 1: timed_log2 is missing: want the timed_calls by log2 "
            "bucket beside timed_calls (an engine before them wrote none: "
            "record the run again)")
        rec.update(timed_log2=[0] * 7 + [4], timed_log2_ns=[0] * 7 + [399])
        assert self.refused(rec) == (
            "line 1: timed_log2_ns is %s: want buckets that add up to "
            "timed_ns (400)" % json.dumps(rec["timed_log2_ns"]))
        rec["timed_log2_ns"] = [0] * 7 + [400]
        path = self.write("s.jsonl", json.dumps(rec) + "\n")
        assert fiojson.load_counters(path) == [rec]


class TestMetrics:
    def test_sums_over_jobs(self):
        doc = fiojson.load_fio_json(ALWAYS_NJ2)
        jobs = doc["jobs"]
        assert len(jobs) == 2          # no group_reporting
        m = fiojson.run_metrics(doc, None)
        assert round(m["iops"] - sum(j["read"]["iops"]
                                     for j in jobs), 7) == 0
        assert m["bw_kib"] == sum(j["read"]["bw"] for j in jobs)
        lo = min(j["read"]["clat_ns"]["mean"] for j in jobs)
        hi = max(j["read"]["clat_ns"]["mean"] for j in jobs)
        assert (lo <= m["clat_mean_ns"] <= hi)
        assert m["rmw_per_io"] is None

    def test_engine_counters(self):
        paths = glob.glob(os.path.join(RESULTS, "*.flagcheck.jsonl"))
        assert paths
        for path in paths:
            with open(path) as f:
                recs = [json.loads(line) for line in f]
            stats = fiojson.load_counters(path)
            m = fiojson.run_metrics(
                fiojson.load_fio_json(path.replace(".flagcheck.jsonl",
                                                   ".json")), stats)
            rmw_per_io = sum(r["rmw"] for r in recs) / \
                sum(r["ios"] for r in recs)
            assert round(m["rmw_per_io"] - rmw_per_io, 7) == 0
            assert m["errors_set"] == sum(r["errors_set"] for r in recs)

    def test_client_server(self):
        doc = fiojson.load_fio_json(CLIENTSERVER)
        entries = fiojson.fio_jobs(doc)
        assert "All clients" not in [e["jobname"] for e in entries]
        m = fiojson.run_metrics(doc, None)
        assert round(m["iops"] - sum(e["read"]["iops"]
                                     for e in entries), 7) == 0
        opts = fiojson.job_options(doc)
        assert opts["variant"] in ("always", "test_first")

    def test_client_server_global_options_one_dict(self):
        """fio 3.33, one server: one dict, every host's."""
        doc = fiojson.load_fio_json(CLIENTSERVER)
        assert isinstance(doc["global options"], dict)
        assert fiojson.global_options(doc) == {None: doc["global options"]}

    def test_client_server_global_options_per_server(self):
        """fio 3.41, two servers, one job file each (always to the first,
        test_first to the second): one dict per server, each kept with
        its host, the host's own name and port dropped from its options."""
        doc = fiojson.load_fio_json(CLIENTSERVER_HOSTS)
        assert doc["fio version"] == "fio-3.41"
        raw = doc["global options"]
        assert isinstance(raw, list)
        assert len(raw) == 2
        glob = fiojson.global_options(doc)
        hosts = clients.by_host(doc)
        assert sorted(glob) == sorted(hosts)
        assert len(hosts) == 2
        for d in raw:
            key = "%s:%s" % (d["hostname"], d["port"])
            want = {k: v for k, v in d.items()
                    if k not in ("hostname", "port")}
            assert glob[key] == want
            assert "hostname" not in glob[key]
            # each server was sent its own file: its stats path names it
            assert glob[key]["flagcheck_stats"].endswith(
                "/%s.jsonl" % glob[key]["variant"]), glob[key]
        assert sorted(g["variant"] for g in glob.values()) == \
            ["always", "test_first"]
        first = fiojson.fio_jobs(doc)[0]
        opts = fiojson.job_options(doc)
        assert opts["variant"] == \
            glob[fiojson.host_key(first)]["variant"]
        for key in hosts:
            m = fiojson.run_metrics(clients.host_doc(doc, key), None)
            assert m["iops"] == sum(e["read"]["iops"]
                                    for e in hosts[key])

    def test_json_plus_bins_give_exact_percentiles(self):
        def entry(bins):
            n = sum(bins.values())
            return {"read": {"iops": 1, "bw": 1, "clat_ns": {
                "N": n, "mean": 1.0, "bins": bins,
                "percentile": {"50.000000": 0}}}}
        doc = {"jobs": [entry({"10": 60, "20": 40}),
                        entry({"30": 50, "40": 50})]}
        m = fiojson.run_metrics(doc, None)
        # merged: 10:60 20:40 30:50 40:50 of 200; 50% -> 100th -> 20
        assert m["clat_p50_ns"] == 20.0
        assert m["clat_p99_ns"] == 40.0


class TestLatencyBuckets:
    """fio's latency histogram buckets (stat.c plat_val_to_idx), checked
    against fio's own json+ output, and the report's "same bucket"."""

    def test_buckets_tile_the_ns(self):
        for idx in range(0, fiojson.PLAT_NR - 1):
            lo, hi = fiojson.plat_bucket_range(idx)
            assert (fiojson.plat_bucket(lo),
                    fiojson.plat_bucket(hi)) == (idx, idx)
            assert fiojson.plat_bucket(hi + 1) == idx + 1

    @pytest.mark.skipif(not shutil.which("fio"), reason="fio not installed")
    def test_fio_json_plus_bins_are_one_bucket_each(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "out.json")
            p = subprocess.run(
                ["fio", "--name=b", "--ioengine=null", "--rw=randread",
                 "--size=64m", "--time_based", "--runtime=0.3",
                 "--output-format=json+", "--output=" + out],
                capture_output=True, text=True, timeout=60)
            assert p.returncode == 0, p.stderr
            clat = fiojson.load_fio_json(out)["jobs"][0]["read"]["clat_ns"]
        values = [int(k) for k in clat["bins"]]
        idx = [fiojson.plat_bucket(v) for v in values]
        assert len(set(idx)) == len(values)
        for v, i in zip(values, idx):
            lo, hi = fiojson.plat_bucket_range(i)
            assert (lo <= v <= hi), (v, lo, hi)
        for v in clat["percentile"].values():
            assert v in values

    def test_same_bucket_verdict(self):
        v = compare.verdict("clat_p50_ns", [1000.0, 1000.0],
                            [1003.0, 1006.0])
        assert (v.kind, v.text) == (
            "same", "same bucket: fio's latency histogram holds every run's "
            "value in 1000..1007 ns, n=2 vs 2")
        v = compare.verdict("clat_p50_ns", [1000.0, 1000.0],
                            [1008.0, 1008.0])
        assert v.kind == "differs"
        v = compare.verdict("iops", [1000.0, 1000.0], [1003.0, 1003.0])
        assert v.kind == "differs"
        v = compare.verdict("clat_p99_ns", [20.0, 20.0], [20.0, 20.0])
        assert v.text == "same: no spread on either side, n=2 vs 2"
