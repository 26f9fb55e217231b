"""The big-box answers of a results directory (docs/predict.md, "In the
report"): which pattern job files its manifests name, which machine
--numjobs N simulates on, this fio job's rest from the one-job runs, each
answer with THE band, and each job simulated beside the runs on this
box's calibration. flagcheck predict DIR stores them; report/bigbox.py
renders them."""

import copy
import functools
import json
import os

from ..inputs import fiojson, jobheader, lineprobes, published
from ..machines import calibmachine, loader, physics, profile
from ..stats.compare import measured_iops
from . import band, curve, explain, fiocost, jobspec, simulate

def calibration_path(inputs):
    """The results' calibration.json (never through a link), or None."""
    for item in inputs:
        path = os.path.join(item, "calibration.json")
        if os.path.isdir(item) and os.path.isfile(path) and \
                not os.path.islink(path):
            return path
    return None


def typical(ns):
    """The typical figure of a rest: one figure, or (typ, low, high)."""
    return ns if isinstance(ns, (int, float)) else ns[0]


def predict_at(spec, mach, n, placement, rest, gain_pub):
    """The prediction of @spec on @mach at @n CPUs (@rest: (ns, words))
    with THE band, the band over every unknown: at the published machine
    band.attach()'s, elsewhere band_at()'s (N and the placement given);
    band.one_band() makes it the gain's low..high."""
    p = simulate.predict(spec, mach, n, placement, rest[0])
    pub = spec.published
    if pub is not None and mach.name == pub.profile and n == pub.cpus and \
            placement == pub.placement:
        band.attach(p, spec, mach, typical(rest[0]), gain_pub, False)
    else:
        band.attach_at(p, spec, mach, n, placement, typical(rest[0]),
                       gain_pub)
    return p


def job_files(manifests, warn=None):
    """{scenario: job file} of the model=pattern job files named, a C
    model's job file standing for the pattern twin its header names."""
    out = {}
    for mf in manifests:
        jobs = (mf.get("matrix") or {}).get("jobs")
        for scenario, path in (jobs.items() if isinstance(jobs, dict)
                               else ()):
            if not isinstance(path, str) or not os.path.exists(path):
                continue
            if not jobspec.is_pattern(path):
                try:
                    path = jobheader.pattern_twin(path)
                except jobheader.FigureError as e:
                    if warn:
                        warn("%s (the big-box answer leaves it out)" % e)
                    path = None
            if path is not None and jobspec.is_pattern(path):
                out[scenario] = path
    return out


class Refused(ValueError):
    """str(): one line naming why --numjobs N gives no estimate."""


def cpu_model_of(calibration_path):
    try:
        doc = json.loads(fiojson.read_text(calibration_path, "calibration")
                         or "{}")
        model = (doc.get("host") or {}).get("cpu_model")
    except (fiojson.InputError, ValueError, AttributeError, RecursionError):
        return ""
    return model if isinstance(model, str) else ""


def with_calibrated_costs(generic, here):
    """A copy of profile @generic whose transfer costs are this box's
    calibration @here's ([min, median, max]) for each relation both have:
    (machine, [the relations taken from the calibration])."""
    m = copy.copy(generic)
    m.costs, m.sources = dict(generic.costs), dict(generic.sources)
    used = []
    for rel in profile.RELATIONS:
        if rel in here.costs and rel in generic.costs:
            m.costs[rel] = list(here.costs[rel])
            m.sources["costs_ns." + rel] = "this box's calibration (%s)" \
                % here.path
            used.append(rel)
    return m, used


def default_machine(args, n, entries, load):
    """(the machine --numjobs @n simulates on, this box's calibration or
    None, which and why in words); Refused naming why there is none.
    A calibration the runs' line probes (@entries) contradict is refused
    (two calibrations of one box x4 apart: at most one agrees)."""
    cal = calibration_path(args.inputs)
    here = load(cal) if cal else None
    why = disagreement(here, entries, "--numjobs %d is refused: name a "
                       "profile with --machine, or calibrate again" % n) \
        if here else None
    if args.machine:
        return load(args.machine), (None if why else here), \
            "--machine %s" % args.machine
    if why:
        raise Refused(why)
    if here is None:
        raise Refused("--numjobs %d: no --machine and no calibration.json "
                      "in the results: the big-box answer names no machine"
                      % n)
    if n <= here.total_cpus:
        return here, here, "this box's calibration (%d CPUs)" \
            % here.total_cpus
    model = cpu_model_of(cal)
    name = physics.generic_profile(model)
    if name is None:
        raise Refused("--numjobs %d: beyond this box's %d calibrated CPUs, "
                      "and its CPU %r is of no family with a generic "
                      "profile (machines/): name one with --machine"
                      % (n, here.total_cpus, model))
    mach, used = with_calibrated_costs(load(name), here)
    return mach, here, (
        "%s, the generic profile of this box's family (%s; %d > its %d "
        "calibrated CPUs), with this box's calibrated %s"
        % (name, model, n, here.total_cpus,
           ", ".join(used) + (" costs" if used else "costs for no relation")))


