"""The report's big-box answer (docs/predict.md): each model=pattern
scenario whose job file a results directory's manifest names, simulated
by predict/simulate.py with its band:

  --predict N   on --machine PROFILE at N CPUs; without --machine
                (default_machine()) on this box's calibration (the results
                directory's calibration.json, a profile too) where N fits
                in it, beyond it on the generic profile of this box's CPU
                family with this box's calibrated costs where the relation
                exists; a calibration the runs' line probes contradict is
                refused, named
  published     on the job file's published-machine line, with its
                published-rest (as make backtest predicts it)

One answer per scenario (_answer()): at --predict's machine and N where
asked, else at the published machine; with the header's published-rest
where it names work (the published workload's path), else this fio job's
rest.  The other rest, and the published machine where it is not the
answer, are the row's footnote, saying why they differ.  Under each
answer the sentence on what limits the gain (predict/explain.py), and a
caveat where the check on this box below failed (caveats()).

This fio job's rest for --predict (--rest fio): fio's
cost per I/O from --fio-ns, else from the results' own one-job runs
(run_rest(): each run's ns per I/O less the pattern's simulated one-CPU
ns, both modes, median and range), else measured once with fio's null
engine.  From the results, two reports of one results directory give the
same figures and bands.  Each row says which profile and rest it used.

Checked on this box (measured()): where the results hold calibration.json,
each pattern job at every numjobs it ran, simulated on that calibration as
the profile with this fio job's rest, beside the measured IOPS of each
mode; within WITHIN of each other or not, per row. A calibration whose
transfer between the runs' CPUs is more than DISAGREE from the runs' own
line probes (their median) is named and not used."""

import copy
import functools
import json
import os
import re

from ..predict import band, curve, explain, fiocost, jobspec, simulate
from ..inputs import fiojson, jobheader, lineprobes, published
from ..machines import calibmachine, machine

WITHIN = 0.15
# a calibration this far from the runs' own line probes is not used
DISAGREE = 2.0

TITLE = ("the big-box answer, an ESTIMATE: each pattern job simulated (flagcheck predict, "
         "docs/predict.md): gain test_first/always at typical costs, "
         "band lowest..highest over the profile's low..high costs and 3 "
         "seeds")
HEADER = ["scenario", "machine", "cpus", "rest", "always IOPS",
          "test_first IOPS", "gain (band)", "D/C", "published",
          "what limits the gain", "the other way", "caveat"]
WHY, OTHER, CAVEAT = 9, 10, 11


def add_arguments(p):
    g = p.add_argument_group("big-box answer", "with --predict N or a job "
                             "file's published-machine line")
    g.add_argument("--machine", metavar="NAME_OR_FILE",
                   help="the profile --predict N simulates on (default: "
                   "the calibration, beyond it its CPU family's)")
    g.add_argument("--fio-ns", type=fiocost.fio_ns_arg, metavar="NS",
                   help="fio's cost per I/O for --predict (default: from "
                   "the one-job runs)")


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


def _calibration(inputs):
    for item in inputs:
        path = os.path.join(item, "calibration.json")
        if os.path.isdir(item) and os.path.isfile(path) and \
                not os.path.islink(path):
            return path
    return None


def _row(scenario, spec, mach, n, placement, rest, gain_pub):
    """(the row, the prediction) of @spec on @mach at @n CPUs."""
    p = simulate.predict(spec, mach, n, placement, rest[0])
    m, g = p["modes"], p["gain"]
    dc = max([d["ratio"] for d in p["demand"]] or [0.0])
    return [scenario, mach.name + (" " + placement if placement else ""),
            str(n), rest[1].split(":")[0],
            "%.0f (%.0f..%.0f)" % (m["always"]["iops"], m["always"]["low"],
                                   m["always"]["high"]),
            "%.0f (%.0f..%.0f)" % (m["test_first"]["iops"],
                                   m["test_first"]["low"],
                                   m["test_first"]["high"]),
            "x%.2f (%.2f..%.2f)" % (g["value"], g["low"], g["high"]),
            "%.3g" % dc, "-" if gain_pub is None else "x%.2f" % gain_pub,
            explain.sentence(p), "-", "-"], p


