"""flagcheck-calibrate: the C program on 1 and 2 CPUs (taskset), the
topology and the summary per relation on a fake /sys, the driver's files,
bad input."""

import json
import os
import re
import shutil
import subprocess
import tempfile
import time

import pytest

from tests.analysis.helpers import BUILD, REPO, run_cli

from flagcheck_analysis.calibrate import calibration
from flagcheck_analysis.inputs import calibfile
from flagcheck_analysis.machines import cpulist

PROGRAM = os.path.join(BUILD, "flagcheck-calibrate")
USABLE = sorted(os.sched_getaffinity(0))


def run_program(cpus, *args):
    """The program's JSON on exactly these CPUs (taskset)."""
    p = subprocess.run(["taskset", "-c", ",".join(map(str, cpus)), PROGRAM]
                       + list(args), capture_output=True, text=True,
                       timeout=60)
    if p.returncode != 0:
        raise AssertionError("exit %d: %s" % (p.returncode, p.stderr))
    return json.loads(p.stdout)


# serial: the calibration program pinned to CPUs, measuring
@pytest.mark.serial
@pytest.mark.skipif(not shutil.which("taskset"),
                    reason="needs taskset (util-linux)")
class TestProgram:
    def setup_method(self):
        if not os.path.exists(PROGRAM):
            pytest.fail("%s is missing: run make" % PROGRAM)

    def check_points(self, doc, cpus):
        for name in calibration.PATTERNS:
            pts = doc["patterns"][name]
            assert [p["threads"] for p in pts] == list(range(1, len(cpus) + 1))
            for p in pts:
                assert p["cpus"] == cpus[:p["threads"]]
                # the kernel's word for where each pinned thread ran
                assert p["migrated"] == 0
                assert p["ops"] > 0
                assert p["ops"] % (2 * 64) == 0   # whole batches
                # always: every op an RMW; test_first: the bits stay clear,
                # no RMW ever runs
                assert p["rmw"] == (p["ops"] if name == "always"
                                    else 0)
                assert p["ns_per_op_min"] <= p["ns_per_op"]
                assert p["ns_per_op"] <= p["ns_per_op_max"]
            one = pts[0]
            # one thread: its rate and its ns per op are one figure
            assert round(one["ns_per_op"] * one["ops_per_s"] / 1e9 -
                         1.0, 3) == 0
            assert round((one["ops"] / one["seconds"] /
                          one["ops_per_s"]) - 1.0, 3) == 0
        calibration.validate(doc, "program")

    def test_one_cpu(self):
        cpu = USABLE[-1]
        doc = run_program([cpu], "--seconds", "0.05")
        assert doc["cpus"] == [cpu]
        assert doc["transfer_ns"] == [[None]]
        assert doc["pair_samples_min"] == 0
        self.check_points(doc, [cpu])

    def test_two_cpus(self):
        if len(USABLE) < 2:
            pytest.skip("only one usable CPU")
        cpus = USABLE[:2]
        doc = run_program(cpus, "--seconds", "0.2", "--batch", "16")
        assert doc["cpus"] == cpus
        assert doc["batch"] == 16
        m = doc["transfer_ns"]
        assert [m[0][0], m[1][1]] == [None, None]
        assert m[0][1] == m[1][0]
        assert m[0][1] > 0
        assert doc["pair_samples_min"] >= 9  # MIN_SAMPLES
        assert doc["pairs_migrated"] == 0
        self.check_points(doc, cpus)

    def test_max_threads(self):
        doc = run_program(USABLE, "--seconds", "0.05", "--max-threads", "1")
        assert doc["cpus"] == USABLE
        assert [p["threads"] for p in doc["patterns"]["always"]] == [1]

    def test_bad_options(self):
        for args, word in ((["--seconds", "0"], "--seconds=0"),
                           (["--seconds", "x"], "--seconds=x"),
                           (["--batch", "0"], "--batch=0"),
                           (["--max-threads", "-1"], "--max-threads=-1"),
                           (["extra"], "unexpected argument extra")):
            p = subprocess.run([PROGRAM] + args, capture_output=True,
                               text=True, timeout=10)
            assert p.returncode == 2, args
            assert p.stdout == ""
            assert word in p.stderr
            assert len(p.stderr.strip().splitlines()) == 1, p.stderr

    def test_bad_output_fails_before_measuring(self):
        t0 = time.monotonic()
        p = subprocess.run([PROGRAM, "--seconds", "30", "--output",
                            "/nonexistent/dir/c.json"], capture_output=True,
                           text=True, timeout=10)
        assert time.monotonic() - t0 < 5
        assert p.returncode == 1
        assert p.stderr == ("flagcheck-calibrate: cannot write "
                            "/nonexistent/dir/c.json: No such file or "
                            "directory\n")


