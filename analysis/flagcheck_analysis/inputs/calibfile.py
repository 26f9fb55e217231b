"""calibration.json, the file flagcheck-calibrate writes: what it may hold
(SCHEMA), reading and validating one (load, validate) and what its
figures mean (point, visit, line_rate).  Measuring one (running the
program, the topology it adds) is calibrate/calibration.py; this reader
sits on the ground floor so that a calibration is a machine profile
(machines/calibmachine.py) and the report reads it without calibrate/."""

import json
import re

from . import fiojson, schema
from .schema import COUNT, INT, STR, List, Map, Obj, Opt, number, whole

JSON_NAME = "calibration.json"
# the heatmap of its matrix, beside it (flagcheck calibrate, the report)
PNG_NAME = "calibration.png"
# the two bit patterns the program measures at 1..N threads
PATTERNS = ("always", "test_first")
# How two CPUs relate, nearest first, and how the tables name it.
RELATIONS = (("smt", "SMT sibling"), ("same_node", "same node"),
             ("other_node", "other node"))


class CalibrationError(Exception):
    """str() is one line naming the file or program and what is wrong."""


# A transfer, or one operation: more than 0 ns, at most 1 ms (the bound
# of why's --transfer-ns); a rate: more than 0 per second.
_NS = number(above=0, high=1e6)
_RATE = number(above=0)
# a CPU of Linux (CONFIG_NR_CPUS is at most 8192, MAXSMP), a thread count
# at most one per CPU, a NUMA node (NODES_SHIFT at most 10: 1024 nodes)
NR_CPUS_MAX = fiojson.NR_CPUS_MAX
NR_NODES_MAX = 1024
_CPU = whole(0, NR_CPUS_MAX - 1)
_POINT = Obj({"threads": whole(1, NR_CPUS_MAX), "cpus": List(_CPU),
              "ns_per_op": _NS,
              "ns_per_op_min": _NS, "ns_per_op_max": _NS,
              "ops_per_s": _RATE, "rmw": COUNT},
             required=("threads", "ns_per_op", "ops_per_s"))
# The line's visits at 1..N threads (calibrate/visits.c): counts, and the
# figures over the stretches kept (null where none was; the visit figures
# from 2 threads on).  A visit serves at least one RMW; its hand-over is
# part of it.  At 2 threads the pair's one-way cost measured just before
# and after the visits on the same two CPUs (calibrate/calibration.c): a
# visit shorter than it, or a pair cost that moved, is refused (its
# figures null, "refused" says why) after "tries" takes.
_VISIT = Obj({"threads": whole(1, NR_CPUS_MAX), "cpus": List(_CPU),
              "stretch_rmw": whole(1), "stretches": COUNT,
              "stretches_alone": COUNT, "stretches_kept": COUNT, "rmw": COUNT, "visits": COUNT,
              "seconds": number(low=0), "rmw_per_s": Opt(_RATE),
              "ns_per_rmw": Opt(_NS), "rmw_per_visit": Opt(number(low=1)),
              "visit_ns": Opt(_NS), "handover_ns": Opt(_NS),
              "pair_ns_before": _NS, "pair_ns_after": _NS,
              "tries": whole(1, 10), "refused": Opt(STR)},
             required=("threads", "stretches", "stretches_kept", "rmw",
                       "visits", "seconds", "rmw_per_s", "rmw_per_visit",
                       "handover_ns"))
SCHEMA = Obj({
    "flagcheck_calibrate": INT, "seconds": number(above=0),
    "batch": whole(1), "clock": STR, "cpus": List(_CPU),
    "transfer_ns": List(List(Opt(_NS))),
    "patterns": Map(List(_POINT)),
    "visits": List(_VISIT),
    "host": Obj({"cpu_model": STR, "l2_kib": Opt(number(above=0,
                                                        high=1 << 20)),
                 "nodes": Map(List(_CPU)),
                 "packages": List(INT), "smt_groups": List(List(_CPU)),
                 "relation": Map(STR)}),
    "summary": Map(Obj({"pairs": whole(1), "median_ns": _NS,
                        "min_ns": _NS, "max_ns": _NS},
                       required=("median_ns",)))})


def validate(doc, where):
    """Raise CalibrationError unless doc has what the analysis reads,
    every field within what it may be (SCHEMA)."""
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
    try:
        schema.check(doc, SCHEMA)
        _check_nodes(doc)
        _check_points(doc)
        _check_visits(doc)
    except schema.Invalid as e:
        raise CalibrationError("%s: %s" % (where, e))


def _check_nodes(doc):
    """schema.Invalid unless each host.nodes key is a node number (as
    calibrate/calibration.py writes it: str() of the node)."""
    for key in ((doc.get("host") or {}).get("nodes") or {}):
        if not re.fullmatch(r"0|[1-9][0-9]{0,3}", key) or \
                int(key) >= NR_NODES_MAX:
            raise schema.Invalid("host.nodes key", key, "a NUMA node "
                                 "number, 0 to %d" % (NR_NODES_MAX - 1))


# flagcheck-calibrate.c sums each thread's ops / its seconds into
# ops_per_s (1e9 / its ns per op) and averages the threads' ns per op
# into ns_per_op, their least into ns_per_op_min: so threads x 1e9 /
# ns_per_op <= ops_per_s <= threads x 1e9 / ns_per_op_min (the mean of
# the threads' rates is at least the rate of their mean ns, and at most
# the fastest's).  RATE_SLACK allows the rounding of the printed figures
# (ns to 0.0001, ops/s to 0.1).
RATE_SLACK = 1.01


