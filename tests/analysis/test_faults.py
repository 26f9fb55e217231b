"""Faults and bad inputs that must end in one line naming the file (or
option) and what is wrong, with nothing lost: issue 11's items outside the
engine.  Real fio (its null engine, or the flagcheck engine on its null
backend) wherever fio runs."""

import json
import os
import pwd
import re
import shutil
import subprocess
import signal
import sys
import tempfile
import time

import pytest

from tests.analysis.helpers import ANALYSIS, ENGINE, FIO, LOOPBACK, \
    NULL_JOB, RESULTS, ResultsDirCase, free_port, run_cli
from tests.analysis.helpers import message
from tests.analysis.test_clientserver import JOB as CS_JOB, Servers
from flagcheck_analysis.inputs import fiojson

DEEP = 100000           # levels of nesting: far past Python's recursion limit


def deep_json(path, prefix='{"jobs": '):
    with open(path, "w") as f:
        f.write(prefix + "[" * DEEP + "]" * DEEP + "}\n")
    return path


needs_root = pytest.mark.skipif(os.geteuid() != 0,
                                reason="needs root (a server run as nobody)")


def assert_one_line(p, *needles, rc):
    """exit status rc, no traceback, and one stderr message holding every
    needle (a message: a line and the indented lines that go on from it
    within 120 columns, joined)."""
    assert p.returncode == rc, p.stderr
    assert "Traceback" not in message(p.stderr)
    lines = [l for l in re.sub(r"\n  +", " ", p.stderr).splitlines()
             if all(n in l for n in needles)]
    assert len(lines) == 1, p.stderr
    return lines[0]


class Scratch(ResultsDirCase):
    def path(self, *names):
        return os.path.join(self.tmp, *names)


class TestDeepJson(Scratch):
    """item 14: a JSON file nested 100000 levels deep"""

    def test_loaders_name_the_file(self):
        for load, prefix in ((fiojson.load_fio_json, '{"jobs": '),
                             (fiojson.load_counters, '{"flagcheck": 2, "a": ')):
            path = deep_json(self.path("deep"), prefix)
            with pytest.raises(fiojson.InputError) as cm:
                load(path)
            msg = str(cm.value)
            assert msg.startswith(path + ": "), msg
            assert "nested too deeply" in msg

    def test_report_names_the_file(self):
        deep = deep_json(self.path("deep.json"))
        good = shutil.copy(os.path.join(
            RESULTS, "flagcheck-fixture_always_nj1_r1.json"), self.tmp)
        p = run_cli("report", "--verbose", "--no-plot", "--outdir",
                    self.path("report"), deep, good)
        assert_one_line(p, deep + ": JSON nested too deeply", rc=0)
        assert "runs: 1 (always n=1)" in p.stdout

    @pytest.mark.skipif(not FIO, reason="fio not installed")
    def test_runner_resume_reruns_a_deep_run_file(self):
        os.makedirs(self.out)
        deep_json(os.path.join(self.out, "null-engine_always_nj1_r1.json"))
        p = run_cli("run", NULL_JOB, "--variants", "always",
                    "--numjobs", "1", "--repeats", "1", "--runtime", "1",
                    "--outdir", self.out, "--quiet")
        assert p.returncode == 0, p.stderr
        assert "Traceback" not in message(p.stderr)
        fiojson.load_fio_json(os.path.join(
            self.out, "null-engine_always_nj1_r1.json"))


