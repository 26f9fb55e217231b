"""The report's big-box answer (docs/predict.md), rendered: each
model=pattern scenario whose job file a results directory's manifest
names, simulated with THE band, the band over every unknown
(predict/answer.py computes: which machine, which rest, the prediction
and its band; this module makes the table, the summary's lines and the
plot of it):

  --predict N   on --machine PROFILE at N CPUs; without --machine
                (answer.default_machine()) on this box's calibration (the
                results directory's calibration.json, a profile too)
                where N fits in it, beyond it on the generic profile of
                this box's CPU family with this box's calibrated costs
                where the relation exists; a calibration the runs' line
                probes contradict is refused, named
  published     on the job file's published-machine line, with its
                published-rest (as make backtest predicts it)

One answer per scenario in the table (_answer()): at --predict's machine
and N where asked, else at the published machine; with the header's
published-rest where it names work (the published workload's path), else
this fio job's rest.  The other rest, and the published machine where it
is not the answer, are the row's footnote.  The summary keeps the
published machine's answer and adds --predict N's beside it.  Under each
answer the sentence on what limits the gain (predict/explain.py), and a
caveat where the check on this box below failed (caveats()).

This fio job's rest for --predict (--rest fio): fio's cost per I/O from
--fio-ns, else from the results' own one-job runs (answer.run_rest()),
else measured once with fio's null engine.

Checked on this box (beside()): where the results hold calibration.json,
each pattern job at every numjobs it ran, simulated on that calibration as
the profile with this fio job's rest, beside the measured IOPS of each
variant; within WITHIN of each other or not, per row, with the one-way
cost L its runs' own line probes measured (the calibration's where they
have none; a calibration they contradict is named: answer.disagreement())."""

import functools
import os
import re

from ..predict import curve, explain, fiocost, jobspec, simulate
from ..predict.answer import (Refused, beside_rest, calibration_path,
                              default_machine, disagreement, job_files,
                              measured_iops, of_scenario, one_job_iops,
                              predict_at, probes, run_rest, typical)
from ..inputs import lineprobes, published
from ..machines import calibmachine, machine

WITHIN = 0.15

TITLE = ("the big-box answer, an ESTIMATE: each pattern job simulated "
         "(flagcheck predict, docs/predict.md): gain test_first/always at "
         "typical costs with THE band, the band over every unknown "
         "(docs/predict.md, \"The band\"); beside it the spread of the "
         "profile's low..high costs and 3 seeds alone")
HEADER = ["scenario", "machine", "cpus", "rest", "always IOPS",
          "test_first IOPS", "gain (band over every unknown)",
          "costs and seeds alone", "D/C", "published",
          "what limits the gain", "the other way", "caveat"]
GAIN, SPREAD, DC = 6, 7, 8
WHY, OTHER, CAVEAT = 10, 11, 12


def add_arguments(p):
    # the group's title says when; its description would be a line of
    # its own in the options (docs/predict.md#in-the-report has it all)
    g = p.add_argument_group("big-box answer (with --predict N or a job "
                             "file's published-machine line)")
    g.add_argument("--machine", metavar="NAME_OR_FILE",
                   help="profile for --predict (default: the calibration, "
                   "beyond it its CPU family's)")
    g.add_argument("--fio-ns", type=fiocost.fio_ns_arg, metavar="NS",
                   help="fio's ns per I/O for --predict, 1-1e6 (default: "
                   "from the one-job runs)")


def _row(scenario, spec, mach, n, placement, rest, gain_pub):
    """(the row, the prediction) of @spec on @mach at @n CPUs, its gain
    with THE band (answer.predict_at())."""
    p = predict_at(spec, mach, n, placement, rest, gain_pub)
    m, g = p["variants"], p["gain"]
    dc = max([d["ratio"] for d in p["demand"]] or [0.0])
    return [scenario, mach.name + (" " + placement if placement else ""),
            str(n), rest[1].split(":")[0],
            "%.0f (%.0f..%.0f)" % (m["always"]["iops"], m["always"]["low"],
                                   m["always"]["high"]),
            "%.0f (%.0f..%.0f)" % (m["test_first"]["iops"],
                                   m["test_first"]["low"],
                                   m["test_first"]["high"]),
            "x%.2f (%.2f..%.2f)" % (g["value"], g["low"], g["high"]),
            "%.2f..%.2f" % (g["costs_seeds"]["low"],
                            g["costs_seeds"]["high"]),
            "%.3g" % dc, "-" if gain_pub is None else "x%.2f" % gain_pub,
            explain.sentence(p), "-", "-"], p


# ---- --predict N: which machine, which rest ----

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
    row[3] = "fio %.0f ns (%s)" % (typical(rest[0]), whence)
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
                                row[GAIN], row[DC]))


