"""fio's clock, one for every run of a matrix (flagcheck_analysis.run.clock and
flagcheck run --clocksource)."""

import subprocess
import tempfile

import pytest

from tests.analysis.helpers import FIO, NULL_JOB, ResultsDirCase, run_cli
from tests.analysis.helpers import message
from flagcheck_analysis.report import clocksource
from flagcheck_analysis.run import clock


def kernel_says():
    """The kernel's clocksource, read here without the module."""
    try:
        with open("/sys/devices/system/clocksource/clocksource0/"
                  "current_clocksource") as f:
            return f.read().strip()
    except OSError:
        return None


class TestChoose:
    def test_auto_follows_the_kernel(self):
        assert clock.choose("auto", "tsc")[0] == "cpu"
        assert clock.choose("auto", "arch_sys_counter")[0] == "cpu"
        for other in ("kvm-clock", "hpet", "acpi_pm", "xen", None):
            cs, why = clock.choose("auto", other)
            assert cs == "clock_gettime", other
            assert (other or "unknown") in why

    def test_explicit_and_fio(self):
        for cs in ("cpu", "clock_gettime", "gettimeofday"):
            assert clock.choose(cs, "hpet") == (cs, "--clocksource %s" % cs)
        assert clock.choose("fio", "tsc")[0] is None
        assert clock.fio_args(None) == []
        assert clock.fio_args("cpu") == ["--clocksource=cpu"]

    def test_kernel_clocksource_reads_sysfs(self):
        with tempfile.NamedTemporaryFile("w") as f:
            f.write("tsc\n")
            f.flush()
            assert clock.kernel_clocksource(f.name) == "tsc"
        assert clock.kernel_clocksource("/nonexistent/cs") is None

    def test_report_line(self):
        assert clocksource.describe({"clocksource": "cpu",
                                     "clocksource_why": "x"}) == \
            "clock: fio clocksource=cpu for every run (x)"
        assert clocksource.describe({"clocksource": None,
                                     "clocksource_why": "y"}) == "clock: y"


class TestRunner(ResultsDirCase):
    def test_every_run_gets_the_kernels_clock(self):
        want = "cpu" if kernel_says() in ("tsc", "arch_sys_counter") \
            else "clock_gettime"
        p = run_cli("run", NULL_JOB, "--numjobs", "1",
                    "--repeats", "2", "--dry-run", "--outdir", self.out)
        assert p.returncode == 0, p.stderr
        cmds = [l for l in p.stdout.splitlines() if not l.startswith("#")]
        assert len(cmds) == 4, p.stdout
        for c in cmds:
            assert c.split().count("--clocksource=%s" % want) == 1, c
        p = run_cli("run", NULL_JOB, "--numjobs", "1",
                    "--repeats", "1", "--clocksource", "fio", "--dry-run",
                    "--outdir", self.out)
        assert p.returncode == 0, p.stderr
        assert "clocksource" not in p.stdout

    # slow: real flagcheck runs, fio for whole seconds
    @pytest.mark.slow
    def test_real_runs_record_the_clock_and_resume_refuses_another(self):
        p = run_cli("run", NULL_JOB, "--numjobs", "1",
                    "--repeats", "1", "--runtime", "1", "--ramp", "0",
                    "--clocksource", "clock_gettime", "--outdir", self.out,
                    "--quiet", timeout=120)
        assert p.returncode == 0, p.stderr
        m = self.manifest()
        assert m["conditions"]["clocksource"] == "clock_gettime"
        for run in m["runs"]:
            assert run["status"] == "ok"
            assert "--clocksource=clock_gettime" in run["command"]
        p = run_cli("report", "--verbose", self.out)
        assert p.returncode == 0, p.stderr
        assert ("clock: fio clocksource=clock_gettime for every run "
                "(--clocksource clock_gettime)") in p.stdout
        # resuming on another clock would mix two clocks in one cell
        p = run_cli("run", NULL_JOB, "--numjobs", "1",
                    "--repeats", "2", "--runtime", "1", "--ramp", "0",
                    "--clocksource", "cpu", "--outdir", self.out)
        assert p.returncode == 2
        assert message(p.stderr).splitlines()[-1] == \
            ("flagcheck run: error: --clocksource: %s has runs "
             "made with clocksource=clock_gettime "
             "(null-engine_always_nj1_r1), this command "
             "would use cpu: give --clocksource clock_gettime to "
             "resume it, or another --outdir" % self.out)
        p = run_cli("run", NULL_JOB, "--numjobs", "1",
                    "--repeats", "2", "--runtime", "1", "--ramp", "0",
                    "--clocksource", "clock_gettime", "--dry-run",
                    "--outdir", self.out)
        assert p.returncode == 0, p.stderr


class TestFioTakesIt:
    def test_fio_uses_the_clock_it_is_given(self):
        """fio's own word (--debug=time): the option reaches fio's clock,
        whatever fio would have picked by itself."""
        for cs, num in (("cpu", 3), ("clock_gettime", 2)):
            p = subprocess.run(
                [FIO, "--debug=time", "--clocksource=" + cs, "--name=c",
                 "--ioengine=null", "--size=1m", "--rw=read",
                 "--output-format=json"], capture_output=True, text=True,
                cwd=tempfile.gettempdir(), timeout=60)
            assert p.returncode == 0, p.stderr
            assert "gettime: clocksource=%d" % num in p.stdout + p.stderr
