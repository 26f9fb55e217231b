"""The band of a published prediction: the envelope of the gain over every
input the header assumes, both rest rules, the profile's physics range,
its low..high costs and the seeds, widened by the figure's own noise;
sampled one dimension at a time from the point, then two corners. Where
the published figure lies outside, inverse() bisects each single input
for the value that reaches it. docs/predict.md, "The band over every
unknown"."""

import math
import re

from ..inputs import jobheader
from ..machines.machine import MachineError
from . import jobspec, simulate

NOISE = 0.03            # a single run's noise: the published figure's
SPAN = (0.1, 10.0)      # the inverse's search, a factor of the file's value
STEPS = 6               # its bisection steps (each x(SPAN)^(1/2^STEPS))
# the physics the inverse tries, each value the point does not have: the
# simulator's hand-over orders (a question about the figure, not the band)
INVERSE_PHYSICS = (("handover", "hand-over", ("fifo", "nearest")),)
WORK = re.compile(r"work\((\d+)\)")
# a rate suffix of the grammar: /every=N (calls), /every_ns=T (ns)
RATE = re.compile(r"/\s*(every_ns|every)\s*=\s*([0-9]+)")

# the sentence "the band is wide because ..." of each dimension: what is
# unknown, then what would fix it (FIX): an input the reviewer can give, or
# the measurement that would settle it, named
WHY = {"cpus": "the source gives no N",
       "placement": "the source does not say where the CPUs ran",
       "calls": "the source does not give the calls of the path per "
                "operation",
       "rest": "the rest is not derived (no rate, no share)",
       "writers": "the source does not say how many of the CPUs run the "
                  "writing path",
       "period": "the source gives a threshold's condition, not its "
                 "interval",
       "rule": "the source's rate and its profile share give different rests",
       "costs": "the profile's transfer costs span low..high",
       "seeds": "the seeds (guards' phases, jitter) move it",
       "handover": "no measurement fixes the hand-over order for this family",
       "shared_readers": "no measurement fixes how waiting readers are "
                         "served for this family",
       "jitter": "no measurement fixes the spread of the local time",
       "line_pair": "no measurement fixes whether the line pair is one unit",
       "atomics": "no measurement fixes where an uncontended atomic runs",
       "visit": "the family's curves need different visits (how long the "
                "line stays with the CPU it is leaving)",
       "hold": "the family's curves need different holds of the line"}
FIX = {"cpus": "give N: the published-machine line's N (an `; assumed: "
               "cpus=` line names its range)",
       "placement": "give the placement: `nodes=0,1` (or one node) at the "
                    "end of the published-machine line",
       "calls": "give the calls of the path per published operation (an "
                "`; assumed: calls=` line with the source's words)",
       "rest": "give the rest: `; published-rest: work NS`, or the "
               "source's rate or its profile's share of the function",
       "writers": "give the writers: `pattern_writers=W` (the jobs that "
                  "run the writing path, 0 every job) in place of the "
                  "`; assumed: writers=` line",
       "period": "give the interval: the kernel's value of the condition "
                 "on the published machine (its HZ, sysctl or constant) "
                 "as the suffix's /every=N or /every_ns=T, in place of the "
                 "`; assumed: period=` line",
       "rule": "give the rest measured on the published machine "
               "(`; published-rest: work NS`)",
       "costs": "measure the transfer costs on the published machine's "
                "CPU family (flagcheck calibrate there, a profile from it)",
       "seeds": "nothing to give: run the published workload several "
                "times, its spread is this one",
       "handover": "measure who gets a contended line next on the "
                   "published CPU family (one atomic line, threads on two "
                   "sockets: cross-socket transfers per RMW, ccbench-style)",
       "shared_readers": "measure how waiting readers are served on the "
                         "published CPU family (k readers spinning on a "
                         "line one CPU writes: the time until all k see "
                         "the write, against k)",
       "jitter": "measure the per-call spread of the published path (its "
                 "latency histogram on the published machine)",
       "line_pair": "measure whether a write to one line of a 128-byte "
                    "pair invalidates the other on the published CPU "
                    "family (two lines, two CPUs)",
       "atomics": "measure an uncontended atomic add against a plain add "
                  "on the published CPU family",
       "visit": "measure the line's visits and the one-way cost on one "
                "pair of the published CPU family (flagcheck calibrate "
                "there), or give a published contended-atomic curve of it "
                "with its one-way costs (machines/curves/)",
       "hold": "measure the line's visits and the one-way cost on one pair "
               "of the published CPU family (flagcheck calibrate there)"}


