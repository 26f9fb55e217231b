"""S5's ns per lookup by mod from bh_lru stats files (report/sweep.py
with S5's declaration), and flagcheck lru."""

import json
import os
import re
import shutil
import tempfile

from tests.analysis.helpers import REPO, run_cli
from flagcheck_analysis.cli.lru import LRU
from flagcheck_analysis.inputs import published
from flagcheck_analysis.report import sweep


def line(variant, mod, lookups, ns, hits=None, job=1):
    hits = (0 if variant == "off" or mod > 16 else lookups - mod) \
        if hits is None else hits
    st = {"lookups": lookups, "hits": hits, "misses": lookups - hits,
          "lookup_ns": ns}
    for i in range(1, 17):
        st["hit_idx%d" % i] = hits if i == mod else 0
    return {"flagcheck": 2, "job": "mod%d" % mod, "thread_number": job,
            "model": "bh_lru", "variant": variant,
            "options": {"bh_lru": variant, "mod": mod, "lookups_per_io": 1000},
            "ios": lookups // 1000, "model_stats": st}


class TestLru:
    def setup_method(self):
        self.d = tempfile.mkdtemp(prefix="lru-test-")

    def teardown_method(self):
        shutil.rmtree(self.d)

    def write(self, name, lines):
        path = os.path.join(self.d, name)
        with open(path, "w") as f:
            for l in lines:
                f.write(json.dumps(l) + "\n")
        return path

    def runs(self):
        # two runs of on (two jobs each in the first), one of off
        self.write("s_on_nj1_r1.flagcheck.jsonl", [
            line("on", 1, 1000, 10000), line("on", 1, 3000, 30000, job=2),
            line("on", 17, 1000, 40000)])
        self.write("s_on_nj1_r2.flagcheck.jsonl", [
            line("on", 1, 2000, 24000), line("on", 17, 1000, 44000)])
        self.write("s_off_nj1_r1.flagcheck.jsonl", [
            line("off", 1, 1000, 25000), line("off", 17, 1000, 26000),
            {"flagcheck": 2, "model": "filemap_check_errors", "ios": 5}])
        return sweep.load(LRU, sweep.counters_files([self.d]))

    def test_points_mean_over_runs_of_each_runs_ratio(self):
        pts = {(p.variant, p.value): p
               for p in sweep.points(LRU, self.runs())}
        on1 = pts[("on", 1)]
        # run 1: (10000 + 30000) / 4000 = 10; run 2: 24000 / 2000 = 12
        assert on1.n == 2
        assert round(on1.mean - 11.0, 7) == 0
        assert round(on1.stddev - 2 ** 0.5, 7) == 0
        assert on1.share[0] == 999 + 2999 + 1999
        assert on1.depth[0] == on1.share[0]
        assert sum(on1.depth[1:]) == 0
        assert round(pts[("on", 17)].mean - 42.0, 7) == 0
        assert pts[("on", 17)].share[0] == 0
        assert pts[("off", 1)].n == 1
        assert round(pts[("off", 1)].mean - 25.0, 7) == 0

    def test_table_beside_the_published_figures(self):
        pts = sweep.points(LRU, self.runs())
        pts.append(sweep.Point("on", 20, 1, 41.0, 0.0, [0, 1000], [0] * 16))
        title, header, rows, _ = sweep.table(LRU, pts)
        assert "Tosatti, 27 Jun 2023, docs/scenarios.md" in title
        assert header[:4] == ["mod", "published LRU ns",
                              "published slow ns",
                              "published on/off"]
        got = {r[0]: dict(zip(header, r)) for r in rows}
        # published beside ours, per mod: 41/70 and 138/72 by hand
        assert [got["1"][h] for h in header[1:4]] == ["41", "70", "0.59"]
        assert [got["17"][h] for h in header[1:4]] == ["138", "72", "1.92"]
        assert got["1"]["on ns/lookup"] == "11.0 ± 1.4"
        assert got["1"]["on hits"] == "100%"
        assert got["1"]["off ns/lookup"] == "25.0"
        assert got["1"]["on/off"] == "0.44"       # 11 / 25
        assert got["17"]["on/off"] == "1.62"      # 42 / 26
        # nothing was published past mod 19
        assert [got["20"][h] for h in header[1:4]] == ["-", "-", "-"]
        out = sweep.text(LRU, sweep.points(LRU, self.runs()))
        assert any("published slow ns" in l
                   for l in out.splitlines()[1:4]), out

    def test_published_figures_are_those_of_docs_scenarios(self):
        # the S5 per-mod table of docs/scenarios.md, read independently
        with open(os.path.join(REPO, "docs", "scenarios.md")) as f:
            doc = f.read()
        part = doc[doc.index("### S5 in full"):]
        on, off = {}, {}
        for m in re.finditer(r"^\| (\d+) \| (\d+) \| (\d+) \|$", part,
                             re.M):
            on[int(m.group(1))] = int(m.group(2))
            off[int(m.group(1))] = int(m.group(3))
        assert sorted(on) == list(range(1, 20))
        assert published.S5_LRU_NS == on
        assert published.S5_SLOW_NS == off
        # the shape the thread states: rising 41 -> 63 over mod 1..16,
        # 138 past 16, slow path 70..72
        assert (on[1], on[16], on[17]) == (41, 63, 138)
        assert sorted(on.values())[:16] == [on[m] for m in
                                            range(1, 17)]
        assert {off[m] for m in off} == {70, 71, 72}

    def test_cli_writes_table_csv_and_plot(self):
        self.runs()
        out = os.path.join(self.d, "out")
        p = run_cli("lru", self.d, "--outdir", out)
        assert p.returncode == 0, p.stderr
        assert "ns per __find_get_block()" in p.stdout
        names = set(os.listdir(out))
        assert ({"lru.md", "lru.csv"} <= names), names
        try:
            import matplotlib  # noqa: F401
            assert "bh_lru_ns_per_lookup.png" in names
        except ImportError:
            pass
        with open(os.path.join(out, "lru.csv")) as f:
            head = f.readline().strip().split(",")
        assert head[:4] == ["variant", "mod", "runs", "ns_per_lookup"]
        assert head[-2:] == ["published_lru_ns", "published_slow_ns"]
        with open(os.path.join(out, "lru.csv")) as f:
            rows = {(r[0], r[1]): r for r in
                    (l.strip().split(",") for l in f.readlines()[1:])}
        assert rows[("on", "17")][-2:] == ["138", "72"]
        assert rows[("off", "1")][-2:] == ["41", "70"]

    def test_cli_without_bh_lru_records_or_with_bad_input(self):
        path = self.write("x.flagcheck.jsonl", [
            {"flagcheck": 2, "model": "filemap_check_errors"}])
        p = run_cli("lru", path, "--no-plot",
                    "--outdir", os.path.join(self.d, "o"))
        assert p.returncode == 1
        assert "no bh_lru records" in p.stderr
        with open(path, "w") as f:
            f.write("{not json\n")
        p = run_cli("lru", path, "--no-plot")
        assert p.returncode == 1
        assert "line 1: malformed JSON" in p.stderr
        p = run_cli("lru", "--help")
        assert p.returncode == 0
        for opt in ("--outdir", "--format", "--no-plot", "DIR_OR_FILE"):
            assert opt in p.stdout