def fake_sysfs(root):
    """6 CPUs: node 0 = 0-3 (cores {0,1} and {2,3}), node 1 = 4-5 (one
    CPU per core)."""
    for node, cpus in ((0, "0-3"), (1, "4-5")):
        d = os.path.join(root, "node", "node%d" % node)
        os.makedirs(d)
        with open(os.path.join(d, "cpulist"), "w") as f:
            f.write(cpus + "\n")
    for cpu, sib, pkg in ((0, "0-1", 0), (1, "0-1", 0), (2, "2,3", 0),
                          (3, "2,3", 0), (4, "4", 1), (5, "5", 1)):
        d = os.path.join(root, "cpu", "cpu%d" % cpu, "topology")
        os.makedirs(d)
        for name, value in (("thread_siblings_list", sib),
                            ("physical_package_id", str(pkg))):
            with open(os.path.join(d, name), "w") as f:
                f.write(value + "\n")


def fake_doc(cpus, ns):
    """A program document with transfer_ns[i][j] = ns(cpu_i, cpu_j)."""
    pt = {"threads": 1, "cpus": cpus[:1], "ns_per_op": 1.0,
          "ops_per_s": 1e9}
    return {"flagcheck_calibrate": 1, "cpus": cpus, "seconds": 1,
            "transfer_ns": [[None if a == b else ns(a, b) for b in cpus]
                            for a in cpus],
            "patterns": {"always": [pt], "test_first": [pt]}}


class TestTopology:
    def setup_method(self):
        self.tmp = tempfile.mkdtemp()
        fake_sysfs(os.path.join(self.tmp, "sys"))
        self.cpuinfo = os.path.join(self.tmp, "cpuinfo")
        with open(self.cpuinfo, "w") as f:
            f.write("processor\t: 0\nvendor_id\t: X\nmodel name\t: Fixture "
                    "CPU @ 1GHz\n\nprocessor\t: 1\n")

    def teardown_method(self):
        shutil.rmtree(self.tmp)

    def test_cpulist(self):
        assert cpulist.parse_cpulist("0-3,8,10-11\n") == \
            [0, 1, 2, 3, 8, 10, 11]
        assert cpulist.parse_cpulist("") == []

    def test_relations_and_summary(self):
        # transfer = 10 * (a + b) + 1: every pair has its own figure
        doc = calibration.describe(
            fake_doc(list(range(6)), lambda a, b: 10.0 * (a + b) + 1),
            sysfs=os.path.join(self.tmp, "sys"), cpuinfo=self.cpuinfo)
        host = doc["host"]
        assert host["cpu_model"] == "Fixture CPU @ 1GHz"
        assert host["nodes"] == {"0": [0, 1, 2, 3], "1": [4, 5]}
        assert host["smt_groups"] == [[0, 1], [2, 3]]
        assert host["packages"] == [0, 1]
        assert host["relation"]["0,1"] == "smt"
        assert host["relation"]["1,2"] == "same_node"
        assert host["relation"]["4,5"] == "same_node"
        assert host["relation"]["3,4"] == "other_node"
        s = doc["summary"]
        # smt: (0,1) 11, (2,3) 51
        assert s["smt"] == {"pairs": 2, "median_ns": 31.0,
                            "min_ns": 11.0, "max_ns": 51.0}
        # same node: (0,2) 21 (0,3) 31 (1,2) 31 (1,3) 41 (4,5) 91
        assert s["same_node"] == {"pairs": 5, "median_ns": 31.0,
                                  "min_ns": 21.0, "max_ns": 91.0}
        # other node: 0..3 with 4..5: 41 51 51 61 61 71 71 81
        assert s["other_node"] == {"pairs": 8, "median_ns": 61.0,
                                   "min_ns": 41.0, "max_ns": 81.0}
        assert s["all"]["pairs"] == 15

    def test_subset_of_cpus(self):
        # taskset to 1 and 4: one pair, on two nodes; no SMT pair among them
        doc = calibration.describe(fake_doc([1, 4], lambda a, b: 77.0),
                                 sysfs=os.path.join(self.tmp, "sys"),
                                 cpuinfo=self.cpuinfo)
        assert doc["host"]["smt_groups"] == []
        assert doc["host"]["nodes"] == {"0": [1], "1": [4]}
        assert set(doc["summary"]) == {"other_node", "all"}

    def test_no_numa_no_smt_information(self):
        doc = calibration.describe(fake_doc([0, 1], lambda a, b: 5.0),
                                 sysfs=os.path.join(self.tmp, "none"),
                                 cpuinfo=os.path.join(self.tmp, "none"))
        assert doc["host"]["cpu_model"] == "unknown"
        assert doc["summary"]["same_node"]["pairs"] == 1