# ---- --predict N: which machine, which rest ----

# this box's CPU family -> its generic profile (machines/), by the vendors'
# model numbering: Intel Xeon E5 v3 Haswell-EP, v4 Broadwell-EP; Xeon
# Scalable x1xx Skylake-SP, x2xx Cascade Lake-SP, x3xx Ice Lake-SP, x4xx
# Sapphire Rapids; AMD EPYC 7xx3 Milan, 9xx4 Genoa; Ampere Altra
# (Neoverse-N1).  A model string that names no number ("AMD EPYC" in a
# VM) has no family: --machine names one.
FAMILIES = (
    (r"E5-\d{4}\w* v3", "haswell-ep-2s"),
    (r"E5-\d{4}\w* v4", "broadwell-ep-2s"),
    (r"(Platinum|Gold|Silver|Bronze) \d[12]\d\d", "skylake-sp-2s"),
    (r"(Platinum|Gold|Silver|Bronze) \d3\d\d", "icelake-sp-2s"),
    (r"(Platinum|Gold|Silver|Bronze) \d4\d\d", "sapphirerapids-2s"),
    (r"EPYC 7\d\d3", "milan-2s"),
    (r"EPYC 9\d\d4", "genoa-2s"),
    (r"Ampere Altra|Neoverse-N1", "altra-2s"),
)


class Refused(ValueError):
    """str(): one line naming why --predict N gives no estimate."""


def family_profile(cpu_model):
    """The generic profile of @cpu_model's family, None if none."""
    for pattern, name in FAMILIES:
        if re.search(pattern, cpu_model or ""):
            return name
    return None


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
    for rel in machine.RELATIONS:
        if rel in here.costs and rel in generic.costs:
            m.costs[rel] = list(here.costs[rel])
            m.sources["costs_ns." + rel] = "this box's calibration (%s)" \
                % here.path
            used.append(rel)
    return m, used