class TestImpossibleValues(Scratch):
    """item 8: NaN, strings, negative or no IOPS are refused, not averaged"""

    GOOD = os.path.join(RESULTS, "flagcheck-fixture_always_nj1_r1.json")

    def bad_copy(self, change):
        with open(self.GOOD) as f:
            doc = json.load(f)
        change(doc["jobs"][0])
        path = self.path("flagcheck-fixture_always_nj1_r2.json")
        with open(path, "w") as f:
            json.dump(doc, f)       # NaN is written as fio never would
        return path

    def check(self, change, field, said):
        bad = self.bad_copy(change)
        with pytest.raises(fiojson.InputError) as cm:
            fiojson.load_fio_json(bad)
        assert str(cm.value) == "%s: %s %s" % (bad, field, said)
        p = run_cli("report", "--verbose", "--no-plot", "--outdir",
                    self.path("report"), self.GOOD, bad)
        assert_one_line(p, bad + ": " + field, rc=0)
        assert "runs: 1 (always n=1)" in p.stdout
        assert "nan" not in p.stdout

    def set_read(self, key, value):
        return lambda job: job["read"].__setitem__(key, value)

    def test_nan_iops(self):
        self.check(self.set_read("iops", float("nan")), "jobs[0].read.iops",
                   "is nan: not a finite number of 0 or more")

    def test_string_iops(self):
        self.check(self.set_read("iops", "12"), "jobs[0].read.iops",
                   "is '12': not a finite number of 0 or more")

    def test_negative_iops(self):
        self.check(self.set_read("iops", -394545.0), "jobs[0].read.iops",
                   "is -394545.0: not a finite number of 0 or more")

    def test_negative_latency(self):
        def change(job):
            job["read"]["clat_ns"]["mean"] = -1.5
        self.check(change, "jobs[0].read.clat_ns.mean",
                   "is -1.5: not a finite number of 0 or more")

    def test_string_percentile(self):
        def change(job):
            job["read"]["clat_ns"]["percentile"]["99.900000"] = "x"
        self.check(change, "jobs[0].read.clat_ns.percentile.99.900000",
                   "is 'x': not a finite number of 0 or more")

    def test_zero_iops(self):
        self.check(self.set_read("iops", 0), "jobs[*].{read,write,trim}.iops",
                   "are all 0: the run did no I/O")

    def test_impossible_counter(self):
        path = self.path("s.jsonl")
        with open(path, "w") as f:
            f.write('{"flagcheck": 2, "ios": 10, "rmw": 20}\n'
                    '{"flagcheck": 2, "ios": 10, "rmw": -20}\n')
        with pytest.raises(fiojson.InputError) as cm:
            fiojson.load_counters(path)
        assert str(cm.value) == ("%s: line 2: rmw is -20: not a "
                                 "whole number of 0 or more" % path)

    def test_variant_by_its_older_name(self):
        """A record of an engine whose option was flag_check=: refused in
        one line that says what changed, not read under another name."""
        path = self.path("s.jsonl")
        with open(path, "w") as f:
            f.write('{"flagcheck": 2, "ios": 10, "variant": "always"}\n'
                    '{"flagcheck": 2, "ios": 10, "flag_check": "always"}\n')
        with pytest.raises(fiojson.InputError) as cm:
            fiojson.load_counters(path)
        assert str(cm.value) == ("%s: line 2: the variant is flag_check "
                                 "here, written by an engine before the "
                                 "option was variant=: run the job again"
                                 % path)


