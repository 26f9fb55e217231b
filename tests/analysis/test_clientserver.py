"""flagcheck-run --hosts / --client through fio's client/server mode, and
flagcheck-report's per-host tables.  Real fio servers on 127.0.0.1 only,
on free ports, stopped by their process ids whatever the outcome."""

import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

from tests.analysis.helpers import ANALYSIS, ENGINE, FIO, HERE, REPO, \
    run_cli
from flagcheck_analysis.results import clients
from flagcheck_analysis.run import clientserver, hosts, jobfile

JOB = os.path.join(HERE, "clientserver.fio")
LOOPBACK = "127.0.0.1"


def free_port():
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


class Servers:
    """fio --server processes on loopback ports; stop() ends each by pid."""

    def __init__(self, tmp):
        self.tmp, self.procs = tmp, []

    def start(self):
        port = free_port()
        log = open(os.path.join(self.tmp, "server-%d.log" % port), "w")
        with log:
            proc = subprocess.Popen(
                [FIO, "--server=ip:%s,%d" % (LOOPBACK, port)], stdout=log,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)
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


class Units(unittest.TestCase):
    def test_host_specs(self):
        h = hosts.parse("127.0.0.1,9000")
        self.assertEqual((h.host, h.port, h.label),
                         ("127.0.0.1", 9000, "127.0.0.1_9000"))
        self.assertEqual(hosts.parse("ip6:::1,9001")[1:3], ("::1", 9001))
        self.assertEqual(hosts.parse("node1").port, hosts.FIO_DEFAULT_PORT)
        for bad in ("h,0", "h,x", ",5", "::1,5", "sock:"):
            with self.assertRaises(ValueError, msg=bad):
                hosts.parse(bad)
        with tempfile.NamedTemporaryFile("w", suffix=".hosts") as f:
            f.write("# two servers\n\n127.0.0.1,1\n127.0.0.1,x\n")
            f.flush()
            with self.assertRaises(hosts.HostError) as cm:
                hosts.read_list(f.name)
            self.assertIn("line 4", str(cm.exception))
        with self.assertRaises(hosts.HostError):
            hosts.check_unique([hosts.parse("a,1"), hosts.parse("ip:a,1")])

    def test_job_file_expanded_and_included(self):
        text = jobfile.render(JOB, {"FLAG_CHECK": "always", "NUMJOBS": "3"})
        self.assertNotIn("${", text)
        self.assertIn("variant=always\n", text)
        self.assertIn("numjobs=3\n", text)
        self.assertIn("backend=\n", text)       # unset: empty, as fio does
        self.assertIn("time_based\n", text)     # inlined
        self.assertFalse([l for l in text.splitlines()
                          if l.strip().startswith("include")])
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.fio")
            with open(bad, "w") as f:
                f.write("[a]\ninclude other.fio\n")
            with open(os.path.join(d, "other.fio"), "w") as f:
                f.write("[b]\n")
            with self.assertRaises(jobfile.JobFileError):
                jobfile.render(bad, {})

    def test_counter_lines(self):
        text = ("Jobs: 1 (f=1)<node1> flagcheck: s1 (job 2): "
                "filemap_check_errors flag_check=always mapping=shared: "
                "ios=10 checks=10 rmw=20 (2.00/io) rmw_skipped=0 "
                "errors_set=1 errors_reported=1\n"
                "<node2.lab> flagcheck: s1 (job 1): filemap_check_errors "
                "flag_check=test_first mapping=shared: ios=7 checks=7 rmw=0 "
                "(0.00/io) rmw_skipped=14 errors_set=0 errors_reported=0; "
                "filemap_check_errors rmw=0 skipped=14\n"
                "<node2.lab> flagcheck: not a counter line\n")
        found = clients.counter_lines(text)
        self.assertEqual(sorted(found), ["node1", "node2.lab"])
        r = found["node1"][0]
        self.assertEqual((r["job"], r["thread_number"], r["flag_check"],
                          r["ios"], r["rmw"], r["errors_set"]),
                         ("s1", 2, "always", 10, 20, 1))
        self.assertEqual(found["node2.lab"][0]["rmw_skipped"], 14)
        live = [hosts.parse("node1,1"), hosts.parse("node2,1"),
                hosts.parse("127.0.0.1,2")]
        got = clientserver.text_counters(live, text)
        self.assertEqual(sorted(got), ["node1_1", "node2_1"])
        # two servers that report one host name: cannot be told apart
        twins = [hosts.parse("127.0.0.1,1"), hosts.parse("127.0.0.1,2")]
        self.assertEqual(clientserver.text_counters(
            twins, text.replace("node1", "vm").replace("node2.lab", "vm")),
            {})
        self.assertEqual(list(clientserver.text_counters(
            twins[:1], text.replace("node2.lab", "node1"))), ["127.0.0.1_1"])

    def test_all_clients_check(self):
        def entry(name, ios, port=1):
            return {"jobname": name, "hostname": "h", "port": port,
                    "read": {"total_ios": ios, "io_kbytes": 4 * ios,
                             "iops": ios / 2.0}}
        doc = {"client_stats": [entry("s", 10), entry("s", 20, 2),
                                entry("All clients", 30, 2)]}
        self.assertEqual(clients.check_all_clients(doc)["status"], "equal")
        doc["client_stats"][2] = entry("All clients", 25, 2)
        r = clients.check_all_clients(doc)
        self.assertEqual(r["status"], "differs")
        self.assertEqual(r["fields"]["total_ios"], (25, 30))
        self.assertEqual(sorted(clients.by_host(doc)), ["h:1", "h:2"])
        del doc["client_stats"][2]
        self.assertEqual(clients.check_all_clients(doc)["status"], "absent")


