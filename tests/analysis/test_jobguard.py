"""No block device written by mistake (issue 11 item 1), no command run on
a fio server by mistake (item 16): jobs/run-job and flagcheck run with the
real fio, against a block device node of a major number no driver holds
(opening it fails with ENXIO: nothing can be written, whatever happens)."""

import os
import re
import shutil
import stat
import subprocess
import tempfile

import pytest

from tests.analysis.helpers import ENGINE, FIO, LOSETUP, REPO, loop_device, \
    run_cli
from tests.analysis.helpers import message
from tests.analysis.test_clientserver import Servers
from flagcheck_analysis.guard import jobguard

RUN_JOB = os.path.join(REPO, "jobs", "run-job")
S1 = os.path.join(REPO, "jobs", "filemap-odirect-read.fio")      # reads
S2 = os.path.join(REPO, "jobs", "buffer-new-randwrite.fio")     # writes


def free_block_major():
    """A major number of the experimental range (240-254) that no block
    driver has taken, or None."""
    with open("/proc/devices") as f:
        text = f.read()
    taken = {int(m) for m in re.findall(r"^\s*(\d+) ",
                                        text.split("Block devices:")[1],
                                        re.M)}
    return next((m for m in range(240, 255) if m not in taken), None)


def fio_files(args):
    """The files fio itself adds while parsing (fio --parse-only
    --debug=file): filename lists and directories as fio resolves them."""
    p = subprocess.run([FIO, "--parse-only", "--debug=file"] + args,
                       capture_output=True, text=True, timeout=30)
    return sorted(re.findall(r'^file .* "(.*)" added at \d+$', p.stdout,
                             re.M))


class TestNames:
    def test_lists_and_escapes(self):
        assert jobguard.split_list("a:b\\:c::d:") == ["a", "b:c", "d"]

    def test_command_line_forms(self):
        opts = jobguard.cmdline_options(
            ["--filename=a", "--filename", "b", "-filename=c", "--bs", "4k",
             "--time_based", "--filename_f=d", "--dir=e"])
        assert [(k, v) for _, k, v, _ in opts] == [
            ("filename", "a"), ("filename", "b"), ("filename", "c"),
            ("filename_format", "d"), ("directory", "e")]

    @pytest.mark.skipif(not FIO, reason="fio not installed")
    def test_explicit_names_as_fio_reads_them(self):
        with tempfile.TemporaryDirectory() as d:
            for args in (
                    ["--name=j", "--filename=x:y\\:z:" + d + "/w"],
                    ["--name=j", "--directory=" + d, "--filename=a:/abs"],
                    ["--name=j", "--directory=" + d + ":/tmp",
                     "--filename=b"]):
                opts = jobguard.cmdline_options(args)
                ours = {os.path.normpath(p) for p, pattern, _ in
                        jobguard.candidates(opts) if not pattern}
                for f in fio_files(args + ["--ioengine=null",
                                           "--size=1m"]):
                    assert os.path.normpath(f) in ours, args


@pytest.mark.skipif(not (FIO and os.path.exists(ENGINE) and os.geteuid() == 0
                         and free_block_major() is not None),
                    reason="needs fio, the built engine, root (mknod) and a "
                    "free block major number")
