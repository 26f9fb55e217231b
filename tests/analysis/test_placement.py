"""placement: CPU lists, the fill order on a made-up two-node SMT machine,
fio's split assignment, and the scenarios' NUMA policies."""

import os
import shutil
import tempfile

import pytest

from tests.analysis.helpers import REPO
from flagcheck_analysis.run import placement


def fake_sysfs(root, nodes, siblings):
    """nodes: {node: [cpus]}; siblings: [[cpus of one core], ...]."""
    for node, cpus in nodes.items():
        d = os.path.join(root, "node", "node%d" % node)
        os.makedirs(d)
        with open(os.path.join(d, "cpulist"), "w") as f:
            f.write(placement.format_cpulist(cpus) + "\n")
    for core in siblings:
        for cpu in core:
            d = os.path.join(root, "cpu", "cpu%d" % cpu, "topology")
            os.makedirs(d)
            with open(os.path.join(d, "thread_siblings_list"), "w") as f:
                f.write(placement.format_cpulist(core) + "\n")


class TestCpuList:
    def test_parse_and_format(self):
        assert placement.parse_cpulist("0-3,8,10-11\n") == \
            [0, 1, 2, 3, 8, 10, 11]
        assert placement.format_cpulist([11, 0, 1, 2, 3, 8, 10]) == \
            "0-3,8,10-11"
        assert placement.format_cpulist([5]) == "5"
        for bad in ("1-0", "a", "1-2-3"):
            with pytest.raises(ValueError):
                placement.parse_cpulist(bad)


class TestTwoNodesSmt:
    """2 nodes x 2 cores x 2 threads, numbered as x86 boxes do: node 0
    has cores 0, 1 (siblings 4, 5), node 1 cores 2, 3 (siblings 6, 7)."""

    def setup_method(self):
        self.root = tempfile.mkdtemp()
        fake_sysfs(self.root, {0: [0, 1, 4, 5], 1: [2, 3, 6, 7]},
                   [[0, 4], [1, 5], [2, 6], [3, 7]])
        self.topo = placement.read_topology(range(8), self.root)

    def teardown_method(self):
        shutil.rmtree(self.root)

    def test_topology(self):
        assert [(c.cpu, c.node, c.core, c.level)
                for c in self.topo] == \
            [(0, 0, 0, 0), (1, 0, 1, 0), (2, 1, 2, 0),
             (3, 1, 3, 0), (4, 0, 0, 1), (5, 0, 1, 1),
             (6, 1, 2, 1), (7, 1, 3, 1)]

    def test_spread_alternates_nodes_cores_first(self):
        assert placement.fill_order(self.topo, "spread") == \
            [0, 2, 1, 3, 4, 6, 5, 7]
        p = placement.plan(self.topo, 2, "spread")
        assert (p["cpus"], p["jobs"], p["nodes"]) == ([0, 2], [0, 2], [0, 1])
        assert p["cpus_allowed"] == "0,2"
        p = placement.plan(self.topo, 5, "spread")
        assert (p["cpus"], p["smt_siblings"], p["oversubscribed"]) == \
            ([0, 1, 2, 3, 4], 1, False)

    def test_node0_stays_on_node0(self):
        assert placement.fill_order(self.topo, "node0") == [0, 1, 4, 5]
        p = placement.plan(self.topo, 3, "node0")
        assert (p["cpus"], p["nodes"], p["smt_siblings"]) == \
            ([0, 1, 4], [0], 1)

    def test_more_jobs_than_cpus_wrap_as_fio_splits(self):
        p = placement.plan(self.topo, 6, "node0")
        assert p["oversubscribed"]
        assert p["cpus"] == [0, 1, 4, 5]
        # fio_cpus_split: job k keeps CPU number (k-1) mod 4 of the set
        assert p["jobs"] == [0, 1, 4, 5, 0, 1]

    def test_usable_subset(self):
        topo = placement.read_topology([1, 2, 3, 5, 6], self.root)
        assert placement.fill_order(topo, "spread") == [1, 2, 3, 5, 6]
        assert placement.plan(topo, 2, "spread")["cpus"] == [1, 2]
        assert placement.fill_order(topo, "node0") == [1, 5]

    def test_fio_args(self):
        p = placement.plan(self.topo, 3, "spread")
        assert placement.fio_args(p) == \
            ["--cpus_allowed=0-2", "--cpus_allowed_policy=split"]
        assert placement.fio_args(placement.floating(range(8))) == []


class TestNoTopology:
    def test_each_cpu_its_own_core_on_node_0(self):
        root = tempfile.mkdtemp()
        try:
            topo = placement.read_topology([3, 1], root)
        finally:
            shutil.rmtree(root)
        assert [tuple(c) for c in topo] == [(1, 0, 1, 0), (3, 0, 3, 0)]
        assert placement.plan(topo, 1, "spread")["jobs"] == [1]

    def test_no_cpu(self):
        with pytest.raises(placement.PlacementError):
            placement.plan([], 1, "spread")

    def test_bad_policy(self):
        with pytest.raises(placement.PlacementError,
                           match="'nodes': allowed are spread, node0"):
            placement.fill_order([], "nodes")


class TestScenarioPolicy:
    def test_job_files(self):
        jobs = os.path.join(REPO, "jobs")
        assert placement.scenario_policy(
            os.path.join(jobs, "filemap-odirect-read.fio")) == "spread"
        assert placement.scenario_policy(
            os.path.join(jobs, "buffer-new-randwrite.fio")) == "node0"
        # no NUMA= on its defaults line
        assert placement.scenario_policy(
            os.path.join(jobs, "aim7-creat-clo.fio")) == "spread"

    def test_bad_numa_value(self):
        with tempfile.NamedTemporaryFile("w", suffix=".fio") as f:
            f.write("; run-job defaults: NUMJOBS=1 NUMA=far\n[x]\n")
            f.flush()
            with pytest.raises(placement.PlacementError,
                               match="NUMA=far .*allowed are spread, "
                                     "node0"):
                placement.scenario_policy(f.name)