def _check_points(doc):
    """schema.Invalid unless each point's rate agrees with its ns per op.
    (test_first may cost more than always where a busy machine preempted
    its threads: the report leaves such a thread count's calibrated
    columns out, naming it, report/gaps.py.)"""
    for name in PATTERNS:
        for i, p in enumerate(doc["patterns"][name]):
            low = p["threads"] * 1e9 / p["ns_per_op"] / RATE_SLACK
            fastest = p.get("ns_per_op_min")
            high = p["threads"] * 1e9 / fastest * RATE_SLACK \
                if isinstance(fastest, (int, float)) and fastest > 0 \
                else float("inf")
            if not low <= p["ops_per_s"] <= high:
                raise schema.Invalid(
                    "patterns.%s[%d].ops_per_s" % (name, i), p["ops_per_s"],
                    "from threads x 1e9 / ns_per_op (%.6g) to threads x "
                    "1e9 / ns_per_op_min (%.6g): the threads' rates summed"
                    % (low * RATE_SLACK, high / RATE_SLACK))


# the printed figures' rounding (4 decimals) against the counts' quotients
VISIT_SLACK = 1.001


def _agrees(value, want):
    return want / VISIT_SLACK <= value <= want * VISIT_SLACK


def _check_visit(i, v):
    """schema.Invalid unless visit point @i's figures are its counts'."""
    def bad(field, want):
        raise schema.Invalid("visits[%d].%s" % (i, field), v.get(field),
                             want)
    alone = v.get("stretches_alone", 0)
    if v["stretches_kept"] + alone > v["stretches"]:
        bad("stretches_kept", "at most stretches - stretches_alone (%d)"
            % (v["stretches"] - alone))
    # a kept stretch serves its thread's stretch_rmw RMWs at least
    if v["rmw"] < v["stretches_kept"] * v.get("stretch_rmw", 1):
        bad("rmw", "at least stretches_kept x stretch_rmw")
    some = v["stretches_kept"] > 0 and v["seconds"] > 0 and \
        not v.get("refused")
    for field, want in (("rmw_per_s", v["rmw"] / v["seconds"] if some
                         else None),
                        ("rmw_per_visit", v["rmw"] / v["visits"]
                         if some and v["threads"] > 1 and v["visits"]
                         else None)):
        got = v.get(field)
        if (got is None) != (want is None) or \
                (want is not None and not _agrees(got, want)):
            bad(field, "null" if want is None else
                "%.6g (the counts' quotient)" % want)
    if v.get("handover_ns") is not None and \
            (v.get("visit_ns") is None or
             v["handover_ns"] > v["visit_ns"] * VISIT_SLACK):
        bad("handover_ns", "at most visit_ns: the hand-over is part of "
            "the visit")
    pair = [v[k] for k in ("pair_ns_before", "pair_ns_after") if k in v]
    if v.get("visit_ns") is not None and pair and \
            v["visit_ns"] * VISIT_SLACK < min(pair):
        bad("visit_ns", "at least the pair's one-way cost measured around "
            "it (%.6g ns): no hand-over is shorter (the threads did not "
            "stay on one pair of cores: calibrate again)" % min(pair))


def _check_visits(doc):
    """schema.Invalid unless the visit points are 1..N threads, each
    with the figures of its counts."""
    visits = doc.get("visits")
    if visits is None:
        return              # a calibration from before the visits
    for i, v in enumerate(visits):
        if v["threads"] != i + 1:
            raise schema.Invalid("visits[%d].threads" % i, v["threads"],
                                 "%d: the points are 1..N threads" % (i + 1))
        _check_visit(i, v)


def load(path):
    """A calibration.json (or the program's own output); raises
    CalibrationError."""
    try:
        text = fiojson.read_text(path, "calibration")
        if text is None:
            raise CalibrationError("%s: cannot read: No such file or "
                                   "directory" % path)
        doc = json.loads(text)
    except fiojson.InputError as e:
        raise CalibrationError(str(e))
    except RecursionError:
        raise CalibrationError("%s: JSON nested too deeply to read" % path)
    except ValueError as e:
        raise CalibrationError("%s: malformed JSON (%s)" % (path, e))
    validate(doc, path)
    return doc


# ---- what a calibration's figures mean ----

def point(doc, pattern, threads):
    """The pattern's point at that many threads, or None."""
    for p in doc["patterns"][pattern]:
        if p["threads"] == threads:
            return p
    return None


def visit(doc, threads):
    """The visits point at that many threads (calibrate/visits.c), or
    None (a calibration from before them, or past its threads)."""
    for v in doc.get("visits") or ():
        if v["threads"] == threads:
            return v
    return None


def line_rate(doc, threads):
    """(RMWs per second on the one shared line at @threads, what it is):
    the visits' rate over the stretches where every thread ran (a busy
    machine cannot raise it: a thread alone on the line is not counted),
    None where none was kept; a calibration from before the visits: the
    always pattern's wall-time rate, said so."""
    v = visit(doc, threads)
    if v is not None:
        return v["rmw_per_s"], "co-running, %d of %d stretches" % (
            v["stretches_kept"], v["stretches"])
    p = point(doc, "always", threads)
    if p is None:
        return None, "not measured"
    return p["ops_per_s"], "wall time (a calibration without visits)"
