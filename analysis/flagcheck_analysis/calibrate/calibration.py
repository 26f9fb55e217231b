"""flagcheck-calibrate: this machine's cache-line costs.

Runs the C program flagcheck-calibrate (calibrate/flagcheck-calibrate.c,
built by make), which measures the one-way cache-line transfer latency of
every pair of usable CPUs and the always / test_first bit patterns at 1..N
threads; adds the CPU model and the topology (NUMA nodes, SMT siblings) from
/sys and /proc/cpuinfo; summarises the matrix per relation of the two CPUs;
writes calibration.json and a heatmap of the matrix (calibration.png)."""

import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys

from ..run import placement
from ..report import plot, render

PROG = "flagcheck-calibrate"
JSON_NAME = "calibration.json"
PNG_NAME = "calibration.png"
DEFAULT_SECONDS = 10.0
SYSFS = "/sys/devices/system"
CPUINFO = "/proc/cpuinfo"
# The source tree, or $(PREFIX)/lib/flagcheck in an installed copy.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__)))))

# How two CPUs relate, nearest first, and how the tables name it.
RELATIONS = (("smt", "SMT sibling"), ("same_node", "same node"),
             ("other_node", "other node"))
RELATION_NAMES = dict(RELATIONS)
PATTERNS = ("always", "test_first")


class CalibrationError(Exception):
    """str() is one line naming the file or program and what is wrong."""


def default_program():
    """The program beside an installed copy, else the one make builds."""
    installed = os.path.join(REPO, "flagcheck-calibrate")
    if os.path.isfile(installed):
        return installed
    return os.path.join(REPO, "build", "flagcheck-calibrate")


def run_program(program, seconds=DEFAULT_SECONDS, max_threads=None,
                cpus=None):
    """The program's JSON document, measured on @cpus (default: every CPU
    this process may use); raises CalibrationError."""
    cmd = [program, "--seconds", "%g" % seconds]
    if max_threads:
        cmd += ["--max-threads", str(max_threads)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=3 * seconds + 120,
                           preexec_fn=None if cpus is None else
                           lambda: os.sched_setaffinity(0, cpus))
    except FileNotFoundError:
        raise CalibrationError("%s: no such program (run make, or give "
                               "--program)" % program)
    except (OSError, subprocess.SubprocessError) as e:
        raise CalibrationError("%s: %s" % (program, e))
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["no message"])[-1]
        raise CalibrationError("%s exited with status %d: %s"
                               % (program, p.returncode, last))
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        raise CalibrationError("%s: output is not JSON (%s)" % (program, e))
    validate(doc, program)
    return doc


def validate(doc, where):
    """Raise CalibrationError unless doc has what the analysis reads."""
    def bad(what):
        raise CalibrationError("%s: not a flagcheck calibration: %s"
                               % (where, what))
    if not isinstance(doc, dict) or doc.get("flagcheck_calibrate") != 1:
        bad('no "flagcheck_calibrate": 1')
    cpus = doc.get("cpus")
    if not isinstance(cpus, list) or not cpus or \
            not all(isinstance(c, int) for c in cpus):
        bad('"cpus" is not a list of CPU numbers')
    m = doc.get("transfer_ns")
    if not isinstance(m, list) or len(m) != len(cpus) or \
            not all(isinstance(r, list) and len(r) == len(cpus) for r in m):
        bad('"transfer_ns" is not a %d x %d matrix' % (len(cpus), len(cpus)))
    pats = doc.get("patterns")
    for name in PATTERNS:
        pts = (pats or {}).get(name) if isinstance(pats, dict) else None
        if not isinstance(pts, list) or not pts or not all(
                isinstance(p, dict) and isinstance(p.get("threads"), int)
                and isinstance(p.get("ns_per_op"), (int, float))
                and isinstance(p.get("ops_per_s"), (int, float))
                for p in pts):
            bad('no "%s" pattern points (threads, ns_per_op, ops_per_s)'
                % name)


