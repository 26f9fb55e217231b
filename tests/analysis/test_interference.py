"""interference: /proc/stat and loadavg parsing, the others/steal shares
worked out by hand, the busy mark, and a sample of this machine."""

import os
import shutil
import tempfile
import unittest

from tests.analysis import helpers  # noqa: F401  (sys.path)
from flagcheck_analysis.run import interference

STAT = """\
cpu  {u} 0 {s} {i} 0 0 0 {st} 0 0
cpu0 {u0} 0 {s0} {i0} 5 1 2 {st0} 3 0
cpu1 {u1} 0 {s1} {i1} 0 0 0 {st1} 0 0
intr 12345 0
ctxt 999
"""


def write_proc(root, **ticks):
    with open(os.path.join(root, "stat"), "w") as f:
        f.write(STAT.format(**ticks))
    with open(os.path.join(root, "loadavg"), "w") as f:
        f.write("1.50 0.75 0.25 3/120 4242\n")


class TestRead(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.root)

    def test_proc_stat_and_loadavg(self):
        write_proc(self.root, u=30, s=20, i=50, st=4, u0=10, s0=7, i0=30,
                   st0=1, u1=20, s1=13, i1=20, st1=3)
        stat = interference.read_proc_stat(self.root)
        self.assertEqual(sorted(stat, key=str), [0, 1, "all"])
        self.assertEqual(stat[0], {"user": 10, "nice": 0, "system": 7,
                                   "idle": 30, "iowait": 5, "irq": 1,
                                   "softirq": 2, "steal": 1, "guest": 3,
                                   "guest_nice": 0})
        self.assertEqual(stat["all"]["steal"], 4)
        self.assertEqual(interference.read_loadavg(self.root),
                         [1.5, 0.75, 0.25])
        self.assertIsNone(interference.read_loadavg(
            os.path.join(self.root, "nowhere")))

    def test_cpufreq_unreadable_and_readable(self):
        self.assertIsNone(interference.read_cpufreq([0, 1], self.root))
        d = os.path.join(self.root, "cpu1", "cpufreq")
        os.makedirs(d)
        with open(os.path.join(d, "scaling_governor"), "w") as f:
            f.write("performance\n")
        with open(os.path.join(d, "scaling_cur_freq"), "w") as f:
            f.write("2600000\n")
        self.assertEqual(interference.read_cpufreq([0, 1], self.root),
                         {"governor": {"1": "performance"},
                          "cur_khz": {"1": 2600000}})


def stat(**cpus):
    """{cpu: ticks}: user, system, idle, steal given; the rest 0."""
    out = {}
    for name, (u, s, i, st) in cpus.items():
        key = "all" if name == "all" else int(name[3:])
        row = dict.fromkeys(interference.FIELDS, 0)
        row.update(user=u, system=s, idle=i, steal=st)
        out[key] = row
    return out


def sample(st, children, me, t, load=None):
    return {"t": t, "stat": st, "loadavg": load, "cpufreq": None,
            "children_s": children, "self_s": me}


class TestMeasure(unittest.TestCase):
    # 4 s on CPUs 0 and 1 at 100 ticks/s: 800 ticks of CPU in all
    before = stat(cpu0=(0, 0, 0, 0), cpu1=(0, 0, 0, 0), all=(0, 0, 0, 0))

    def test_quiet_run(self):
        # fio used 7.5 s of CPU and the runner 0.1 s; /proc/stat counted
        # 390 + 370 busy ticks = 7.6 s: nobody else ran
        after = stat(cpu0=(300, 90, 10, 0), cpu1=(280, 90, 30, 0),
                     all=(580, 180, 40, 0))
        m = interference.measure(sample(self.before, 10.0, 1.0, 100.0),
                                 sample(after, 17.5, 1.1, 104.0),
                                 [0, 1], 0.10, hz=100)
        self.assertFalse(m["busy"])
        self.assertEqual(m["reasons"], [])
        self.assertEqual(m["wall_s"], 4.0)
        self.assertEqual(m["ours_s"], 7.6)
        r = m["run_cpus"]
        self.assertEqual((r["cpu_s"], r["busy_s"], r["others_s"],
                          r["others_share"], r["steal_share"]),
                         (8.0, 7.6, 0.0, 0.0, 0.0))

    def test_hog_on_one_cpu(self):
        # a hog took half of CPU 1: fio got 6 s of the 8
        after = stat(cpu0=(380, 20, 0, 0), cpu1=(390, 10, 0, 0),
                     all=(770, 30, 0, 0))
        m = interference.measure(sample(self.before, 0.0, 0.0, 0.0),
                                 sample(after, 6.0, 0.0, 4.0),
                                 [0, 1], 0.10, hz=100)
        self.assertTrue(m["busy"])
        self.assertEqual(m["run_cpus"]["others_s"], 2.0)
        self.assertEqual(m["run_cpus"]["others_share"], 0.25)
        self.assertEqual(m["reasons"], ["others used 25% of CPUs 0,1"])
        # the same share at a threshold of 25% is not above it
        m = interference.measure(sample(self.before, 0.0, 0.0, 0.0),
                                 sample(after, 6.0, 0.0, 4.0),
                                 [0, 1], 0.25, hz=100)
        self.assertFalse(m["busy"])

    def test_pinned_to_one_cpu_counts_that_cpu(self):
        # a 1-job run on CPU 0; the other CPU was busy with someone else,
        # which the run's CPU does not see but the machine figure does
        after = stat(cpu0=(400, 0, 0, 0), cpu1=(400, 0, 0, 0),
                     all=(800, 0, 0, 0))
        m = interference.measure(sample(self.before, 0.0, 0.0, 0.0),
                                 sample(after, 4.0, 0.0, 4.0),
                                 [0], 0.10, hz=100)
        self.assertFalse(m["busy"])
        self.assertEqual(m["run_cpus"]["cpu_s"], 4.0)
        self.assertEqual(m["machine"]["others_share"], 0.5)

    def test_steal(self):
        after = stat(cpu0=(350, 0, 0, 50), cpu1=(400, 0, 0, 0),
                     all=(750, 0, 0, 50))
        m = interference.measure(sample(self.before, 0.0, 0.0, 0.0),
                                 sample(after, 7.5, 0.0, 4.0),
                                 [0], 0.10, hz=100)
        self.assertTrue(m["busy"])
        self.assertEqual(m["run_cpus"]["steal_share"], 0.125)
        self.assertEqual(m["reasons"], ["steal 12% of CPUs 0"])

    def test_is_busy(self):
        self.assertTrue(interference.is_busy({"interference":
                                              {"busy": True}}))
        self.assertFalse(interference.is_busy({"interference":
                                               {"busy": False}}))
        self.assertFalse(interference.is_busy({}))
        self.assertFalse(interference.is_busy(None))


class TestThisMachine(unittest.TestCase):
    def test_sample_has_every_online_cpu(self):
        cpus = sorted(os.sched_getaffinity(0))
        s = interference.sample(cpus)
        for cpu in cpus:
            self.assertIn(cpu, s["stat"])
        self.assertIn("all", s["stat"])
        self.assertEqual(len(s["loadavg"]), 3)


if __name__ == "__main__":
    unittest.main()
