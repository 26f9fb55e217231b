"""One run of the matrix on several hosts (fio client/server): which hosts
answer, the job file each is sent, the one `fio --client` command, and
where each host's engine counters come from afterwards."""

import json
import os

from ..inputs import safewrite, clients, fiojson, matrix
from . import hosts
from ..guard import fiojob, jobguard
from ..inputs import textfile

REASON_LINES = 10      # lines a failed host's server said, kept


def output_text(out):
    """The text of fio's output file @out by the bounded reader (a
    regular file of at most fiojson.MAX_BYTES; a byte that is not UTF-8
    replaced), "" where it can not be read."""
    try:
        return fiojson.read_text(out, "fio output file") or ""
    except fiojson.InputError:
        return ""


def client_command(args, run, output, live, fmt):
    """One --client=HOST JOBFILE pair per live host, and the text output
    beside the JSON ("normal"): fio forwards the output format to the
    servers, and the engine prints its counter lines only with fio's
    normal output."""
    cmd = [args.fio, "--output-format=%s,normal" % fmt, "--output=" + output]
    for h in live:
        cmd += ["--client=" + h.spec,
                os.path.abspath(matrix.host_job_path(args.outdir, run,
                                                     h.label))]
    return cmd


def host_entries(live, down):
    """The manifest's "hosts" of one run: how fio's JSON names each host,
    and whether it ran."""
    out = {}
    for h in live:
        out[h.label] = {"spec": h.spec, "key": "%s:%d" % (h.host, h.port),
                        "status": "ok"}
    for h, reason in down:
        out[h.label] = {"spec": h.spec, "key": "%s:%d" % (h.host, h.port),
                        "status": "down", "reason": reason}
    return out


def _short(name):
    return name.split(".")[0]


def _by_server(live, servers):
    """{server hostname: live host} for the names fio's client prefixes
    lines with: the host name the server reports, not the address the
    client used.  A name is a host's when only one host is live and one
    name is seen, or when exactly one live host was given by that name
    (or its first label)."""
    servers = list(servers)
    if len(live) == 1 and len(servers) == 1:
        return {servers[0]: live[0]}
    out = {}
    for server in servers:
        match = [h for h in live if h.host == server
                 or _short(h.host) == _short(server)]
        if len(match) == 1:
            out[server] = match[0]
    return out


def text_counters(live, text):
    """{label: records} from the counter lines in fio's client output, for
    the hosts they can be told apart for (see _by_server)."""
    found = clients.counter_lines(text)
    return {h.label: found[server]
            for server, h in _by_server(live, found).items()}


def what_hosts_said(live, text):
    """{label: [lines]}: the lines each server printed, and the client's
    own lines about it ("client: host=... disconnected")."""
    said = clients.server_lines(text)
    out = {h.label: said[server]
           for server, h in _by_server(live, said).items()}
    for line in text.splitlines():
        for h in live:
            if line.startswith("client: ") and "host=%s " % h.host in \
                    line + " ":
                out.setdefault(h.label, []).append(line)
    return out


def hosts_without_results(live, entry, out):
    """Mark every live host that returned no job results as failed, with
    what its server said; returns those hosts."""
    text = output_text(out)
    try:
        results = clients.by_host(fiojson.load_fio_json(out))
    except fiojson.InputError:
        results = {}
    said = what_hosts_said(live, text)
    failed = []
    for h in live:
        info = entry["hosts"][h.label]
        if info["key"] in results:
            continue
        info.update(status="failed", reason=said.get(h.label, [])[
            -REASON_LINES:] or ["(the server printed nothing)"])
        failed.append(h)
    return failed


def probe(args):
    """(live hosts, [(down host, reason)]) of args.hosts."""
    answers = hosts.probe(args.fio, args.hosts, args.connect_timeout)
    live = [h for h in args.hosts if answers.get(h.label) is None]
    down = [(h, answers[h.label]) for h in args.hosts
            if answers.get(h.label) is not None]
    return live, down


def counters_paths(args, run):
    """Every host's stats file of one run."""
    return [matrix.host_counters_path(args.outdir, run, h.label)
            for h in args.hosts]


def write_job_files(args, run, live):
    """The job file each live host is sent: fio's reading of the run's
    job file here (jobguard.for_hosts), so that each server runs what was
    judged; {label: path relative to the results directory}.  Raises
    fiojob.FioJobError, jobguard.Refused."""
    paths = {}
    for h in live:
        path = matrix.host_job_path(args.outdir, run, h.label)
        env = dict(os.environ, **matrix.run_env(args.vars, args.outdir, run,
                                                h.label))
        text = jobguard.for_hosts(fiojob.read(
            args.scenarios[run.scenario], env, args.fio), env)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        # inside the results directory (outpath.py): a planted link at
        # jobs/ would send the job files wherever it points
        safewrite.write(path, textfile.to_bytes(text), within=args.outdir)
        paths[h.label] = os.path.relpath(path, args.outdir)
    return paths


def collect_counters(args, run, entry, live, out):
    """Per host: the engine's stats file if it is on this machine,
    else the counter lines fio forwarded, else nothing."""
    text = output_text(out)
    from_text = text_counters(live, text)
    for h in live:
        path = matrix.host_counters_path(args.outdir, run, h.label)
        info = entry["hosts"][h.label]
        info["stats"] = os.path.basename(path)
        if os.path.exists(path):
            info["counters"] = "engine stats file"
        elif h.label in from_text:
            safewrite.write(path, "".join(json.dumps(rec) + "\n"
                                       for rec in from_text[h.label]),
                            within=args.outdir)
            info["counters"] = "fio client text"
        else:
            info["counters"] = "missing"
            del info["stats"]


def partial_lines(prog, name, entry):
    """What flagcheck run says of a run that some hosts ran: how many,
    which were down or failed, and what each failed one's server said."""
    hosts = entry["hosts"].values()
    lines = ["%s: %s ran on %d of %d hosts, results kept; %s" % (
        prog, name, sum(1 for h in hosts if h["status"] == "ok"),
        len(entry["hosts"]), "; ".join(
            "%s: %s" % (what, ", ".join(
                h["spec"] for h in hosts if h["status"] == what))
            for what in ("down", "failed")
            if any(h["status"] == what for h in hosts)))]
    for h in hosts:
        for line in h.get("reason", []) if h["status"] == "failed" else ():
            lines.append("  %s: %s" % (h["spec"], line))
    return lines