class TestBlockDevices:
    def setup_method(self):
        self.tmp = tempfile.mkdtemp()
        self.node = os.path.join(self.tmp, "blk0")
        os.mknod(self.node, 0o600 | stat.S_IFBLK,
                 os.makedev(free_block_major(), 0))
        self.link = os.path.join(self.tmp, "link")
        os.symlink(self.node, self.link)

    def teardown_method(self):
        shutil.rmtree(self.tmp)

    def run_job(self, job, *args, **env):
        base = {k: v for k, v in os.environ.items()
                if not k.startswith("FLAGCHECK_") and k not in (
                    "FILENAME", "BACKEND", "VARIANT")}
        base.update(FIO=FIO, FLAGCHECK_ENGINE=ENGINE, RUNTIME="1", NUMJOBS="1",
                    SIZE="16m", FLAGCHECK_STATS=os.path.join(
                        self.tmp, "stats.jsonl"), FLAGCHECK_NUMA="off")
        base.update(env)
        cwd = os.path.join(self.tmp, "cwd")
        os.makedirs(cwd, exist_ok=True)
        return subprocess.run([RUN_JOB, job] + list(args), cwd=cwd,
                              env=base, capture_output=True, text=True,
                              timeout=60)

    def assert_refused(self, p, origin):
        assert p.returncode == 2, p.stderr
        # one message: a line and the indented lines that go on from it
        lines = re.sub(r"\n  +", " ", p.stderr).splitlines()
        assert len(lines) == 1, p.stderr
        assert (" is a block device: its data would be lost; set "
                "FLAGCHECK_DESTROY=yes") in lines[0]
        assert "(from %s" % origin in lines[0]
        # fio not started
        assert "run-job: VARIANT=" not in message(p.stderr)

    def assert_started(self, p):
        assert "run-job: VARIANT=" in message(p.stderr)
        assert "block device" not in message(p.stderr)

    def test_every_way_to_name_a_device(self):
        d = self.tmp
        for env, args, origin in (
                ({}, ["--filename=" + self.node],
                 "filename=%s on the command line" % self.node),
                ({}, ["--filename", self.node],
                 "filename=%s on the command line" % self.node),
                ({}, ["-filename=" + self.node],
                 "filename=%s on the command line" % self.node),
                ({}, ["--filename=other:" + self.node],
                 "filename=other:%s on the command line" % self.node),
                ({}, ["--filename=" + self.link],
                 "filename=%s on the command line" % self.link),
                ({}, ["--name=more", "--filename_format=%s/blk$jobnum" % d],
                 "filename_format=%s/blk$jobnum on the command line" % d),
                ({"FILENAME": "blk0"}, ["--directory=" + d],
                 "filename=blk0 in %s under directory=%s on the command "
                 "line" % (S2, d)),
                ({"FILENAME": self.link}, [],
                 "filename=%s in %s" % (self.link, S2)),
                ({"FILENAME": "x:" + self.node}, [],
                 "filename=x:%s in %s" % (self.node, S2))):
            p = self.run_job(S2, *args, BACKEND="libaio", **env)
            self.assert_refused(p, origin)

    # slow: a real flagcheck run on a loop device
    @pytest.mark.slow
    def test_allowed(self):
        # FLAGCHECK_DESTROY=yes; a job that only reads; the null backend
        for job, env in ((S2, {"FLAGCHECK_DESTROY": "yes",
                               "BACKEND": "psync"}),
                         (S1, {"BACKEND": "psync"}),
                         (S2, {"BACKEND": "null"})):
            self.assert_started(self.run_job(
                job, "--filename=" + self.node, **env))
        # the null backend, but another engine given here: refused
        p = self.run_job(S2, "--ioengine=psync", "--filename=" + self.node,
                         BACKEND="null")
        self.assert_refused(p, "filename=%s on the command line" % self.node)

    def runner(self, *args, **env):
        return run_cli("run", S2, "--dry-run", "--repeats", "1",
                       "--set", "BACKEND=psync", *args,
                       env=dict(os.environ, **env))

    def test_runner_refuses_too(self):
        for target in (self.node, self.link, "x:" + self.node):
            p = self.runner("--set", "FILENAME=" + target)
            assert p.returncode == 2, p.stderr
            assert ("flagcheck run: error: %s writes (rw=randwrite) "
                    "and %s (from filename=%s in %s) is a block "
                    "device" % (S2, self.node if target != self.link
                                else self.link, target, S2)) in \
                message(p.stderr)
        for allow in ({"FLAGCHECK_DESTROY": "yes"}, {}):
            args = ["--set", "FILENAME=" + self.node]
            if not allow:
                args += ["--set", "FLAGCHECK_DESTROY=yes"]
            p = self.runner(*args, **allow)
            assert p.returncode == 0, p.stderr


