"""flagcheck predict: a model=pattern job file on N simulated CPUs of a
machine profile (per variant the IOPS, the gain, each shared line, the
demand check, each with its band), or a results directory's big-box
answers stored in prediction.json. docs/predict.md."""

import argparse
import os
import json
import re
import sys

from ..inputs import jobheader, numbers, predictionfile, textfile
from ..machines import loader, machine, profile
from .. import width
from . import argparser
from ..predict import (answer, band, curve, explain, fiocost, jobspec,
                       simulate)
from ..report import bigbox, plot, render
from . import report

PROG = "flagcheck predict"
# flagcheck-sim's largest matrix: refused before any is built
MAX_CPUS = simulate.MAX_CPUS
# seeds per cost level: each one simulation per variant and cost level
MAX_SEEDS = 100
# job counts of one --numjobs: each is simulated in turn (a power-of-two
# series from 1 to 1024 is 11; 32 is three times that)
MAX_COUNTS = 32
# the demand check calls D/C far from the published gain beyond this factor
FAR = 3.0

# what it prints, --json's fields and --published's band in full are
# docs/predict.md's "What it prints", not --help's
EPILOG = """\
Prints per CPU count each variant's IOPS and band, the gain, each shared line's transfers per I/O, the demand
check (D/C) and what limits the gain; --json the same as one object per CPU count.
example: flagcheck predict jobs/pattern/s1-filemap-odirect-read.fio --machine epyc-2s-256 --numjobs 16,64
exit status: 0 predicted, 1 a prediction failed, 2 usage error.  The model, its fields, the band: docs/predict.md."""


def build_parser():
    p = argparser.ArgumentParser(
        prog=PROG, description="Predict a model=pattern job file's IOPS "
        "and gain on a big machine by simulating it on the machine's "
        "profile.", epilog=EPILOG)
    p.add_argument("jobfile", nargs="?", metavar="JOBFILE_OR_DIR",
                   help="a model=pattern fio job file, or a results "
                   "directory (its answers go to DIR/prediction.json)")
    p.add_argument("--machine", metavar="NAME_OR_FILE",
                   help="profile: machines/NAME.toml's NAME, or a file")
    p.add_argument("--numjobs", metavar="N[,N...]",
                   help="jobs, one per CPU: the profile's first N CPUs, "
                   "1-%d (at most %d counts)" % (MAX_CPUS, MAX_COUNTS))
    p.add_argument("--cpus", action=argparser.Moved, now="--numjobs N "
                   "(flagcheck run's word)")
    p.add_argument("--placement", metavar="nodes=A[,B]",
                   help="spread the CPUs over these NUMA nodes (default: "
                   "the first N CPUs)")
    p.add_argument("--published", action="store_true",
                   help="at the header's published-machine line, with the "
                   "band over every unknown")
    p.add_argument("--rest", choices=jobspec.RESTS, metavar="REST",
                   help="rest of each I/O: %s (default: the header's, or "
                   "fio)" % "|".join(jobspec.RESTS))
    p.add_argument("--fio-ns", type=fiocost.fio_ns_arg, metavar="NS",
                   help="fio's ns per I/O here, 1-1e6 (default: the "
                   "recorded one)")
    p.add_argument("--measure-fio", action="store_true",
                   help="measure fio's cost per I/O here, record it, exit")
    p.add_argument("--list-machines", action="store_true",
                   help="list the machine profiles and exit")
    p.add_argument("--machines-dir", metavar="DIR",
                   type=profile.machines_dir_arg,
                   help="where profile names are looked up (default "
                   "machines/)")
    p.add_argument("--seeds", default=str(simulate.SEEDS), metavar="N",
                   help="seeds per cost level, 1-%d (default %%(default)s)"
                   % MAX_SEEDS)
    p.add_argument("--json", action="store_true",
                   help="print JSON (docs/predict.md has its fields)")
    p.add_argument("--plot", metavar="FILE",
                   help="also draw IOPS and gain against CPUs up to the "
                   "largest N into this PNG")
    return p