def load(path):
    """A calibration.json (or the program's own output); raises
    CalibrationError."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise CalibrationError("%s: cannot read: %s" % (path, e.strerror))
    except ValueError as e:
        raise CalibrationError("%s: malformed JSON (%s)" % (path, e))
    validate(doc, path)
    return doc


# ---- the machine: CPU model and topology ----

def cpulist(text):
    """The CPUs of a kernel cpulist ("0-3,8,10-11") as a set; None or ""
    is none (placement.parse_cpulist reads the format)."""
    return set(placement.parse_cpulist(text or ""))


def cpu_model(cpuinfo=CPUINFO):
    text = placement.read_text(cpuinfo) or ""
    m = re.search(r"^(?:model name|Model|cpu model)\s*:\s*(.+)$", text,
                  re.MULTILINE)
    return m.group(1).strip() if m else "unknown"


def topology(cpus, sysfs=SYSFS):
    """{"node": {cpu: node}, "siblings": {cpu: [SMT siblings, itself
    included]}, "package": {cpu: package}} for the given CPUs.  Without
    NUMA information every CPU is on node 0; without SMT information each
    CPU is its own core."""
    node = {}
    for d in glob.glob(os.path.join(sysfs, "node", "node[0-9]*")):
        n = int(os.path.basename(d)[4:])
        for c in cpulist(placement.read_text(os.path.join(d, "cpulist"))):
            node[c] = n
    out = {"node": {}, "siblings": {}, "package": {}}
    for c in cpus:
        topo = os.path.join(sysfs, "cpu", "cpu%d" % c, "topology")
        sib = placement.read_text(os.path.join(topo, "thread_siblings_list")) or \
            placement.read_text(os.path.join(topo, "core_cpus_list"))
        pkg = placement.read_text(os.path.join(topo, "physical_package_id"))
        out["node"][c] = node.get(c, 0)
        out["siblings"][c] = sorted(cpulist(sib) | {c})
        out["package"][c] = int(pkg) if pkg and pkg.lstrip("-").isdigit() \
            else 0
    return out


def relation(a, b, topo):
    """smt, same_node or other_node."""
    if b in topo["siblings"][a]:
        return "smt"
    if topo["node"][a] == topo["node"][b]:
        return "same_node"
    return "other_node"


def _pairs(doc):
    """(cpu a, cpu b, one-way ns) for every measured pair, a < b."""
    cpus, m = doc["cpus"], doc["transfer_ns"]
    return [(cpus[i], cpus[j], m[i][j]) for i in range(len(cpus))
            for j in range(i + 1, len(cpus)) if m[i][j] is not None]


def summarise(doc, topo):
    """{relation: {"pairs", "median_ns", "min_ns", "max_ns"}} over the pair
    figures (each a median of its samples), for the relations present, and
    "all" over every pair."""
    groups = {}
    for a, b, ns in _pairs(doc):
        groups.setdefault(relation(a, b, topo), []).append(ns)
        groups.setdefault("all", []).append(ns)
    return {rel: {"pairs": len(v), "median_ns": statistics.median(v),
                  "min_ns": min(v), "max_ns": max(v)}
            for rel, v in groups.items()}


def describe(doc, sysfs=SYSFS, cpuinfo=CPUINFO):
    """doc with "host" (CPU model, nodes, SMT groups of the usable CPUs) and
    "summary" (per relation) added."""
    cpus = doc["cpus"]
    topo = topology(cpus, sysfs)
    nodes = {}
    for c in cpus:
        nodes.setdefault(str(topo["node"][c]), []).append(c)
    smt = sorted({tuple(c2 for c2 in topo["siblings"][c] if c2 in cpus)
                  for c in cpus})
    doc = dict(doc)
    doc["host"] = {
        "cpu_model": cpu_model(cpuinfo),
        "nodes": nodes,
        "packages": sorted({topo["package"][c] for c in cpus}),
        "smt_groups": [list(g) for g in smt if len(g) > 1],
        "relation": {"%d,%d" % (a, b): relation(a, b, topo)
                     for a, b, _ in _pairs(doc)},
    }
    doc["summary"] = summarise(doc, topo)
    return doc


# ---- reading a calibration ----

def point(doc, pattern, threads):
    """The pattern's point at that many threads, or None."""
    for p in doc["patterns"][pattern]:
        if p["threads"] == threads:
            return p
    return None


def max_threads(doc):
    return max(p["threads"] for p in doc["patterns"]["always"])


def transfer_for_estimate(doc):
    """(one-way ns, relation) for a machine whose jobs spread over nodes:
    the other-node median when the calibration has other-node pairs, else
    the nearest relation it has; (None, None) with one CPU."""
    summary = doc.get("summary") or {}
    for rel, _ in reversed(RELATIONS):
        if rel in summary:
            return summary[rel]["median_ns"], rel
    pairs = [ns for _, _, ns in _pairs(doc)]
    if pairs:
        return statistics.median(pairs), "all"
    return None, None


# ---- presenting ----

def _ns(v):
    return "-" if v is None else "%.1f" % v


def _rate(v):
    return "%.1fM" % (v / 1e6)


