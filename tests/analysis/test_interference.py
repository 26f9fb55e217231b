"""interference: /proc/stat and loadavg parsing, the others/steal shares
worked out by hand, the busy mark, and a sample of this machine."""

import os
import shutil
import tempfile

from flagcheck_analysis.report import busymark
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


class TestRead:
    def setup_method(self):
        self.root = tempfile.mkdtemp()

    def teardown_method(self):
        shutil.rmtree(self.root)

    def test_proc_stat_and_loadavg(self):
        write_proc(self.root, u=30, s=20, i=50, st=4, u0=10, s0=7, i0=30,
                   st0=1, u1=20, s1=13, i1=20, st1=3)
        stat = interference.read_proc_stat(self.root)
        assert sorted(stat, key=str) == [0, 1, "all"]
        assert stat[0] == {"user": 10, "nice": 0, "system": 7,
                           "idle": 30, "iowait": 5, "irq": 1,
                           "softirq": 2, "steal": 1, "guest": 3,
                           "guest_nice": 0}
        assert stat["all"]["steal"] == 4
        assert interference.read_loadavg(self.root) == [1.5, 0.75, 0.25]
        assert interference.read_loadavg(
            os.path.join(self.root, "nowhere")) is None

    def test_cpufreq_unreadable_and_readable(self):
        assert interference.read_cpufreq([0, 1], self.root) is None
        d = os.path.join(self.root, "cpu1", "cpufreq")
        os.makedirs(d)
        with open(os.path.join(d, "scaling_governor"), "w") as f:
            f.write("performance\n")
        with open(os.path.join(d, "scaling_cur_freq"), "w") as f:
            f.write("2600000\n")
        assert interference.read_cpufreq([0, 1], self.root) == \
            {"governor": {"1": "performance"},
             "cur_khz": {"1": 2600000}}


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
    """A sample whose /proc listed no process (unreadable): the figures
    are /proc/stat's alone."""
    return {"t": t, "stat": st, "procs": {}, "loadavg": load,
            "cpufreq": None, "children_s": children, "self_s": me}


class TestMeasure:
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
        assert not m["busy"]
        assert m["reasons"] == []
        assert m["wall_s"] == 4.0
        assert m["ours_s"] == 7.6
        r = m["run_cpus"]
        assert (r["cpu_s"], r["busy_s"], r["others_s"],
                r["others_share"], r["steal_share"]) == \
            (8.0, 7.6, 0.0, 0.0, 0.0)

    def test_hog_on_one_cpu(self):
        # a hog took half of CPU 1: fio got 6 s of the 8
        after = stat(cpu0=(380, 20, 0, 0), cpu1=(390, 10, 0, 0),
                     all=(770, 30, 0, 0))
        m = interference.measure(sample(self.before, 0.0, 0.0, 0.0),
                                 sample(after, 6.0, 0.0, 4.0),
                                 [0, 1], 0.10, hz=100)
        assert m["busy"]
        assert m["run_cpus"]["others_s"] == 2.0
        assert m["run_cpus"]["others_share"] == 0.25
        assert m["reasons"] == ["others used 25% of CPUs 0,1"]
        # the same share at a threshold of 25% is not above it
        m = interference.measure(sample(self.before, 0.0, 0.0, 0.0),
                                 sample(after, 6.0, 0.0, 4.0),
                                 [0, 1], 0.25, hz=100)
        assert not m["busy"]

    def test_pinned_to_one_cpu_counts_that_cpu(self):
        # a 1-job run on CPU 0; the other CPU was busy with someone else,
        # which the run's CPU does not see but the machine figure does
        after = stat(cpu0=(400, 0, 0, 0), cpu1=(400, 0, 0, 0),
                     all=(800, 0, 0, 0))
        m = interference.measure(sample(self.before, 0.0, 0.0, 0.0),
                                 sample(after, 4.0, 0.0, 4.0),
                                 [0], 0.10, hz=100)
        assert not m["busy"]
        assert m["run_cpus"]["cpu_s"] == 4.0
        assert m["machine"]["others_share"] == 0.5

    def test_steal(self):
        after = stat(cpu0=(350, 0, 0, 50), cpu1=(400, 0, 0, 0),
                     all=(750, 0, 0, 50))
        m = interference.measure(sample(self.before, 0.0, 0.0, 0.0),
                                 sample(after, 7.5, 0.0, 4.0),
                                 [0], 0.10, hz=100)
        assert m["busy"]
        assert m["run_cpus"]["steal_share"] == 0.125
        assert m["reasons"] == ["steal 12% of CPUs 0"]

    def test_is_busy(self):
        assert busymark.is_busy({"interference": {"busy": True}})
        assert not busymark.is_busy({"interference":
                                     {"busy": False}})
        assert not busymark.is_busy({})
        assert not busymark.is_busy(None)


def proc_stat_line(pid, comm, ppid, kthread, utime, stime, cpu,
                   cutime=0, cstime=0):
    """A /proc/<pid>/stat line as the kernel writes it (proc(5)): 52
    fields, comm in parentheses (it may hold spaces and parentheses)."""
    w = ["0"] * 52
    w[0], w[1], w[2], w[3] = str(pid), "(%s)" % comm, "S", str(ppid)
    w[8] = str(interference.PF_KTHREAD if kthread else 0x400000)
    w[13], w[14], w[15], w[16] = str(utime), str(stime), str(cutime), \
        str(cstime)
    w[38] = str(cpu)
    return " ".join(w) + "\n"