def cpu_counts(text):
    """[N, ...] from "N[,N...]", each once, at most MAX_COUNTS of them;
    ValueError naming the value."""
    if not re.match(r"^[0-9]{1,5}(,[0-9]{1,5})*$", text or ""):
        raise ValueError("--numjobs %s: allowed N[,N...], whole numbers "
                         "(ASCII digits) from 1 to %d"
                         % (numbers.shown(text), MAX_CPUS))
    out = [int(x) for x in text.split(",")]
    if not 1 <= min(out) <= max(out) <= MAX_CPUS:
        raise ValueError("--numjobs %s: allowed whole numbers from 1 to %d "
                         "(the simulator's CPUs)" % (numbers.shown(text),
                                                     MAX_CPUS))
    twice = sorted({n for n in out if out.count(n) > 1})
    if twice:
        raise ValueError("--numjobs %s: %s given twice; each value once" % (
            numbers.shown(text), ", ".join(map(str, twice))))
    if len(out) > MAX_COUNTS:
        raise ValueError("--numjobs %s: %d CPU counts: allowed at most %d" % (
            numbers.shown(text), len(out), MAX_COUNTS))
    return out


def seeds(text):
    """--seeds: a whole number from 1 to MAX_SEEDS; ValueError naming it."""
    try:
        return numbers.number(text, whole=True, low=1, high=MAX_SEEDS)
    except numbers.NumberError:
        raise ValueError("--seeds %s: allowed 1 or more, at most %d"
                         % (numbers.shown(text).strip("'"), MAX_SEEDS))


def demand_notes(demand, gain):
    """The demand check's verdict per unit beside the published gain:
    D/C far (x FAR) from it is a job-file question, not a model knob."""
    out = []
    for d in demand:
        r = d["ratio"]
        note = ""
        if gain is not None:
            cap = max(r, 1.0)
            if cap > FAR * gain or (gain > 1.1 and cap * FAR < gain):
                note = ("far from the published gain x%.2f: the job file's "
                        "rate or CPU count is in question" % gain)
        out.append(dict(d, note=note))
    return out


def run_one(spec, machine, n, placement, rest, seeds, gain_pub):
    pred = simulate.predict(spec, machine, n, placement, rest[0], seeds)
    pred["jobfile"] = spec.path
    pred["rest"] = {"ns": pred["rest_ns"], "source": rest[1]}
    pred["demand"] = demand_notes(pred["demand"], gain_pub)
    pred["why"] = explain.sentence(pred)
    return pred


def _targets(args, spec):
    """[(machine name or file, N, placement)], the rest variant."""
    args.seeds = seeds(args.seeds)
    if args.published:
        if not spec.published:
            raise ValueError("%s: --published: no '; published-machine:' "
                             "line in its header" % spec.path)
        if not args.rest and not spec.rest:
            raise ValueError("%s: --published: no '; published-rest:' line "
                             "in its header" % spec.path)
        p = spec.published
        return [(p.profile, p.cpus, p.placement)], args.rest or spec.rest
    if not args.machine or not args.numjobs:
        raise ValueError("--machine and --numjobs are needed (or --published)")
    return ([(args.machine, n, args.placement)
             for n in cpu_counts(args.numjobs)],
            args.rest or spec.rest or "fio")


def rest_for(args, spec, rest_mode, mach):
    """The rest of @spec's I/O on @mach: the header's work NS, the job's
    work(ns), --fio-ns, or the recorded fio cost; never a measurement."""
    if rest_mode == "fio" and args.fio_ns is None:
        return fiocost.recorded_rest(
            fiocost.recorded(fiocost.record_path()), mach)
    return fiocost.rest_of(rest_mode, args.fio_ns, mach,
                           spec.rest_ns if rest_mode == spec.rest else None)


