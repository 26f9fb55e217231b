"""Loading fio JSON output (plain, json+, client/server) and the engine's
counters JSON Lines, and reducing one run to one number per metric."""

import json
import os
import sys

from . import counters, numbers, schema, textfile

# fio's JSON output of one run, a manifest, a calibration and an engine's
# counters file are each far below this: a manifest of 10000 runs is
# about 30 MiB (about 3 KiB per run, tests/analysis/fixtures)
MAX_BYTES = 256 << 20

# (key, row name in the tables); the order is the order of the rows.
METRICS = (
    ("iops", "iops"),
    ("bw_kib", "bw_KiB/s"),
    ("clat_mean_ns", "clat_mean_ns"),
    ("clat_p50_ns", "clat_p50_ns"),
    ("clat_p99_ns", "clat_p99_ns"),
    ("clat_p999_ns", "clat_p99.9_ns"),
    ("usr_cpu", "usr_cpu_%_per_job"),
    ("sys_cpu", "sys_cpu_%_per_job"),
    ("fio_errors", "fio.total_err"),
    ("rmw_per_io", "flagcheck.atomic_rmw_per_io"),
    ("stores_per_io", "flagcheck.stores_per_io"),
    ("errors_set", "flagcheck.errors_set"),
    ("errors_reported", "flagcheck.errors_reported"),
)

_DIRECTIONS = ("read", "write", "trim")
_PERCENTILES = (("clat_p50_ns", "50.000000", 50.0),
                ("clat_p99_ns", "99.000000", 99.0),
                ("clat_p999_ns", "99.900000", 99.9))


class InputError(Exception):
    """Bad input file; str() is one line that names the file."""

    def __init__(self, path, what):
        super().__init__("%s: %s" % (path, what))


def read_text(path, what, max_bytes=MAX_BYTES):
    """The text of the file at @path, a regular file of at most
    @max_bytes (textfile: a FIFO or /dev/zero is never read), a byte that
    is not UTF-8 replaced (no reader here needs it); None where there is
    no file; InputError naming the file otherwise."""
    if not os.path.lexists(path):
        return None
    try:
        text = textfile.read_text(path, what, max_bytes)
    except textfile.TextFileError as e:
        err = InputError(path, "")
        err.args = (str(e),)
        raise err
    return textfile.to_bytes(text).decode("utf-8", "replace")


def decode(path, text, where="", raw=False):
    """json.loads(text) (raw: the first document and where it ends) of text
    read from `path`; a document nested deeper than Python's parser can
    follow becomes an InputError naming the file (and `where` in it).
    Malformed JSON stays a ValueError for the caller to describe."""
    try:
        if raw:
            return json.JSONDecoder().raw_decode(text)
        return json.loads(text)
    except RecursionError:
        raise InputError(path, "%sJSON nested too deeply to read (deeper "
                         "than Python's limit of about %d levels); not fio "
                         "or flagcheck output" % (where,
                                                  sys.getrecursionlimit()))


def load_fio_json(path):
    """The fio output document.  fio (3.33, client mode and with some
    warnings) may print text lines before the JSON: skip to the first line
    that starts with '{'.  Raises InputError with a one-line reason."""
    text = read_text(path, "fio JSON file")
    if text is None:
        raise InputError(path, "cannot read: No such file or directory")
    return parse_fio_json(path, text)


def parse_fio_json(path, text):
    """The fio output document of @text (fio's output, read from @path or
    printed by the fio that @path names), as load_fio_json()."""
    lines = text.splitlines(keepends=True)
    skipped = 0
    for line in lines:
        if line.startswith("{"):
            break
        skipped += 1
    else:
        raise InputError(path, "no JSON object (no line starts with '{'); "
                         "empty or not fio --output-format=json output")
    body = "".join(lines[skipped:])
    try:
        doc, _ = decode(path, body, raw=True)
    except ValueError as e:
        line = getattr(e, "lineno", 0) + skipped
        msg = getattr(e, "msg", str(e))
        # a string only stays unterminated when the file ends inside it;
        # fio writes one value a line: an error in the last line's last
        # token (a number cut after its '.') is where the file ends
        rest = body[getattr(e, "pos", 0):].rstrip()
        if (not rest or (len(rest) < 32 and not any(c.isspace()
                                                    for c in rest))
                or msg.startswith("Unterminated string")):
            raise InputError(path, "truncated JSON (ends at line %d)" % line)
        raise InputError(path, "malformed JSON at line %d: %s" % (line, msg))
    if not isinstance(doc, dict) or not (
            isinstance(doc.get("jobs"), list)
            or isinstance(doc.get("client_stats"), list)):
        raise InputError(path, "not fio JSON output (no 'jobs' or "
                         "'client_stats' list)")
    if not fio_jobs(doc):
        raise InputError(path, "fio output holds no jobs")
    check_values(path, doc)
    return doc