class TestProcesses:
    """others = user-space processes other than fio and the runner; kernel
    threads on the run's CPUs apart, by name."""

    RUNNER = 500

    def setup_method(self):
        self.root = tempfile.mkdtemp()

    def teardown_method(self):
        shutil.rmtree(self.root)

    def procs(self, rows):
        for pid in os.listdir(self.root):
            shutil.rmtree(os.path.join(self.root, pid))
        for row in rows:
            d = os.path.join(self.root, str(row[0]))
            os.makedirs(d)
            with open(os.path.join(d, "stat"), "w") as f:
                f.write(proc_stat_line(*row))
        return interference.read_processes(self.root)

    def test_read(self):
        got = self.procs([(1, "init", 0, False, 5, 6, 1, 7, 8),
                          (42, "kworker/u4:1-loop0", 2, True, 0, 30, 0),
                          (77, "a (b) c", 1, False, 1, 2, 1)])
        assert got == {1: ("init", 0, False, 26, 1),
                       42: ("kworker/u4:1-loop0", 2, True, 30, 0),
                       77: ("a (b) c", 1, False, 3, 1)}

    def run_with(self, before_rows, after_rows, cpus=(0, 1)):
        # 4 s on CPUs 0 and 1 at 100 ticks/s; fio used 6 s, the runner 0;
        # /proc/stat counts 300 + 300 busy ticks: 0 s unaccounted...
        st_b = stat(cpu0=(0, 0, 0, 0), cpu1=(0, 0, 0, 0), all=(0, 0, 0, 0))
        st_a = stat(cpu0=(200, 200, 0, 0), cpu1=(200, 200, 0, 0),
                    all=(400, 400, 0, 0))
        b = dict(sample(st_b, 0.0, 0.0, 0.0), pid=self.RUNNER,
                 procs=self.procs(before_rows))
        a = dict(sample(st_a, 6.0, 0.0, 4.0), pid=self.RUNNER,
                 procs=self.procs(after_rows))
        return interference.measure(b, a, list(cpus), 0.10, hz=100)

    def test_kernel_threads_are_the_runs(self):
        # the 2 s that are not fio's: a loop device's worker and ksoftirqd
        m = self.run_with(
            [(self.RUNNER, "flagcheck run", 1, False, 50, 5, 0),
             (42, "kworker/u4:1-loop0", 2, True, 0, 10, 1),
             (9, "ksoftirqd/0", 2, True, 0, 0, 0),
             (300, "sshd", 1, False, 10, 0, 1)],
            [(self.RUNNER, "flagcheck run", 1, False, 50, 5, 0),
             (42, "kworker/u4:1-loop0", 2, True, 0, 160, 1),
             (9, "ksoftirqd/0", 2, True, 0, 50, 0),
             (300, "sshd", 1, False, 10, 0, 1)])
        r = m["run_cpus"]
        assert not m["busy"], m
        assert (r["others_s"], r["not_ours_s"], r["kthreads_s"]) == \
            (0.0, 2.0, 2.0)
        assert r["kthreads"] == [["kworker/u4:1-loop0", 1.5],
                                 ["ksoftirqd/0", 0.5]]

    def test_user_space_others_are_others(self):
        # a compiler (new during the run) and make reaping its children;
        # fio's own children (under the runner) are the run's
        m = self.run_with(
            [(self.RUNNER, "flagcheck run", 1, False, 50, 5, 0),
             (600, "make", 1, False, 1, 1, 1),
             (501, "fio", self.RUNNER, False, 0, 0, 0)],
            [(self.RUNNER, "flagcheck run", 1, False, 50, 5, 0),
             (600, "make", 1, False, 1, 1, 1, 60, 20),
             (601, "cc1", 600, False, 50, 10, 0),
             (501, "fio", self.RUNNER, False, 300, 100, 0)])
        r = m["run_cpus"]
        assert m["busy"]
        assert (r["others_s"], r["kthreads_s"], r["kthreads"]) == \
            (1.4, 0.0, [])
        assert m["reasons"] == ["others used 18% of CPUs 0,1"]

    def test_others_elsewhere_are_not_the_runs(self):
        # pinned to CPU 0: a process that ran on CPU 1 only is not counted
        m = self.run_with(
            [(700, "hog", 1, False, 0, 0, 1)],
            [(700, "hog", 1, False, 150, 0, 1)], cpus=(0,))
        assert m["run_cpus"]["others_s"] == 0.0
        assert m["machine"]["others_s"] == 1.5

    def test_at_most_what_proc_stat_saw(self):
        # a process's times can hold more than this window (a child
        # reaped now that ran before): never more than /proc/stat's figure
        m = self.run_with(
            [(800, "bash", 1, False, 0, 0, 0)],
            [(800, "bash", 1, False, 0, 0, 0, 900, 0)])
        assert m["run_cpus"]["others_s"] == 2.0
        assert m["run_cpus"]["not_ours_s"] == 2.0


class TestThisMachine:
    def test_sample_has_every_online_cpu(self):
        cpus = sorted(os.sched_getaffinity(0))
        s = interference.sample(cpus)
        for cpu in cpus:
            assert cpu in s["stat"]
        assert "all" in s["stat"]
        assert len(s["loadavg"]) == 3
        me = s["procs"][os.getpid()]
        assert me[:3] == (open("/proc/self/comm").read().strip(),
                          os.getppid(), False)
        assert any(p[2] for p in s["procs"].values()), \
            "no kernel thread seen in /proc"