def list_machines(machines_dir):
    """Per profile: name, CPUs, sockets, generic or named, and what its
    transfer costs were measured on; under it what it is (the start of
    its description), each within 120 columns."""
    out = ["%-18s %5s %7s  %-7s  %s" % ("machine", "CPUs", "sockets",
                                        "kind", "measured on (every number's "
                                        "source: the profile's [sources])")]
    for name in profile.names(machines_dir):
        m = loader.load(name, machines_dir)
        for line in ("%-18s %5d %7d  %-7s  %s" % (
                name, m.total_cpus, m.sockets,
                "generic" if m.generic else "named",
                textfile.printable(m.measured_on)),
                "%-18s %s" % ("", textfile.printable(m.description))):
            out.append(line if width.columns(line) <= width.WIDTH else
                       width.cut(line, width.WIDTH - 3) + "...")
    return "\n".join(out) + "\n"


def other_action(args):
    """--list-machines, --measure-fio: the exit status, or None."""
    try:
        if args.list_machines:
            sys.stdout.write(list_machines(args.machines_dir))
            return 0
        if args.measure_fio:
            path = fiocost.record_path()
            rec = fiocost.record(path)
            print(width.wrap("%s: fio's cost per I/O here: %.0f ns (%.0f..%.0f), "
                  "recorded in %s" % (PROG, rec["fio_ns"], rec["low"],
                                      rec["high"], path)))
            return 0
    except (ValueError, OSError, machine.MachineError) as e:
        print(width.wrap("%s: %s" % (PROG, e)), file=sys.stderr)
        return 1
    if not args.jobfile:
        print("%s: a job file is needed (or --list-machines, "
              "--measure-fio)" % PROG, file=sys.stderr)
        return 2
    return None


def published_here(spec, gain_pub, mach, n):
    """The published gain where @mach at @n CPUs is the machine and count
    the job file's published-machine line names, else None: a figure
    measured on one box is not set beside another's prediction."""
    pub = spec.published
    if pub is None or mach.name != pub.profile or n != pub.cpus:
        return None
    return gain_pub


def draw_plot(args, spec, mach, rest, preds, gain_pub):
    """--plot FILE: the last machine's curve up to its largest N
    (predict/curve.py); returns what it plotted."""
    last = max((p for p in preds if p["machine"] == mach.name),
               key=lambda p: p["cpus"])
    got = curve.predictions(spec, mach, last["cpus"], last["placement"],
                            rest[0], args.seeds, preds)
    pub = spec.published
    here = pub and published_here(spec, gain_pub, mach, pub.cpus)
    return plot.bigbox_curve(curve.data(got, None, (pub.cpus, here) if here
                                        else None),
                             args.plot, "%s on %s" % (
                                 os.path.basename(spec.path), mach.name))


# what a results directory's answers take; the others are a job file's
NOT_WITH_RESULTS = ("placement", "published", "rest", "seeds", "json",
                    "plot")


def _stored(args):
    """flagcheck predict DIR: every pattern job the results name, at its
    published machine and at --numjobs N (predict/answer.py), and each
    simulated beside the runs on this box's calibration; stored in
    DIR/prediction.json, printed as the report prints it."""
    given = [o for o in NOT_WITH_RESULTS
             if getattr(args, o) not in (None, False, str(simulate.SEEDS))]
    if given:
        return _fail("--%s: a job file's option, not a results "
                     "directory's" % given[0].replace("_", "-"), 2)
    n = None
    if args.numjobs:
        try:
            counts = cpu_counts(args.numjobs)
        except ValueError as e:
            return _fail(str(e), 2)
        if len(counts) != 1 or counts[0] < 2:
            return _fail("--numjobs %s: with a results directory, one N from "
                         "2 to %d" % (numbers.shown(args.numjobs),
                                      MAX_CPUS), 2)
        n = counts[0]
    ask = argparse.Namespace(inputs=[args.jobfile], cpus=n,
                             machine=args.machine, fio_ns=args.fio_ns)
    records, manifests, entries = report.load(ask.inputs)
    warnings = []

    def warn(line):
        warnings.append(line)
        print(width.wrap("%s: %s" % (PROG, line)), file=sys.stderr)
    doc = {"cpus": n, "warnings": warnings}
    doc.update(answer.big_box(ask, manifests, warn, records, entries))
    doc["beside"] = answer.beside(ask, manifests, records, warn, entries)
    try:
        predictionfile.write(args.jobfile, doc)
    except OSError as e:
        return _fail("cannot write %s: %s" % (predictionfile.path(
            args.jobfile), e.strerror or e), 1)
    checked = bigbox.beside(doc["beside"], records)
    tables = bigbox.table(doc, bigbox.caveats(checked)) + checked
    if tables:
        print("\n\n".join(render.text_table(*t) for t in tables))
    print(width.wrap("%s: wrote %s" % (PROG, predictionfile.path(
        args.jobfile))), file=sys.stderr)
    return 0