def header_lines(doc):
    host = doc.get("host") or {}
    nodes = host.get("nodes") or {}
    smt = host.get("smt_groups") or []
    return [
        "calibration: %s, %d usable CPU%s (%s), %d NUMA node%s, %s; "
        "%g s budget" % (
            host.get("cpu_model", "unknown CPU"), len(doc["cpus"]),
            "" if len(doc["cpus"]) == 1 else "s",
            ",".join(map(str, doc["cpus"])), len(nodes) or 1,
            "" if len(nodes) <= 1 else "s",
            "SMT siblings %s" % " ".join(
                "(%s)" % ",".join(map(str, g)) for g in smt)
            if smt else "no SMT siblings among them",
            doc.get("seconds", 0)),
        "cache-line transfer, one way (CAS ping-pong, median of each pair's "
        "samples of %s round trips / 2; per relation the median over pairs "
        "[min..max]): %s" % (doc.get("batch", "?"), transfer_text(doc)),
    ]


def transfer_text(doc):
    summary = doc.get("summary") or {}
    parts = []
    for rel, name in RELATIONS:
        s = summary.get(rel)
        parts.append("%s -" % name if s is None else
                     "%s %.1f ns [%.1f..%.1f], %d pair%s" % (
                         name, s["median_ns"], s["min_ns"], s["max_ns"],
                         s["pairs"], "" if s["pairs"] == 1 else "s"))
    return "; ".join(parts)


def patterns_table(doc):
    """(title, header, rows, right) for render: per thread count."""
    header = ["threads", "always ns/RMW per thread", "min..max",
              "line RMW/s", "test_first ns/op per thread", "test_first RMWs"]
    rows = []
    for a in doc["patterns"]["always"]:
        t = point(doc, "test_first", a["threads"])
        rows.append([str(a["threads"]), "%.2f" % a["ns_per_op"],
                     "%.2f..%.2f" % (a.get("ns_per_op_min", a["ns_per_op"]),
                                     a.get("ns_per_op_max", a["ns_per_op"])),
                     _rate(a["ops_per_s"]),
                     "-" if t is None else "%.3f" % t["ns_per_op"],
                     "-" if t is None else str(t.get("rmw", "-"))])
    return ("one shared flags word: always = two test_and_clear_bit() per "
            "iteration, test_first = test_bit() first (the bits stay clear); "
            "threads pinned to the first N usable CPUs",
            header, rows, set(range(len(header))))


def text(doc):
    return "\n".join(header_lines(doc)) + "\n\n" + \
        render.text_table(*patterns_table(doc)) + "\n"


def markdown(doc, heatmap=None):
    out = ["### Calibration of this machine", ""]
    out += ["- " + line for line in header_lines(doc)]
    out += ["", render.markdown_table(*patterns_table(doc))]
    if heatmap:
        out += ["", "![cache-line transfer latency between CPUs](%s)"
                % heatmap]
    return "\n".join(out) + "\n"


def heatmap(doc, path):
    """The transfer matrix as a heatmap PNG at path; returns path."""
    plt = plot._pyplot()
    cpus, n = doc["cpus"], len(doc["cpus"])
    data = [[float("nan") if v is None else v for v in row]
            for row in doc["transfer_ns"]]
    size = min(12, 3 + 0.25 * n)
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    im = ax.imshow(data, cmap="viridis", interpolation="nearest")
    fig.colorbar(im, ax=ax, label="one-way transfer latency (ns)")
    step = max(1, n // 32)
    ticks = list(range(0, n, step))
    ax.set_xticks(ticks)
    ax.set_yticks(ticks)
    ax.set_xticklabels([str(cpus[i]) for i in ticks], rotation=90)
    ax.set_yticklabels([str(cpus[i]) for i in ticks])
    if n <= 16:
        lo, hi = im.get_clim()
        for i in range(n):
            for j in range(n):
                if data[i][j] == data[i][j]:          # not NaN
                    ax.text(j, i, "%.0f" % data[i][j], ha="center",
                            va="center", fontsize="small",
                            color="k" if data[i][j] > (lo + hi) / 2
                            else "w")
    ax.set_xlabel("CPU")
    ax.set_ylabel("CPU")
    ax.set_title("cache-line transfer, one way: %s"
                 % (doc.get("host") or {}).get("cpu_model", ""),
                 fontsize="medium")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write(doc, outdir):
    """calibration.json in outdir (replaced whole); returns its path."""
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, JSON_NAME)
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)
    return path