def default_machine(args, n, entries, load):
    """(the machine --predict @n simulates on, this box's calibration or
    None, which and why in words); Refused naming why there is none.
    A calibration the runs' line probes (@entries) contradict is refused
    (two calibrations of one box x4 apart: at most one agrees)."""
    cal = _calibration(args.inputs)
    here = load(cal) if cal else None
    why = disagreement(here, entries, "--predict %d is refused: name a "
                       "profile with --machine, or calibrate again" % n) \
        if here else None
    if args.machine:
        return load(args.machine), (None if why else here), \
            "--machine %s" % args.machine
    if why:
        raise Refused(why)
    if here is None:
        raise Refused("--predict %d: no --machine and no calibration.json "
                      "in the results: the big-box answer names no machine"
                      % n)
    if n <= here.total_cpus:
        return here, here, "this box's calibration (%d CPUs)" \
            % here.total_cpus
    model = cpu_model_of(cal)
    name = family_profile(model)
    if name is None:
        raise Refused("--predict %d: beyond this box's %d calibrated CPUs, "
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
    """[(mode, IOPS)] of the scenario's numjobs=1 runs (of_scenario())."""
    mine = of_scenario(label, {r.scenario for r in records})
    return [(r.mode, r.metrics["iops"]) for r in records
            if r.scenario in mine and r.numjobs == 1 and
            r.mode in simulate.MODES and r.metrics.get("iops")]


def run_rest(spec, mach, here, runs):
    """This fio job's rest from its one-job @runs [(mode, IOPS)]: each
    run's ns per I/O less the pattern's own (simulated on one CPU of
    @here, this box's calibration, else of @mach), scaled by the clocks
    (here over @mach's): ((median, lowest, highest) ns, how), or None."""
    if not runs:
        return None
    box = here or mach
    one = simulate.predict(spec, box, 1, None, 0.0, seeds=1)["modes"]
    ns = sorted(1e9 / x - 1e9 / one[mode]["one_cpu"] for mode, x in runs)
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


def _predicted(args, label, spec, gain_pub, ctx):
    """(row, prediction) of --predict N with this fio job's rest, or
    None."""
    n = getattr(args, "predict", None)
    if not n or ctx.get("machine") is None:
        return None
    mach, here = ctx["machine"], ctx["here"]
    if n > mach.total_cpus:
        ctx["warn"]("--predict %d: %s has %d CPUs: name a bigger profile "
                    "with --machine (the big-box answer is left out)"
                    % (n, mach.name, mach.total_cpus))
        ctx["machine"] = None
        return None
    rest = None if args.fio_ns is not None else \
        run_rest(spec, mach, here, one_job_iops(ctx["records"], label))
    whence = "one-job runs"
    if rest is None:
        rest = fiocost.fio_rest(args.fio_ns, mach)
        whence = {"given": "--fio-ns", "recorded": "recorded",
                  "measured": "null engine"}[fiocost.fio_source(args.fio_ns)]
    row, p = _row(label, spec, mach, n, None, rest, gain_pub)
    row[3] = "fio %.0f ns (%s)" % (_typical(rest[0]), whence)
    ctx["plan"] = (mach, n, None, rest[0])
    return row, p


def _other_rest(fio, header):
    """The footnote of --predict's fio-rest row @fio beside the answer
    @header, both (row, prediction) on one machine at one N."""
    row, q = fio[0], header[1]
    return ("with this fio job's rest (%s) in place of the header's "
            "published-rest (%s%s): %s, D/C %s; fio's own cost per I/O "
            "spaces the accesses to the shared lines, which the header's "
            "published workload does not pay, so the answer follows its "
            "published-rest" % (row[3], header[0][3], " + %.0f ns an I/O"
                                % q["rest_ns"] if q["rest_ns"] else
                                ": the job file's work(ns) alone",
                                row[6], row[7]))


def _answer(args, label, spec, gain_pub, ctx, load):
    """(the scenario's one answer row or None, footnotes): --predict's
    machine and N where asked, else the published machine; the header's
    published-rest where it names work, else this fio job's rest. The
    other rest, and the published machine where it is not the answer,
    are footnotes."""
    asked = _predicted(args, label, spec, gain_pub, ctx)
    pub = spec.published if spec.rest == "work" else None
    pub_mach = load(pub.profile) if pub else None

    def published_row():
        rest = fiocost.rest_of("work", None, pub_mach, spec.rest_ns)
        ctx["published"] = (pub_mach, rest)
        ctx["plan"] = (pub_mach, pub.cpus, pub.placement, rest[0])
        return _row(label, spec, pub_mach, pub.cpus, pub.placement, rest,
                    gain_pub)
    if asked is None:
        return (published_row()[0] if pub else None), []
    if pub is None:
        return asked[0], []
    mach, n = ctx["machine"], args.predict
    if mach is pub_mach and n == pub.cpus and not pub.placement:
        header = published_row()
        return header[0], [_other_rest(asked, header)]
    rest = fiocost.rest_of("work", None, mach, spec.rest_ns)
    header = _row(label, spec, mach, n, None, rest, gain_pub)
    at_pub = published_row()[0]
    ctx["plan"], ctx["published"] = (mach, n, None, rest[0]), None
    return header[0], [_other_rest(asked, header),
                       "on the published machine (%s at %s CPUs, the "
                       "header's rest): %s, D/C %s" % (
                           at_pub[1], at_pub[2], at_pub[6], at_pub[7])]


def _context(args, load, warn, records, entries):
    ctx = {"warn": warn, "records": records, "machine": None, "here": None,
           "note": None}
    n = getattr(args, "predict", None)
    if n:
        try:
            ctx["machine"], ctx["here"], ctx["note"] = default_machine(
                args, n, entries, load)
        except Refused as e:
            warn(str(e))
        except ValueError as e:
            warn("%s (the big-box answer at --predict %d is left out)"
                 % (e, n))
    return ctx


def rows(args, manifests, warn, records=(), entries=(), simulated=None,
         notes=None, caveats=None, plans=None):
    """The table's rows: per scenario its one answer (_answer());
    @records: the runs (their one-job IOPS give --predict's rest);
    @entries: the manifests' run entries (their line probes check the
    calibration); @simulated: {label: the published row, else --predict's}
    filled in for the summary (summary_lines()); @notes: the machine's
    note appended; @caveats: {run label: why the estimate is in doubt}
    (caveats()); @plans: (label, spec, (machine, N, placement, rest ns),
    published gain) of each answer appended, for its plot (plot())."""
    loaded = {}

    def load(name):
        if name not in loaded:
            loaded[name] = machine.load(name)
        return loaded[name]

    ctx = _context(args, load, warn, records, entries)
    out, seen = [], set()
    for scenario, path in sorted(job_files(manifests, warn).items()):
        label = published.label(scenario)
        if (label, path) in seen:       # a C model and its twin, both run
            continue
        seen.add((label, path))
        try:
            spec = jobspec.read(path)
            gain_pub = jobspec.published_gain(path)
            ctx["plan"] = ctx["published"] = None
            row, others = _answer(args, label, spec, gain_pub, ctx, load)
            if row is None:
                continue
            row[OTHER] = "; ".join(others) or "-"
            if plans is not None:
                plans.append((label, spec, ctx["plan"], gain_pub))
            row[CAVEAT] = next((v for k, v in (caveats or {}).items()
                                if k in of_scenario(label, {k})), "-")
            out.append(row)
            if simulated is not None:
                # the summary's: with the band over every unknown where
                # the answer is the published row (_band())
                at_pub = ctx.get("published")
                simulated[label] = row + (_band(spec, at_pub[0], at_pub[1],
                                                gain_pub) if at_pub else [])
        except (ValueError, jobspec.SpecError,
                simulate.PredictError) as e:
            warn("%s (the big-box answer leaves it out)" % e)
    if ctx["note"] and ctx["machine"] is not None and notes is not None:
        notes.append("--predict %d on %s" % (args.predict, ctx["note"]))
    return out


def _band(spec, mach, rest, gain_pub):
    """[the band over every unknown] of a published row with a published
    gain (predict/band.py), else []: the summary's, not the table's."""
    if gain_pub is None:
        return []
    return [band.attach({}, spec, mach, rest[0], gain_pub, False)]


def summary_lines(simulated, labels=()):
    """{label: "on PROFILE at N CPUs: xG (lo..hi)"} of each scenario's
    answer, for the summary, the band over every unknown and where the
    published gain lies in it where the row has them, then the sentence on
    what limits the gain and the caveat of a failed check on this box,
    each on a line of its own; also for each of the run @labels of the
    scenario (of_scenario())."""
    out = {}
    for label, r in simulated.items():
        # the band over every unknown, where the row has it, comes last
        b = r[-1] if isinstance(r[-1], dict) else None
        cells = r[:-1] if b else r
        text = "on %s at %s CPUs: %s" % (r[1], r[2], r[6])
        if b:
            text = "on %s at %s CPUs: x%.2f (%.2f..%.2f), published x%.2f " \
                "lies %s the band" % (r[1], r[2], b["value"], b["low"],
                                      b["high"], b["published"], b["where"])
        for i, what in ((WHY, ""), (CAVEAT, "caveat: ")):
            if len(cells) > i and cells[i] != "-":
                text += "\n  " + what + cells[i]
        for x in of_scenario(label, set(labels)) | {label}:
            out[x] = text
    return out


def table(args, manifests, warn, records=(), entries=(), simulated=None,
          caveats=None, plans=None):
    """[the table] or [] when there is nothing to simulate (rows())."""
    notes = []
    body = rows(args, manifests, warn, records, entries, simulated, notes,
                caveats, plans)
    title = "; ".join([TITLE] + notes)
    return [(title, HEADER, body, {2, 4, 5, 6, 7})] if body else []


def caveats(beside_tables):
    """{run label: the caveat} of each scenario whose check on this box
    failed (a beside() row marked "no"): its meas./sim. per mode and
    numjobs, and what that puts in doubt."""
    missed = {}
    for _, _, body, _ in beside_tables:
        for r in body:
            if r[7] == "no":
                missed.setdefault(r[0], []).append(
                    "%s %s at %s job%s" % (r[6], r[2], r[1],
                                           "" if r[1] == "1" else "s"))
    return {label: "checked on this box, the simulation missed the "
            "measured IOPS by more than %d%% (meas./sim. %s): the model "
            "of this job misses this box, so the estimate may miss the big "
            "box as much" % (round(100 * WITHIN), ", ".join(v))
            for label, v in missed.items()}


# ---- checked on this box: simulated beside measured ----

BESIDE_TITLE = ("checked on this box: each pattern job simulated on this "
                "box's calibration at the numjobs it ran, beside the "
                "measured (mean over the repeats); within %d%% or not; "
                "rest ns: the rest of each I/O, from the scenario's one-job "
                "runs (each less the pattern's own ns; those rows are then "
                "its rest, not a check), else fio's null engine here "
                "(null) or --fio-ns (given)"
                % round(100 * WITHIN))
BESIDE_HEADER = ["scenario", "numjobs", "mode", "rest ns", "measured IOPS",
                 "simulated IOPS (band)", "meas./sim.", "within"]


def measured_iops(records):
    """{(scenario, numjobs, mode): mean IOPS over the repeats}."""
    acc = {}
    for r in records:
        v = r.metrics.get("iops")
        if v is not None:
            acc.setdefault((r.scenario, r.numjobs, r.mode), []).append(v)
    return {k: sum(v) / len(v) for k, v in acc.items()}


def of_scenario(label, labels):
    """The run labels of scenario @label among @labels: itself, and the
    labels the report gives its runs of differing setups ("LABEL (job
    file sha256 ..., ...)": a C model and its twin run together)."""
    return {x for x in labels if x == label or x.startswith(label + " (")}


def _typical(ns):
    """The typical figure of a rest: one figure, or (typ, low, high)."""
    return ns if isinstance(ns, (int, float)) else ns[0]


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
    return rest[0], "%.0f %s" % (_typical(rest[0]), how), False


def beside_rows(scenario, spec, mach, measured, rest):
    """Rows for one job: @measured {(numjobs, mode): IOPS}; @rest as
    beside_rest() gives it (a 1-job row that gave the rest is marked so,
    not judged)."""
    ns, how, from_runs = rest
    out = []
    for nj in sorted({n for n, _ in measured}):
        if nj > mach.total_cpus:
            continue
        p = simulate.predict(spec, mach, nj, None, ns)
        for mode in simulate.MODES:
            x = measured.get((nj, mode))
            if x is None:
                continue
            s = p["modes"][mode]
            ratio = x / s["iops"]
            within = "yes" if abs(ratio - 1) <= WITHIN else "no"
            out.append([scenario, str(nj), mode, how, "%.0f" % x,
                        "%.0f (%.0f..%.0f)" % (s["iops"], s["low"],
                                               s["high"]),
                        "%.2f" % ratio,
                        "its rest" if from_runs and nj == 1 else within])
    return out


def probes(entries):
    """(the runs' line probe values in ns, sorted; the CPU pairs they
    measured) of the manifest run @entries."""
    vs, pairs = [], set()
    for e in entries:
        v = lineprobes.values(e)
        if v:
            vs += v
            pairs.add(tuple(e["line_probe"].get("cpus") or ()))
    return sorted(vs), [p for p in pairs if len(p) == 2]


def disagreement(mach, entries, what="simulated beside measured is left "
                 "out"):
    """A line naming how the calibration @mach and the runs' line probes
    (manifest @entries) disagree by more than DISAGREE, or None."""
    vs, pairs = probes(entries)
    if not vs or not pairs:
        return None
    probe = vs[len(vs) // 2]
    try:
        cal = sorted(mach.transfer_ns(a, b) for a, b in pairs)
    except (KeyError, IndexError, ValueError):
        return None
    cal_ns = cal[len(cal) // 2]
    if max(cal_ns, probe) <= DISAGREE * min(cal_ns, probe):
        return None
    return ("the calibration (%s) puts %.0f ns between the runs' CPUs, "
            "their line probes %.0f ns (median of %d): more than x%g "
            "apart, the calibration is not used (%s)"
            % (mach.name, cal_ns, probe, len(vs), DISAGREE, what))


def beside(args, manifests, records, warn, entries=()):
    """[the table] or []: needs calibration.json in the results; where
    the runs' line probes (@entries: manifest run entries) contradict its
    transfers, they stand in for them (calibmachine.Probed)."""
    cal = _calibration(args.inputs)
    jobs = job_files(manifests)
    if cal is None or not jobs:
        return []
    iops = measured_iops(records)
    body = []
    try:
        mach = machine.load(cal)
        why = disagreement(mach, entries, "its transfers are the runs' "
                           "line probes in simulated beside measured")
        if why:
            warn(why)
            mach = calibmachine.Probed(mach, probes(entries)[0])
    except ValueError as e:
        warn("%s (simulated beside measured is left out)" % e)
        return []
    # fio's null engine, where a scenario has no one-job runs: measured
    # once for all of them
    fio_rest = functools.cache(lambda: fiocost.fio_rest(args.fio_ns, mach))
    done = set()
    for stem, path in sorted(jobs.items()):
        for label in of_scenario(published.label(stem),
                                 {s for s, _, _ in iops}) - done:
            done.add(label)
            mine = {(nj, mode): v for (s, nj, mode), v in iops.items()
                    if s == label}
            try:
                spec = jobspec.read(path)
                rest = beside_rest(args, spec, mach, records, label,
                                   fio_rest)
                body += beside_rows(label, spec, mach, mine, rest)
            except (ValueError, jobspec.SpecError,
                    simulate.PredictError) as e:
                warn("%s (simulated beside measured leaves it out)" % e)
    return [(BESIDE_TITLE, BESIDE_HEADER, body, {1, 3, 4, 5, 6})] \
        if body else []


def plot(plans, records, outdir):
    """<scenario>_bigbox.png of each answer in @plans (rows()): its curve
    against CPUs (predict/curve.py), the measured IOPS of its runs
    (@records) beside it, the published gain where the job file has one;
    [what each plotted] (curve.data())."""
    iops = measured_iops(records)
    out = []
    for label, spec, (mach, n, placement, rest_ns), gain_pub in plans:
        mine = of_scenario(label, {s for s, _, _ in iops})
        measured = {}
        for (s, nj, mode), v in sorted(iops.items()):
            if s in mine and mode in simulate.MODES:
                measured.setdefault(mode, []).append((nj, v))
        pub = spec.published
        d = curve.data(curve.predictions(spec, mach, n, placement, rest_ns),
                       measured, (pub.cpus, gain_pub) if pub and gain_pub
                       else None)
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("_")
        out.append(curve.draw(d, os.path.join(outdir, stem + "_bigbox.png"),
                              "%s: the big-box answer on %s" % (label,
                                                                mach.name)))
    return out
