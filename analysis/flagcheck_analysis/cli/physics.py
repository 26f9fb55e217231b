"""flagcheck physics (make physics): every published curve under
machines/curves/ beside the simulator's figure on its CPU's profile
(predict/curves.py), one row per curve and thread count, then one line
`physics: N curves from S sources on F families, worst pub/sim xR`;
--visits prints the visit each row needs (predict/visitfit.py).
docs/predict.md, "The visit, the published curves: `make physics`"."""

import sys

from ..predict import curves, visitfit
from ..predict.simulate import PredictError
from .. import width
from . import argparser
from ..machines.machine import MachineError
from ..report import render

PROG = "flagcheck physics"
HEADER = ["curve", "source", "CPU", "profile", "placement", "threads",
          "published/s", "simulated/s", "pub/sim", "missing"]


def _rate(v):
    return "-" if v is None else "%.2fM" % (v / 1e6)


def _num(x, fmt):
    return "-" if x is None else fmt % x


def _keys(values):
    """[1], [2], ... for each distinct long value, in order; the legend."""
    keys = {}
    for v in values:
        keys.setdefault(v, "[%d]" % (len(keys) + 1))
    return keys, ["%s %s" % (k, v) for v, k in keys.items()]


def table(items, machines_dir=None):
    out = curves.rows(items, machines_dir)
    src, src_legend = _keys(r.source for r in out)
    cpu, cpu_legend = _keys(r.cpu for r in out)
    why, why_legend = _keys(r.why for r in out if r.why != "-")
    text = [[r.curve, src[r.source], cpu[r.cpu], r.profile, r.placement,
             str(r.threads), _rate(r.published), _rate(r.simulated),
             _num(r.ratio, "x%.2f"), why.get(r.why, "-")] for r in out]
    title = ("published curves of a loop on one shared line (the line's "
             "operations per second, all threads: threads x 1e9 / the "
             "median of the source's ns per operation per thread) against "
             "flagcheck-sim on the profile of the CPU (typical costs, the "
             "mean of %d seeds)" % len(curves.SEEDS))
    legend = ["sources:"] + src_legend + ["CPUs:"] + cpu_legend + \
        ["missing:"] + why_legend
    return out, render.text_table(title, HEADER, text, {5, 6, 7, 8}) + \
        "\n" + "\n".join(width.wrap(x) for x in legend)


def _value(v, where, fmt):
    if where in ("none", "below"):
        return "-" if where == "none" else "<floor"
    return (">" if where == "above" else "") + fmt % v


def visits_table(items, machines_dir=None):
    """The visit each simulated row needs, per variant, then per family
    its range and each variant's worst pub/sim at the family's median."""
    got = {n: visitfit.fits(items, n, machines_dir)
           for n in visitfit.VARIANTS}
    text = [[f.curve, str(f.threads), _rate(f.published),
             _value(f.value, f.where, "%.3f"),
             _value(h.value, h.where, "%.0f")]
            for f, h in zip(got["visit"], got["hold"])]
    out = [render.text_table(
        "the visit each curve's row needs: f of the overlapped window "
        "(hold 0), H ns of hold-then-transfer (visit 0, the floor alone); "
        "bisection on flagcheck-sim", ["curve", "threads", "published/s",
                                       "visit f", "hold H ns"],
        text, {1, 2, 3, 4})]
    fam_rows = []
    ranges = {n: visitfit.family_ranges(got[n]) for n in got}
    worst = {n: visitfit.worst(items, n, {k: v[1] for k, v in
                                          ranges[n].items()},
                               machines_dir) for n in got}
    for fam in sorted(set(ranges["visit"]) | set(ranges["hold"])):
        cells = [fam]
        for n, fmt in (("visit", "%.3f"), ("hold", "%.0f")):
            r = ranges[n].get(fam)
            cells += ["-"] * 2 if not r else \
                [(fmt + " (" + fmt + ".." + fmt + ")") % (r[1], r[0], r[2]),
                 _num(worst[n].get(fam), "x%.2f")]
        fam_rows.append(cells)
    out.append(render.text_table(
        "per family: the median (range) of the rows' values and the worst "
        "pub/sim of its rows at the median", ["family", "visit f",
                                              "worst", "hold H ns",
                                              "worst"], fam_rows, set()))
    return "\n".join(out)


def build_parser():
    p = argparser.ArgumentParser(
        prog=PROG, description="Each published curve of a loop on one "
        "shared line (machines/curves/, each file with its source) beside "
        "the simulator\non the profile of its CPU; the last line names the "
        "worst ratio. In full: docs/predict.md.")
    p.add_argument("--visits", action="store_true",
                   help="the visit each row needs, both variants (minutes)")
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        items = curves.curves()
        if args.visits:
            sys.stdout.write(visits_table(items) + "\n")
            return 0
        out, text = table(items)
    except (curves.CurveError, MachineError, PredictError, OSError) as e:
        print(width.wrap("%s: %s" % (PROG, e)), file=sys.stderr)
        return 1
    sys.stdout.write(text + "\n")
    print(curves.summary(out, items))
    return 0