def calibrate(outdir, seconds=DEFAULT_SECONDS, program=None,
              max_threads=None, draw=True):
    """Measure, describe, write calibration.json and (draw) the heatmap in
    outdir; returns the document.  Raises CalibrationError, OSError, and
    plot.PlotError for the heatmap (the JSON is written by then)."""
    doc = describe(run_program(program or default_program(), seconds,
                               max_threads))
    write(doc, outdir)
    if draw:
        heatmap(doc, os.path.join(outdir, PNG_NAME))
    return doc


def ensure(outdir, seconds=DEFAULT_SECONDS, program=None, warn=None):
    """The runner's call, once per results directory: keep a valid
    calibration.json that is already there (a resumed run), else measure
    one.  Returns the document, or None (told through warn) when the
    calibration failed: the runs go ahead without it."""
    warn = warn or (lambda msg: print("%s: %s" % (PROG, msg),
                                      file=sys.stderr))
    path = os.path.join(outdir, JSON_NAME)
    if os.path.exists(path):
        try:
            return load(path)
        except CalibrationError as e:
            warn("%s; measuring again" % e)
    try:
        return calibrate(outdir, seconds, program)
    except (CalibrationError, plot.PlotError) as e:
        warn("calibration left out: %s" % e)
    except OSError as e:
        warn("calibration left out: cannot write to %s: %s"
             % (outdir, e.strerror or e))
    return None


# ---- the command ----

EPILOG = """\
what it measures (the C program flagcheck-calibrate, built by make), on the
CPUs this process may use (run it under taskset to choose them), one thread
pinned per CPU:
  transfer latency  for every pair of CPUs, two threads bounce one 64-byte
                    line with compare-and-swap; a sample times 64 round
                    trips (the program's --batch); the pair's figure is the
                    median sample / round trips / 2 (one way)
  always            two test_and_clear_bit() per iteration on one shared
                    word (filemap_check_errors() before 7fcbbaf18392), at
                    1..N threads: ns per RMW per thread (mean over threads)
                    and RMWs per second on the line (the line's ceiling)
  test_first        test_bit() first, the RMW only when the bit is set (the
                    fix): ns per test_bit per thread
The bit operations are the engine's own (engine/bitops.h).  Up to half the
time goes to the pairs, the rest to the patterns.

files written to --outdir: calibration.json (the program's output, the CPU
model, NUMA nodes, SMT siblings, each pair's relation, the summary per
relation: SMT sibling, same node, other node) and, unless --no-plot,
calibration.png (the matrix as a heatmap).  flagcheck-report reads
calibration.json from a results directory for its "why" section.

exit status: 0 written, 1 the measurement failed or the files could not be
written, 2 usage error."""


def _seconds(text):
    try:
        v = float(text)
    except ValueError:
        v = None
    if v is None or not 0.01 <= v <= 3600:
        raise argparse.ArgumentTypeError(
            "%r is not valid: a number of seconds from 0.01 to 3600" % text)
    return v


def _threads(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(
            "%r is not valid: a whole number of at least 1" % text)
    return int(text)


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog=PROG, description="Measure this machine's cache-line costs: "
        "the transfer latency between every pair of usable CPUs and the "
        "always / test_first bit patterns at 1..N threads; write "
        "calibration.json and a heatmap.", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--outdir", default=".", metavar="DIR",
                   help="where to write calibration.json and calibration.png "
                   "(default: the current directory)")
    p.add_argument("--seconds", type=_seconds, default=DEFAULT_SECONDS,
                   metavar="S", help="time budget of the measurement, 0.01 "
                   "to 3600 (default: %(default)g)")
    p.add_argument("--max-threads", type=_threads, metavar="N",
                   help="run the patterns at 1..N threads only (default: "
                   "every usable CPU)")
    p.add_argument("--program", metavar="PATH",
                   help="the flagcheck-calibrate program (default: %s)"
                   % default_program())
    p.add_argument("--no-plot", action="store_true",
                   help="do not draw calibration.png (no matplotlib needed)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        doc = calibrate(args.outdir, args.seconds, args.program,
                        args.max_threads, draw=False)
    except CalibrationError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
    except OSError as e:
        print("%s: cannot write to %s: %s" % (PROG, args.outdir,
                                              e.strerror or e),
              file=sys.stderr)
        return 1
    drawn = False
    if not args.no_plot:
        try:
            drawn = bool(heatmap(doc, os.path.join(args.outdir, PNG_NAME)))
        except plot.PlotError as e:
            print("%s: heatmap skipped: %s" % (PROG, e), file=sys.stderr)
    sys.stdout.write(text(doc))
    print("%s: wrote %s%s to %s" % (PROG, JSON_NAME, " and " + PNG_NAME
                                    if drawn else "", args.outdir),
          file=sys.stderr)
    return 0
