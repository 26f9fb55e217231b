"""A machine of the profile loader's interface (machines/machine.py's
Machine: cpus, relation, transfer_ns, node, local_ns, physics,
physics_range), built in
the test from given costs, so that the simulator's tests state their
closed forms with numbers of their own and need no profile file.

sockets x cores CPUs, numbered cores-first; one cost per relation
("same_llc" within a socket, "other_socket" across), each (low, typ,
high). Physics: each setting of sim/physics.def at its default, but for
those given by name (handover="nearest", ...); each a range of one."""

from flagcheck_analysis.machines import physics


class Machine:
    def __init__(self, name="standin", sockets=1, cores=256,
                 same_llc=(100.0, 100.0, 100.0),
                 other_socket=(200.0, 200.0, 200.0),
                 atomic_local=(5.0, 5.0, 5.0), load_hit=(1.0, 1.0, 1.0),
                 clock_ghz=2.0, **choice):
        self.name = name
        self.clock_ghz = clock_ghz
        self.generic = False
        self.sources = {}
        self.sockets, self.cores = sockets, cores
        self.total_cpus = sockets * cores
        self.costs = {"same_llc": same_llc, "other_socket": other_socket,
                      "atomic_local": atomic_local, "load_hit": load_hit}
        rows = physics.settings()
        unknown = set(choice) - set(rows)
        if unknown:
            raise ValueError("no physics setting %s" % sorted(unknown))
        self.physics = {k: choice.get(k, r.default)
                        for k, r in rows.items()}
        self.physics_range = {k: [v] for k, v in self.physics.items()}

    def cpus(self, n, placement=None):
        if placement:
            nodes = [int(x) for x in placement.split("=", 1)[1].split(",")]
            per = [[c for c in range(self.total_cpus) if self.node(c) == nd]
                   for nd in nodes]
            out = [per[i % len(per)][i // len(per)] for i in range(n)]
        else:
            out = list(range(n))
        if n > self.total_cpus or len(out) != n:
            raise ValueError("--numjobs %d: the machine has %d"
                             % (n, self.total_cpus))
        return out

    def node(self, cpu):
        return cpu // self.cores

    def relation(self, a, b):
        if a == b:
            return "self"
        return "same_llc" if self.node(a) == self.node(b) else \
            "other_socket"

    def transfer_ns(self, a, b, which="typ"):
        return self.costs[self.relation(a, b)][("low", "typ",
                                                "high").index(which)]

    def local_ns(self, what, which="typ"):
        return self.costs[what][("low", "typ", "high").index(which)]