class TestDifferentSetups(Scratch):
    """item 7: runs of one scenario on different setups are not pooled"""

    def copy(self, name, change_json=None, change_stats=None,
             change_manifest=None):
        """A copy of the results; but for "a", its runs made runs of their
        own (a millisecond later): a report counts a copied run once."""
        if name != "a":
            def change_json(doc, more=change_json):
                doc["timestamp_ms"] += 1
                if more:
                    more(doc)
        d = shutil.copytree(RESULTS, self.path(name))
        for f in sorted(os.listdir(d)):
            path = os.path.join(d, f)
            if f == "manifest.json":
                change, load = change_manifest, json.load
            elif f.endswith(".flagcheck.jsonl"):
                change, load = change_stats, None
            elif f.endswith(".json") and f != "calibration.json":
                change, load = change_json, json.load
            else:
                continue
            if change is None:
                continue
            with open(path) as fh:
                if load:
                    docs = [load(fh)]
                else:
                    docs = [json.loads(l) for l in fh]
            for doc in docs:
                change(doc)
            with open(path, "w") as fh:
                fh.write("".join(json.dumps(doc) + "\n" for doc in docs))
        return d

    def check_apart(self, field, label_a, label_b, **change):
        a = self.copy("a")
        b = self.copy("b", **change)
        p = run_cli("report", "--verbose", "--no-plot", "--format", "csv",
                    "--outdir", self.path("report"), a, b)
        assert_one_line(p, "the runs of flagcheck-fixture differ in %s: "
                        "not averaged together" % field, rc=0)
        got = {}
        for row in p.stdout.split("\n\n")[0].splitlines()[1:]:
            cells = row.split(",")
            if cells[1] == "1" and cells[2] == "iops":
                got[cells[0]] = float(cells[5])
        # each setup's base mean: that directory's own two always runs
        want = []
        for d in (a, b):
            iops = []
            for r in (1, 2):
                doc = fiojson.load_fio_json(os.path.join(
                    d, "flagcheck-fixture_always_nj1_r%d.json" % r))
                iops.append(doc["jobs"][0]["read"]["iops"])
            # as the CSV writes it: ten significant figures
            want.append(float(format(sum(iops) / 2, ".10g")))
        assert got == {
            "flagcheck-fixture (%s)" % label_a: want[0],
            "flagcheck-fixture (%s)" % label_b: want[1]}

    def test_backend(self):
        def psync(rec):
            rec["backend"] = "psync"
        self.check_apart("backend", "backend null", "backend psync",
                         change_stats=psync)

    def test_engine_options(self):
        def every(rec):
            rec["options"]["inject_every"] = 7
        self.check_apart("engine options",
                         "engine options inject=none inject_every=1000 "
                         "mapping=shared model=filemap_check_errors",
                         "engine options inject=none inject_every=7 "
                         "mapping=shared model=filemap_check_errors",
                         change_stats=every)

    def test_fio_version(self):
        def newer(doc):
            doc["fio version"] = "fio-3.36"
            doc["jobs"][0]["read"]["iops"] *= 2     # tell the means apart
        self.check_apart("fio version", "fio version fio-3.33",
                         "fio version fio-3.36", change_json=newer)

    def test_host(self):
        def other(mf):
            mf["host"]["hostname"] = "box2"
        self.check_apart("host", "host vm", "host box2",
                         change_manifest=other)

    def test_job_file(self):
        def other(mf):
            for e in mf["runs"]:
                e["job_sha256"] = "e" * 64
        with open(os.path.join(RESULTS, "manifest.json")) as f:
            sha = json.load(f)["runs"][0]["job_sha256"]
        self.check_apart("job file", "job file sha256 %s" % sha[:12],
                         "job file sha256 %s" % ("e" * 12),
                         change_manifest=other)

    def test_same_setup_is_pooled(self):
        a, b = self.copy("a"), self.copy("b")
        p = run_cli("report", "--verbose", "--no-plot", "--outdir",
                    self.path("report"), a, b)
        assert p.returncode == 0, p.stderr
        assert "differ in" not in message(p.stderr) + p.stdout
        assert "runs: 16 (always n=8, test_first n=8)" in p.stdout
        assert "flagcheck-fixture, numjobs=1\n" in p.stdout


# slow: real flagcheck runs, fio for whole seconds
@pytest.mark.slow
@pytest.mark.skipif(not FIO, reason="fio not installed")
class TestDamagedManifest(Scratch):
    """item 4 (and 14 for manifest.json): a damaged manifest is refused,
    kept byte for byte, and the message says how to go on"""

    def run_runner(self):
        return run_cli("run", NULL_JOB, "--variants", "always",
                       "--numjobs", "1", "--repeats", "2", "--runtime", "1",
                       "--outdir", self.out, "--quiet")

    def check_refused(self, damage, reason):
        first = run_cli("run", NULL_JOB, "--variants", "always",
                        "--numjobs", "1", "--repeats", "1", "--runtime", "1",
                        "--outdir", self.out, "--quiet")
        assert first.returncode == 0, first.stderr
        path = os.path.join(self.out, "manifest.json")
        damage(path)
        with open(path, "rb") as f:
            before = f.read()
        p = self.run_runner()
        line = assert_one_line(p, path + ": " + reason, rc=1)
        assert "mv %s %s.damaged" % (path, path) in line
        with open(path, "rb") as f:
            assert f.read() == before
        assert not os.path.exists(self.out + "/null-engine_always_"
                                  "nj1_r2.json"), "it ran anyway"
        # what the message says to do: the finished run is kept as done
        os.rename(path, path + ".damaged")
        p = self.run_runner()
        assert p.returncode == 0, p.stderr
        with open(path) as f:
            runs = json.load(f)["runs"]
        assert [(r["status"], r.get("resumed", False))
                for r in runs] == [("ok", True), ("ok", False)]

    def test_truncated(self):
        def truncate(path):
            with open(path, "r+") as f:
                f.truncate(200)
        self.check_refused(truncate, "malformed JSON at line")

    def test_not_a_manifest(self):
        def replace(path):
            with open(path, "w") as f:
                f.write('{"runs": 3}\n')
        self.check_refused(replace, "not a flagcheck run manifest")

    def test_nested_too_deeply(self):
        self.check_refused(lambda path: deep_json(path, '{"runs": '),
                           "JSON nested too deeply")

    def test_report_reads_the_json_files_instead(self):
        shutil.copytree(RESULTS, self.out)
        path = deep_json(os.path.join(self.out, "manifest.json"))
        p = run_cli("report", "--verbose", "--no-plot", "--outdir",
                    self.path("report"), self.out)
        assert_one_line(p, "unusable manifest: %s: JSON nested too "
                        "deeply" % path, rc=0)
        assert "runs: 8 (always n=4, test_first n=4)" in p.stdout


