"""The hosts of a client/server run: fio's host-list syntax, and a probe
that tells, within a bounded time, whether a host's `fio --server` answers.

One host per line, as fio's own host-list file (`fio --client=FILE`):
    host[,port]            IPv4 or a name (fio's default port 8765)
    ip:host[,port]  ip6:host[,port]  sock:/path/to/socket
Blank lines and lines starting with '#' are skipped.
"""

import os
import re
import subprocess
import tempfile
import threading
import time
from collections import namedtuple

from ..inputs import numbers, textfile

FIO_DEFAULT_PORT = 8765
# the largest host list read: 64 KiB, 256 lines of fio's longest host
# name (255 bytes) and a port
MAX_BYTES = 64 * 1024

# spec: what fio gets after --client=; host, port: what fio's client JSON
# calls the entry ("hostname", "port"); label: the host in file names.
Host = namedtuple("Host", "spec host port label")

# The job a probe sends: fio's null engine, one 4 KiB read, nothing touched.
PROBE_JOB = """\
[flagcheck-probe]
ioengine=null
rw=read
bs=4k
size=4k
"""


class HostError(Exception):
    """A bad host-list line; str() names the file and line."""


def parse(spec):
    """Host from one fio host spec; raises ValueError."""
    spec = spec.strip()
    body = spec
    kind = "ip"
    for prefix in ("ip:", "ip6:", "sock:"):
        if spec.startswith(prefix):
            kind, body = prefix[:-1], spec[len(prefix):]
            break
    if kind == "sock":
        if not body:
            raise ValueError("no socket path")
        host, port = body, 0
    else:
        host, sep, port = body.rpartition(",")
        if not sep:
            host, port = body, str(FIO_DEFAULT_PORT)
        if not host or not re.match(r"^\d+$", port) or not \
                0 < int(port) < 65536:
            raise ValueError("want host[,port] with a port 1..65535")
        if kind == "ip" and ":" in host:
            raise ValueError("an IPv6 address needs the ip6: prefix")
        port = int(port)
    label = re.sub(r"[^A-Za-z0-9.-]+", "_", "%s_%d" % (host, port)
                   if port else host).strip("_")
    return Host(spec, host, port, label)


def read_list(path):
    """Hosts from a host-list file; raises HostError."""
    try:
        lines = textfile.read_text(path, "host list",
                                   MAX_BYTES).splitlines()
    except textfile.TextFileError as e:
        raise HostError(str(e))
    hosts = []
    for number, line in enumerate(lines, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if any("\udc80" <= c <= "\udcff" for c in line):
            raise HostError("%s line %d: a byte that is not UTF-8: want a "
                            "host name, an address or a socket path"
                            % (path, number))
        try:
            hosts.append(parse(line))
        except ValueError as e:
            raise HostError("%s line %d: %s: %s" % (path, number,
                                                    numbers.shown(line), e))
    return hosts


def check_unique(hosts):
    """Raises HostError if two entries name the same server."""
    seen = {}
    for h in hosts:
        if h.label in seen:
            raise HostError("host %s given twice (%s and %s)"
                            % (h.label, seen[h.label], h.spec))
        seen[h.label] = h.spec


def _probe_one(fio, host, jobfile, timeout, out):
    """fio's own client against this one host, with a job that does no
    I/O worth the name; a refused, unreachable or silent host fails
    within `timeout` seconds."""
    cmd = [fio, "--client=" + host.spec, "--output-format=json", jobfile]
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL,
                                start_new_session=True)
    except OSError as e:
        out[host.label] = "cannot run %s: %s" % (fio, e.strerror)
        return
    try:
        text, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        out[host.label] = ("no answer from fio's server within %g s (the "
                           "host is down, or something that is not a fio "
                           "server holds the port)" % timeout)
        return
    text = text.decode("utf-8", "replace")
    if proc.returncode == 0 and '"flagcheck-probe"' in text:
        out[host.label] = None
        return
    reason = [l.strip() for l in text.splitlines()
              if l.startswith("fio:") or "connect" in l or "error" in l]
    reason = "; ".join(reason[-3:]) or "fio exit status %d" % proc.returncode
    if "refused" in reason:
        reason += " (is `fio --server` running there, on this port?)"
    out[host.label] = "%s (after %.1f s)" % (reason, time.monotonic() - t0)


def probe(fio, hosts, timeout):
    """{label: None if the host's fio server ran the probe job, else a
    one-line reason}, all hosts at once, in at most about `timeout` s."""
    out = {}
    fd, jobfile = tempfile.mkstemp(prefix="flagcheck-probe-", suffix=".fio")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(PROBE_JOB)
        threads = [threading.Thread(target=_probe_one,
                                    args=(fio, h, jobfile, timeout, out))
                   for h in hosts]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        os.unlink(jobfile)
    return out
