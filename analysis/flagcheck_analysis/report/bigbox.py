"""The report's big-box answer, rendered: the table of each pattern job's
answer, its summary lines, its figures for --format json, the table of
the check on this box and the plots. predict/answer.py computes them
(big_box(), beside()); nothing here simulates. docs/predict.md, "In the
report", says what each holds."""

import os
import re
import textwrap

from ..inputs import published
from ..stats.compare import measured_iops
from . import plot

WITHIN = 0.15

TITLE = ("the big-box answer, an ESTIMATE: each pattern job simulated "
         "(flagcheck predict, docs/predict.md): gain test_first/always at "
         "typical costs with THE band, the band over every unknown "
         "(docs/predict.md, \"The band\"); beside it the band of the "
         "profile's low..high costs and 3 seeds alone")
HEADER = ["scenario", "machine", "cpus", "rest", "always IOPS",
          "test_first IOPS", "gain (band over every unknown)",
          "costs and seeds alone", "D/C", "published",
          "what limits the gain", "the other way", "caveat"]
GAIN, SPREAD, DC = 6, 7, 8
WHY, OTHER, CAVEAT = 10, 11, 12


def _iops(v):
    return "%.0f (%.0f..%.0f)" % (v["iops"], v["low"], v["high"])


def row(label, p, gain_pub):
    """The table's row of prediction @p (predict/answer.py's)."""
    m, g = p["variants"], p["gain"]
    dc = max([d["ratio"] for d in p["demand"]] or [0.0])
    return [label, p["machine"] + (" " + p["placement"] if p["placement"]
                                   else ""),
            str(p["cpus"]), p["rest"]["shown"], _iops(m["always"]),
            _iops(m["test_first"]),
            "x%.2f (%.2f..%.2f)" % (g["value"], g["low"], g["high"]),
            "%.2f..%.2f" % (g["costs_seeds"]["low"],
                            g["costs_seeds"]["high"]),
            "%.3g" % dc, "-" if gain_pub is None else "x%.2f" % gain_pub,
            p["why"], "-", "-"]


def _other_rest(fio, header):
    """The footnote of the fio rest's row @fio beside the answer @header
    ((row, its rest's ns)), both on one machine at one N."""
    return ("with this fio job's rest (%s) in place of the header's "
            "published-rest (%s%s): %s, D/C %s; fio's own cost per I/O "
            "spaces the accesses to the shared lines, which the header's "
            "published workload does not pay, so the answer follows its "
            "published-rest" % (fio[3], header[0][3], " + %.0f ns an I/O"
                                % header[1] if header[1] else
                                ": the job file's work(ns) alone",
                                fio[GAIN], fio[DC]))


def _spot(p):
    return p["machine"], p["cpus"], p["placement"]


def scenario_rows(s, caveats=None):
    """(the table's row of scenario @s, {"published", "asked": (row,
    prediction) or None}): its answer with the other rest, and the
    published machine where it is not the answer, as its footnote
    ("the other way"); @caveats: {run label: why the estimate is in
    doubt} (caveats())."""
    label, gain = s["label"], s["gain_published"]
    answers = {k: (row(label, s[k], gain), s[k]) if s[k] else None
               for k in ("asked", "published", "fio")}
    out = answers[s["answer"]][0]
    others = []
    if answers["fio"]:
        asked = answers["asked"]
        others.append(_other_rest(answers["fio"][0],
                                  (asked[0], asked[1]["rest"]["ns"])))
        if _spot(s["asked"]) != _spot(s["published"]):
            pub = answers["published"][0]
            others.append("on the published machine (%s at %s CPUs, the "
                          "header's rest): %s, D/C %s" % (
                              pub[1], pub[2], pub[GAIN], pub[DC]))
    out[OTHER] = "; ".join(others) or "-"
    out[CAVEAT] = next((v for k, v in (caveats or {}).items()
                        if k in published.of_scenario(label, {k})), "-")
    return out, answers


def table(answers, caveats=None):
    """[the table] of big_box()'s @answers, or [] when there is none."""
    body = [scenario_rows(s, caveats)[0] for s in answers["scenarios"]]
    title = "; ".join([TITLE] + [n for n in [answers["note"]] if n])
    return [(title, HEADER, body, {2, 4, 5, 6, 7, 8})] if body else []


def _answer_text(row, p):
    """"on PROFILE at N CPUs: xG (lo..hi)" with THE band, and where the
    published gain lies in it where the prediction says."""
    b = p.get("band") or {}
    text = "on %s at %s CPUs: %s" % (row[1], row[2], row[GAIN])
    if b.get("where"):
        text += ", published x%.2f lies %s the band" % (
            b["published"], b["where"])
    return text