def one_job_iops(records, label):
    """[(variant, IOPS)] of the scenario's numjobs=1 runs
    (published.of_scenario())."""
    mine = published.of_scenario(label, {r.scenario for r in records})
    return [(r.variant, r.metrics["iops"]) for r in records
            if r.scenario in mine and r.numjobs == 1 and
            r.variant in simulate.VARIANTS and r.metrics.get("iops")]


def run_rest(spec, mach, here, runs):
    """This fio job's rest from its one-job @runs [(variant, IOPS)]: each
    run's ns per I/O less the pattern's own (simulated on one CPU of
    @here, this box's calibration, else of @mach), scaled by the clocks
    (here over @mach's): ((median, lowest, highest) ns, how), or None."""
    if not runs:
        return None
    box = here or mach
    one = simulate.predict(spec, box, 1, None, 0.0, seeds=1)["variants"]
    ns = sorted(1e9 / x - 1e9 / one[variant]["one_cpu"] for variant, x in runs)
    if ns[len(ns) // 2] <= 0:
        return None
    scale, how = 1.0, "not scaled: the same box"
    if box is not mach:
        if box.clock_ghz and mach.clock_ghz:
            scale = box.clock_ghz / mach.clock_ghz
            how = "x %.2f GHz here / %.2f GHz" % (box.clock_ghz,
                                                  mach.clock_ghz)
        else:
            how = "not scaled: a clock is not known"
    rest = tuple(max(v, 0.0) * scale for v in
                 (ns[len(ns) // 2], ns[0], ns[-1]))
    return rest, ("fio: work(ns) + %.0f ns per I/O from this results' %d "
                  "one-job runs (%.0f..%.0f, each less the pattern's own "
                  "ns), %s" % (ns[len(ns) // 2], len(ns), ns[0], ns[-1], how))


def beside_rest(args, spec, mach, records, label, fio_rest=None):
    """(rest ns, its words, whether the one-job runs gave it) of scenario
    @label simulated beside measured on @mach: --fio-ns, else this
    results' one-job runs (run_rest()), else fio's null engine here
    (@fio_rest: its fio_rest() once for every scenario: the recorded
    cost, or one measurement)."""
    if args.fio_ns is None:
        got = run_rest(spec, mach, mach, one_job_iops(records, label))
        if got is not None:
            return got[0], "%.0f" % got[0][0], True
    rest = fio_rest() if fio_rest else \
        fiocost.fio_rest(args.fio_ns, mach)
    how = {"given": "given", "recorded": "recorded",
           "measured": "null"}[fiocost.fio_source(args.fio_ns)]
    return rest[0], "%.0f %s" % (typical(rest[0]), how), False


def disagreement(mach, entries, what="simulated beside measured is left "
                 "out"):
    """A line naming how the calibration @mach and the runs' line probes
    (manifest @entries) disagree by more than calibmachine.DISAGREE, or
    None."""
    c = calibmachine.check_probes(mach, entries)
    if c is None or not c.set_aside:
        return None
    return ("the calibration (%s) puts %.0f ns between the runs' CPUs, "
            "their line probes %.0f ns (median of %d): more than x%g "
            "apart, the calibration is not used (%s)"
            % (mach.name, c.cal_ns, c.probe_ns, c.n, calibmachine.DISAGREE,
               what))


# ---- the big-box answers of a results directory ----

def _prediction(spec, mach, n, placement, rest, gain_pub, shown=None):
    """predict_at()'s prediction with its job file, its rest (@shown: the
    words the table gives it) and the sentence on what limits the gain."""
    p = predict_at(spec, mach, n, placement, rest, gain_pub)
    p["jobfile"] = spec.path
    p["rest"] = {"ns": p["rest_ns"], "source": rest[1],
                 "shown": shown or rest[1].split(":")[0]}
    p["why"] = explain.sentence(p)
    return p


def _fio_answer(ask, label, spec, gain_pub, st):
    """The prediction at --numjobs N with this fio job's rest, or None."""
    n = ask.cpus
    if not n or st["machine"] is None:
        return None
    mach, here = st["machine"], st["here"]
    if n > mach.total_cpus:
        st["warn"]("--numjobs %d: %s has %d CPUs: name a bigger profile "
                   "with --machine (the big-box answer is left out)"
                   % (n, mach.name, mach.total_cpus))
        st["machine"] = None
        return None
    rest = None if ask.fio_ns is not None else \
        run_rest(spec, mach, here, one_job_iops(st["records"], label))
    whence = "one-job runs"
    if rest is None:
        rest = fiocost.fio_rest(ask.fio_ns, mach)
        whence = {"given": "--fio-ns", "recorded": "recorded",
                  "measured": "null engine"}[fiocost.fio_source(ask.fio_ns)]
    st["plan"] = (mach, n, None, rest[0])
    return _prediction(spec, mach, n, None, rest, gain_pub,
                       "fio %.0f ns (%s)" % (typical(rest[0]), whence))


def _answers(ask, label, spec, gain_pub, st, load):
    """The scenario's answers: "asked" at --numjobs's machine and N, with
    the header's published-rest where it names work, else this fio
    job's rest ("fio" then holds the fio rest's); "published" at the
    published machine; "answer" names the table's. None: no answer."""
    fio = _fio_answer(ask, label, spec, gain_pub, st)
    pub = spec.published if spec.rest == "work" else None
    pub_mach = load(pub.profile) if pub else None
    out = {"answer": "asked", "asked": None, "published": None, "fio": None}

    def at_published():
        rest = fiocost.rest_of("work", None, pub_mach, spec.rest_ns)
        st["plan"] = (pub_mach, pub.cpus, pub.placement, rest[0])
        out["published"] = _prediction(spec, pub_mach, pub.cpus,
                                       pub.placement, rest, gain_pub)
        return out["published"]
    if fio is None:
        if pub is None:
            return None
        at_published()
        out["answer"] = "published"
        return out
    if pub is None:
        out["asked"] = fio
        return out
    out["fio"] = fio
    mach, n = st["machine"], ask.cpus
    if mach is pub_mach and n == pub.cpus and not pub.placement:
        out["asked"] = at_published()
        return out
    rest = fiocost.rest_of("work", None, mach, spec.rest_ns)
    out["asked"] = _prediction(spec, mach, n, None, rest, gain_pub)
    at_published()
    st["plan"] = (mach, n, None, rest[0])
    return out


def _curve(spec, plan, p, gain_pub):
    """curve.data() of the answer @p against CPUs up to its N (@plan:
    machine, N, placement, rest ns), the measured points left to the
    report."""
    mach, n, placement, rest_ns = plan
    pub = spec.published
    return curve.data(curve.predictions(spec, mach, n, placement, rest_ns,
                                        have=[p]), None,
                      (pub.cpus, gain_pub) if pub and gain_pub else None)


def big_box(ask, manifests, warn, records=(), entries=(), curves=True):
    """The big-box answers (docs/predict.md, "In the report"): {"note":
    which machine --numjobs N took, or None; "scenarios": [{"label",
    "jobfile", "gain_published", and _answers()'s, with "curve" (its
    plot's data, where @curves)}]}. @ask: inputs, predict (N or None),
    machine, fio_ns; @records: the runs (their one-job IOPS give this fio
    job's rest); @entries: the manifests' run entries (their line probes
    check the calibration)."""
    loaded = {}

    def load(name):
        if name not in loaded:
            loaded[name] = loader.load(name)
        return loaded[name]

    st = {"warn": warn, "records": records, "machine": None, "here": None}
    note = None
    if ask.cpus:
        try:
            st["machine"], st["here"], note = default_machine(
                ask, ask.cpus, entries, load)
        except Refused as e:
            warn(str(e))
        except ValueError as e:
            warn("%s (the big-box answer at --numjobs %d is left out)"
                 % (e, ask.cpus))
    out, seen = [], set()
    for scenario, path in sorted(job_files(manifests, warn).items()):
        label = published.label(scenario)
        if (label, path) in seen:       # a C model and its twin, both run
            continue
        seen.add((label, path))
        try:
            spec = jobspec.read(path)
            gain_pub = jobspec.published_gain(path)
            st["plan"] = None
            got = _answers(ask, label, spec, gain_pub, st, load)
        except (ValueError, jobspec.SpecError,
                simulate.PredictError) as e:
            warn("%s (the big-box answer leaves it out)" % e)
            continue
        if got is None:
            continue
        got.update(label=label, jobfile=path, gain_published=gain_pub,
                   curve=None)
        out.append(got)
        try:
            if curves:
                got["curve"] = _curve(spec, st["plan"], got[got["answer"]],
                                      gain_pub)
        except simulate.PredictError as e:
            warn("the big-box answer's plot skipped: %s" % e)
    return {"note": "--numjobs %d on %s" % (ask.cpus, note)
            if note and st["machine"] is not None else None,
            "scenarios": out}


def _cell_machine(mach, nj, probes):
    """The machine of one numjobs and its L column: the calibration with
    the one-way transfer its own runs' line probes measured (@probes: their
    values in ns; their lowest, median and highest the low, typical and
    high cost), else the calibration's pair figure ("cal")."""
    if nj < 2:
        return mach, "-"
    if probes:
        p = calibmachine.Probed(mach, probes)
        return p, "%.1f" % p.probes[1]
    a, b = mach.cpus(2)
    return mach, "%.1f cal" % mach.transfer_ns(a, b)


def cell_probes(entries, names):
    """{numjobs: the line probe values of the runs of the scenario the
    manifest names by one of @names (its job file's stem)}."""
    out = {}
    for e in entries:
        if e.get("scenario") in names and lineprobes.values(e):
            out.setdefault(e.get("numjobs"), []).extend(
                lineprobes.values(e))
    return out


def beside_rows(spec, mach, numjobs, rest, probes=None):
    """[{"numjobs", "rest", "from_runs", "line", "variants": {variant:
    {"iops", "low", "high"}}}] of @spec simulated on @mach at each of
    @numjobs; @probes {numjobs: the line probe values of its runs}: the L
    a numjobs' runs measured is its transfers' cost ("line")."""
    ns, how, from_runs = rest
    out = []
    for nj in numjobs:
        if nj > mach.total_cpus:
            continue
        cell, line = _cell_machine(mach, nj, (probes or {}).get(nj))
        p = simulate.predict(spec, cell, nj, None, ns)
        out.append({"numjobs": nj, "rest": how, "from_runs": from_runs,
                    "line": line,
                    "variants": {v: {k: p["variants"][v][k] for k in
                                     ("iops", "low", "high")}
                                 for v in simulate.VARIANTS}})
    return out


def beside(ask, manifests, records, warn, entries=()):
    """Each pattern job simulated on this box's calibration at every
    numjobs it ran: [{"label", "rows": beside_rows()}], [] without
    calibration.json in the results; each numjobs' transfers are the
    one-way cost its own runs' line probes measured (@entries: manifest
    run entries; calibmachine.Probed), the calibration's only where its
    runs have none."""
    cal = calibration_path(ask.inputs)
    jobs = job_files(manifests)
    if cal is None or not jobs:
        return []
    iops = measured_iops(records)
    try:
        mach = loader.load(cal)
        why = disagreement(mach, entries, "each numjobs' transfers are its "
                           "runs' line probes in simulated beside measured")
        if why:
            warn(why)
    except ValueError as e:
        warn("%s (simulated beside measured is left out)" % e)
        return []
    # fio's null engine, where a scenario has no one-job runs: measured
    # once for all of them
    fio_rest = functools.cache(lambda: fiocost.fio_rest(ask.fio_ns, mach))
    out, done = [], set()
    for stem, path in sorted(jobs.items()):
        for label in sorted(published.of_scenario(
                published.label(stem), {s for s, _, _ in iops}) - done):
            done.add(label)
            numjobs = sorted({nj for s, nj, _ in iops if s == label})
            try:
                spec = jobspec.read(path)
                rest = beside_rest(ask, spec, mach, records, label,
                                   fio_rest)
                out.append({"label": label, "rows": beside_rows(
                    spec, mach, numjobs, rest,
                    cell_probes(entries, (stem, label)))})
            except (ValueError, jobspec.SpecError,
                    simulate.PredictError) as e:
                warn("%s (simulated beside measured leaves it out)" % e)
    return out