@unittest.skipUnless(FIO and os.path.exists(ENGINE),
                     "needs fio and the built engine (make)")
class TwoServers(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "results")
        self.servers = Servers(self.tmp)
        self.addCleanup(shutil.rmtree, self.tmp)
        self.addCleanup(self.servers.stop)     # runs first

    def manifest(self):
        with open(os.path.join(self.out, "manifest.json")) as f:
            return json.load(f)

    def run_runner(self, *args, timeout=120):
        return run_cli("flagcheck-run", JOB, "--outdir", self.out,
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
        self.assertEqual(p.returncode, 0, p.stderr)
        m = self.manifest()
        self.assertTrue(m["complete"])
        self.assertEqual(m["hosts"], [a, b])
        keys = {a.replace(",", ":"), b.replace(",", ":")}
        for run in m["runs"]:
            self.assertEqual(run["status"], "ok")
            self.assertEqual({h["key"] for h in run["hosts"].values()}, keys)
            with open(os.path.join(self.out, run["json"])) as f:
                text = f.read()
            doc = json.loads(text[text.index("\n{") + 1:])
            per_host = clients.by_host(doc)
            self.assertEqual(set(per_host), keys)
            text_records = [r for recs in clients.counter_lines(text)
                            .values() for r in recs]
            self.assertEqual(len(text_records), 4)
            stats_ios = 0
            for label, info in run["hosts"].items():
                self.assertEqual(info["counters"], "engine stats file")
                entries = per_host[info["key"]]
                self.assertEqual(len(entries), 2)       # numjobs per host
                with open(os.path.join(self.out, info["stats"])) as f:
                    recs = [json.loads(l) for l in f]
                self.assertEqual(len(recs), 2)
                ios = sum(e["read"]["total_ios"] for e in entries)
                self.assertEqual(sum(r["ios"] for r in recs), ios)
                stats_ios += ios
                rmw = sum(r["rmw"] for r in recs) / ios
                self.assertEqual(rmw, 2.0 if run["mode"] == "always" else 0)
                self.assertTrue(all(r["variant"] == run["mode"]
                                    for r in recs))
                with open(os.path.join(self.out, run["job_files"][label])) \
                        as f:
                    sent = f.read()
                self.assertNotIn("${", sent)
                self.assertNotIn("\ninclude", sent)
                self.assertIn(os.path.join(self.out, info["stats"]), sent)
            # the counters that reach the client as text agree
            self.assertEqual(sum(r["ios"] for r in text_records), stats_ios)
            check = clients.check_all_clients(doc)
            self.assertEqual(check["status"], "equal", check)
        p = run_cli("flagcheck-report", self.out, "--no-plot")
        self.assertEqual(p.returncode, 0, p.stderr)
        for key in keys:
            self.assertRegex(p.stdout, r"\n%s +\d+ +\d+ " % key)
        self.assertIn("hosts: 2 (", p.stdout)
        self.assertIn("sum of hosts ", p.stdout)
        self.assertIn("fio 'All clients' ", p.stdout)
        self.assertIn("equal in 2, differ in 0", p.stdout)
        self.assertIn("the flags word is per host", p.stdout)
        self.assertIn("clientserver, numjobs=2", p.stdout)

    def test_down_hosts_named_in_bounded_time(self):
        live = self.servers.start()
        refused = "%s,%d" % (LOOPBACK, free_port())     # nothing listens
        # accepts connections (the kernel's backlog) but never answers
        silent = socket.socket()
        self.addCleanup(silent.close)
        silent.bind((LOOPBACK, 0))
        silent.listen(4)
        silent = "%s,%d" % (LOOPBACK, silent.getsockname()[1])
        t0 = time.monotonic()
        p = self.run_runner("--client", live, "--client", refused,
                            "--client", silent, "--connect-timeout", "3",
                            "--modes", "always", "--numjobs", "1",
                            timeout=60)
        took = time.monotonic() - t0
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertLess(took, 30)
        self.assertNotIn("Traceback", p.stderr)
        self.assertRegex(p.stderr, r"host %s is down: .*refused" % refused)
        self.assertRegex(p.stderr, r"host %s is down: no answer from fio's "
                         "server within 3 s" % silent)
        self.assertIn("ran on 1 of 3 hosts, results kept", p.stderr)
        run = self.manifest()["runs"][0]
        self.assertEqual(run["status"], "partial")
        self.assertEqual({h["spec"]: h["status"]
                          for h in run["hosts"].values()},
                         {live: "ok", refused: "down", silent: "down"})
        path = os.path.join(self.out, run["json"])
        p = run_cli("flagcheck-report", path, "--no-plot", "--outdir",
                    os.path.join(self.tmp, "report"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(live.replace(",", ":"), p.stdout)
        # the results directory: the partial run is named, not reported
        p = run_cli("flagcheck-report", self.out, "--no-plot")
        self.assertEqual(p.returncode, 1)
        self.assertIn("nothing to report", p.stderr)


@unittest.skipUnless(shutil.which("make") and os.path.exists(ENGINE),
                     "needs make and the built engine")
class Install(unittest.TestCase):
    def test_make_install_layout_works(self):
        with tempfile.TemporaryDirectory() as dest:
            # -o: install what is built, never rebuild here
            p = subprocess.run(
                ["make", "-s", "-C", REPO, "-o", "build/fio-flagcheck.so",
                 "install", "DESTDIR=" + dest, "PREFIX=/usr"],
                capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            usr = os.path.join(dest, "usr")
            lib = os.path.join(usr, "lib", "flagcheck")
            self.assertTrue(os.path.isfile(os.path.join(
                lib, "fio-flagcheck.so")))
            for cmd in ("flagcheck-run", "flagcheck-report"):
                link = os.path.join(usr, "bin", cmd)
                self.assertTrue(os.path.islink(link))
                self.assertEqual(os.path.realpath(link), os.path.join(
                    lib, "analysis", cmd))
            jobs = glob.glob(os.path.join(REPO, "jobs", "*.fio"))
            share = os.path.join(usr, "share", "flagcheck", "jobs")
            self.assertEqual(sorted(os.listdir(share)),
                             sorted([os.path.basename(j) for j in jobs] +
                                    ["catalogue", "pattern", "run-job"]))
            catalogue = glob.glob(os.path.join(REPO, "jobs", "catalogue",
                                               "*.fio"))
            self.assertEqual(
                sorted(os.listdir(os.path.join(share, "catalogue"))),
                sorted(os.path.basename(j) for j in catalogue))
            link = os.path.join(usr, "bin", "flagcheck-catalogue")
            self.assertEqual(os.path.realpath(link), os.path.join(
                lib, "analysis", "flagcheck-catalogue"))
            p = subprocess.run(
                [os.path.join(usr, "bin", "flagcheck-run"), JOB, "--dry-run",
                 "--numjobs", "1", "--repeats", "1", "--modes", "always"],
                capture_output=True, text=True, timeout=60, cwd=dest)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("FLAGCHECK_ENGINE=%s " % os.path.join(
                lib, "fio-flagcheck.so"), p.stdout)
            p = subprocess.run(
                [os.path.join(usr, "bin", "flagcheck-report"),
                 os.path.join(HERE, "fixtures", "results"), "--no-plot",
                 "--outdir", os.path.join(dest, "report")],
                capture_output=True, text=True, timeout=60, cwd=dest)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("runs: 8 (always n=4, test_first n=4)", p.stdout)
            self.assertNotIn(ANALYSIS, p.stdout + p.stderr)


if __name__ == "__main__":
    unittest.main()
