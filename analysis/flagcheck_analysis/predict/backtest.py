"""make backtest: every model=pattern job file with a published figure,
predicted on its published machine at its published CPU count, beside the
published gain, with the scores of the simulator, of "no effect" and of
today's formula against docs/predict.md's targets: docs/backtest.md's
table. Nothing is measured: the same table on any machine."""

import glob
import os
import subprocess
from collections import namedtuple

from ..inputs import jobheader
from . import band, jobspec, simulate

JOB_DIRS = ("jobs/pattern", "jobs/catalogue", "jobs/family")
# what the table's commit names: the last commit of what it depends on
INPUTS = ("sim", "engine/pattern/pattern_parse.c", "engine/pattern/pattern.h",
          "machines", "jobs", "analysis/flagcheck_analysis/predict",
          "analysis/flagcheck_analysis/machines/machine.py")

Row = namedtuple("Row", "name machine rest rule generic pred low high "
                 "published formula layout demand why band assumes")


def job_files(top):
    out = []
    for d in JOB_DIRS:
        out += sorted(glob.glob(os.path.join(top, d, "*.fio")))
    return out


def formula_gain(pred):
    """Today's formula's test_first/always (module doc)."""
    n, t = pred["cpus"], pred["mean_transfer_ns"] * 1e-9
    iops = {}
    for variant in simulate.VARIANTS:
        m = pred["variants"][variant]
        line = m["rmw_per_io"] + m["stores_per_io"]
        iops[variant] = 1.0 / (1.0 / (n * m["one_cpu"]) + line * t)
    return iops["test_first"] / iops["always"]


def is_layout(pred):
    a, f = (pred["variants"][m]["one_cpu_line_ops"] for m in simulate.VARIANTS)
    return a > 0 and abs(a - f) <= 1e-9 * a


def _skip(name, why):
    return Row(name, "-", "-", "", False, None, None, None, None, None,
               False, None, why, None, False)


def row(path, top, load, fio_ns):
    """The Row of one job file; @load: machines/machine.py's load()."""
    name = os.path.relpath(path, top)
    spec = jobspec.read(path)
    fig = jobheader.read(path)
    if fig is None or fig.gain is None:
        return _skip(name, "no published-figure line" if fig is None else
                     "published-figure: none")
    if spec.published is None:
        return _skip(name, "no published-machine line")
    if spec.rest is None:
        return _skip(name, "no published-rest line")
    mach = load(spec.published.profile)
    rest_ns, rest = 0.0, "work"
    if spec.rest_ns is not None:
        rest_ns, rest = spec.rest_ns, "work %.0f ns" % spec.rest_ns
    if spec.rest == "fio":
        if fio_ns is None:
            return _skip(name, "published-rest fio: give --fio-ns")
        rest_ns, rest = fio_ns, "fio (%.0f ns)" % fio_ns
    p = spec.published
    pred = simulate.predict(spec, mach, p.cpus, p.placement, rest_ns)
    where = "%s %d%s" % (mach.name, p.cpus,
                         " " + p.placement if p.placement else "")
    g = dict(pred["gain"])      # the costs and seeds alone: today's band
    b = band.attach(pred, spec, mach, rest_ns, fig.gain)
    return Row(name, where, rest, spec.rest_rule or "", mach.generic,
               g["value"], g["low"], g["high"], fig.gain,
               formula_gain(pred), is_layout(pred),
               max([d["ratio"] for d in pred["demand"]] or [0.0]), "", b,
               bool(jobheader.assumed(path)))


def criteria(pred, pub, layout, low=None, high=None):
    """{criterion: met} for one predicted gain (module doc); @low, @high
    its band (inside: None without one)."""
    eff_p, eff_q = pred - 1.0, pub - 1.0
    eff = eff_p / eff_q if eff_q else None
    ratio = pred / pub
    return {
        "inside": None if low is None else low <= pub <= high,
        "x1.25": 1 / 1.25 <= ratio <= 1.25,
        "target": 1 / 1.5 <= ratio <= 1.5 and eff is not None and
        0.5 <= eff <= 2.0,
        "x2": 0.5 <= ratio <= 2.0,
        "layout": (pred > 1.05) if layout else None,
        "wrong": (eff_p > 0) != (eff_q > 0) and abs(eff_p) > 0.005,
    }


def _x(v):
    return "-" if v is None else "x%.2f" % v


def _cells(r):
    if r.pred is None:
        return [r.name, r.machine, r.rest] + ["-"] * (len(HEADER) - 4) + [
            "not back-tested: " + r.why]
    b = r.band
    c = criteria(r.pred, r.published, r.layout, b["low"], b["high"])
    met = [k for k in ("inside", "target", "x2", "layout") if c[k]]
    if _generic_only(r) and c["x1.25"]:
        met.append("x1.25")
    if c["wrong"]:
        met.append("WRONG DIRECTION")
    eff = (r.pred - 1) / (r.published - 1) if r.published != 1 else None
    return [r.name, r.machine + (" (generic)" if r.generic else ""),
            r.rest, "%s (%.2f..%.2f)" % (_x(r.pred), b["low"], b["high"]),
            "x%.2f" % b["width"], "%.2f..%.2f" % (r.low, r.high),
            _x(r.published), band.where(b, r.published),
            "%s: %s" % (b["widest"]["dim"], b["widest"]["why"]),
            "%.2f" % (r.pred / r.published),
            "-" if eff is None else "%.2f" % eff, _x(r.formula),
            "%.3g" % r.demand, "layout" if r.layout else "",
            ", ".join(met) or "none"]