# slow: real flagcheck runs on fio servers
@pytest.mark.slow
@pytest.mark.skipif(not (FIO and os.path.exists(ENGINE)),
                    reason="needs fio and the built engine (make)")
class TestClientMode(Scratch):
    """items 6 and 11: runs on fio servers that do nothing, or die"""

    def setup_method(self):
        super().setup_method()
        self.servers = Servers(self.tmp)

    def teardown_method(self):
        try:
            self.servers.stop()
        finally:
            super().teardown_method()

    def run_runner(self, *args, timeout=90):
        return run_cli("run", CS_JOB, "--outdir", self.out,
                       "--repeats", "1", "--numjobs", "1", "--quiet",
                       "--set", "FLAGCHECK_ENGINE=" + ENGINE, *args,
                       timeout=timeout)

    def test_every_host_down(self):
        refused = "%s,%d" % (LOOPBACK, free_port())     # nothing listens
        p = self.run_runner("--client", refused, "--variants", "always",
                            "--runtime", "1", "--connect-timeout", "3")
        assert_one_line(p, "host %s is down: " % refused, "refused",
                        rc=1)
        assert_one_line(p, "clientserver_always_nj1_r1 did not run: "
                        "no host answered", rc=1)
        run = self.manifest()["runs"][0]
        assert run["status"] == "failed"
        assert run["hosts"][refused.replace(",", "_")]["status"] == "down"

    def check_no_results(self, args, said):
        # as nobody, a server that can not reach what this machine's
        # fio read (the engine, the results directory, both in a
        # directory of root's alone): it refuses the job there
        server = self.servers.start(user=pwd.getpwnam("nobody"))
        p = self.run_runner("--client", server, "--runtime", "1", *args)
        assert_one_line(p, "clientserver_%s_nj1_r1: no job results from "
                        "any host" % args[-1], rc=1)
        assert_one_line(p, server + ": ", said, rc=1)
        m = self.manifest()
        assert not m["complete"]
        run = m["runs"][0]
        assert run["status"] == "failed"
        host = run["hosts"][server.replace(",", "_")]
        assert host["status"] == "failed"
        assert any(said in l for l in host["reason"]), host
        # nothing that a resume or the report could take for a result
        assert not os.path.exists(os.path.join(self.out, run["json"]))
        assert os.path.exists(os.path.join(
            self.out, run["json"] + ".failed"))

    @needs_root
    def test_engine_the_server_cannot_load(self):
        engine = self.path("x.so")
        shutil.copy(ENGINE, engine)
        self.check_no_results(["--set", "FLAGCHECK_ENGINE=" + engine,
                               "--variants", "always"],
                              'invalid external ioengine path "%s"' % engine)

    @needs_root
    def test_mode_the_engine_refuses(self):
        # the engine loads there (a copy the user nobody can reach,
        # wherever the tree lies: a clone in a mktemp -d directory is
        # root's alone), and refuses a counters file it can not write; a
        # bad variant= is refused here, before any run
        shared = tempfile.mkdtemp(prefix="engine-")
        try:
            os.chmod(shared, 0o755)
            engine = os.path.join(shared, "fio-flagcheck.so")
            shutil.copy(ENGINE, engine)
            os.chmod(engine, 0o755)
            self.check_no_results(["--set", "FLAGCHECK_ENGINE=" + engine,
                                   "--variants", "always"],
                                  "cannot create files in %s: Permission "
                                  "denied" % self.out)
        finally:
            shutil.rmtree(shared)
        p = self.run_runner("--client", "127.0.0.1,1", "--variants", "bogus")
        assert_one_line(p, "flagcheck run: error: %s: fio refuses it: "
                        "flagcheck: variant=bogus is not valid" % CS_JOB,
                        rc=2)

    def test_killed_server_child_is_quoted(self, request):
        server = self.servers.start()
        pid = self.servers.procs[-1].pid
        proc = subprocess.Popen(
            [sys.executable, os.path.join(ANALYSIS, "flagcheck"), "run", "--fio", FIO,
             CS_JOB, "--outdir", self.out, "--repeats", "1", "--numjobs",
             "1", "--quiet", "--set", "FLAGCHECK_ENGINE=" + ENGINE,
             "--client", server, "--variants", "always", "--runtime", "20"],
            stderr=subprocess.PIPE, text=True)
        request.addfinalizer(proc.kill)
        # the server forks a child per connection, which forks the job
        deadline = time.monotonic() + 30
        child = []
        while time.monotonic() < deadline:
            child = children(pid)
            if child and children(child[0]) and os.path.exists(
                    os.path.join(self.out, "jobs")):
                break
            time.sleep(0.1)
        assert len(child) == 1, "no server child"
        jobs = children(child[0])
        os.kill(child[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=60)
        for job in jobs:                        # orphaned, would run on
            try:
                os.kill(job, signal.SIGKILL)
            except ProcessLookupError:
                pass
        assert proc.returncode == 1, err
        assert "Traceback" not in err
        assert "client: host=%s disconnected" % LOOPBACK in err
        assert "(nothing)" not in err
        run = self.manifest()["runs"][0]
        assert run["status"] == "failed"
        kept = os.path.join(self.out, run["json"] + ".failed")
        with open(kept) as f:
            assert "client: host=%s disconnected" % LOOPBACK in f.read()


def children(pid):
    """The ids of the processes whose parent is pid."""
    p = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True,
                       text=True)
    return [int(x) for x in p.stdout.split()]


