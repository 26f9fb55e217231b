"""S1 doing real I/O through a loop device (losetup): the kernel work of the
run's own I/O (the loop device's workers, kworkers, ksoftirqd) is the
run's, so a quiet machine is not called busy; with a CPU hog beside the
jobs every run is busy.  The quiet half allows the one interference no
quiet guest escapes, the hypervisor's steal, named as such.  Skipped, with the reason, where losetup is not
permitted, and the quiet half where the machine is not quiet."""

import os
import shutil
import time

import pytest

from tests.analysis.helpers import LOSETUP, REPO, ResultsDirCase, cpu_hog, \
    loop_device, run_cli
from flagcheck_analysis.inputs import fiojson
from flagcheck_analysis.run import interference

FIO = shutil.which("fio")
ENGINE = os.path.join(REPO, "build", "fio-flagcheck.so")
JOB = os.path.join(REPO, "jobs", "filemap-odirect-read.fio")
USABLE = sorted(os.sched_getaffinity(0))


def others_now(seconds=1.0):
    """Others' share of the usable CPUs over the next @seconds."""
    before = interference.sample(USABLE)
    time.sleep(seconds)
    m = interference.measure(before, interference.sample(USABLE), USABLE)
    return m["run_cpus"]["others_share"]


# slow: real flagcheck runs on a loop device
@pytest.mark.slow
# serial: the machine's load measured, a busy loop beside it
@pytest.mark.serial
@pytest.mark.skipif(not (FIO and LOSETUP and os.path.exists(ENGINE)),
                    reason="needs fio, losetup and the built engine")
class TestLoopDevice(ResultsDirCase):
    @pytest.fixture(autouse=True)
    def device(self):
        with loop_device(os.path.join(self.tmp, "disk.img"),
                         64 << 20) as self.dev:
            yield

    def run_s1(self):
        p = run_cli("run", JOB, "--numjobs", str(len(USABLE)),
                    "--repeats", "1", "--runtime", "1", "--ramp", "0",
                    "--no-line-probe", "--outdir", self.out, "--quiet",
                    "--set", "FILENAME=" + self.dev, "--set",
                    "BACKEND=libaio", "--set", "SIZE=32m", timeout=120)
        assert p.returncode == 0, p.stderr
        runs = self.manifest()["runs"]
        assert len(runs) == 2
        for e in runs:
            # real reads from the device, through the engine's libaio
            doc = fiojson.load_fio_json(os.path.join(self.out, e["json"]))
            assert sum(j["read"]["io_bytes"]
                       for j in doc["jobs"]) > 0
            stats = fiojson.load_counters(os.path.join(self.out, e["stats"]))
            assert {r["backend"] for r in stats} == {"libaio"}
            run = e["interference"]["run_cpus"]
            assert "kthreads_s" in run
            assert run["others_s"] <= run["not_ours_s"]
        return runs

    def test_quiet_machine_is_not_busy(self):
        share = others_now()
        if share > interference.DEFAULT_THRESHOLD / 2:
            pytest.skip("this machine is not quiet: others used %.0f%% of "
                        "CPUs %s just now" % (100 * share, USABLE))
        for e in self.run_s1():
            i = e["interference"]
            # the hypervisor's steal is interference too, and is named so;
            # the loop device's workers, kworkers and ksoftirqd are not
            assert [r for r in i["reasons"]
                    if not r.startswith("steal ")] == [], (e["name"], i)
            assert i["run_cpus"]["others_share"] <= \
                interference.DEFAULT_THRESHOLD, (e["name"], i)
            if not i["reasons"]:
                assert not i["busy"], (e["name"], i)

    def test_cpu_hog_beside_it_is_busy(self):
        with cpu_hog(USABLE[-1]):
            runs = self.run_s1()
        for e in runs:
            i = e["interference"]
            assert i["busy"], (e["name"], i)
            assert i["run_cpus"]["others_share"] > \
                interference.DEFAULT_THRESHOLD