def _answer(args, label, spec, gain_pub, ctx, load):
    """(the scenario's one answer row or None, footnotes): --predict's
    machine and N where asked, else the published machine; the header's
    published-rest where it names work, else this fio job's rest. The
    other rest is a footnote; the published machine's answer, where it
    is not the table's, is kept for the summary (ctx["at_pub"])."""
    asked = _predicted(args, label, spec, gain_pub, ctx)
    pub = spec.published if spec.rest == "work" else None
    pub_mach = load(pub.profile) if pub else None

    def published_row():
        rest = fiocost.rest_of("work", None, pub_mach, spec.rest_ns)
        ctx["plan"] = (pub_mach, pub.cpus, pub.placement, rest[0])
        ctx["at_pub"] = _row(label, spec, pub_mach, pub.cpus, pub.placement,
                             rest, gain_pub)
        return ctx["at_pub"]
    if asked is None:
        return (published_row()[0] if pub else None), []
    ctx["asked"] = asked
    if pub is None:
        return asked[0], []
    mach, n = ctx["machine"], args.predict
    if mach is pub_mach and n == pub.cpus and not pub.placement:
        header = published_row()
        ctx["asked"] = header
        return header[0], [_other_rest(asked, header)]
    rest = fiocost.rest_of("work", None, mach, spec.rest_ns)
    header = _row(label, spec, mach, n, None, rest, gain_pub)
    at_pub = published_row()[0]
    ctx["plan"], ctx["asked"] = (mach, n, None, rest[0]), header
    return header[0], [_other_rest(asked, header),
                       "on the published machine (%s at %s CPUs, the "
                       "header's rest): %s, D/C %s" % (
                           at_pub[1], at_pub[2], at_pub[GAIN], at_pub[DC])]


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
            ctx["plan"] = ctx["at_pub"] = ctx["asked"] = None
            row, others = _answer(args, label, spec, gain_pub, ctx, load)
            if row is None:
                continue
            row[OTHER] = "; ".join(others) or "-"
            if plans is not None:
                plans.append((label, spec, ctx["plan"], gain_pub,
                              (ctx["asked"] or ctx["at_pub"])[1]))
            row[CAVEAT] = next((v for k, v in (caveats or {}).items()
                                if k in of_scenario(label, {k})), "-")
            out.append(row)
            if simulated is not None:
                # the summary's: the published machine's answer, and
                # --predict N's beside it where asked
                simulated[label] = {"published": ctx["at_pub"],
                                    "asked": ctx["asked"], "row": row}
        except (ValueError, jobspec.SpecError,
                simulate.PredictError) as e:
            warn("%s (the big-box answer leaves it out)" % e)
    if ctx["note"] and ctx["machine"] is not None and notes is not None:
        notes.append("--predict %d on %s" % (args.predict, ctx["note"]))
    return out


def _answer_text(row, p):
    """"on PROFILE at N CPUs: xG (lo..hi)" with THE band, and where the
    published gain lies in it where the prediction says."""
    b = p.get("band") or {}
    text = "on %s at %s CPUs: %s" % (row[1], row[2], row[GAIN])
    if b.get("where"):
        text += ", published x%.2f lies %s the band" % (
            b["published"], b["where"])
    return text


def summary_lines(simulated, labels=()):
    """{label: the summary's big-box text} of each scenario: the
    published machine's answer with THE band (the band over every
    unknown) and where the published gain lies in it, then --predict N's
    answer beside it where asked, then the sentence on what limits the
    gain and the caveat of a failed check on this box, each on a line of
    its own; also for each of the run @labels of the scenario
    (of_scenario())."""
    out = {}
    for label, s in simulated.items():
        pub, asked, row = s["published"], s["asked"], s["row"]
        first = pub or asked
        text = _answer_text(*first)
        if pub and asked and asked[0][1:3] != pub[0][1:3]:
            text += "\n  --predict %s: %s" % (asked[0][2],
                                              _answer_text(*asked))
        for i, what in ((WHY, ""), (CAVEAT, "caveat: ")):
            if len(row) > i and row[i] != "-":
                text += "\n  " + what + row[i]
        for x in of_scenario(label, set(labels)) | {label}:
            out[x] = text
    return out


def data(simulated):
    """The big-box answers as numbers, for --format json: per scenario
    the published machine's answer and --predict N's, each its machine,
    CPUs, placement, gain with THE band and the costs-and-seeds spread,
    and where the published gain lies in the band."""
    def one(answer):
        if answer is None:
            return None
        row, p = answer
        b = p.get("band") or {}
        return {"machine": p["machine"], "cpus": p["cpus"],
                "placement": p["placement"], "gain": p["gain"],
                "variants": {m: {k: p["variants"][m][k] for k in
                              ("iops", "low", "high")}
                          for m in simulate.VARIANTS},
                "published": b.get("published"), "where": b.get("where"),
                "widest": b.get("widest")}
    return {label: {"published": one(s["published"]),
                    "asked": one(s["asked"])}
            for label, s in simulated.items()}