HEADER = ["file", "machine N", "rest", "predicted (band)", "width",
          "today's band", "published", "published is", "widest unknown",
          "pred/pub", "effect pred/pub", "formula", "D/C", "kind", "met"]


def _generic_only(r):
    """A file whose header assumes nothing but a generic profile."""
    return r.generic and not r.assumes


def _median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2.0 if xs else float("nan")


def band_scores(done):
    """Lines: the band's coverage and sharpness, the typical value's
    scores, beside today's band (costs and seeds only)."""
    n = len(done)
    inside = sum(r.band["low"] <= r.published <= r.band["high"]
                 for r in done)
    today = sum(r.low <= r.published <= r.high for r in done)
    widths = [r.band["width"] for r in done]
    wide = [r for r in done if r.band["width"] > 4]
    gen = [r for r in done if _generic_only(r)]
    cs = [criteria(r.pred, r.published, r.layout) for r in done]
    return [
        "- coverage (published inside the band; target >= 80%%): %d of %d "
        "(%.0f%%); today's band (costs and seeds only) %d of %d"
        % (inside, n, 100.0 * inside / n, today, n),
        "- sharpness (median width high/low; target <= x1.5): x%.2f; today's"
        " band x%.2f; wider than x4: %d, each with its widest unknown named"
        % (_median(widths), _median([r.high / r.low for r in done]),
           len(wide)),
        "- typical value: target (x1.5 and effect x2; target >= 60%%) %d of "
        "%d, within x2 %d of %d, wrong direction %d; files assuming nothing "
        "but a generic profile within x1.25: %d of %d" % (
            sum(c["target"] for c in cs), n, sum(c["x2"] for c in cs), n,
            sum(c["wrong"] for c in cs), sum(c["x1.25"] for c, r in
                                             zip(cs, done)
                                             if _generic_only(r)), len(gen)),
    ]


def misses(done):
    """Lines: each file whose published figure lies outside its band, in
    words, with each single input's value that would reach it."""
    out = []
    for r in done:
        b = r.band
        if b["where"] == "inside":
            continue
        inv = "; ".join(x.strip() for x in band.inverse_text(
            [(i["input"], i["value"]) for i in b.get("inverse", ())],
            r.published)[1:])
        out.append("- %s: published x%.2f lies %s the band (%.2f..%.2f); "
                   "to reach it alone: %s" % (r.name, r.published,
                                              b["where"], b["low"],
                                              b["high"], inv))
    return out


def scores(rows):
    """Lines: each predictor's count of files meeting each criterion."""
    done = [r for r in rows if r.pred is not None]
    out = []
    for who, get in (("simulator", lambda r: r.pred),
                     ("no effect", lambda r: 1.0),
                     ("today's formula", lambda r: r.formula)):
        cs = [criteria(get(r), r.published, r.layout) for r in done]
        lay = [c["layout"] for c in cs if c["layout"] is not None]
        out.append("- %s: target (x1.5 and effect x2) %d of %d, within x2 "
                   "%d of %d, layout fixes above x1.05 %d of %d, wrong "
                   "direction %d" % (
                       who, sum(c["target"] for c in cs), len(cs),
                       sum(c["x2"] for c in cs), len(cs), sum(lay),
                       len(lay), sum(c["wrong"] for c in cs)))
    return out


def commit(top):
    p = subprocess.run(["git", "-C", top, "log", "-1", "--format=%h",
                        "--"] + list(INPUTS), capture_output=True,
                       text=True)
    return p.stdout.strip() or "unknown (not a git checkout)"


def markdown(rows, top):
    out = ["# Back-test (make backtest)", "",
           "Engine commit: %s (the last commit of the simulator, the "
           "profiles, the job files and the back-test)." % commit(top), "",
           "Each job file with a published figure predicted by "
           "`flagcheck predict --published` on its `published-machine` "
           "line; docs/predict.md has the model and the criteria. No "
           "number is measured: the table is the same on any machine.", "",
           "| " + " | ".join(HEADER) + " |",
           "|" + "---|" * len(HEADER)]
    out += ["| " + " | ".join(_cells(r)) + " |" for r in rows]
    out += ["", "D/C: the demand check of the always variant, the busiest "
            "written line's (docs/predict.md). formula: today's "
            "1/IOPS(N) = 1/(N x IOPS(1)) + line ops per I/O x transfer.",
            "", "Each file's rest, as its header derives it:", ""]
    out += ["- %s: %s" % (r.name, r.rule) for r in rows
            if r.pred is not None and r.rule]
    done = [r for r in rows if r.pred is not None]
    out += ["", "The band (docs/predict.md): every assumed input, both rest "
            "rules, the profile's physics range, the costs and the seeds, "
            "one at a time plus two corners, widened by the published "
            "figure's noise. Scores (of %d files back-tested):" % len(done),
            ""] + band_scores(done)
    out += ["", "Published figures outside the band:", ""] + (
        misses(done) or ["- none"])
    out += ["", "The typical value's scores (of %d files back-tested):"
            % len(done), ""] + scores(rows)
    return "\n".join(out) + "\n"