def fix_text(dim):
    """What would fix dimension @dim: an input or a measurement."""
    return FIX.get(dim, "measure the physics' %s on the published CPU "
                   "family" % dim)


def physics_range(machine):
    """{name: [values]} of the physics the profile leaves open, typical
    included; a profile without a range: its one value of each (the one
    place this fallback lives)."""
    rng = getattr(machine, "physics_range", None)
    if rng:
        return {k: list(v) for k, v in rng.items()}
    return {k: [v] for k, v in machine.physics.items()}


def file_rest(spec):
    """The file's rest in ns: published-rest NS, else its work() sum."""
    if spec.rest_ns is not None:
        return spec.rest_ns
    return float(sum(int(x) for x in WORK.findall(spec.pattern)))


def _scaled(spec, f):
    """@spec with its rest (work() and rest_ns) multiplied by @f."""
    if f == 1.0:
        return spec

    def sub(text):
        return WORK.sub(lambda m: "work(%d)" % max(0, round(
            int(m.group(1)) * f)), text) if text else text
    return spec._replace(pattern=sub(spec.pattern), fixed=sub(spec.fixed))


def rate_suffixes(spec):
    """{(suffix, value)} of every rate suffix of @spec's pattern and
    pattern_fixed: ("every", N) of /every=N, ("every_ns", T) of
    /every_ns=T."""
    return {(m.group(1), int(m.group(2))) for text in (spec.pattern,
                                                        spec.fixed or "")
            for m in RATE.finditer(text)}


def threshold(spec, a):
    """The suffix ("every" or "every_ns") that assumed period @a sets:
    the pattern's rate suffixes whose value is the line's point, all of
    one kind (the operations one threshold guards); ValueError (one
    line) where none has it or both kinds do."""
    found = rate_suffixes(spec)
    kinds = sorted({k for k, v in found if v == a.point})
    if len(kinds) == 1:
        return kinds[0]
    have = ", ".join("/%s=%d" % kv for kv in sorted(found)) or "none"
    if not kinds:
        raise ValueError("%s: assumed period=%d: no /every=%d or "
                         "/every_ns=%d in pattern or pattern_fixed (its rate "
                         "suffixes: %s): the line sets the suffixes of the "
                         "one threshold it names, by their value"
                         % (a.where, a.point, a.point, a.point, have))
    raise ValueError("%s: assumed period=%d: both /every=%d and "
                     "/every_ns=%d are in the pattern: one threshold a "
                     "line; give the other another value"
                     % (a.where, a.point, a.point, a.point))


def _period(spec, kind, old, new):
    """@spec with each /KIND=@old suffix (pattern and pattern_fixed) at
    @new."""
    if new == old:
        return spec

    def sub(text):
        return RATE.sub(lambda m: "/%s=%d" % (kind, new) if (
            m.group(1), int(m.group(2))) == (kind, old) else m.group(),
            text) if text else text
    return spec._replace(pattern=sub(spec.pattern), fixed=sub(spec.fixed))


def writers_count(v):
    """pattern_writers of an assumed writers value ("all": 0)."""
    return 0 if v == jobheader.ALL else int(v)


