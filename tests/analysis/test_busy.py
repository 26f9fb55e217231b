"""flagcheck run under the real fio: a CPU hog during a short matrix makes
the runs it shares a CPU with busy, and the report names them; the CPUs
the manifest says each job was pinned to are the CPUs the kernel shows
fio's jobs on (/proc/<pid>/task/<tid>/status and stat)."""

import json
import os
import subprocess
import sys
import time

import pytest

from tests.analysis.helpers import ANALYSIS, FIO, NULL_JOB, \
    ResultsDirCase, cpu_hog, run_cli

USABLE = sorted(os.sched_getaffinity(0))
LONG_LIVED = 10         # samples 50 ms apart: half a second


def _children(pid):
    """Every descendant of pid (fio's forked jobs included)."""
    kids = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for k in kids.get(p, ()):
            out.append(k)
            todo.append(k)
    return out


def _tasks(pid):
    """{tid: (allowed CPUs, CPU last run on)} of every thread of pid and
    of its descendants."""
    out = {}
    for p in [pid] + _children(pid):
        try:
            tids = os.listdir("/proc/%d/task" % p)
        except OSError:
            continue
        for tid in tids:
            base = "/proc/%d/task/%s/" % (p, tid)
            try:
                with open(base + "status") as f:
                    allowed = [l.split(":", 1)[1].strip() for l in f
                               if l.startswith("Cpus_allowed_list:")][0]
                with open(base + "stat") as f:
                    # field 39, "processor"; fields after the ")" of comm
                    cpu = int(f.read().rsplit(")", 1)[1].split()[36])
            except (OSError, IndexError, ValueError):
                continue
            out[int(tid)] = (allowed, cpu)
    return out


# slow: real flagcheck runs, fio for whole seconds
@pytest.mark.slow
# serial: busy loops and pinned jobs, the machine's load measured
@pytest.mark.serial
@pytest.mark.skipif(not FIO, reason="fio not installed")
class TestBusyAndPlacement(ResultsDirCase):
    def test_hog_marks_runs_busy_and_the_report_names_them(self):
        hog_cpu = USABLE[-1]
        with cpu_hog(hog_cpu):
            # every job of every run shares a CPU with the hog: at numjobs
            # = the usable CPUs one job is pinned to the hog's CPU, which
            # then leaves that job about half of it (others >= 1/(2n))
            p = run_cli("run", NULL_JOB, "--numjobs",
                        str(len(USABLE)), "--repeats", "2", "--runtime",
                        "1", "--ramp", "0", "--outdir", self.out, "--quiet",
                        timeout=120)
        assert p.returncode == 0, p.stderr
        runs = self.manifest()["runs"]
        assert len(runs) == 4
        for e in runs:
            i = e["interference"]
            assert i["busy"], (e["name"], i)
            assert hog_cpu in e["placement"]["jobs"]
            assert i["run_cpus"]["others_share"] > 0.10
        p = run_cli("report", "--verbose", self.out, "--no-plot", "--width",
                    "0")
        assert p.returncode == 0, p.stderr
        lines = p.stdout.splitlines()
        for e in runs:
            assert len([l for l in lines
                        if l.startswith(e["name"] + " ")]) == 1, e["name"]
        assert "machine busy in 4 of 4 runs" in p.stdout
        iops = [l for l in lines if l.endswith(" iops") and "noise" in l]
        assert len(iops) == 1
        assert "; machine busy in 4 of 4 runs" in iops[0]

        # --exclude-busy leaves them all out: nothing left to report
        p = run_cli("report", "--verbose", self.out, "--no-plot",
                    "--exclude-busy")
        assert p.returncode == 1
        assert "nothing to report" in p.stderr

    def _run_and_watch(self, *extra):
        """Run a 1-repeat, 1-variant matrix at numjobs = the usable CPUs and
        watch fio's threads every 50 ms; (manifest entry, [(allowed CPU,
        CPU last run on)] of the threads pinned to one CPU that lived at
        least LONG_LIVED samples).  Only long-lived threads are the jobs
        (3 s here): at start fio runs its clock test in a short-lived
        thread pinned to each CPU in turn."""
        args = [sys.executable, os.path.join(ANALYSIS, "flagcheck"), "run", "--fio", FIO,
                NULL_JOB, "--no-calibrate", "--variants", "always",
                "--numjobs", str(len(USABLE)),
                "--repeats", "1", "--runtime", "2", "--ramp", "1",
                "--outdir", self.out, "--quiet"] + list(extra)
        proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
        seen, count = {}, {}
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            tasks = _tasks(proc.pid)
            # the runner's own threads are not fio's
            tasks.pop(proc.pid, None)
            for tid, task in tasks.items():
                seen[tid] = task
                count[tid] = count.get(tid, 0) + 1
            time.sleep(0.05)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        pinned = [seen[t] for t in seen if count[t] >= LONG_LIVED
                  and "," not in seen[t][0] and "-" not in seen[t][0]]
        return self.manifest()["runs"][0], pinned, seen

    @pytest.mark.skipif(len(USABLE) < 2, reason="needs 2 usable CPUs: on "
                        "one, every thread is allowed only that CPU")
    def test_placement_is_where_the_jobs_ran(self):
        entry, pinned, _ = self._run_and_watch()
        place = entry["placement"]
        assert place["pinned"]
        assert sorted(place["jobs"]) == USABLE
        # one pinned thread per job, each on the manifest's CPU, and the
        # kernel last ran each on that CPU
        assert sorted(int(a) for a, _ in pinned) == sorted(place["jobs"])
        assert sorted(cpu for _, cpu in pinned) == sorted(place["jobs"])
        with open(os.path.join(self.out, entry["json"])) as f:
            opts = json.load(f)["global options"]
        assert (opts["cpus_allowed"], opts["cpus_allowed_policy"],
                opts["ramp_time"]) == (place["cpus_allowed"], "split", "1")

    @pytest.mark.skipif(not (len(USABLE) > 1), reason="needs 2 usable CPUs")
    def test_no_pin_floats(self):
        entry, pinned, seen = self._run_and_watch("--no-pin")
        assert not entry["placement"]["pinned"]
        assert pinned == []
        assert seen
        with open(os.path.join(self.out, entry["json"])) as f:
            assert "cpus_allowed" not in json.load(f).get("global options", {})