_ABSENT = object()
# the fields of a job entry that the report reads: per direction, and not
_DIRECTION_FIELDS = ("iops", "bw", "clat_ns.mean", "clat_ns.N")
_JOB_FIELDS = ("usr_cpu", "sys_cpu", "job_runtime", "total_err")
# the engine's counters in a record of the counters file
COUNTERS = ("ios", "checks", "rmw", "rmw_skipped", "stores", "errors_set",
            "errors_reported", "stores_skipped")


def _get(d, dotted):
    for key in dotted.split("."):
        if not isinstance(d, dict) or key not in d:
            return _ABSENT
        d = d[key]
    return d


# The most a field of fio's JSON can hold (fio's stat.h keeps its counts,
# ns and ms in uint64_t): a count, a latency in ns, a runtime in ms at
# most 2^64 - 1; a rate (IOPS, KiB/s) at most such a count per ms of
# runtime (fio divides by the runtime in ms, which is at least 1); a CPU
# share of one job at most 100% of each CPU that Linux can have
# (CONFIG_NR_CPUS is at most 8192, MAXSMP): beyond these a value is an
# edit, and no sum or product of a run's values overflows a float.  A
# value that is not 0 is a count, or a count over a time, both at most
# 2^64 - 1: at least 1 / (2^64 - 1), so no ratio of two overflows either.
U64_MAX = counters.U64_MAX
NR_CPUS_MAX = 8192
_HIGH = {"iops": U64_MAX * 1000.0, "bw": U64_MAX * 1000.0,
         "usr_cpu": 100.0 * NR_CPUS_MAX, "sys_cpu": 100.0 * NR_CPUS_MAX}


def _impossible(value, high=None):
    """Neither absent nor a number of 0 to @high (a whole number of any
    size is a number: the range refuses it, never an OverflowError)."""
    if value is _ABSENT:
        return False
    if isinstance(value, int) and not isinstance(value, bool):
        return value < 0 or (high is not None and value > high)
    return not numbers.in_range(value, 0, high)


# the strings and option tables of fio's JSON that the report reads
_OPTIONS = counters.OPTIONS
_JOB = schema.Obj({"jobname": schema.STR, "job options": _OPTIONS,
                   "hostname": schema.STR})
_DOC_SCHEMA = schema.Obj({
    "fio version": schema.STR,
    "global options": schema.OneOf(_OPTIONS, schema.List(_OPTIONS)),
    "jobs": schema.List(_JOB),
    "client_stats": schema.List(_JOB)})


def check_values(path, doc):
    """Raise InputError naming the first field that no fio run can hold
    (NaN, a string, a negative number), or a run that did no I/O."""
    name = "jobs" if "jobs" in doc else "client_stats"
    for i, entry in enumerate(doc[name]):
        if not isinstance(entry, dict):
            continue
        fields = [(f, _get(entry, f)) for f in
                  ["%s.%s" % (d, f) for d in _DIRECTIONS
                   for f in _DIRECTION_FIELDS] + list(_JOB_FIELDS)]
        for d in _DIRECTIONS:
            pct = _get(entry, d + ".clat_ns.percentile")
            if isinstance(pct, dict):
                fields += [("%s.clat_ns.percentile.%s" % (d, p), v)
                           for p, v in pct.items()]
        for field, value in fields:
            high = _HIGH.get(field.split(".")[-1], U64_MAX)
            if _impossible(value):
                raise InputError(path, "%s[%d].%s is %s: not a finite "
                                 "number of 0 or more" % (
                                     name, i, field, numbers.shown(value)))
            if _impossible(value, high):
                raise InputError(path, "%s[%d].%s is %s: more than %.6g, "
                                 "the most fio can write there" % (
                                     name, i, field, numbers.shown(value),
                                     high))
            if value is not _ABSENT and 0 < value < 1.0 / U64_MAX:
                raise InputError(path, "%s[%d].%s is %s: not 0 and less "
                                 "than 1 / (2^64 - 1), the least fio can "
                                 "write there" % (name, i, field,
                                                  numbers.shown(value)))
    try:
        schema.check(doc, _DOC_SCHEMA)
    except schema.Invalid as e:
        raise InputError(path, str(e))
    if not any(_get(e, d + ".iops") not in (_ABSENT, 0)
               for e in fio_jobs(doc) for d in _DIRECTIONS):
        raise InputError(path, "%s[*].{read,write,trim}.iops are all 0: "
                         "the run did no I/O" % name)


def fio_jobs(doc):
    """The per-job (or per-group) entries.  In client/server output the
    entries are in 'client_stats'; the 'All clients' sum is left out so
    that summing the entries counts every job once."""
    entries = doc.get("jobs")
    if entries is None:
        entries = [e for e in doc.get("client_stats", ())
                   if e.get("jobname") != "All clients"]
    return [e for e in entries if isinstance(e, dict)]