class _Sim:
    """The gain at one sample, each sample simulated once."""

    def __init__(self, spec, machine, rest_ns):
        self.spec, self.m, self.rest_ns = spec, machine, rest_ns
        self.base = file_rest(spec)
        self.share = jobheader.published_share(spec.path)
        self.phys = physics_range(machine)
        self.known = {}
        # the assumed period's suffix and point value (_dims sets it)
        self.threshold = None
        cpus = machine.cpus(1)
        # the one-CPU run sizes each sample's window (simulate.window)
        self.one = simulate.run_sim(spec, "always", machine, cpus, "typ",
                                    rest_ns, 0, 64, warmup=4)

    def placement(self, name):
        if name == "compact":
            return None
        if self.spec.published.placement:
            return self.spec.published.placement
        nodes = sorted({self.m.node(c)
                        for c in self.m.cpus(self.m.total_cpus)})
        return "nodes=" + ",".join(map(str, nodes))

    def cpus(self, s):
        try:
            return self.m.cpus(int(s["cpus"]), self.placement(s["placement"]))
        except MachineError as e:
            raise ValueError("%s: assumed range: %s" % (self.spec.path, e))

    def rest_factor(self, s, cpus):
        """The factor on the file's rest of sample @s: a rest per
        published operation over the calls per operation; a profile
        share's rest is per call already (docs/machines.md), at each N."""
        if s["rule"] == "share" and self.base:
            share = (1 - self.share.percent / 100.0) * len(cpus) * \
                simulate.mean_transfer(self.m, cpus)
            return s["rest"] * share / self.base
        return s["rest"] / s["calls"]

    def gain(self, s, which="typ", seed=0):
        key = (tuple(sorted(s.items())), which, seed)
        if key not in self.known:
            cpus = self.cpus(s)
            f = self.rest_factor(s, cpus)
            spec = _scaled(self.spec, f)
            if "writers" in s:
                spec = spec._replace(writers=writers_count(s["writers"]))
            if "period" in s:
                spec = _period(spec, self.threshold[0], self.threshold[1],
                               s["period"])
            choice = {k: s[k] for k in self.phys}
            ios = simulate.window(spec, self.m, cpus, self.one, which,
                                  self.rest_ns * f, choice, s["scale"])
            iops = [simulate.run_sim(spec, variant, self.m, cpus, which,
                                     self.rest_ns * f, seed, ios,
                                     choice=choice, scale=s["scale"])["iops"]
                    for variant in simulate.VARIANTS]
            self.known[key] = iops[1] / iops[0]
        return self.known[key]


def _dims(spec, sim, assumed):
    """(point sample, {dimension: [other values]})."""
    pub = spec.published
    pl = assumed.get("placement")
    here = "spread" if pub.placement else "compact"
    if pl is not None and pl.point != here:
        raise ValueError("%s: assumed placement=%s, but its published-machine "
                         "line's is %s" % (pl.where, pl.point, here))
    c = assumed.get("cpus")
    if c is not None and c.point != pub.cpus:
        raise ValueError("%s: assumed cpus=%d, but its published-machine "
                         "line's N is %d" % (c.where, c.point, pub.cpus))
    k = assumed.get("calls")
    if k is not None and (spec.rest_rule or "").startswith("profile share"):
        raise ValueError("%s: assumed calls: this file's rest is a profile "
                         "share's, per call: the calls per operation do not "
                         "enter it" % k.where)
    point = {"cpus": pub.cpus, "placement": here, "calls": 1.0, "rest": 1.0,
             "rule": "rate", "scale": 1.0}
    w = assumed.get("writers")
    if w is not None:
        point["writers"] = _writers(spec, w, c.low if c is not None
                                    else pub.cpus)
    t = assumed.get("period")
    if t is not None:
        sim.threshold = (threshold(spec, t), t.point)
        point["period"] = t.point
    point.update({k: sim.m.physics[k] for k in sim.phys})
    other = {}
    if c is not None:
        other["cpus"] = sorted({c.low, c.high} - {c.point})
    if pl is not None:
        # a placement of the same CPUs (N = all of them) is no other input
        other["placement"] = [
            p for p in jobheader.PLACEMENTS if p != here and sorted(
                sim.cpus(dict(point, placement=p))) != sorted(
                sim.cpus(point))]
    for name in ("calls", "rest"):
        a = assumed.get(name)
        if a is not None:
            other[name] = sorted({a.low / a.point, a.high / a.point} - {1.0})
    for a in (w, t):
        if a is not None:       # whole values, each end as written
            other[a.name] = [v for v in (a.low, a.high) if v != a.point]
    rule = (spec.rest_rule or "").startswith("after-fix rate")
    if sim.share is not None and rule:
        other["rule"] = ["share"]
    for k, vals in sim.phys.items():
        other[k] = [v for v in vals if v != point[k]]
    return point, {k: v for k, v in other.items() if v}


