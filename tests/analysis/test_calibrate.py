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
import unittest

from tests.analysis.helpers import BUILD, REPO, run_cli

from flagcheck_analysis.calibrate import calibration

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


@unittest.skipUnless(shutil.which("taskset"), "needs taskset (util-linux)")
class TestProgram(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(PROGRAM):
            self.fail("%s is missing: run make" % PROGRAM)

    def check_points(self, doc, cpus):
        for name in calibration.PATTERNS:
            pts = doc["patterns"][name]
            self.assertEqual([p["threads"] for p in pts],
                             list(range(1, len(cpus) + 1)))
            for p in pts:
                self.assertEqual(p["cpus"], cpus[:p["threads"]])
                # the kernel's word for where each pinned thread ran
                self.assertEqual(p["migrated"], 0)
                self.assertGreater(p["ops"], 0)
                self.assertEqual(p["ops"] % (2 * 64), 0)   # whole batches
                # always: every op an RMW; test_first: the bits stay clear,
                # no RMW ever runs
                self.assertEqual(p["rmw"], p["ops"] if name == "always"
                                 else 0)
                self.assertLessEqual(p["ns_per_op_min"], p["ns_per_op"])
                self.assertLessEqual(p["ns_per_op"], p["ns_per_op_max"])
            one = pts[0]
            # one thread: its rate and its ns per op are one figure
            self.assertAlmostEqual(one["ns_per_op"] * one["ops_per_s"] / 1e9,
                                   1.0, places=3)
            self.assertAlmostEqual(one["ops"] / one["seconds"] /
                                   one["ops_per_s"], 1.0, places=3)
        calibration.validate(doc, "program")

    def test_one_cpu(self):
        cpu = USABLE[-1]
        doc = run_program([cpu], "--seconds", "0.05")
        self.assertEqual(doc["cpus"], [cpu])
        self.assertEqual(doc["transfer_ns"], [[None]])
        self.assertEqual(doc["pair_samples_min"], 0)
        self.check_points(doc, [cpu])

    def test_two_cpus(self):
        if len(USABLE) < 2:
            self.skipTest("only one usable CPU")
        cpus = USABLE[:2]
        doc = run_program(cpus, "--seconds", "0.2", "--batch", "16")
        self.assertEqual(doc["cpus"], cpus)
        self.assertEqual(doc["batch"], 16)
        m = doc["transfer_ns"]
        self.assertEqual([m[0][0], m[1][1]], [None, None])
        self.assertEqual(m[0][1], m[1][0])
        self.assertGreater(m[0][1], 0)
        self.assertGreaterEqual(doc["pair_samples_min"], 9)  # MIN_SAMPLES
        self.assertEqual(doc["pairs_migrated"], 0)
        self.check_points(doc, cpus)

    def test_max_threads(self):
        doc = run_program(USABLE, "--seconds", "0.05", "--max-threads", "1")
        self.assertEqual(doc["cpus"], USABLE)
        self.assertEqual([p["threads"] for p in doc["patterns"]["always"]],
                         [1])

    def test_bad_options(self):
        for args, word in ((["--seconds", "0"], "--seconds=0"),
                           (["--seconds", "x"], "--seconds=x"),
                           (["--batch", "0"], "--batch=0"),
                           (["--max-threads", "-1"], "--max-threads=-1"),
                           (["extra"], "unexpected argument extra")):
            p = subprocess.run([PROGRAM] + args, capture_output=True,
                               text=True, timeout=10)
            self.assertEqual(p.returncode, 2, args)
            self.assertEqual(p.stdout, "")
            self.assertIn(word, p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)

    def test_bad_output_fails_before_measuring(self):
        t0 = time.monotonic()
        p = subprocess.run([PROGRAM, "--seconds", "30", "--output",
                            "/nonexistent/dir/c.json"], capture_output=True,
                           text=True, timeout=10)
        self.assertLess(time.monotonic() - t0, 5)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, "flagcheck-calibrate: cannot write "
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


class TestTopology(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        fake_sysfs(os.path.join(self.tmp, "sys"))
        self.cpuinfo = os.path.join(self.tmp, "cpuinfo")
        with open(self.cpuinfo, "w") as f:
            f.write("processor\t: 0\nvendor_id\t: X\nmodel name\t: Fixture "
                    "CPU @ 1GHz\n\nprocessor\t: 1\n")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_cpulist(self):
        self.assertEqual(calibration.cpulist("0-3,8,10-11\n"),
                         {0, 1, 2, 3, 8, 10, 11})
        self.assertEqual(calibration.cpulist(""), set())

    def test_relations_and_summary(self):
        # transfer = 10 * (a + b) + 1: every pair has its own figure
        doc = calibration.describe(
            fake_doc(list(range(6)), lambda a, b: 10.0 * (a + b) + 1),
            sysfs=os.path.join(self.tmp, "sys"), cpuinfo=self.cpuinfo)
        host = doc["host"]
        self.assertEqual(host["cpu_model"], "Fixture CPU @ 1GHz")
        self.assertEqual(host["nodes"], {"0": [0, 1, 2, 3], "1": [4, 5]})
        self.assertEqual(host["smt_groups"], [[0, 1], [2, 3]])
        self.assertEqual(host["packages"], [0, 1])
        self.assertEqual(host["relation"]["0,1"], "smt")
        self.assertEqual(host["relation"]["1,2"], "same_node")
        self.assertEqual(host["relation"]["4,5"], "same_node")
        self.assertEqual(host["relation"]["3,4"], "other_node")
        s = doc["summary"]
        # smt: (0,1) 11, (2,3) 51
        self.assertEqual(s["smt"], {"pairs": 2, "median_ns": 31.0,
                                    "min_ns": 11.0, "max_ns": 51.0})
        # same node: (0,2) 21 (0,3) 31 (1,2) 31 (1,3) 41 (4,5) 91
        self.assertEqual(s["same_node"], {"pairs": 5, "median_ns": 31.0,
                                          "min_ns": 21.0, "max_ns": 91.0})
        # other node: 0..3 with 4..5: 41 51 51 61 61 71 71 81
        self.assertEqual(s["other_node"], {"pairs": 8, "median_ns": 61.0,
                                           "min_ns": 41.0, "max_ns": 81.0})
        self.assertEqual(s["all"]["pairs"], 15)

    def test_subset_of_cpus(self):
        # taskset to 1 and 4: one pair, on two nodes; no SMT pair among them
        doc = calibration.describe(fake_doc([1, 4], lambda a, b: 77.0),
                                 sysfs=os.path.join(self.tmp, "sys"),
                                 cpuinfo=self.cpuinfo)
        self.assertEqual(doc["host"]["smt_groups"], [])
        self.assertEqual(doc["host"]["nodes"], {"0": [1], "1": [4]})
        self.assertEqual(set(doc["summary"]), {"other_node", "all"})

    def test_no_numa_no_smt_information(self):
        doc = calibration.describe(fake_doc([0, 1], lambda a, b: 5.0),
                                 sysfs=os.path.join(self.tmp, "none"),
                                 cpuinfo=os.path.join(self.tmp, "none"))
        self.assertEqual(doc["host"]["cpu_model"], "unknown")
        self.assertEqual(doc["summary"]["same_node"]["pairs"], 1)


class TestFiles(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
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
            with self.assertRaises(calibration.CalibrationError) as cm:
                calibration.load(path)
            self.assertIn(path + ": ", str(cm.exception))
            self.assertIn(what, str(cm.exception))
            self.assertNotIn("\n", str(cm.exception))

    def test_ensure_keeps_a_valid_calibration(self):
        doc = fake_doc([0], None)
        calibration.write(doc, self.tmp)
        said = []
        kept = calibration.ensure(self.tmp, program="/nonexistent/prog",
                                warn=said.append)
        self.assertEqual(kept, doc)
        self.assertEqual(said, [])

    def test_ensure_replaces_a_bad_one_and_survives_failure(self):
        self.write(calibration.JSON_NAME, "{")
        said = []
        self.assertIsNone(calibration.ensure(self.tmp,
                                           program="/nonexistent/prog",
                                           warn=said.append))
        self.assertEqual(len(said), 2)
        self.assertIn("measuring again", said[0])
        self.assertIn("calibration left out: /nonexistent/prog: no such "
                      "program", said[1])

    @unittest.skipUnless(os.path.exists(PROGRAM), "needs make")
    def test_cli_writes_json_and_heatmap(self):
        out = os.path.join(self.tmp, "out")
        p = run_cli("flagcheck-calibrate", "--outdir", out, "--seconds",
                    "0.1", "--max-threads", "2")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = calibration.load(os.path.join(out, "calibration.json"))
        self.assertEqual(doc["cpus"], USABLE)
        self.assertEqual(doc["seconds"], 0.1)
        if len(USABLE) > 1:
            self.assertEqual(doc["summary"]["all"]["pairs"],
                             len(USABLE) * (len(USABLE) - 1) // 2)
        else:
            self.assertNotIn("all", doc["summary"])
        with open(os.path.join(out, "calibration.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertIn("calibration: ", p.stdout)
        lines = p.stderr.splitlines()
        self.assertEqual(lines[-1], "flagcheck-calibrate: wrote "
                         "calibration.json and calibration.png to %s" % out)
        # one progress line per step: every pair, then each pattern at
        # 1..2 threads, numbered against the whole
        threads = min(2, len(USABLE))
        pairs = len(USABLE) * (len(USABLE) - 1) // 2
        steps = pairs + 2 * threads
        self.assertEqual(len(lines), steps + 1, p.stderr)
        whats = ["transfer latency CPU %d <-> CPU %d" % (a, b)
                 for i, a in enumerate(USABLE) for b in USABLE[i + 1:]]
        whats += ["%s at %d thread%s" % (pat, n, "" if n == 1 else "s")
                  for n in range(1, threads + 1)
                  for pat in ("always", "test_first")]
        for k, (line, what) in enumerate(zip(lines, whats), 1):
            self.assertRegex(line, r"^flagcheck-calibrate: calibration "
                             r"\[%d/%d\] %s, elapsed \d+:\d\d:\d\d$"
                             % (k, steps, re.escape(what)))
        p = run_cli("flagcheck-calibrate", "--outdir", out, "--seconds",
                    "0.1", "--max-threads", "2", "--no-plot", "--quiet")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "flagcheck-calibrate: wrote "
                         "calibration.json to %s\n" % out)

    @unittest.skipUnless(shutil.which("make") and os.path.exists(PROGRAM),
                         "needs make and the built program")
    def test_installed_copy_runs_the_installed_program(self):
        dest = os.path.join(self.tmp, "dest")
        # -o: install what is built, never rebuild here
        p = subprocess.run(
            ["make", "-s", "-C", REPO, "-o", "build/fio-flagcheck.so", "-o",
             "build/flagcheck-calibrate", "install", "DESTDIR=" + dest,
             "PREFIX=/usr"], capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        lib = os.path.join(dest, "usr", "lib", "flagcheck")
        link = os.path.join(dest, "usr", "bin", "flagcheck-calibrate")
        self.assertEqual(os.path.realpath(link), os.path.join(
            lib, "analysis", "flagcheck-calibrate"))
        p = subprocess.run([link, "--help"], capture_output=True, text=True,
                           timeout=60, env=dict(os.environ, COLUMNS="400"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("(default: %s)" % os.path.join(
            lib, "flagcheck-calibrate"), " ".join(p.stdout.split()))
        out = os.path.join(self.tmp, "out")
        p = subprocess.run([link, "--outdir", out, "--seconds", "0.05",
                            "--no-plot"], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(calibration.load(os.path.join(
            out, "calibration.json"))["cpus"], USABLE)

    def test_cli_bad_input(self):
        for args, word in ((["--seconds", "0"], "--seconds: '0' is not "
                            "valid: a number of seconds from 0.01 to 3600"),
                           (["--max-threads", "0"], "--max-threads: '0' is "
                            "not valid"),
                           (["--program", "/nonexistent/prog"],
                            "/nonexistent/prog: no such program")):
            p = run_cli("flagcheck-calibrate", "--outdir", self.tmp, *args)
            self.assertNotEqual(p.returncode, 0)
            self.assertNotIn("Traceback", p.stderr)
            self.assertIn(word, p.stderr)
        self.assertEqual(os.listdir(self.tmp), [])


if __name__ == "__main__":
    unittest.main()


class TestRunnerCalibrates(unittest.TestCase):
    """flagcheck-run measures the calibration once per results directory,
    before its runs, keeps it on resume, and not with --no-calibration."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "res")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def run_matrix(self, *extra, calibrate=True):
        from tests.analysis.helpers import NULL_JOB
        p = run_cli("flagcheck-run", NULL_JOB, "--modes", "always",
                    "--numjobs", "1", "--repeats", "1", "--runtime", "1",
                    "--ramp", "0", "--outdir", self.out, "--quiet",
                    "--calibrate-seconds", "0.5", *extra,
                    calibrate=calibrate, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.out, "manifest.json")) as f:
            return json.load(f)

    def test_once_per_results_directory(self):
        if not os.access(PROGRAM, os.X_OK):
            self.skipTest("%s not built (make)" % PROGRAM)
        m = self.run_matrix()
        path = os.path.join(self.out, calibration.JSON_NAME)
        self.assertEqual(m["calibration"], calibration.JSON_NAME)
        doc = calibration.load(path)
        self.assertEqual(sorted(doc["cpus"]), USABLE)
        # the heatmap is the report's: running draws nothing
        self.assertFalse(os.path.exists(os.path.join(self.out,
                                                     calibration.PNG_NAME)))
        before = os.stat(path).st_mtime_ns
        self.run_matrix()                       # resumed: kept as it was
        self.assertEqual(os.stat(path).st_mtime_ns, before)

    def test_no_calibrate(self):
        m = self.run_matrix("--no-calibrate")
        self.assertNotIn("calibration", m)
        self.assertFalse(os.path.exists(os.path.join(self.out,
                                                     calibration.JSON_NAME)))