def host_key(entry):
    """'host:port' of a client/server entry: fio adds "hostname" and "port"
    to each client_stats entry and, from 3.39 on, to each server's global
    options."""
    return "%s:%s" % (entry.get("hostname", "?"), entry.get("port", "?"))


def global_options(doc):
    """fio's "global options" as {host key: options}; None keys the one
    dict of plain output, of one server and of fio before 3.39 (there all
    servers' globals in one). fio 3.39 and later with several servers
    (commit 6f771553, "client: separate global options from multiple
    servers") write a list of one dict per server, with its hostname and
    port: each is kept with its host."""
    glob = doc.get("global options")
    if isinstance(glob, dict):
        return {None: dict(glob)}
    out = {}
    for d in glob if isinstance(glob, list) else ():
        if isinstance(d, dict):
            out[host_key(d)] = {k: v for k, v in d.items()
                                if k not in ("hostname", "port")}
    return out


def job_options(doc):
    """The first job's options, over the global options of its host
    (client output keeps globals apart)."""
    glob = global_options(doc)
    jobs = fio_jobs(doc)
    key = host_key(jobs[0]) if jobs else None
    opts = dict(glob.get(None) or glob.get(key) or {})
    if jobs:
        opts.update(jobs[0].get("job options") or {})
    return opts


def load_counters(path):
    """The engine's per-job records (JSON Lines), or None if there is no
    counters file.  Raises InputError naming the first bad line."""
    text = read_text(path, "counters file")
    if text is None:
        return None
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = decode(path, line, "line %d: " % number)
        except ValueError as e:
            raise InputError(path, "line %d: malformed JSON (%s)"
                             % (number, getattr(e, "msg", e)))
        if not isinstance(rec, dict) or "flagcheck" not in rec:
            raise InputError(path, "line %d: not a flagcheck stats "
                             "record (no \"flagcheck\": %d)"
                             % (number, counters.VERSION))
        if type(rec["flagcheck"]) is not int or \
                rec["flagcheck"] != counters.VERSION:
            raise InputError(path, "line %d: \"flagcheck\": %r: this "
                             "report reads version %d records (the variant "
                             "as \"variant\", every I/O one model call); "
                             "record the run again"
                             % (number, rec["flagcheck"], counters.VERSION))
        if "flag_check" in rec:
            raise InputError(path, "line %d: the variant is flag_check here, "
                             "written by an engine before the option was "
                             "variant=: run the job again" % number)
        for key in counters.COUNTERS:
            value = rec.get(key, _ABSENT)
            if _impossible(value) or (
                    value is not _ABSENT and not isinstance(value, int)):
                raise InputError(path, "line %d: %s is %s: not a whole "
                                 "number of 0 or more" % (
                                     number, key, numbers.shown(value)))
        try:
            counters.check(rec)
        except schema.Invalid as e:
            raise InputError(path, "line %d: %s" % (number, e))
        records.append(rec)
    return records


def number_or_none(x):
    """@x where it is a number (a bool is not one), else None."""
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) \
        else None


# fio's latency histogram (stat.h, FIO_IO_U_PLAT_*): values below 128 ns
# exact, then 64 buckets per power of two; fio's percentiles are bucket
# values, so two of them in one bucket are the same to fio
PLAT_BITS, PLAT_VAL, PLAT_NR = 6, 64, 29 * 64
BUCKETED = ("clat_p50_ns", "clat_p99_ns", "clat_p999_ns")


def plat_bucket(ns):
    """fio's histogram bucket of a latency in ns (stat.c plat_val_to_idx);
    a mean of bucket values (several jobs) is rounded first."""
    val = int(round(ns))
    msb = val.bit_length() - 1 if val > 0 else 0
    if msb <= PLAT_BITS:
        return val
    error_bits = msb - PLAT_BITS
    idx = ((error_bits + 1) << PLAT_BITS) + ((PLAT_VAL - 1) &
                                             (val >> error_bits))
    return min(idx, PLAT_NR - 1)


def plat_bucket_range(idx):
    """(lowest, highest) ns that fio puts in bucket idx."""
    if idx < 2 * PLAT_VAL:
        return idx, idx
    error_bits = (idx >> PLAT_BITS) - 1
    lo = (PLAT_VAL + (idx & (PLAT_VAL - 1))) << error_bits
    return lo, lo + (1 << error_bits) - 1


def _weighted(pairs):
    """Weighted mean of (value, weight) pairs; None without weight."""
    pairs = [(v, w) for v, w in pairs if v is not None and w]
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if total else None