def _writers(spec, w, fewest):
    """The point of assumed writers @w: the file's pattern_writers
    (0: all); ValueError where it is not, or where a count of its range
    is above @fewest, the fewest CPUs the band simulates."""
    if writers_count(w.point) != spec.writers:
        raise ValueError("%s: assumed writers=%s, but its pattern_writers is "
                         "%d%s" % (w.where, w.point, spec.writers,
                                   " (every job)" if not spec.writers
                                   else ""))
    top = max((v for v in (w.low, w.point, w.high) if v != jobheader.ALL),
              default=0)
    if top > fewest:
        raise ValueError("%s: assumed writers: %d writers, above the %d "
                         "CPUs the band simulates at the fewest: writers "
                         "stay within the CPUs" % (w.where, top, fewest))
    return w.point


def band(spec, machine, rest_ns, seeds=simulate.SEEDS, given=()):
    """The band of @spec at its published machine (module doc): a dict
    with value, low, high, width, noise, today (costs and seeds only),
    dims ({dimension: {"values", "gains", "ratio"}}), widest, corners;
    the assumed inputs named in @given are fixed (the reviewer gave
    them), not swept."""
    assumed = {k: v for k, v in jobheader.assumed(spec.path).items()
               if k not in given}
    noise = jobheader.published_stddev(spec.path) or NOISE
    sim = _Sim(spec, machine, rest_ns)
    point, other = _dims(spec, sim, assumed)
    g0 = sim.gain(point)
    typ = [sim.gain(point, "typ", s) for s in range(seeds)]
    costs = {w: [sim.gain(point, w, s) for s in range(seeds)]
             for w in ("low", "high")}
    dims = {"costs": {"values": ["low", "typ", "high"],
                      "gains": [costs["low"][0], g0, costs["high"][0]]},
            "seeds": {"values": list(range(seeds)), "gains": typ}}
    for k, vals in other.items():
        dims[k] = {"values": [point[k]] + vals,
                   "gains": [g0] + [sim.gain(dict(point, **{k: v}))
                                    for v in vals]}
    for d in dims.values():
        d["ratio"] = max(d["gains"]) / min(d["gains"])
    corners = []
    for pick in (min, max):
        s, which = dict(point), "typ"
        for k, d in dims.items():
            v = d["values"][d["gains"].index(pick(d["gains"]))]
            if k == "costs":
                which = v
            elif k != "seeds":
                s[k] = v
        corners.append(sim.gain(s, which))
    every = typ + costs["low"] + costs["high"] + corners + \
        [g for d in dims.values() for g in d["gains"]]
    today = typ + costs["low"] + costs["high"]
    widest = max((k for k in dims), key=lambda k: dims[k]["ratio"])
    low, high = min(every) * (1 - noise), max(every) * (1 + noise)
    return {"value": sum(typ) / len(typ), "low": low, "high": high,
            "width": high / low, "noise": noise,
            "today": {"low": min(today), "high": max(today)},
            "dims": dims, "corners": corners, "samples": len(sim.known),
            "every": every,
            "widest": {"dim": widest, "ratio": dims[widest]["ratio"],
                       "why": WHY.get(widest, "the physics' " + widest),
                       "fix": fix_text(widest)},
            "point": point, "_sim": sim}


def where(b, published):
    """"inside", "above" or "below" the band."""
    if published > b["high"]:
        return "above"
    return "below" if published < b["low"] else "inside"


def _bisect(g, target, lo, hi):
    """The value in lo..hi (log scale) where g reaches @target, None where
    g(lo) and g(hi) are both on one side of it."""
    glo, ghi = g(lo), g(hi)
    if (glo - target) * (ghi - target) > 0:
        return None
    for _ in range(STEPS):
        mid = math.sqrt(lo * hi)
        gm = g(mid)
        if (gm - target) * (glo - target) > 0:
            lo, glo = mid, gm
        else:
            hi, ghi = mid, gm
    return math.sqrt(lo * hi)


