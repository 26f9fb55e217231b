"""fio's own logs past the device guard: write_bw_log=, write_lat_log=,
write_iops_log=, write_hist_log=, write_iolog= and merge_blktrace_file=
are opened for writing whatever rw= is, under the names fio 3.33 derives
(init.c gen_log_name); an existing one that is not a regular file (here a
symlink to /dev/null, a FIFO, a directory: never a real device) is
refused by jobs/run-job and flagcheck run before fio starts."""

import os

import pytest

from tests.analysis.helpers import REPO, message, run_cli
from tests.analysis.test_guard_keywords import needs_fio, run_job
from flagcheck_analysis.guard import fiologs, jobguard

S1 = os.path.join(REPO, "jobs", "filemap-odirect-read.fio")      # reads
ALLOWED = ": a regular file or a new name is allowed, never a link (fio " \
    "writes its logs whatever rw= is)"
# a link is refused whatever it points to (inputs/outpath.py)
TO_NULL = "which is a symbolic link (to a character device)"


def refusal(job, env=None, args=(), remote=False):
    with pytest.raises(jobguard.Refused) as e:
        jobguard.check_devices(str(job), env or {}, args, remote)
    return str(e.value)


def write_job(tmp_path, body, name="j"):
    job = tmp_path / "j.fio"
    job.write_text("[%s]\nioengine=null\nrw=read\nsize=1m\n%s" % (name, body))
    return job


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


class TestNames:
    """The names fio opens, as tested against fio itself: P_bw.1.log,
    P_lat.1.log, P_slat.1.log, P_clat.1.log, P_clat_hist.1.log,
    P_iops.log.fz with per_job_logs=0 and log_store_compressed=1, and
    JOB_bw.1.log for a bare write_bw_log in job [JOB]."""

    NAMES = ("x_bw.1.log", "x_bw.12.log", "x_bw.log", "x_bw.1.log.fz",
             "x_bw.a.log", "xx_bw.1.log", "x_iops.2.log", "x_lat.1.log",
             "x_slat.1.log", "x_clat.1.log", "x_clat_hist.1.log",
             "x_bw.1.log.host", "j_bw.3.log", "y_iops.log.fz")

    def found(self, tmp_path, opts, names=("j",), remote=False):
        for n in self.NAMES:
            (tmp_path / n).write_text("")
        return sorted(os.path.basename(p) for _, _, _, p in
                      fiologs.log_files(opts, names, remote))

    def opts(self, *pairs):
        return [(None, k, v, "%s=%s" % (k, v)) for k, v in pairs]

    def test_each_option(self, here):
        x = str(here / "x")
        assert self.found(here, self.opts(("write_bw_log", x))) == [
            "x_bw.1.log", "x_bw.12.log"]
        assert self.found(here, self.opts(("write_lat_log", x))) == [
            "x_clat.1.log", "x_lat.1.log", "x_slat.1.log"]
        assert self.found(here, self.opts(("write_hist_log", x))) == [
            "x_clat_hist.1.log"]
        assert self.found(here, self.opts(("write_iops_log", "x"))) == [
            "x_iops.2.log"]
        assert self.found(here, self.opts(("write_iolog", "x_bw.log"))) == [
            "x_bw.log"]
        assert self.found(here, self.opts(
            ("merge_blktrace_file", "nothing"))) == ["nothing"]

    def test_per_job_logs_and_compression(self, here):
        assert self.found(here, self.opts(("write_bw_log", "x"),
                                          ("per_job_logs", "0"))) == [
            "x_bw.1.log", "x_bw.12.log", "x_bw.log"]
        assert self.found(here, self.opts(("write_bw_log", "x"),
                                          ("log_store_compressed", "1"))) \
            == ["x_bw.1.log", "x_bw.1.log.fz", "x_bw.12.log"]
        assert self.found(here, self.opts(
            ("write_iops_log", "y"), ("per_job_logs", "false"),
            ("log_store_compressed", "1"))) == ["y_iops.log.fz"]

    def test_the_job_name_and_hosts(self, here):
        assert self.found(here, self.opts(("write_bw_log", ""))) == [
            "j_bw.3.log"]
        assert self.found(here, self.opts(("write_bw_log", "x")),
                          remote=True) == ["x_bw.1.log.fz",    # a host "fz"
                                           "x_bw.1.log.host"]


