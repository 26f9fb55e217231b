"""flagcheck predict: a model=pattern job file on N simulated CPUs of a
machine profile, per variant the IOPS with its band, the gain with its band,
per shared line the transfers per I/O and how busy it was, and the demand
check (predict/simulate.py, docs/predict.md).

The rest of each I/O besides the pattern's operations, one for both variants:
  work   the job file's work(ns) stands for the whole rest of the call
         (a published workload that is not this fio job); nothing added
  fio    this fio job: work(ns) plus fio's own per-I/O cost, --fio-ns or
         the figure --measure-fio recorded (predict/fiocost.py), scaled
         by the clock it was measured at over the profile's: the same
         inputs give the same output, nothing is measured by a prediction
"""

import os
import json
import re
import sys

from ..inputs import jobheader, numbers, textfile
from ..machines import machine, profile
from .. import width
from ..predict import band, curve, explain, fiocost, jobspec, simulate

PROG = "flagcheck predict"
# flagcheck-sim's largest matrix: refused before any is built
MAX_CPUS = simulate.MAX_CPUS
# seeds per cost level: each one simulation per variant and cost level
MAX_SEEDS = 100
# CPU counts of one --cpus: each is simulated in turn (a power-of-two
# series from 1 to 1024 is 11; 32 is three times that)
MAX_COUNTS = 32
# the demand check calls D/C far from the published gain beyond this factor
FAR = 3.0

# what it prints, --json's fields and --published's band in full are
# docs/predict.md's "What it prints", not --help's
EPILOG = """\
Prints per CPU count each variant's IOPS and band, the gain, each shared line's transfers per I/O, the demand
check (D/C) and what limits the gain; --json the same as one object per CPU count.
example: flagcheck predict jobs/pattern/s1-filemap-odirect-read.fio --machine epyc-2s-256 --cpus 16,64
exit status: 0 predicted, 1 a prediction failed, 2 usage error.  The model, its fields, the band: docs/predict.md."""


def build_parser():
    p = width.ArgumentParser(
        prog=PROG, description="Predict a model=pattern job file's IOPS "
        "and gain on a big machine by simulating it on the machine's "
        "profile.", epilog=EPILOG,
        formatter_class=width.HelpFormatter)
    p.add_argument("jobfile", nargs="?", metavar="JOBFILE",
                   help="a model=pattern fio job file")
    p.add_argument("--machine", metavar="NAME_OR_FILE",
                   help="profile: machines/NAME.toml's NAME, or a file")
    p.add_argument("--cpus", metavar="N[,N...]",
                   help="CPU counts, 1-%d, the profile's first N CPUs (at "
                   "most %d counts)" % (MAX_CPUS, MAX_COUNTS))
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


def parse_args(argv):
    return build_parser().parse_args(argv)


