"""fio client/server output: the entries of each host, fio's 'All clients'
entry checked against the sum of the hosts, and the engine's counters
lines that reach the client as text. Why the report sums the hosts
itself: docs/hosts.md."""

import re

from . import counters, fiojson

ALL_CLIENTS = "All clients"

# The engine's log_info line (engine/stats.c fc_stats_text), as fio's
# client prints it: "<server hostname> flagcheck: JOB (job N): MODEL
# variant=VARIANT mapping=M: ios=.. checks=.. rmw=.. (r/io)
# rmw_skipped=.. errors_set=.. errors_reported=.. stores=..
# stores_skipped=..[; path rmw=.. ...]"
_COUNTER_LINE = re.compile(
    r"<(?P<server>[^>]*)> flagcheck: (?P<job>.*?) \(job (?P<n>\d+)\): "
    r"(?P<model>\S+) variant=(?P<variant>\S+) mapping=(?P<mapping>\S+)"
    r": (?P<rest>.*)$")
_COUNTERS = ("ios", "checks", "rmw", "rmw_skipped", "errors_set",
             "errors_reported", "stores", "stores_skipped")


def is_client_output(doc):
    return "jobs" not in doc and isinstance(doc.get("client_stats"), list)


host_key = fiojson.host_key


def all_clients(doc):
    for e in doc.get("client_stats", ()):
        if isinstance(e, dict) and e.get("jobname") == ALL_CLIENTS:
            return e
    return None


def by_host(doc):
    """{'host:port': [entries]} in order of first appearance."""
    out = {}
    for e in fiojson.fio_jobs(doc):
        out.setdefault(host_key(e), []).append(e)
    return out


def host_doc(doc, key):
    """The output of one host, as a document run_metrics reads."""
    return {"client_stats": by_host(doc).get(key, [])}


def _total(entries, field):
    vals = [(e.get(d) or {}).get(field) for e in entries
            for d in ("read", "write", "trim")]
    vals = [v for v in vals if isinstance(v, (int, float))]
    return sum(vals) if vals else None


def check_all_clients(doc):
    """Compare fio's 'All clients' entry with the sum of the hosts:
    {'status': 'absent'|'equal'|'differs', 'fields': {field: (fio, sum)}}.
    I/O counts and bytes must be equal; iops are compared to show how far
    fio's own figure is from the sum (see the module's docstring)."""
    entries = fiojson.fio_jobs(doc)
    agg = all_clients(doc)
    if agg is None:
        return {"status": "absent", "fields": {}, "entries": len(entries)}
    fields, status = {}, "equal"
    for field in ("total_ios", "io_kbytes", "iops"):
        fio_v, sum_v = _total([agg], field), _total(entries, field)
        fields[field] = (fio_v, sum_v)
        if field != "iops" and fio_v != sum_v:
            status = "differs"
    return {"status": status, "fields": fields, "entries": len(entries)}


def counter_lines(text):
    """{server hostname: [counter records]} from fio's client output text.
    A record has the fields the JSON Lines counters file has for the counters
    (no per-path breakdown, no pid), plus "server" and "source"."""
    out = {}
    for line in text.splitlines():
        m = _COUNTER_LINE.search(line)
        if not m:
            continue
        rec = {"flagcheck": counters.VERSION, "source": "fio client text",
               "server": m.group("server"), "job": m.group("job"),
               "thread_number": int(m.group("n")),
               "model": m.group("model"), "variant": m.group("variant"),
               "mapping": m.group("mapping")}
        for key in _COUNTERS:
            k = re.search(r"(?:^| )%s=(\d+)" % key, m.group("rest"))
            if k is None:
                break
            rec[key] = int(k.group(1))
        else:
            out.setdefault(m.group("server"), []).append(rec)
    return out


_SERVER_LINE = re.compile(r"^<(?P<server>[^>]*)> ")


def server_lines(text):
    """{server hostname: [lines]}: what each server printed (fio's client
    prefixes a server's output lines with "<hostname> ")."""
    out = {}
    for line in text.splitlines():
        m = _SERVER_LINE.match(line)
        if m:
            out.setdefault(m.group("server"), []).append(line)
    return out
