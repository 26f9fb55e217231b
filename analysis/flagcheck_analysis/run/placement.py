"""Where the jobs of one run go: one CPU per job, physical cores before
their SMT siblings, spread over the NUMA nodes or kept on node 0 as the
scenario asks, given to fio as cpus_allowed with cpus_allowed_policy=split.

fio's split policy keeps, for the job with thread_number k (1, 2, ... over
all the job sections of the file), the ((k - 1) mod n)-th lowest CPU of the
n in cpus_allowed (fio_cpus_split() in options.c), so the CPU of every job
follows from the set alone."""

from collections import namedtuple

from ..machines import cpulist
from ..machines.cpulist import format_cpulist, parse_cpulist  # noqa: F401
from ..inputs import jobheader

SYSFS = cpulist.SYSFS
POLICIES = ("spread", "node0")
DEFAULT_POLICY = "spread"

# level: 0 for the first CPU of its physical core, 1 for its first SMT
# sibling, ...
Cpu = namedtuple("Cpu", "cpu node core level")


class PlacementError(Exception):
    pass


def read_topology(usable, sysfs=SYSFS):
    """[Cpu] of the usable CPUs, from sysfs (cpulist.topology): the NUMA
    node of each (node 0 when the kernel shows no nodes) and its place
    among its core's SMT siblings (a core of its own when the kernel does
    not say)."""
    cpus = sorted(usable)
    t = cpulist.topology(cpus, sysfs)
    return [Cpu(cpu, t["node"][cpu], t["siblings"][cpu][0],
                t["siblings"][cpu].index(cpu)) for cpu in cpus]


def fill_order(topology, policy):
    """The CPUs in the order jobs take them: every physical core's first
    CPU before any SMT sibling; "spread" takes the nodes in turn (node A's
    first core, node B's first core, node A's second, ...), "node0" takes
    only node 0 (the lowest node with usable CPUs if node 0 has none)."""
    if policy not in POLICIES:
        raise PlacementError("NUMA policy %r: allowed are %s"
                             % (policy, ", ".join(POLICIES)))
    cpus = list(topology)
    if policy == "node0" and cpus:
        first = min(c.node for c in cpus)
        cpus = [c for c in cpus if c.node == first]
    order = []
    for level in sorted({c.level for c in cpus}):
        per_node = {}
        for c in sorted(cpus, key=lambda c: c.cpu):
            if c.level == level:
                per_node.setdefault(c.node, []).append(c.cpu)
        queues = [per_node[n] for n in sorted(per_node)]
        while any(queues):
            for q in queues:
                if q:
                    order.append(q.pop(0))
    return order


def plan(topology, numjobs, policy):
    """The manifest's "placement" of one run with `numjobs` jobs (per job
    section): the CPU set, and the CPU of job 1..numjobs as fio's split
    policy assigns them."""
    order = fill_order(topology, policy)
    if not order:
        raise PlacementError("no usable CPU to pin the jobs to")
    chosen = sorted(order[:numjobs])
    by_cpu = {c.cpu: c for c in topology}
    return {
        "pinned": True,
        "policy": policy,
        "cpus_allowed": format_cpulist(chosen),
        "cpus": chosen,
        "jobs": [chosen[k % len(chosen)] for k in range(numjobs)],
        "nodes": sorted({by_cpu[c].node for c in chosen}),
        "smt_siblings": sum(1 for c in chosen if by_cpu[c].level > 0),
        "oversubscribed": numjobs > len(chosen),
        "rule": "fio job k (its thread_number) runs on cpus[(k - 1) mod "
                "len(cpus)]: cpus_allowed_policy=split",
    }


def floating(usable):
    """The manifest's "placement" of an unpinned run."""
    cpus = sorted(usable)
    return {"pinned": False, "cpus_allowed": format_cpulist(cpus),
            "cpus": cpus}


def fio_args(placement):
    """fio command-line options that apply the placement to every job."""
    if not placement or not placement.get("pinned"):
        return []
    return ["--cpus_allowed=" + placement["cpus_allowed"],
            "--cpus_allowed_policy=split"]


def scenario_policy(path):
    """The NUMA policy a job file asks for on its '; run-job defaults:'
    header line (NUMA=spread or NUMA=node0, as jobs/run-job reads it);
    spread when it names none."""
    try:
        found = jobheader.lines(path, "run-job defaults")
    except jobheader.FigureError as e:
        raise PlacementError(str(e))
    for _, defaults in found[:1]:
        for kv in defaults.split():
            key, _, value = kv.partition("=")
            if key == "NUMA":
                if value not in POLICIES:
                    raise PlacementError(
                        "%s: NUMA=%s on its run-job defaults line: "
                        "allowed are %s" % (path, value,
                                            ", ".join(POLICIES)))
                return value
    return DEFAULT_POLICY