def table(args, manifests, warn, records=(), entries=(), simulated=None,
          caveats=None, plans=None):
    """[the table] or [] when there is nothing to simulate (rows())."""
    notes = []
    body = rows(args, manifests, warn, records, entries, simulated, notes,
                caveats, plans)
    title = "; ".join([TITLE] + notes)
    return [(title, HEADER, body, {2, 4, 5, 6, 7, 8})] if body else []


def caveats(beside_tables):
    """{run label: the caveat} of each scenario whose check on this box
    failed (a beside() row marked "no"): its meas./sim. per variant and
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
BESIDE_HEADER = ["scenario", "numjobs", "variant", "rest ns", "measured IOPS",
                 "simulated IOPS (band)", "meas./sim.", "within", "L ns"]


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


def beside_rows(scenario, spec, mach, measured, rest, probes=None):
    """Rows for one job: @measured {(numjobs, variant): IOPS}; @rest as
    beside_rest() gives it (a 1-job row that gave the rest is marked so,
    not judged); @probes {numjobs: the line probe values of its runs}: the
    L a row's runs measured is its transfers' cost."""
    ns, how, from_runs = rest
    out = []
    for nj in sorted({n for n, _ in measured}):
        if nj > mach.total_cpus:
            continue
        cell, line = _cell_machine(mach, nj, (probes or {}).get(nj))
        p = simulate.predict(spec, cell, nj, None, ns)
        for variant in simulate.VARIANTS:
            x = measured.get((nj, variant))
            if x is None:
                continue
            s = p["variants"][variant]
            ratio = x / s["iops"]
            within = "yes" if abs(ratio - 1) <= WITHIN else "no"
            out.append([scenario, str(nj), variant, how, "%.0f" % x,
                        "%.0f (%.0f..%.0f)" % (s["iops"], s["low"],
                                               s["high"]),
                        "%.2f" % ratio,
                        "its rest" if from_runs and nj == 1 else within,
                        line])
    return out


def cell_probes(entries, names):
    """{numjobs: the line probe values of the runs of the scenario the
    manifest names by one of @names (its job file's stem)}."""
    out = {}
    for e in entries:
        if e.get("scenario") in names and lineprobes.values(e):
            out.setdefault(e.get("numjobs"), []).extend(
                lineprobes.values(e))
    return out


def beside(args, manifests, records, warn, entries=()):
    """[the table] or []: needs calibration.json in the results; each
    numjobs' transfers are the one-way cost its own runs' line probes
    measured (@entries: manifest run entries; calibmachine.Probed), the
    calibration's only where its runs have none."""
    cal = calibration_path(args.inputs)
    jobs = job_files(manifests)
    if cal is None or not jobs:
        return []
    iops = measured_iops(records)
    body = []
    try:
        mach = machine.load(cal)
        why = disagreement(mach, entries, "each numjobs' transfers are its "
                           "runs' line probes in simulated beside measured")
        if why:
            warn(why)
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
            mine = {(nj, variant): v for (s, nj, variant), v in iops.items()
                    if s == label}
            try:
                spec = jobspec.read(path)
                rest = beside_rest(args, spec, mach, records, label,
                                   fio_rest)
                body += beside_rows(label, spec, mach, mine, rest,
                                    cell_probes(entries, (stem, label)))
            except (ValueError, jobspec.SpecError,
                    simulate.PredictError) as e:
                warn("%s (simulated beside measured leaves it out)" % e)
    return [(BESIDE_TITLE, BESIDE_HEADER, body, {1, 3, 4, 5, 6})] \
        if body else []


def plot(plans, records, outdir):
    """<scenario>_bigbox.png of each answer in @plans (rows()): its curve
    against CPUs (predict/curve.py) with THE band at its N, the measured
    IOPS of its runs (@records) on this box's own axes, the published gain
    where the job file has one; [what each plotted] (curve.data())."""
    iops = measured_iops(records)
    out = []
    for label, spec, (mach, n, placement, rest_ns), gain_pub, p in plans:
        mine = of_scenario(label, {s for s, _, _ in iops})
        measured = {}
        for (s, nj, variant), v in sorted(iops.items()):
            if s in mine and variant in simulate.VARIANTS:
                measured.setdefault(variant, []).append((nj, v))
        pub = spec.published
        d = curve.data(curve.predictions(spec, mach, n, placement, rest_ns,
                                         have=[p]),
                       measured, (pub.cpus, gain_pub) if pub and gain_pub
                       else None)
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("_")
        out.append(curve.draw(d, os.path.join(outdir, stem + "_bigbox.png"),
                              "%s: the big-box answer on %s" % (label,
                                                                mach.name)))
    return out