class TestGuard:
    def test_each_option_and_target(self, here):
        os.mkfifo(here / "fifo")
        os.mkdir(here / "dir")
        for option, link, target, what in (
                ("write_bw_log", "x_bw.1.log", "/dev/null",
                 "a character device"),
                ("write_lat_log", "x_slat.1.log", str(here / "fifo"),
                 "a FIFO"),
                ("write_iops_log", "x_iops.1.log", str(here / "dir"),
                 "a directory"),
                ("write_hist_log", "x_clat_hist.1.log", "/dev/null",
                 "a character device")):
            os.symlink(target, here / link)
            job = write_job(here, "%s=x\n" % option)
            assert refusal(job) == (
                "%s: %s=x (from %s=x in %s) writes x_%s, which is a "
                "symbolic link (to %s)%s"
                % (job, option, option, job, link[2:], what, ALLOWED))
            os.unlink(here / link)
            jobguard.check_devices(str(job), {})     # fio may run it
        for option in ("write_iolog", "merge_blktrace_file"):
            job = write_job(here, "%s=fifo\n" % option)
            assert refusal(job) == ("%s: %s=fifo (from %s=fifo in %s) is a "
                                    "FIFO%s" % (job, option, option, job,
                                                ALLOWED))

    def test_derived_names(self, here):
        os.symlink("/dev/null", here / "x_bw.log")
        job = write_job(here, "write_bw_log=x\n")
        jobguard.check_devices(str(job), {})         # fio writes x_bw.1.log
        job = write_job(here, "write_bw_log=x\nper_job_logs=0\n")
        assert "writes x_bw.log, " + TO_NULL in refusal(job)
        os.symlink("/dev/null", here / "sec_bw.1.log")
        job = write_job(here, "write_bw_log\n", name="sec")
        assert refusal(job) == (
            "%s: write_bw_log= (from write_bw_log= in %s) writes "
            "sec_bw.1.log, which is a symbolic link (to a character "
            "device)%s"
            % (job, job, ALLOWED))
        jobguard.check_devices(str(job), {"FLAGCHECK_DESTROY": "yes"})

    def test_after_fio_expands_the_value(self, here):
        page = str(os.sysconf("SC_PAGESIZE"))
        os.symlink("/dev/null", here / ("l%s_bw.1.log" % page))
        job = write_job(here, "write_bw_log=${LOG}\n")
        assert "writes l%s_bw.1.log, %s" % (page, TO_NULL) \
            in refusal(job, {"LOG": "l$pagesize"})
        job = write_job(here, "write_bw_log=l$pagesize\n")
        assert "writes l%s_bw.1.log" % page in refusal(job)
        job = write_job(here, "write_bw_log=l${X}\n")
        assert "fio ends a value at ';' or '#'" in refusal(job, {"X": "a;b"})

    def test_command_line(self, here):
        os.symlink("/dev/null", here / "x_clat.7.log")
        job = write_job(here, "")
        for args in (["--write_lat_log=x"], ["--write_lat_log", "x"],
                     ["--write_lat=x"]):
            assert refusal(job, args=args) == (
                "%s: write_lat_log=x (from %s=x on the command line) "
                "writes x_clat.7.log, %s%s" % (
                    job, args[0].lstrip("-").split("=")[0], TO_NULL,
                    ALLOWED))

    def test_hosts(self, here):
        os.symlink("/dev/null", here / "x_bw.1.log.10.0.0.1")
        job = write_job(here, "write_bw_log=x\nwrite_iolog=/dev/sdz\n")
        jobguard.check_devices(str(job), {})
        assert "writes x_bw.1.log.10.0.0.1, " + TO_NULL \
            in refusal(job, remote=True)
        os.unlink(here / "x_bw.1.log.10.0.0.1")
        assert "write_iolog=/dev/sdz (from write_iolog=/dev/sdz in %s) is a " \
            "name under /dev/ on the hosts" % job in refusal(job, remote=True)


@needs_fio
def test_run_job_refuses_a_log_on_a_device(tmp_path):
    os.symlink("/dev/null", tmp_path / "x_bw.1.log")
    p = run_job(str(tmp_path), S1, "--write_bw_log=x", BACKEND="null")
    assert p.returncode == 2, p.stderr
    assert message(p.stderr) == (
        "run-job: %s: write_bw_log=x (from write_bw_log=x on the command "
        "line) writes x_bw.1.log, %s%s\n" % (S1, TO_NULL, ALLOWED))
    assert "run-job: VARIANT=" not in p.stderr      # fio not started
    p = run_job(str(tmp_path), S1, "--write_bw_log=y", BACKEND="null")
    assert p.returncode == 0, p.stderr
    assert os.path.isfile(tmp_path / "y_bw.1.log")


@needs_fio
def test_flagcheck_run_refuses_a_log_on_a_device(tmp_path):
    os.symlink("/dev/null", tmp_path / "x_iops.1.log")
    job = tmp_path / "logs.fio"
    job.write_text("[j]\nioengine=null\nrw=read\nsize=${SIZE}\n"
                   "write_iops_log=${LOG}\n")
    for more in ([], ["--client", "127.0.0.1,1"]):
        if more:
            os.rename(tmp_path / "x_iops.1.log",
                      tmp_path / "x_iops.1.log.127.0.0.1")
        p = run_cli("run", str(job), "--dry-run", "--repeats",
                    "1", "--numjobs", "1", "--set", "LOG=x", *more,
                    cwd=str(tmp_path))
        assert p.returncode == 2, p.stderr
        assert ("flagcheck run: error: %s: write_iops_log=x (from "
                "write_iops_log=x in %s) writes x_iops.1.log%s, %s%s"
                % (job, job, ".127.0.0.1" if more else "", TO_NULL,
                   ALLOWED)) \
            in message(p.stderr), p.stderr
        p = run_cli("run", str(job), "--dry-run", "--repeats",
                    "1", "--numjobs", "1", "--set", "LOG=y", *more,
                    cwd=str(tmp_path))
        assert p.returncode == 0, p.stderr
