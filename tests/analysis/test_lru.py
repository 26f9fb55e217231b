"""lru: S5's ns per lookup by mod from bh_lru stats files, and its CLI."""

import json
import os
import shutil
import tempfile
import unittest

from tests.analysis.helpers import run_cli
from flagcheck_analysis import lru


def line(mode, mod, lookups, ns, hits=None, job=1):
    hits = (0 if mode == "off" or mod > 16 else lookups - mod) \
        if hits is None else hits
    st = {"lookups": lookups, "hits": hits, "misses": lookups - hits,
          "lookup_ns": ns}
    for i in range(1, 17):
        st["hit_idx%d" % i] = hits if i == mod else 0
    return {"flagcheck": 1, "job": "mod%d" % mod, "thread_number": job,
            "model": "bh_lru", "flag_check": mode,
            "options": {"bh_lru": mode, "mod": mod, "lookups_per_io": 1000},
            "ios": lookups // 1000, "model_stats": st}


class Lru(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="lru-test-")

    def tearDown(self):
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
            {"flagcheck": 1, "model": "filemap_check_errors", "ios": 5}])
        return lru.load(lru.stats_files([self.d]))

    def test_points_mean_over_runs_of_each_runs_ratio(self):
        pts = {(p.mode, p.mod): p for p in lru.points(self.runs())}
        on1 = pts[("on", 1)]
        # run 1: (10000 + 30000) / 4000 = 10; run 2: 24000 / 2000 = 12
        self.assertEqual(on1.n, 2)
        self.assertAlmostEqual(on1.ns, 11.0)
        self.assertAlmostEqual(on1.stddev, 2 ** 0.5)
        self.assertEqual(on1.hits, 999 + 2999 + 1999)
        self.assertEqual(on1.depth[0], on1.hits)
        self.assertEqual(sum(on1.depth[1:]), 0)
        self.assertAlmostEqual(pts[("on", 17)].ns, 42.0)
        self.assertEqual(pts[("on", 17)].hits, 0)
        self.assertEqual(pts[("off", 1)].n, 1)
        self.assertAlmostEqual(pts[("off", 1)].ns, 25.0)

    def test_table_beside_the_published_figures(self):
        out = lru.text(lru.points(self.runs()))
        rows = {l.split()[0]: l.split() for l in out.splitlines()[3:]}
        self.assertEqual(rows["1"][-2:], ["41", "68"])
        self.assertEqual(rows["17"][-2:], ["138", "68"])
        self.assertIn("0.44", rows["1"])        # 11 / 25
        self.assertIn("1.62", rows["17"])       # 42 / 26
        self.assertIn("100%", rows["1"])

    def test_cli_writes_table_csv_and_plot(self):
        self.runs()
        out = os.path.join(self.d, "out")
        p = run_cli("flagcheck-lru", self.d, "--outdir", out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("ns per __find_get_block()", p.stdout)
        names = set(os.listdir(out))
        self.assertTrue({"lru.md", "lru.csv"} <= names, names)
        try:
            import matplotlib  # noqa: F401
            self.assertIn("bh_lru_ns_per_lookup.png", names)
        except ImportError:
            pass
        with open(os.path.join(out, "lru.csv")) as f:
            head = f.readline().strip().split(",")
        self.assertEqual(head[:4], ["mode", "mod", "runs", "ns_per_lookup"])

    def test_cli_without_bh_lru_records_or_with_bad_input(self):
        path = self.write("x.flagcheck.jsonl", [
            {"flagcheck": 1, "model": "filemap_check_errors"}])
        p = run_cli("flagcheck-lru", path, "--no-plot",
                    "--outdir", os.path.join(self.d, "o"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("no bh_lru records", p.stderr)
        with open(path, "w") as f:
            f.write("{not json\n")
        p = run_cli("flagcheck-lru", path, "--no-plot")
        self.assertEqual(p.returncode, 1)
        self.assertIn("line 1: malformed JSON", p.stderr)
        p = run_cli("flagcheck-lru", "--help")
        self.assertEqual(p.returncode, 0)
        for opt in ("--outdir", "--format", "--no-plot", "DIR_OR_FILE"):
            self.assertIn(opt, p.stdout)


if __name__ == "__main__":
    unittest.main()