def _fail(line, status):
    print(width.wrap("%s: %s" % (PROG, line)), file=sys.stderr)
    return status


def main(argv=None):
    args = build_parser().parse_args(argv)
    done = other_action(args)
    if done is not None:
        return done
    with simulate.counted(simulate.Tally()):
        if os.path.isdir(args.jobfile):
            return _stored(args)
        return _predict(args)


def _within_budget(args, spec, runs):
    """ValueError where the command's @runs [(spec, machine, N, placement,
    rest)] would simulate about more than simulate.COMMAND_EVENTS events,
    before any of them runs."""
    need = sum(simulate.planned_events(spec, mach, n, placement, rest[0],
                                       args.seeds)
               for mach, n, placement, rest in runs)
    if need > simulate.COMMAND_EVENTS:
        raise ValueError(
            "%s: %s at --seeds %d: about %.1e simulated events, past the "
            "command's budget of %.0e (docs/predict.md): fewer --seeds or "
            "--numjobs" % (spec.path, "--published" if args.published
                           else "--numjobs %s" % args.numjobs, args.seeds,
                           need, simulate.COMMAND_EVENTS))


def _predict(args):
    """main()'s predictions, within the command's simulate.Tally."""
    try:
        spec = jobspec.read(args.jobfile, min(cpu_counts(args.numjobs))
                            if args.numjobs and not args.published else None)
        targets, rest_mode = _targets(args, spec)
        gain_pub = jobspec.published_gain(args.jobfile)
        loaded, runs = {}, []
        for name, n, placement in targets:
            if name not in loaded:
                loaded[name] = loader.load(name, args.machines_dir)
            mach = loaded[name]
            runs.append((mach, n, placement,
                         rest_for(args, spec, rest_mode, mach)))
        _within_budget(args, spec, runs)
        preds = []
        for mach, n, placement, rest in runs:
            here = published_here(spec, gain_pub, mach, n)
            preds.append(run_one(spec, mach, n, placement, rest,
                                 args.seeds, here))
            preds[-1]["published_gain"] = here
            if args.published:
                band.attach(preds[-1], spec, mach, rest[0] if isinstance(
                    rest[0], (int, float)) else rest[0][0], here)
    except (ValueError, jobspec.SpecError, jobheader.FigureError,
            machine.MachineError) as e:
        print(width.wrap("%s: %s" % (PROG, e)), file=sys.stderr)
        return 2
    except simulate.PredictError as e:
        print(width.wrap("%s: %s" % (PROG, e)), file=sys.stderr)
        return 1
    if args.plot:
        try:
            draw_plot(args, spec, mach, rest, preds, gain_pub)
        except (plot.PlotError, simulate.PredictError) as e:
            print(width.wrap("%s: --plot: %s" % (PROG, e)), file=sys.stderr)
            return 1
    if args.json:
        out = preds[0] if len(preds) == 1 else preds
        print(json.dumps(out, indent=1, allow_nan=False))
    else:
        sys.stdout.write(width.wrap("".join(bigbox.text(p, p["published_gain"])
                                            for p in preds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