def _percentile_from_bins(bins, pct):
    """fio's own rule: the first bucket where the running count reaches
    pct% of all samples (json+ 'bins' are bucket value -> count)."""
    items = sorted((float(k), c) for k, c in bins.items())
    total = sum(c for _, c in items)
    if not total:
        return None
    need, seen = pct / 100.0 * total, 0
    for value, count in items:
        seen += count
        if seen >= need:
            return value
    return items[-1][0]


def _clat(entries):
    """clat mean and percentiles over all jobs and directions.  The mean is
    weighted by sample count.  Percentiles are exact when every entry has
    json+ bins (merged histogram); otherwise the sample-weighted mean of the
    per-entry percentiles (exact with one entry, e.g. group_reporting)."""
    parts = [d.get("clat_ns") for e in entries
             for d in (e.get(k) for k in _DIRECTIONS) if isinstance(d, dict)]
    parts = [p for p in parts
             if isinstance(p, dict) and number_or_none(p.get("N"))]
    out = {"clat_mean_ns": _weighted((number_or_none(p.get("mean")), p["N"])
                                     for p in parts)}
    if parts and all(isinstance(p.get("bins"), dict) for p in parts):
        merged = {}
        for p in parts:
            for k, c in p["bins"].items():
                merged[k] = merged.get(k, 0) + c
        for key, _, pct in _PERCENTILES:
            out[key] = _percentile_from_bins(merged, pct)
    else:
        for key, name, _ in _PERCENTILES:
            out[key] = _weighted(
                (number_or_none((p.get("percentile") or {}).get(name)),
                 p["N"]) for p in parts)
    return out


def fio_total_ios(doc):
    """fio's own count of the I/Os of a run: total_ios of every job entry
    and direction (read, write, trim, sync); None if fio gave none."""
    vals = [number_or_none((e.get(d) or {}).get("total_ios"))
            for e in fio_jobs(doc) for d in ("read", "write", "trim", "sync")
            if isinstance(e.get(d), dict)]
    vals = [v for v in vals if v is not None]
    return sum(vals) if vals else None


def counts_disagree(doc, counters):
    """Why the engine's counters of a run disagree with fio's JSON, or None
    when they agree: the engine counts each I/O fio issues exactly once,
    so its ios (per direction, where the record has them) equal fio's
    total_ios. A run whose counts disagree is not a measurement."""
    if not counters:
        return None
    fio = fio_total_ios(doc)
    vals = [number_or_none(r.get("ios")) for r in counters]
    if fio is None or None in vals:
        return "its counters or fio's JSON have no I/O count"
    if sum(vals) != fio:
        return ("the engine counted %d I/Os, fio %d: its counters do not "
                "describe this run (a counters file of another run)"
                % (sum(vals), fio))
    if all("ios_read" in r for r in counters):
        for key, d in (("ios_read", "read"), ("ios_write", "write")):
            mine = sum(r[key] for r in counters)
            theirs = sum(number_or_none((e.get(d) or {}).get("total_ios"))
                         or 0 for e in fio_jobs(doc))
            if mine != theirs:
                return ("the engine counted %d %s I/Os, fio %d"
                        % (mine, d, theirs))
    return None


def run_metrics(doc, counters):
    """One value (or None) per metric key in METRICS for one fio run.

    IOPS and bandwidth are summed over the entries: one per job, or one per
    group when group_reporting already summed them.  CPU is per job, the
    runtime-weighted mean, which is how fio itself combines jobs under
    group_reporting."""
    entries = fio_jobs(doc)
    m = {}
    for key, field in (("iops", "iops"), ("bw_kib", "bw")):
        vals = [number_or_none((e.get(d) or {}).get(field))
                for e in entries for d in _DIRECTIONS]
        vals = [v for v in vals if v is not None]
        m[key] = sum(vals) if vals else None
    m.update(_clat(entries))
    for key in ("usr_cpu", "sys_cpu"):
        m[key] = _weighted((number_or_none(e.get(key)),
                            number_or_none(e.get("job_runtime")))
                           for e in entries)
    errs = [number_or_none(e.get("total_err")) for e in entries]
    errs = [v for v in errs if v is not None]
    m["fio_errors"] = float(sum(errs)) if errs else None

    m["rmw_per_io"] = m["stores_per_io"] = None
    m["errors_set"] = m["errors_reported"] = None
    if counters:
        def total(field):
            vals = [number_or_none(r.get(field)) for r in counters]
            # a float: a sum of u64 counts may pass 2^64, numpy's ints
            return None if None in vals else float(sum(vals))
        # per fio I/O: divided by fio's own count, never the engine's
        ios, rmw, stores = fio_total_ios(doc), total("rmw"), total("stores")
        if ios and rmw is not None:
            m["rmw_per_io"] = rmw / ios
        if ios and stores is not None:      # plain stores take the line too
            m["stores_per_io"] = stores / ios
        m["errors_set"] = total("errors_set")
        m["errors_reported"] = total("errors_reported")
    return m
