"""flagcheck run --hosts / --client through fio's client/server mode, and
flagcheck report's per-host tables.  Real fio servers on 127.0.0.1 only,
on free ports, stopped by their process ids whatever the outcome."""

import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from types import SimpleNamespace

import pytest

from tests.analysis.helpers import ANALYSIS, ENGINE, FIO, HERE, LOOPBACK, \
    REPO, free_port, run_cli
from flagcheck_analysis.inputs import clients
from flagcheck_analysis.run import clientserver, hosts, remote
from flagcheck_analysis.guard import fiojob, jobguard
from flagcheck_analysis.inputs import matrix

JOB = os.path.join(HERE, "clientserver.fio")


class Servers:
    """fio --server processes on loopback ports; stop() ends each by pid."""

    def __init__(self, tmp):
        self.tmp, self.procs = tmp, []

    def start(self, cwd=None, user=None):
        """A server on a free port (working in @cwd, run as @user, a
        pwd entry); its host spec."""
        port = free_port()
        log = open(os.path.join(self.tmp, "server-%d.log" % port), "w")
        as_user = dict(user=user.pw_uid, group=user.pw_gid,
                       extra_groups=[]) if user else {}
        with log:
            proc = subprocess.Popen(
                [FIO, "--server=ip:%s,%d" % (LOOPBACK, port)], stdout=log,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True, cwd=cwd, **as_user)
        self.procs.append(proc)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection((LOOPBACK, port), 1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("fio --server on port %d did not "
                                         "start" % port)
                time.sleep(0.05)
        return "%s,%d" % (LOOPBACK, port)

    def stop(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


class TestUnits:
    def test_host_specs(self):
        h = hosts.parse("127.0.0.1,9000")
        assert (h.host, h.port, h.label) == \
            ("127.0.0.1", 9000, "127.0.0.1_9000")
        assert hosts.parse("ip6:::1,9001")[1:3] == ("::1", 9001)
        assert hosts.parse("node1").port == hosts.FIO_DEFAULT_PORT
        for bad in ("h,0", "h,x", ",5", "::1,5", "sock:"):
            with pytest.raises(ValueError):
                hosts.parse(bad)
        with tempfile.NamedTemporaryFile("w", suffix=".hosts") as f:
            f.write("# two servers\n\n127.0.0.1,1\n127.0.0.1,x\n")
            f.flush()
            with pytest.raises(hosts.HostError) as cm:
                hosts.read_list(f.name)
            assert "line 4" in str(cm.value)
        with pytest.raises(hosts.HostError):
            hosts.check_unique([hosts.parse("a,1"), hosts.parse("ip:a,1")])

    @pytest.mark.skipif(not (FIO and os.path.exists(ENGINE)),
                        reason="needs fio and the built engine")
    def test_job_file_expanded_and_included(self):
        # the servers get fio's reading here: ${VARS} and includes done
        text = jobguard.for_hosts(JOB, dict(
            fiojob.DEFAULT_VARS, FLAGCHECK_ENGINE=ENGINE, VARIANT="always",
            NUMJOBS="3"))
        assert "${" not in text
        assert "variant=always\n" in text
        assert "numjobs=3\n" in text
        assert "backend=null\n" in text
        assert "time_based\n" in text     # inlined
        assert not [l for l in text.splitlines()
                    if l.strip().startswith("include")]
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.fio")
            with open(bad, "w") as f:
                f.write("[a]\ninclude other.fio\n")
            with open(os.path.join(d, "other.fio"), "w") as f:
                f.write("[b]\n")
            with pytest.raises(jobguard.Refused) as e:
                jobguard.for_hosts(bad, {})
            assert "No new sections in included files" in str(e.value)

    def test_counter_lines(self):
        text = ("Jobs: 1 (f=1)<node1> flagcheck: s1 (job 2): "
                "filemap_check_errors variant=always mapping=shared: "
                "ios=10 checks=10 rmw=20 (2.00/io) rmw_skipped=0 "
                "errors_set=1 errors_reported=1 stores=0 stores_skipped=0\n"
                "<node2.lab> flagcheck: s1 (job 1): filemap_check_errors "
                "variant=test_first mapping=shared: ios=7 checks=7 rmw=0 "
                "(0.00/io) rmw_skipped=14 errors_set=0 errors_reported=0 "
                "stores=0 stores_skipped=0; "
                "filemap_check_errors rmw=0 skipped=14\n"
                "<node2.lab> flagcheck: not a counter line\n")
        found = clients.counter_lines(text)
        assert sorted(found) == ["node1", "node2.lab"]
        r = found["node1"][0]
        assert (r["job"], r["thread_number"], r["variant"],
                r["ios"], r["rmw"], r["errors_set"]) == \
            ("s1", 2, "always", 10, 20, 1)
        assert found["node2.lab"][0]["rmw_skipped"] == 14
        live = [hosts.parse("node1,1"), hosts.parse("node2,1"),
                hosts.parse("127.0.0.1,2")]
        got = clientserver.text_counters(live, text)
        assert sorted(got) == ["node1_1", "node2_1"]
        # two servers that report one host name: cannot be told apart
        twins = [hosts.parse("127.0.0.1,1"), hosts.parse("127.0.0.1,2")]
        assert clientserver.text_counters(
            twins, text.replace("node1", "vm").replace("node2.lab", "vm")) == \
            {}
        assert list(clientserver.text_counters(
            twins[:1], text.replace("node2.lab", "node1"))) == ["127.0.0.1_1"]

    def test_all_clients_check(self):
        def entry(name, ios, port=1):
            return {"jobname": name, "hostname": "h", "port": port,
                    "read": {"total_ios": ios, "io_kbytes": 4 * ios,
                             "iops": ios / 2.0}}
        doc = {"client_stats": [entry("s", 10), entry("s", 20, 2),
                                entry("All clients", 30, 2)]}
        assert clients.check_all_clients(doc)["status"] == "equal"
        doc["client_stats"][2] = entry("All clients", 25, 2)
        r = clients.check_all_clients(doc)
        assert r["status"] == "differs"
        assert r["fields"]["total_ios"] == (25, 30)
        assert sorted(clients.by_host(doc)) == ["h:1", "h:2"]
        del doc["client_stats"][2]
        assert clients.check_all_clients(doc)["status"] == "absent"


# slow: real flagcheck runs on fio servers
@pytest.mark.slow
@pytest.mark.skipif(not (FIO and os.path.exists(ENGINE)),
                    reason="needs fio and the built engine (make)")
class TestTwoServers:
    @pytest.fixture(autouse=True)
    def scratch(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "results")
        self.servers = Servers(self.tmp)
        yield
        try:
            self.servers.stop()
        finally:
            shutil.rmtree(self.tmp)

    def manifest(self):
        with open(os.path.join(self.out, "manifest.json")) as f:
            return json.load(f)

    def run_runner(self, *args, timeout=120):
        return run_cli("run", JOB, "--outdir", self.out,
                       "--runtime", "1", "--repeats", "1", "--quiet",
                       "--set", "FLAGCHECK_ENGINE=" + ENGINE, *args,
                       timeout=timeout)

    def test_two_hosts_per_host_results_and_aggregate(self):
        a, b = self.servers.start(), self.servers.start()
        hostfile = os.path.join(self.tmp, "hosts")
        with open(hostfile, "w") as f:
            f.write("# fio's host-list format\n%s\n" % a)
        p = self.run_runner("--hosts", hostfile, "--client", b,
                            "--numjobs", "2")
        assert p.returncode == 0, p.stderr
        m = self.manifest()
        assert m["complete"]
        assert m["hosts"] == [a, b]
        keys = {a.replace(",", ":"), b.replace(",", ":")}
        for run in m["runs"]:
            assert run["status"] == "ok"
            assert {h["key"] for h in run["hosts"].values()} == keys
            with open(os.path.join(self.out, run["json"])) as f:
                text = f.read()
            doc = json.loads(text[text.index("\n{") + 1:])
            per_host = clients.by_host(doc)
            assert set(per_host) == keys
            text_records = [r for recs in clients.counter_lines(text)
                            .values() for r in recs]
            assert len(text_records) == 4
            stats_ios = 0
            for label, info in run["hosts"].items():
                assert info["counters"] == "engine stats file"
                entries = per_host[info["key"]]
                assert len(entries) == 2       # numjobs per host
                with open(os.path.join(self.out, info["stats"])) as f:
                    recs = [json.loads(l) for l in f]
                assert len(recs) == 2
                ios = sum(e["read"]["total_ios"] for e in entries)
                assert sum(r["ios"] for r in recs) == ios
                stats_ios += ios
                rmw = sum(r["rmw"] for r in recs) / ios
                assert rmw == (2.0 if run["variant"] == "always" else 0)
                assert all(r["variant"] == run["variant"]
                           for r in recs)
                with open(os.path.join(self.out, run["job_files"][label])) \
                        as f:
                    sent = f.read()
                assert "${" not in sent
                assert "\ninclude" not in sent
                assert os.path.join(self.out, info["stats"]) in sent
            # the counters that reach the client as text agree
            assert sum(r["ios"] for r in text_records) == stats_ios
            check = clients.check_all_clients(doc)
            assert check["status"] == "equal", check
        p = run_cli("report", "--verbose", self.out, "--no-plot")
        assert p.returncode == 0, p.stderr
        for key in keys:
            assert re.search(r"\n%s +\d+ +\d+ " % key, p.stdout)
        assert "hosts: 2 (" in p.stdout
        assert "sum of hosts " in p.stdout
        assert "fio 'All clients' " in p.stdout
        assert "equal in 2, differ in 0" in p.stdout
        assert "the flags word is per host" in p.stdout
        assert "clientserver, numjobs=2" in p.stdout

    # serial: timed
    @pytest.mark.serial
    def test_down_hosts_named_in_bounded_time(self, request):
        live = self.servers.start()
        refused = "%s,%d" % (LOOPBACK, free_port())     # nothing listens
        # accepts connections (the kernel's backlog) but never answers
        silent = socket.socket()
        request.addfinalizer(silent.close)
        silent.bind((LOOPBACK, 0))
        silent.listen(4)
        silent = "%s,%d" % (LOOPBACK, silent.getsockname()[1])
        t0 = time.monotonic()
        p = self.run_runner("--client", live, "--client", refused,
                            "--client", silent, "--connect-timeout", "3",
                            "--variants", "always", "--numjobs", "1",
                            timeout=60)
        took = time.monotonic() - t0
        assert p.returncode == 1, p.stderr
        assert took < 30
        assert "Traceback" not in p.stderr
        assert re.search(r"host %s is down: .*refused" % refused, p.stderr)
        assert re.search(r"host %s is down: no answer from fio's "
                         "server within 3 s" % silent, p.stderr)
        assert "ran on 1 of 3 hosts, results kept" in p.stderr
        run = self.manifest()["runs"][0]
        assert run["status"] == "partial"
        assert {h["spec"]: h["status"]
                for h in run["hosts"].values()} == \
            {live: "ok", refused: "down", silent: "down"}
        path = os.path.join(self.out, run["json"])
        p = run_cli("report", "--verbose", path, "--no-plot", "--outdir",
                    os.path.join(self.tmp, "report"))
        assert p.returncode == 0, p.stderr
        assert live.replace(",", ":") in p.stdout
        # the results directory: the partial run is named, not reported
        p = run_cli("report", self.out, "--no-plot")
        assert p.returncode == 1
        assert "nothing to report" in p.stderr


# slow: make install and runs of the installed copy
@pytest.mark.slow
@pytest.mark.skipif(not (shutil.which("make") and os.path.exists(ENGINE)),
                    reason="needs make and the built engine")
class TestInstall:
    def test_make_install_layout_works(self):
        with tempfile.TemporaryDirectory() as dest:
            # -o: install what is built, never rebuild here
            p = subprocess.run(
                ["make", "-s", "-C", REPO, "-o", "build/fio-flagcheck.so",
                 "install", "DESTDIR=" + dest, "PREFIX=/usr"],
                capture_output=True, text=True, timeout=120)
            assert p.returncode == 0, p.stdout + p.stderr
            usr = os.path.join(dest, "usr")
            lib = os.path.join(usr, "lib", "flagcheck")
            assert os.path.isfile(os.path.join(
                lib, "fio-flagcheck.so"))
            link = os.path.join(usr, "bin", "flagcheck")
            assert os.path.islink(link)
            assert os.path.realpath(link) == os.path.join(
                lib, "analysis", "flagcheck")
            jobs = glob.glob(os.path.join(REPO, "jobs", "*.fio"))
            share = os.path.join(usr, "share", "flagcheck", "jobs")
            assert sorted(os.listdir(share)) == \
                sorted([os.path.basename(j) for j in jobs] +
                       ["catalogue", "examples", "pattern", "run-job"])
            catalogue = glob.glob(os.path.join(REPO, "jobs", "catalogue",
                                               "*.fio"))
            assert sorted(os.listdir(os.path.join(share, "catalogue"))) == \
                sorted(os.path.basename(j) for j in catalogue)
            p = subprocess.run(
                [link, "catalogue", "--help"], capture_output=True,
                text=True, timeout=60, cwd=dest)
            assert p.returncode == 0, p.stderr
            p = subprocess.run(
                [link, "run", JOB, "--dry-run",
                 "--numjobs", "1", "--repeats", "1", "--variants", "always"],
                capture_output=True, text=True, timeout=60, cwd=dest)
            assert p.returncode == 0, p.stderr
            assert "FLAGCHECK_ENGINE=%s " % os.path.join(
                lib, "fio-flagcheck.so") in p.stdout
            p = subprocess.run(
                [link, "report",
                 os.path.join(HERE, "fixtures", "results"), "--no-plot",
                 "--outdir", os.path.join(dest, "report")],
                capture_output=True, text=True, timeout=60, cwd=dest)
            assert p.returncode == 0, p.stderr
            assert "runs: 8 (always n=4, test_first n=4)" in p.stdout
            assert ANALYSIS not in p.stdout + p.stderr


@pytest.mark.parametrize("rc_text", [
    # what fio's client wrote when its one server refused the job: with
    # the server's words and, as CI once saw it, the client disconnected
    "<vm> flagcheck: variant=bogus is not valid: allowed values are ...\n"
    "client: host=127.0.0.1 disconnected\n",
    "<vm> flagcheck: variant=bogus is not valid: allowed values are ...\n"
    "<vm> fio: job x dropped\n\n{\n \"client_stats\" : [ ]\n}\n",
])
def test_a_client_ended_non_zero_without_results_is_the_hosts(tmp_path,
                                                              rc_text):
    """fio --client exits 0 or 1 as its servers' words arrive: where no
    host has results, either exit is the hosts' failure in their words."""
    host = hosts.parse("127.0.0.1,8765")
    ex = remote.Remote(SimpleNamespace(hosts=[host]))
    run = matrix.Run("clientserver", "bogus", 1, 1)
    entry = {"hosts": clientserver.host_entries([host], [])}
    partial, kept = tmp_path / "r.json.partial", tmp_path / "r.json.failed"
    partial.write_text(rc_text)
    assert ex.failed_everywhere(run, entry, str(partial), str(kept))
    assert not partial.exists() and kept.read_text() == rc_text
    assert entry["failure"].startswith(
        "clientserver_bogus_nj1_r1: no job results from any host")
    assert entry["hosts"][host.label]["status"] == "failed"
    assert entry["stderr_tail"][0] == "127.0.0.1,8765: <vm> flagcheck: " \
        "variant=bogus is not valid: allowed values are ..."