def summary_lines(answers, labels=(), caveats=None):
    """{label: the summary's big-box text} of each scenario: the
    published machine's answer with THE band and where the published gain
    lies in it, then --numjobs N's answer beside it where asked, then the
    sentence on what limits the gain and the caveat of a failed check on
    this box, each on a line of its own; also for each of the run @labels
    of the scenario (published.of_scenario())."""
    out = {}
    for s in answers["scenarios"]:
        row, got = scenario_rows(s, caveats)
        pub, asked = got["published"], got["asked"]
        text = _answer_text(*(pub or asked))
        if pub and asked and asked[0][1:3] != pub[0][1:3]:
            text += "\n  --numjobs %s: %s" % (asked[0][2],
                                              _answer_text(*asked))
        for i, what in ((WHY, ""), (CAVEAT, "caveat: ")):
            if row[i] != "-":
                text += "\n  " + what + row[i]
        for x in published.of_scenario(s["label"], set(labels)) | \
                {s["label"]}:
            out[x] = text
    return out


def data(answers):
    """The big-box answers as numbers, for --format json: per scenario
    the published machine's answer and --numjobs N's, each its machine,
    CPUs, placement, gain with THE band and the costs-and-seeds band,
    and where the published gain lies in the band."""
    def one(p):
        if p is None:
            return None
        b = p.get("band") or {}
        return {"machine": p["machine"], "cpus": p["cpus"],
                "placement": p["placement"], "gain": p["gain"],
                "variants": {m: {k: v[k] for k in ("iops", "low", "high")}
                             for m, v in p["variants"].items()},
                "published": b.get("published"), "where": b.get("where"),
                "widest": b.get("widest")}
    return {s["label"]: {"published": one(s["published"]),
                         "asked": one(s["asked"])}
            for s in answers["scenarios"]}


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


# ---- flagcheck predict JOBFILE: one prediction in words ----

def wrapped(text, indent="", width=120):
    """@text as lines of at most @width columns, each after @indent."""
    return textwrap.wrap(text, width, initial_indent=indent,
                         subsequent_indent=indent, break_on_hyphens=False)


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
    """The human form of one prediction (flagcheck predict JOBFILE)."""
    m, g = pred["variants"], pred["gain"]
    out = ["%s on %s at %d CPUs%s (rest: %s)" % (
        pred["jobfile"], pred["machine"], pred["cpus"],
        " " + pred["placement"] if pred["placement"] else "",
        pred["rest"]["source"])]
    for variant in m:
        out.append("  %-10s  %12.0f IOPS  (%.0f..%.0f)" % (
            variant, m[variant]["iops"], m[variant]["low"],
            m[variant]["high"]))
    out.append("  gain test_first/always %s%s" % (
        gain_text(g), "   published x%.2f" % gain_published
        if gain_published else ""))
    for variant in m:
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
    out += wrapped(pred["why"], "  ")
    return "\n".join(out) + "\n"


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


def beside(checked, records):
    """[the table] of answer.beside()'s @checked beside the measured IOPS
    of @records, or [] (a 1-job row that gave the rest is marked so, not
    judged); L ns: the one-way cost each numjobs was simulated with, its
    runs' own line probes' ("cal": the calibration's, where they have
    none)."""
    iops = measured_iops(records)
    body = []
    for c in checked:
        for r in c["rows"]:
            nj = r["numjobs"]
            for variant, s in r["variants"].items():
                x = iops.get((c["label"], nj, variant))
                if x is None:
                    continue
                ratio = x / s["iops"]
                within = "yes" if abs(ratio - 1) <= WITHIN else "no"
                body.append([c["label"], str(nj), variant, r["rest"],
                             "%.0f" % x, _iops(s), "%.2f" % ratio,
                             "its rest" if r["from_runs"] and nj == 1
                             else within, r["line"]])
    return [(BESIDE_TITLE, BESIDE_HEADER, body, {1, 3, 4, 5, 6})] \
        if body else []


def draw(answers, records, outdir):
    """<scenario>_bigbox.png of each answer: its curve against CPUs
    (stored, predict/curve.py's data()) with THE band at its N, the
    measured IOPS of its runs (@records) on this box's own axes, the
    published gain where the job file has one; [what each plotted]."""
    iops = measured_iops(records)
    out = []
    for s in (s for s in answers["scenarios"] if s["curve"]):
        label, d = s["label"], dict(s["curve"])
        mine = published.of_scenario(label, {x for x, _, _ in iops})
        measured = {}
        for (x, nj, variant), v in sorted(iops.items()):
            if x in mine and variant in d["variants"]:
                measured.setdefault(variant, []).append((nj, v))
        d["measured"] = {m: sorted(v) for m, v in measured.items()}
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("_")
        out.append(plot.bigbox_curve(
            d, os.path.join(outdir, stem + "_bigbox.png"),
            "%s: the big-box answer on %s" % (label,
                                              s[s["answer"]]["machine"])))
    return out