def cpu_counts(text):
    """[N, ...] from "N[,N...]", each once, at most MAX_COUNTS of them;
    ValueError naming the value."""
    if not re.match(r"^[0-9]{1,5}(,[0-9]{1,5})*$", text or ""):
        raise ValueError("--cpus %s: allowed N[,N...], whole numbers (ASCII "
                         "digits) from 1 to %d" % (numbers.shown(text),
                                                   MAX_CPUS))
    out = [int(x) for x in text.split(",")]
    if not 1 <= min(out) <= max(out) <= MAX_CPUS:
        raise ValueError("--cpus %s: allowed whole numbers from 1 to %d "
                         "(the simulator's CPUs)" % (numbers.shown(text),
                                                     MAX_CPUS))
    twice = sorted({n for n in out if out.count(n) > 1})
    if twice:
        raise ValueError("--cpus %s: %s given twice; each value once" % (
            numbers.shown(text), ", ".join(map(str, twice))))
    if len(out) > MAX_COUNTS:
        raise ValueError("--cpus %s: %d CPU counts: allowed at most %d" % (
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


def _line_name(u):
    lines = "%d-%d" % (u["line"], u["line"] + 1) if u["lines"] == 2 \
        else "%d" % u["line"]
    node = "" if u["node"] < 0 else " node %d" % u["node"]
    objs = u.get("objects") or 1
    node += " of %d objects" % objs if objs > 1 else ""
    return "line %s%s (%s)" % (lines, node, ",".join(u["words"]) or "-")


def gain_text(g):
    """"x1.15 (0.98..2.04 over every unknown; costs and seeds alone
    1.08..1.16)" where the band over every unknown is the gain's (band.
    one_band), else "x1.15 (1.08..1.16)", the costs and seeds'."""
    if "costs_seeds" not in g:
        return "x%.2f (%.2f..%.2f)" % (g["value"], g["low"], g["high"])
    return "x%.2f (%.2f..%.2f over every unknown; costs and seeds alone " \
        "%.2f..%.2f)" % (g["value"], g["low"], g["high"],
                         g["costs_seeds"]["low"], g["costs_seeds"]["high"])


def text(pred, gain_published=None):
    """The human form of one prediction."""
    m, g = pred["variants"], pred["gain"]
    out = ["%s on %s at %d CPUs%s (rest: %s)" % (
        pred["jobfile"], pred["machine"], pred["cpus"],
        " " + pred["placement"] if pred["placement"] else "",
        pred["rest"]["source"])]
    for variant in simulate.VARIANTS:
        out.append("  %-10s  %12.0f IOPS  (%.0f..%.0f)" % (
            variant, m[variant]["iops"], m[variant]["low"], m[variant]["high"]))
    out.append("  gain test_first/always %s%s" % (
        gain_text(g), "   published x%.2f" % gain_published
        if gain_published else ""))
    for variant in simulate.VARIANTS:
        for u in pred["lines"][variant]:
            out.append("  %-10s  %-28s %.3f transfers/io, busy %.0f%%" % (
                variant, _line_name(u), u["transfers_per_io"],
                100.0 * u["busy"]))
    for d in pred["demand"]:
        c = "C %.3g/s" % d["c"] if d["c"] else "no C: no other CPU"
        out.append("  demand    %-28s D/C = %.3g (D %.3g/s, %s)%s" % (
            _line_name(d), d["ratio"], d["d"], c,
            "  " + d["note"] if d["note"] else ""))
    if not pred["demand"]:
        out.append("  demand    no shared line is written in the always "
                   "form: D/C = 0")
    out += ["  " + x for x in pred.get("band", {}).get("lines", ())]
    out += explain.wrapped(pred["why"], "  ")
    return "\n".join(out) + "\n"


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
    if not args.machine or not args.cpus:
        raise ValueError("--machine and --cpus are needed (or --published)")
    return ([(args.machine, n, args.placement)
             for n in cpu_counts(args.cpus)], args.rest or spec.rest or "fio")


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
        m = machine.load(name, machines_dir)
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


def plot(args, spec, mach, rest, preds, gain_pub):
    """--plot FILE: the last machine's curve up to its largest N
    (predict/curve.py); returns what it plotted."""
    last = max((p for p in preds if p["machine"] == mach.name),
               key=lambda p: p["cpus"])
    got = curve.predictions(spec, mach, last["cpus"], last["placement"],
                            rest[0], args.seeds, preds)
    pub = spec.published
    here = pub and published_here(spec, gain_pub, mach, pub.cpus)
    return curve.draw(curve.data(got, None, (pub.cpus, here) if here
                                 else None), args.plot,
                      "%s on %s" % (os.path.basename(spec.path), mach.name))


def main(argv=None):
    args = parse_args(argv)
    done = other_action(args)
    if done is not None:
        return done
    with simulate.counted(simulate.Tally()):
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
            "--cpus" % (spec.path, "--published" if args.published else
                        "--cpus %s" % args.cpus, args.seeds, need,
                        simulate.COMMAND_EVENTS))


def _predict(args):
    """main()'s predictions, within the command's simulate.Tally."""
    try:
        spec = jobspec.read(args.jobfile, min(cpu_counts(args.cpus))
                            if args.cpus and not args.published else None)
        targets, rest_mode = _targets(args, spec)
        gain_pub = jobspec.published_gain(args.jobfile)
        loaded, runs = {}, []
        for name, n, placement in targets:
            if name not in loaded:
                loaded[name] = machine.load(name, args.machines_dir)
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
            plot(args, spec, mach, rest, preds, gain_pub)
        except (curve.PlotError, simulate.PredictError) as e:
            print(width.wrap("%s: --plot: %s" % (PROG, e)), file=sys.stderr)
            return 1
    if args.json:
        out = preds[0] if len(preds) == 1 else preds
        print(json.dumps(out, indent=1, allow_nan=False))
    else:
        sys.stdout.write(width.wrap("".join(text(p, p["published_gain"])
                                            for p in preds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