class TestFiles:
    def setup_method(self):
        self.tmp = tempfile.mkdtemp()

    def teardown_method(self):
        shutil.rmtree(self.tmp)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_load_errors_are_one_line(self):
        cases = (
            (os.path.join(self.tmp, "absent.json"), "cannot read"),
            (self.write("bad.json", "{nope"), "malformed JSON"),
            (self.write("list.json", "[1]"), 'no "flagcheck_calibrate": 1'),
            (self.write("nomatrix.json", json.dumps(
                {"flagcheck_calibrate": 1, "cpus": [0, 1],
                 "transfer_ns": [[None]]})), "not a 2 x 2 matrix"),
            (self.write("nopat.json", json.dumps(
                {"flagcheck_calibrate": 1, "cpus": [0],
                 "transfer_ns": [[None]], "patterns": {}})),
             'no "always" pattern points'),
        )
        for path, what in cases:
            with pytest.raises(calibration.CalibrationError) as cm:
                calibration.load(path)
            assert path + ": " in str(cm.value)
            assert what in str(cm.value)
            assert "\n" not in str(cm.value)

    def test_ensure_keeps_a_valid_calibration(self):
        doc = fake_doc([0], None)
        calibration.write(doc, self.tmp)
        said = []
        kept = calibration.ensure(self.tmp, program="/nonexistent/prog",
                                warn=said.append)
        assert kept == doc
        assert said == []

    def test_ensure_replaces_a_bad_one_and_survives_failure(self):
        self.write(calibration.JSON_NAME, "{")
        said = []
        assert calibration.ensure(self.tmp,
                                  program="/nonexistent/prog",
                                  warn=said.append) is None
        assert len(said) == 2
        assert "measuring again" in said[0]
        assert ("calibration left out: /nonexistent/prog: no such "
                "program") in said[1]

    # serial: a calibration measures on every CPU
    @pytest.mark.serial
    @pytest.mark.skipif(not os.path.exists(PROGRAM), reason="needs make")
    def test_cli_writes_json_and_heatmap(self):
        out = os.path.join(self.tmp, "out")
        p = run_cli("calibrate", "--outdir", out, "--seconds",
                    "0.1", "--max-threads", "2")
        assert p.returncode == 0, p.stderr
        doc = calibration.load(os.path.join(out, "calibration.json"))
        assert doc["cpus"] == USABLE
        assert doc["seconds"] == 0.1
        if len(USABLE) > 1:
            assert doc["summary"]["all"]["pairs"] == \
                len(USABLE) * (len(USABLE) - 1) // 2
        else:
            assert "all" not in doc["summary"]
        with open(os.path.join(out, "calibration.png"), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"
        assert "calibration: " in p.stdout
        lines = p.stderr.splitlines()
        assert lines[-1] == ("flagcheck calibrate: wrote calibration.json "
                             "and calibration.png to %s" % out)
        # one progress line per step: every pair, then each pattern and
        # the visits at 1..2 threads, numbered against the whole
        threads = min(2, len(USABLE))
        pairs = len(USABLE) * (len(USABLE) - 1) // 2
        steps = pairs + 3 * threads
        assert len(lines) == steps + 1, p.stderr
        whats = ["transfer latency CPU %d <-> CPU %d" % (a, b)
                 for i, a in enumerate(USABLE) for b in USABLE[i + 1:]]
        whats += ["%s at %d thread%s" % (pat, n, "" if n == 1 else "s")
                  for n in range(1, threads + 1)
                  for pat in ("always", "test_first", "visits")]
        for k, (line, what) in enumerate(zip(lines, whats), 1):
            assert re.search((r"^flagcheck calibrate: calibration "
                              r"\[%d/%d\] %s, elapsed \d+:\d\d:\d\d$"
                              % (k, steps, re.escape(what))), line)
        p = run_cli("calibrate", "--outdir", out, "--seconds",
                    "0.1", "--max-threads", "2", "--no-plot", "--quiet")
        assert p.returncode == 0, p.stderr
        assert p.stderr == ("flagcheck calibrate: wrote "
                            "calibration.json to %s\n" % out)

    # serial: a calibration measures on every CPU
    @pytest.mark.serial
    @pytest.mark.skipif(not (shutil.which("make") and os.path.exists(PROGRAM)),
                        reason="needs make and the built program")
    def test_installed_copy_runs_the_installed_program(self):
        dest = os.path.join(self.tmp, "dest")
        # -o: install what is built, never rebuild here
        p = subprocess.run(
            ["make", "-s", "-C", REPO, "-o", "build/fio-flagcheck.so", "-o",
             "build/flagcheck-calibrate", "install", "DESTDIR=" + dest,
             "PREFIX=/usr"], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stdout + p.stderr
        lib = os.path.join(dest, "usr", "lib", "flagcheck")
        link = os.path.join(dest, "usr", "bin", "flagcheck")
        assert os.path.realpath(link) == os.path.join(
            lib, "analysis", "flagcheck")
        p = subprocess.run([link, "calibrate", "--help"], capture_output=True, text=True,
                           timeout=60, env=dict(os.environ, COLUMNS="400"))
        assert p.returncode == 0, p.stderr
        assert "(default %s)" % os.path.join(
            lib, "flagcheck-calibrate") in " ".join(p.stdout.split())
        out = os.path.join(self.tmp, "out")
        p = subprocess.run([link, "calibrate", "--outdir", out, "--seconds", "0.05",
                            "--no-plot"], capture_output=True, text=True,
                           timeout=60)
        assert p.returncode == 0, p.stderr
        assert calibration.load(os.path.join(
            out, "calibration.json"))["cpus"] == USABLE

    def test_cli_bad_input(self):
        for args, word in ((["--seconds", "0"], "--seconds: '0' is not "
                            "valid: a number of seconds from 0.01 to 3600"),
                           (["--max-threads", "0"], "--max-threads: '0' is "
                            "not valid"),
                           (["--program", "/nonexistent/prog"],
                            "/nonexistent/prog: no such program")):
            p = run_cli("calibrate", "--outdir", self.tmp, *args)
            assert p.returncode != 0
            assert "Traceback" not in p.stderr
            assert word in p.stderr
        assert os.listdir(self.tmp) == []


# slow: real flagcheck runs and a calibration
@pytest.mark.slow
class TestRunnerCalibrates:
    """flagcheck run measures the calibration once per results directory,
    before its runs, keeps it on resume, and not with --no-calibration."""

    def setup_method(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "res")

    def teardown_method(self):
        shutil.rmtree(self.tmp)

    def run_matrix(self, *extra, calibrate=True):
        from tests.analysis.helpers import NULL_JOB
        p = run_cli("run", NULL_JOB, "--variants", "always",
                    "--numjobs", "1", "--repeats", "1", "--runtime", "1",
                    "--ramp", "0", "--outdir", self.out, "--quiet",
                    "--calibrate-seconds", "0.5", *extra,
                    calibrate=calibrate, timeout=120)
        assert p.returncode == 0, p.stderr
        with open(os.path.join(self.out, "manifest.json")) as f:
            return json.load(f)

    # serial: a calibration measures on every CPU
    @pytest.mark.serial
    def test_once_per_results_directory(self):
        if not os.access(PROGRAM, os.X_OK):
            pytest.skip("%s not built (make)" % PROGRAM)
        m = self.run_matrix()
        path = os.path.join(self.out, calibration.JSON_NAME)
        assert m["calibration"] == calibration.JSON_NAME
        doc = calibration.load(path)
        assert sorted(doc["cpus"]) == USABLE
        # the heatmap is the report's: running draws nothing
        assert not os.path.exists(os.path.join(self.out,
                                               calibfile.PNG_NAME))
        before = os.stat(path).st_mtime_ns
        self.run_matrix()                       # resumed: kept as it was
        assert os.stat(path).st_mtime_ns == before

    def test_no_calibrate(self):
        m = self.run_matrix("--no-calibrate")
        assert "calibration" not in m
        assert not os.path.exists(os.path.join(self.out,
                                               calibration.JSON_NAME))
