"""A job file's prediction on N CPUs of a machine profile: the profile as
an N x N one-way cost matrix (machines/machine.py), flagcheck-sim run on it
per variant at the low, typical and high costs and SEEDS seeds, the band
over them, and the demand check (D/C). docs/predict.md, "The model", "The
band" and "The demand check"."""

import contextlib
import json
import os
import subprocess
import sys
import time

from .. import width
from ..machines.physics import PhysicsError, sim_args
from ..machines.profile import OPTIONAL

WHICH = ("low", "typ", "high")
SEEDS = 3
# flagcheck-sim's largest matrix (sim/sim.h SIM_MAX_CPUS)
MAX_CPUS = 1024
VARIANTS = ("always", "test_first")
# accesses of shared units simulated per run (all CPUs, warm-up and
# window), which sets the I/Os per CPU: about 0.3 s a run on one core
BUDGET = 400000
# the back-test's figures are made with 16 at the least (docs/predict.md
# says so); more would multiply the time of exactly the runs the budget
# cuts, the longest ones
MIN_IOS, MAX_IOS = 16, 4000
# the most simulated events one run may take (flagcheck-sim --max_events):
# a program that needs more at MIN_IOS I/Os per CPU is refused
MAX_EVENTS = 10000000
# flagcheck-sim's exit status when a run needs more than --max_events
SIM_OVER_BUDGET = 3
# the most simulated events of one flagcheck predict command, every run of
# it (the band's and the plot's too): 50 runs at MAX_EVENTS; flagcheck-sim
# did 0.7e6 to 1.2e7 events/s on one core of a 2-core KVM guest, so 40 s
# to 12 min
COMMAND_EVENTS = 500000000
# a command still running after this many seconds shows a progress line
PROGRESS_AFTER_S = 3


class Tally:
    """The runs and events of one command against @budget (PredictError
    once it is spent), and, on a terminal (@stream a tty), a progress line
    once it has run PROGRESS_AFTER_S by @clock."""

    def __init__(self, budget=COMMAND_EVENTS, stream=None, clock=None):
        self.budget, self.spent, self.runs = budget, 0, 0
        self.stream = stream or sys.stderr
        self.clock = clock or time.monotonic
        self.t0, self.shown = self.clock(), False

    def check(self, spec):
        if self.spent >= self.budget:
            raise PredictError(
                "%s: %d runs simulated %.2g events, the command's budget "
                "(%.0e, docs/predict.md): fewer --seeds or --numjobs"
                % (spec.path, self.runs, self.spent, self.budget))

    def add(self, run):
        self.spent += run["events"]
        self.runs += 1
        elapsed = self.clock() - self.t0
        if elapsed >= PROGRESS_AFTER_S and self.stream.isatty():
            self.stream.write(("\r\033[Kflagcheck predict: %d runs, %.2g "
                               "of %.0e simulated events, %d s" % (
                                   self.runs, self.spent, self.budget,
                                   elapsed))[:width.WIDTH + 4])
            self.stream.flush()
            self.shown = True

    def end(self):
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()


# the Tally of the command running (counted()), else None
_TALLY = None


@contextlib.contextmanager
def counted(tally):
    """Every run_sim() inside the with block counted in @tally."""
    global _TALLY
    _TALLY = tally
    try:
        yield tally
    finally:
        _TALLY = None
        tally.end()


class PredictError(Exception):
    pass


def sim_path():
    """build/flagcheck-sim of this tree, or the installed one beside the
    analysis; $FLAGCHECK_SIM overrides."""
    if os.environ.get("FLAGCHECK_SIM"):
        return os.environ["FLAGCHECK_SIM"]
    here = os.path.dirname(os.path.realpath(__file__))
    top = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    for p in (os.path.join(top, "build", "flagcheck-sim"),
              os.path.join(top, "flagcheck-sim")):
        if os.path.exists(p):
            return p
    raise PredictError("flagcheck-sim not found in %s/build: run make"
                       % top)


def cost_matrix(machine, cpus, which="typ"):
    """The one-way costs between the CPUs (row: holder, column: the one
    that wants the line) and each CPU's NUMA node, from the profile."""
    rows = [[0.0 if a == b else float(machine.transfer_ns(a, b, which))
             for b in cpus] for a in cpus]
    return rows, [int(machine.node(c)) for c in cpus]


def _matrix_text(rows, nodes):
    out = ["%d" % len(rows)]
    out += [" ".join("%.6g" % v for v in r) for r in rows]
    out.append(" ".join(str(n % 8) for n in nodes))
    return "\n".join(out) + "\n"


def physics(machine, choice=None):
    """flagcheck-sim's physics options: the profile's typical physics, or
    @choice (one value of each setting, e.g. a point of
    machine.physics_range); the only place they come from (never a job
    file)."""
    try:
        return sim_args(machine.physics if choice is None else choice)
    except PhysicsError as e:
        raise PredictError("%s: %s" % (machine.name, e))


