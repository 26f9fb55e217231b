"""flagcheck physics (make physics): every published curve under
machines/curves/ beside the simulator's figure on the profile of its CPU (predict/curves.py), one row
per curve and thread count, and the line

    physics: N curves from S sources on F families, worst pub/sim xR

A curve whose CPU has no profile in machines/ has its rows all the same,
nothing simulated, and the reason in the last column."""

import sys

from ..predict import curves
from ..predict.simulate import PredictError
from .. import width
from . import argparser
from ..machines.machine import MachineError
from ..report import render

PROG = "flagcheck physics"
HEADER = ["curve", "source", "CPU", "profile", "threads", "published/s",
          "simulated/s", "pub/sim", "missing"]


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
    text = [[r.curve, src[r.source], cpu[r.cpu], r.profile, str(r.threads),
             _rate(r.published), _rate(r.simulated),
             _num(r.ratio, "x%.2f"), why.get(r.why, "-")] for r in out]
    title = ("published curves of a loop on one shared line (the line's "
             "operations per second, all threads: threads x 1e9 / the "
             "median of the source's ns per operation per thread) against "
             "flagcheck-sim on the profile of the CPU (typical costs, the "
             "mean of %d seeds)" % len(curves.SEEDS))
    legend = ["sources:"] + src_legend + ["CPUs:"] + cpu_legend + \
        ["missing:"] + why_legend
    return out, render.text_table(title, HEADER, text, {4, 5, 6, 7}) + \
        "\n" + "\n".join(width.wrap(x) for x in legend)


def build_parser():
    return argparser.ArgumentParser(
        prog=PROG, description="Each published curve of a loop on one "
        "shared line (machines/curves/, each file with its source) beside "
        "the simulator\non the profile of its CPU; the last line names the "
        "worst ratio. Takes no options. In full: docs/predict.md.")


def parse_args(argv):
    return build_parser().parse_args(argv)


def main(argv=None):
    parse_args(argv)
    try:
        items = curves.curves()
        out, text = table(items)
    except (curves.CurveError, MachineError, PredictError, OSError) as e:
        print(width.wrap("%s: %s" % (PROG, e)), file=sys.stderr)
        return 1
    sys.stdout.write(text + "\n")
    print(curves.summary(out, items))
    return 0