def inverse(b, published):
    """[(input, factor or None, text)]: for each single input the value
    of it (a factor of the file's) that reaches @published, the others at
    the point."""
    sim, point = b["_sim"], b["point"]
    out = []
    f = _bisect(lambda x: sim.gain(dict(point, rest=x)), published, *SPAN)
    out.append(("rest", f))
    out.append(("calls", None if f is None else 1.0 / f))
    n0 = point["cpus"]
    top = sim.m.total_cpus

    def at_n(x):
        n = max(1, min(top, int(round(n0 * x))))
        try:
            return sim.gain(dict(point, cpus=n))
        except ValueError:          # more CPUs than the placement's nodes
            return sim.gain(dict(point, cpus=n, placement="compact"))
    lo, hi = max(SPAN[0], 1.0 / n0), min(SPAN[1], top / float(n0))
    f = _bisect(at_n, published, lo, hi) if hi > lo else None
    out.append(("N", None if f is None else
                max(1, min(top, int(round(n0 * f)))) / float(n0)))
    f = _bisect(lambda x: sim.gain(dict(point, scale=x)), published, *SPAN)
    out.append(("transfer cost", f))
    for key, name, values in INVERSE_PHYSICS:
        for v in values:
            if key in point and v != point[key]:
                out.append(("%s %s" % (name, v),
                            sim.gain(dict(point, **{key: v}))))
    return out


def inverse_text(inv, published):
    """Lines: each input's value reaching the published figure alone."""
    out = ["to reach x%.2f with one input alone (a factor of the file's "
           "value):" % published]
    for name, v in inv:
        if name.startswith("hand-over"):
            out.append("  %s gives x%.2f" % (name, v))
        elif v is None:
            out.append("  %s: none in %gx..%gx" % (name, SPAN[0], SPAN[1]))
        else:
            out.append("  %s x%.2f" % (name, v))
    return out


def summary(b, published):
    """The band's lines in words (flagcheck predict and the back-test)."""
    out = ["band over every unknown x%.2f..%.2f (width x%.2f; %d samples, "
           "one at a time plus 2 corners; noise %.1f%%)" % (
               b["low"], b["high"], b["width"], b["samples"],
               100 * b["noise"])]
    if published is not None:
        out.append("published x%.2f lies %s the band" % (
            published, where(b, published)))
    w = b["widest"]
    out.append("widest unknown: %s (x%.2f alone): %s; to fix it: %s" % (
        w["dim"], w["ratio"], w["why"], w["fix"]))
    if b["width"] > 2:
        out.append("the band is wide because %s" % w["why"])
    return out


def public(b):
    """The band as --json prints it (no simulator state)."""
    return {k: v for k, v in b.items() if not k.startswith("_")}


def one_band(pred, b):
    """@pred's gain with the band over every unknown @b as THE band
    (low, high), the costs-and-seeds spread kept beside it, named
    ("costs_seeds"): every surface that prints a gain prints this one."""
    g = pred["gain"]
    if "costs_seeds" not in g:
        g["costs_seeds"] = {"low": g["low"], "high": g["high"]}
    g["low"], g["high"], g["band"] = b["low"], b["high"], "every unknown"
    return pred


def band_at(spec, machine, n, placement, rest_ns, seeds=simulate.SEEDS):
    """The band over every unknown of @spec on @machine at @n CPUs and
    @placement (None: compact; "nodes=A,B"): the published machine's
    band with N and the placement given, so the header's assumed cpus
    and placement are not swept; every other unknown is."""
    pub = jobspec.Published(machine.name, n, placement)
    return band(spec._replace(published=pub), machine, rest_ns, seeds,
                given=("cpus", "placement"))


def attach_at(pred, spec, machine, n, placement, rest_ns, published):
    """attach() for a prediction at N CPUs given (band_at()): the band in
    words, no inverse (the published figure is at its own N)."""
    b = band_at(spec, machine, n, placement, rest_ns)
    out = public(b)
    out["lines"] = summary(b, None)
    out["published"], out["where"] = None, None
    pred["band"] = out
    one_band(pred, out)
    return out


def attach(pred, spec, machine, rest_ns, published, inverse_too=True):
    """Add the band of a published prediction to @pred ("band": its
    figures, where the published figure lies, the inverse where it lies
    outside, and "lines", the band in words); @pred's gain band becomes
    it (one_band())."""
    b = band(spec, machine, rest_ns)
    lines = summary(b, published)
    out = public(b)
    if published is not None:
        out["published"], out["where"] = published, where(b, published)
        if out["where"] != "inside" and inverse_too:
            inv = inverse(b, published)
            out["inverse"] = [{"input": n, "value": v} for n, v in inv]
            lines += inverse_text(inv, published)
    out["lines"] = lines
    pred["band"] = out
    one_band(pred, out)
    return out