def can_mount_privately():
    """A mount namespace of our own (root, unshare -m): a tmpfs there is
    seen by nothing else on the machine and goes when the namespace does."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    p = subprocess.run(["unshare", "-m", "--propagation", "private", "true"],
                       capture_output=True)
    return p.returncode == 0


@pytest.mark.skipif(not (FIO and can_mount_privately()),
                    reason="needs fio, root and unshare -m (a private tmpfs)")
class TestFullDisk(Scratch):
    """item 13: the results directory's file system fills up"""

    # slow: a real flagcheck run on a full file system
    @pytest.mark.slow
    def test_message_names_the_path_and_nothing_is_lost(self):
        fs = self.path("fs")
        os.makedirs(fs)
        out = os.path.join(fs, "results")
        run = " ".join([sys.executable, os.path.join(ANALYSIS,
                                                     "flagcheck run"),
                        NULL_JOB, "--no-calibrate", "--variants", "always",
                        "--numjobs", "1", "--runtime", "1", "--outdir", out,
                        "--quiet"])
        script = f"""
            set -u
            mount -t tmpfs -o size=1m flagcheck-test {fs} || exit 90
            {run} --repeats 1 2>{self.tmp}/first.err || exit 91
            cp {out}/manifest.json {self.tmp}/manifest.before
            dd if=/dev/zero of={fs}/fill bs=4k 2>/dev/null
            {run} --repeats 2 2>{self.tmp}/second.err
            echo $? >{self.tmp}/second.rc
            ls -a {out} >{self.tmp}/left
            cp {out}/manifest.json {self.tmp}/manifest.after
        """
        p = subprocess.run(["unshare", "-m", "--propagation", "private",
                            "sh", "-c", script], capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, p.stdout + p.stderr

        def read(name):
            with open(self.path(name)) as f:
                return f.read()
        assert read("second.rc").strip() == "1"
        err = read("second.err")
        assert "Traceback" not in err
        lines = [l for l in err.splitlines() if "No space left on device"
                 in l]
        assert len(lines) == 1, err
        assert os.path.join(out, "manifest.json") in lines[0]
        # the first run's files (its .setup: what it was made with)
        assert read("left").split() == [
            ".", "..", "flagcheck.lock", "manifest.json",
            "null-engine_always_nj1_r1.json",
            "null-engine_always_nj1_r1.setup"]
        assert read("manifest.after") == read("manifest.before")