class TestHosts:
    """item 16: a job that has the server run a command is not sent to a
    fio server without --allow-exec"""

    def test_exec_refused_on_hosts(self):
        with tempfile.TemporaryDirectory() as d:
            job = os.path.join(d, "exec.fio")
            with open(job, "w") as f:
                f.write("[global]\nioengine=null\nsize=${SIZE}\n"
                        "exec_postrun=rm -rf ${FILENAME}\n[j]\n")
            base = [job, "--dry-run", "--repeats", "1", "--numjobs", "1"]
            p = run_cli("run", *base, "--client", "127.0.0.1,1")
            assert p.returncode == 2, p.stderr
            assert message(p.stderr).splitlines()[-1] == \
                ("flagcheck run: error: %s: exec_postrun=rm -rf "
                 "flagcheck-null would have every fio server run "
                 "that command, as the server's user; give "
                 "--allow-exec if you mean it" % job)
            for more in (["--client", "127.0.0.1,1", "--allow-exec"], []):
                p = run_cli("run", *base, *more)
                assert p.returncode == 0, p.stderr

    def test_every_option_that_runs_a_program(self):
        """issue 21 item 9: ioengine=exec and any engine library fio would
        load, besides exec_prerun/exec_postrun (fio's HOWTO)"""
        top = tempfile.TemporaryDirectory()
        # a library that exists here: fio refuses an external: path that
        # does not while it reads the job
        evil = os.path.join(top.name, "evil.so")
        open(evil, "w").close()
        cases = (("ioengine=exec\nprogram=/bin/touch\narguments=/tmp/x\n",
                  "ioengine=exec", "the program its program= names"),
                 ("ioengine=external:%s\n" % evil,
                  "ioengine=external:%s" % evil,
                  "the code of that library (fio loads it)"),
                 ("ioengine=%s\n" % evil, "ioengine=%s" % evil,
                  "the code of that library (fio loads it)"),
                 ("exec_prerun=/bin/true\n", "exec_prerun=/bin/true",
                  "that command"))
        with top as d:
            job = os.path.join(d, "exec.fio")
            for text, option, what in cases:
                with open(job, "w") as f:
                    f.write("[global]\nsize=${SIZE}\n[j]\n" + text)
                base = [job, "--dry-run", "--repeats", "1", "--numjobs", "1",
                        "--client", "127.0.0.1,1"]
                p = run_cli("run", *base)
                assert p.returncode == 2, p.stderr
                assert message(p.stderr).splitlines()[-1] == \
                    ("flagcheck run: error: %s: %s would have "
                     "every fio server run %s, as the server's "
                     "user; give --allow-exec if you mean it"
                     % (job, option, what))
                p = run_cli("run", *base, "--allow-exec")
                assert p.returncode == 0, p.stderr
            # the flagcheck engine itself is what the job files load
            with open(job, "w") as f:
                f.write("[j]\nioengine=external:${FLAGCHECK_ENGINE}\n")
            p = run_cli("run", job, "--dry-run", "--repeats", "1",
                        "--numjobs", "1", "--client", "127.0.0.1,1")
            assert p.returncode == 0, p.stderr

    def test_device_names_on_hosts(self):
        """item 1 on hosts: their devices can not be looked at from here"""
        base = [S2, "--dry-run", "--repeats", "1", "--numjobs", "1",
                "--set", "FILENAME=/dev/sdz", "--set", "BACKEND=psync"]
        p = run_cli("run", *base, "--client", "127.0.0.1,1")
        assert p.returncode == 2, p.stderr
        assert ("/dev/sdz (from filename=/dev/sdz in %s) is a name "
                "under /dev/ on the hosts, where it may be a block "
                "device: its data would be lost; set "
                "FLAGCHECK_DESTROY=yes" % S2) in message(p.stderr)
        p = run_cli("run", *base, "--client", "127.0.0.1,1",
                    "--set", "FLAGCHECK_DESTROY=yes")
        assert p.returncode == 0, p.stderr


@pytest.mark.skipif(not (FIO and LOSETUP and os.path.exists(ENGINE)),
                    reason="needs fio, losetup and the built engine")
def test_relative_device_name_on_hosts(tmp_path):
    """issue 49 item 1: a name is judged by what it leads to where fio opens
    it: here from fio's working directory; on a fio server, whose working
    directory is not known here, a relative name of a writing job is
    refused (a server working in / would write dev/loopN)"""
    image = str(tmp_path / "disk.img")
    servers = Servers(str(tmp_path))
    with loop_device(image, 1 << 20) as dev:
        rel = os.path.relpath(dev, "/")
        base = [S2, "--repeats", "1", "--numjobs", "1", "--runtime", "1",
                "--outdir", str(tmp_path / "out"), "--set", "FILENAME=" + rel,
                "--set", "BACKEND=psync", "--set", "SIZE=64k", "--quiet"]
        p = run_cli("run", *base, "--dry-run", cwd="/")
        assert p.returncode == 2, p.stderr
        assert ("%s (from filename=%s in %s) is a block device"
                % (rel, rel, S2) in message(p.stderr))
        try:
            host = servers.start(cwd="/")
            p = run_cli("run", *base, "--client", host, cwd=str(tmp_path))
        finally:
            servers.stop()
        assert p.returncode == 2, p.stderr
        assert message(p.stderr).splitlines()[-1] == (
            "flagcheck run: error: %s writes (rw=randwrite) on the hosts and "
            "%s (from filename=%s in %s) is a relative name, opened from the "
            "fio server's working directory, which is not known here: it may "
            "be a block device there; name an absolute path (or set "
            "directory=), or set FLAGCHECK_DESTROY=yes to run it anyway"
            % (S2, rel, rel, S2))
        with open(image, "rb") as f:
            assert f.read() == bytes(1 << 20)      # nothing written
        for more in (["--set", "FILENAME=" + str(tmp_path / "file")],
                     ["--set", "FLAGCHECK_DESTROY=yes"]):
            p = run_cli("run", *base, "--dry-run", "--client", "127.0.0.1,1",
                        *more)
            assert p.returncode == 0, p.stderr
    for name, why in (("/tmp/../dev/x", "has a '..'"),
                      ("/proc/self/root/dev/x", "is a name under /proc/")):
        p = run_cli("run", *base, "--dry-run", "--client", "127.0.0.1,1",
                    "--set", "FILENAME=" + name)
        assert p.returncode == 2, p.stderr
        assert "%s (from filename=%s in %s) %s" % (name, name, S2, why) in \
            message(p.stderr)