def run_sim(spec, variant, machine, cpus, which, rest_ns, seed, ios,
            warmup=None, choice=None, scale=1.0):
    """One flagcheck-sim run, within MAX_EVENTS: its JSON as a dict.
    @choice: the physics (physics()), the profile's typical ones by
    default; @scale: every transfer cost multiplied by it."""
    rows, nodes = cost_matrix(machine, cpus, which)
    rows = [[v * scale for v in r] for r in rows] if scale != 1.0 else rows
    args = [sim_path(), "--words", spec.words, "--pattern", spec.pattern,
            "--variant", variant, "--writers", str(spec.writers),
            "--rest", "%.6g" % rest_ns,
            "--atomic_local", "%.6g" % machine.local_ns("atomic_local", which),
            "--load_hit", "%.6g" % machine.local_ns("load_hit", which),
            "--seed", str(seed), "--ios", str(ios),
            "--max_events", str(MAX_EVENTS),
            "--warmup", str(warmup if warmup is not None else
                            max(ios // 4, 1))] + physics(machine, choice)
    for cost in OPTIONAL:
        if cost in machine.costs:
            args += ["--" + cost, "%.6g" % machine.local_ns(cost, which)]
    if getattr(machine, "cache_lines", None):
        args += ["--cache_lines", str(machine.cache_lines)]
    if spec.fixed:
        args += ["--fixed", spec.fixed]
    if _TALLY:
        _TALLY.check(spec)
    p = subprocess.run(args, input=_matrix_text(rows, nodes),
                       capture_output=True, text=True)
    if p.returncode == SIM_OVER_BUDGET:
        raise PredictError(_over(spec, len(cpus), ios))
    if p.returncode:
        raise PredictError("%s: %s" % (spec.path, p.stderr.strip()))
    doc = json.loads(p.stdout)
    if _TALLY:
        _TALLY.add(doc)
    return doc


def _mean(xs):
    return sum(xs) / len(xs)


def _over(spec, n, ios, need=None):
    """The refusal of a run over the budget: @need estimated, or none
    where flagcheck-sim refused it."""
    what = "about %.1e" % need if need else "over %.0e" % MAX_EVENTS
    return "%s: %d CPU(s) x %d I/Os: %s simulated events, budget %.0e: %s" \
        % (spec.path, n, ios, what, MAX_EVENTS,
           "fewer --numjobs" if n > 1 else "a shorter pattern")


def _ios_for(one, n, short=None):
    """I/Os per CPU that fit the budget: from the one-CPU run's shared
    accesses per I/O, plus the CAS retries per I/O of @short, a short run
    on the N CPUs (none on one CPU)."""
    per_io = sum(u["accesses_per_io"] for u in one["units"]) or 1.0
    per_io += short["retries_per_io"] if short else 0.0
    return int(max(MIN_IOS, min(MAX_IOS, BUDGET / (n * per_io))))


def _events_per_io(run):
    """A run's simulated events per measured I/O (its warm-up's events
    counted too: an estimate from above)."""
    return run["events"] / run["ios"]


def _check_budget(spec, n, per_io, ios):
    """Refuse, before running it, a run of @ios I/Os per CPU on @n CPUs
    that would need more than MAX_EVENTS at @per_io events a CPU's I/O."""
    need = n * (ios + max(ios // 4, 1)) * per_io
    if need > MAX_EVENTS:
        raise PredictError(_over(spec, n, ios, need))


def window(spec, machine, cpus, one, which="typ", rest_ns=0.0, choice=None,
           scale=1.0):
    """The I/Os per CPU of runs on @cpus (_ios_for), @one the one-CPU run:
    a CAS loop retries up to N - 1 times an I/O at N CPUs, which one CPU
    never shows, so a short run (2 I/Os per CPU) on @cpus with the same
    settings counts the retries; a window over MAX_EVENTS is refused."""
    n, per_io, short = len(cpus), _events_per_io(one), None
    if n > 1:
        _check_budget(spec, n, per_io, 2)
        short = run_sim(spec, "always", machine, cpus, which, rest_ns, 0, 2,
                        warmup=1, choice=choice, scale=scale)
        per_io = max(per_io, _events_per_io(short))
    ios = _ios_for(one, n, short)
    _check_budget(spec, n, per_io, ios)
    return ios


def mean_transfer(machine, cpus, which="typ"):
    """The mean one-way cost between two of the CPUs (0 for one CPU)."""
    n = len(cpus)
    if n < 2:
        return 0.0
    rows, _ = cost_matrix(machine, cpus, which)
    return sum(sum(r) for r in rows) / (n * (n - 1))


def demand(machine, cpus, one, many):
    """Per shared unit written in the always form: D, C, D/C (module
    doc). @one: the always form on one CPU, @many on the N CPUs, at
    typical costs."""
    n = len(cpus)
    mean_t = mean_transfer(machine, cpus)
    out = []
    for u in many["units"]:
        if not u["writes_per_io"]:
            continue
        # an :obj field line's figures are summed over its objects: one
        # object's share
        objects = u.get("objects") or 1
        d = n * u["transfers_per_io"] / objects * 1e9 / one["ns_per_io"]
        c = 1e9 / mean_t if mean_t else None    # one CPU: no transfer
        out.append({"line": u["line"], "lines": u["lines"],
                    "words": u["words"], "node": u["node"],
                    "objects": objects, "d": d, "c": c,
                    "ratio": d / c if c else 0.0})
    return out


def _probe(spec, machine, cpus, rest_ns):
    """A short run on the first of @cpus: its events per I/O size the
    runs."""
    return run_sim(spec, "always", machine, cpus[:1], "typ", rest_ns, 0, 8,
                   warmup=2)


def _rest(rest_ns):
    """{which: rest ns} of one figure, or (typ, low, high) of a measured
    rest."""
    return dict(zip(WHICH, (rest_ns,) * 3)) if isinstance(
        rest_ns, (int, float)) else dict(zip(("typ", "low", "high"),
                                             rest_ns))


def planned_events(spec, machine, n, placement=None, rest_ns=0.0,
                   seeds=SEEDS):
    """About how many events predict() would simulate, from a one-CPU
    probe: its runs on the @n CPUs at the window _ios_for() gives them
    (a CAS loop's retries add more) and its one-CPU runs."""
    cpus = machine.cpus(n, placement)
    probe = _probe(spec, machine, cpus, _rest(rest_ns)["typ"])
    per_io = _events_per_io(probe)
    ios, one = _ios_for(probe, n), _ios_for(probe, 1)
    return per_io * (len(WHICH) * seeds * len(VARIANTS) * n *
                     (ios + max(ios // 4, 1)) + len(VARIANTS) * (one + 4))


def predict(spec, machine, n, placement=None, rest_ns=0.0, seeds=SEEDS):
    """The prediction of job file @spec (jobspec.Spec) on the first @n
    CPUs of @machine (or @placement's): a dict, as flagcheck predict's
    --json prints it (docs/predict.md). @rest_ns: one figure, or (typ,
    low, high) of a measured rest, run with the costs of the same end."""
    rest = _rest(rest_ns)
    cpus = machine.cpus(n, placement)
    probe = _probe(spec, machine, cpus, rest["typ"])
    if not probe["ns_per_io"] > 0:
        raise PredictError("%s: an I/O takes no time on one CPU (no shared "
                           "access, work(ns) or rest): no rate to predict; "
                           "give a work(ns) or a rest (--rest fio)"
                           % spec.path)
    one_ios = window(spec, machine, cpus[:1], probe)
    one = {variant: run_sim(spec, variant, machine, cpus[:1], "typ", rest["typ"],
                         0, one_ios, warmup=4) for variant in VARIANTS}
    ios = window(spec, machine, cpus, one["always"], "typ", rest["typ"])
    runs = {}
    for which in WHICH:
        for seed in range(seeds):
            for variant in VARIANTS:
                runs[(variant, which, seed)] = run_sim(
                    spec, variant, machine, cpus, which, rest[which], seed,
                    ios)
    variants = {}
    for variant in VARIANTS:
        all_ = [runs[(variant, w, s)]["iops"] for w in WHICH
                for s in range(seeds)]
        variants[variant] = {"iops": _mean([runs[(variant, "typ", s)]["iops"]
                                      for s in range(seeds)]),
                       "low": min(all_), "high": max(all_)}
    gains = {(w, s): runs[("test_first", w, s)]["iops"] /
             runs[("always", w, s)]["iops"]
             for w in WHICH for s in range(seeds)}
    gain = {"value": _mean([gains[("typ", s)] for s in range(seeds)]),
            "low": min(gains.values()), "high": max(gains.values())}
    for variant in VARIANTS:
        typ0 = runs[(variant, "typ", 0)]
        variants[variant].update(one_cpu=one[variant]["iops"],
                           one_cpu_line_ops=one[variant]["rmw_per_io"] +
                           one[variant]["stores_per_io"],
                           rmw_per_io=typ0["rmw_per_io"],
                           stores_per_io=typ0["stores_per_io"],
                           retries_per_io=typ0["retries_per_io"])
    lines = {variant: runs[(variant, "typ", 0)]["units"] for variant in VARIANTS}
    return {"machine": machine.name, "cpus": n, "placement": placement,
            "rest_ns": rest["typ"], "variants": variants, "gain": gain,
            "lines": lines, "demand": demand(machine, cpus, one["always"],
                                             runs[("always", "typ", 0)]),
            "mean_transfer_ns": mean_transfer(machine, cpus),
            "ios_per_cpu": ios, "seeds": seeds}
