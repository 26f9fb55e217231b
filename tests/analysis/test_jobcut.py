"""What fio cuts, the guards cut (issue 29 items 1, 2, 3, 5, 12, 17): the
job file and fio's command line read as fio 3.33 reads them, in one place
(inputs/jobfile.py) every guard uses.  The block-device cases on a loop device
the test creates and removes (skipped, with the reason, where losetup is
not permitted); the server case on a loopback fio server run as an
unprivileged user."""

import hashlib
import os
import pwd
import random
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

from tests.analysis.helpers import ENGINE, FIO, LOOPBACK, LOSETUP, REPO, \
    free_port, loop_device, message, run_cli
from tests.analysis.helpers import message
from flagcheck_analysis.cli.report import job_file_figures
from flagcheck_analysis.cli import guard
from flagcheck_analysis.inputs import jobfile
from flagcheck_analysis.guard import jobguard

RUN_JOB = os.path.join(REPO, "jobs", "run-job")
S2 = os.path.join(REPO, "jobs", "buffer-new-randwrite.fio")     # writes


def write(path, text, mode="w"):
    with open(path, mode) as f:
        f.write(text)
    return path


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def job_env(tmp, **env):
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("FLAGCHECK_") and k not in (
                "FILENAME", "BACKEND", "VARIANT")}
    base.update(FIO=FIO or "fio", FLAGCHECK_ENGINE=ENGINE, RUNTIME="1",
                NUMJOBS="1", SIZE="1m", FLAGCHECK_NUMA="off",
                FLAGCHECK_STATS=os.path.join(tmp, "stats.jsonl"))
    base.update(env)
    return base


def run_job(tmp, job, *args, **env):
    return subprocess.run([RUN_JOB, job] + list(args), cwd=tmp,
                          env=job_env(tmp, **env), capture_output=True,
                          text=True, errors="replace", timeout=60)


class TestReader:
    """jobfile.read against fio's own rules (parse.c strip_blank_end,
    init.c is_empty_or_comment and its section line, options.c
    fio_option_dup_subs)"""

    def setup_method(self):
        self.tmp = tempfile.mkdtemp()

    def teardown_method(self):
        shutil.rmtree(self.tmp)

    def test_cut_expand_sections(self):
        job = write(os.path.join(self.tmp, "j.fio"),
                    "; head\n[global]\nfilename=/a ;c\nrw=write#x\n"
                    "directory=/dev ;c\nioengine=exec ; the engine\n"
                    "  # comment\n\x01;ctl\n[/dev/x] ; a job\n"
                    "[two]\nbs = ${BS}\nsize=${}1m\nname=${NONE}n\f;x\n")
        sections, opts = jobfile.read(job, {"BS": "4k"})
        assert sections == ["global", "/dev/x", "two"]
        assert [(o.section, o.key, o.value) for o in opts] == [
            ("global", "filename", "/a"), ("global", "rw", "write"),
            ("global", "directory", "/dev"), ("global", "ioengine", "exec"),
            ("two", "bs", " 4k"), ("two", "size", "1m"),
            ("two", "name", "n")]

    @pytest.mark.skipif(not FIO, reason="needs fio")
    def test_as_fio_reads_it(self):
        """generated lines (seeded): the sections and the option values
        jobfile.read gives are those fio --parse-only --debug=parse
        handles, in order, with ${VAR} expanded after the cut"""
        rnd = random.Random(29)
        bits = [";", "#", " ", "\t", "\f", "\x01", "\r", "${V}", "${}",
                "${NONE}", "=", "[", "]", "a", "b", "/", ":", "\\:"]
        lines = []
        for n in range(300):
            junk = "".join(rnd.choice(bits) for _ in range(rnd.randint(0, 6)))
            kind = rnd.random()
            if kind < 0.1:
                lines.append("[s%03dz%s]%s" % (n, junk.replace("]", ""),
                                               junk))
            elif kind < 0.2:
                lines.append(rnd.choice([" ", "\t", "\x01", ""]) + (
                    rnd.choice(";#") + junk if rnd.random() < 0.7
                    else rnd.choice(["", "\f", "\r"])))
            else:
                lines.append("%sdescription%s=x%s" % (
                    rnd.choice(["", " ", "\t"]), rnd.choice(["", " "]),
                    junk))
        env = dict(os.environ, V="v;w#z")
        job = write(os.path.join(self.tmp, "gen.fio"),
                    "[global]\nioengine=null\nsize=1m\n" +
                    "\n".join(lines) + "\n")
        sections, opts = jobfile.read(job, env)
        ours = []
        for name in sections:
            ours.append(("section", name))
            ours += [("description", o.value) for o in opts
                     if o.section == name and o.key == "description"]
        p = subprocess.run([FIO, "--parse-only", "--debug=parse", job],
                           capture_output=True, env=env, timeout=60)
        theirs = []
        for line in p.stdout.decode("utf-8", "surrogateescape").split("\n"):
            m = re.match(r"^parse +\d+ +Parsing section \[(.*)\]$", line)
            if m:
                theirs.append(("section", m.group(1)))
            m = re.match(r"^parse +\d+ +handle_option=description, ptr=(.*)$",
                         line)
            if m:
                theirs.append(("description", m.group(1)))
        assert p.returncode == 0, p.stderr
        assert len(theirs) > 250
        assert theirs == ours

    def test_job_name_of_a_section_without_options(self):
        job = write(os.path.join(self.tmp, "j.fio"),
                    "[global]\nrw=write\n[/dev/loop9]\n")
        opts = jobguard.job_options(job, {})
        assert "/dev/loop9" in [p for p, pat, _ in
                                jobguard.candidates(opts) if not pat]

    def test_latin1_byte(self):
        """item 12: fio reads bytes; one Latin-1 byte is no traceback"""
        job = write(os.path.join(self.tmp, "l.fio"),
                    b"; caf\xe9\n[global]\nioengine=null\nsize=1m\n"
                    b"[j\xe9]\n", "wb")
        sections, _ = jobfile.read(job, {})
        assert sections == ["global", "j\udce9"]
        text = jobfile.render(job, {})
        assert jobfile.to_bytes(text) == open(job, "rb").read()
        assert guard.main([job]) == 0
        p = run_job(self.tmp, job, BACKEND="null")
        assert p.returncode == 0, p.stderr
        assert "Traceback" not in message(p.stderr)
        p = run_cli("run", job, "--dry-run", "--repeats", "1",
                    "--numjobs", "1")
        assert p.returncode == 0, p.stderr
        assert "Traceback" not in message(p.stderr)
        p = run_cli("catalogue", self.tmp, "--job", job)
        assert "Traceback" not in message(p.stderr)
        assert p.returncode == 1, p.stderr

    def test_only_regular_files(self):
        """item 5: a FIFO or /dev/zero named as a job file is refused
        before it is read (no hang, no growing memory)"""
        fifo = os.path.join(self.tmp, "fifo.fio")
        os.mkfifo(fifo)
        for path in (fifo, "/dev/zero"):
            with pytest.raises(jobfile.JobFileError) as cm:
                jobfile.read_text(path)
            assert str(cm.value) == ("%s: not a regular file: "
                                     "a job file must be one" % path)
            p = run_cli("catalogue", self.tmp, "--job", path,
                        timeout=30)
            assert message(p.stderr).splitlines()[-1] == (
                "flagcheck catalogue: %s: not a regular file: a job file "
                "must be one" % path)
            assert p.returncode == 1
            p = run_cli("run", path, "--dry-run", timeout=30)
            assert message(p.stderr).splitlines()[-1] == (
                "flagcheck run: error: %s: not a regular file: a job file "
                "must be one" % path)
            assert p.returncode == 2
            # a manifest naming it: flagcheck report's published figures
            assert job_file_figures(
                [{"matrix": {"jobs": {"s9": path}}}]) == {}
        big = write(os.path.join(self.tmp, "big.fio"),
                    "; x\n" * (jobfile.MAX_BYTES // 4 + 1))
        with pytest.raises(jobfile.JobFileError):
            jobfile.read_text(big)

    def test_values_from_variables_holding_a_cut(self):
        job = write(os.path.join(self.tmp, "j.fio"),
                    "[j]\nrw=write\nfilename=${F}\n")
        with pytest.raises(jobguard.Refused) as cm:
            jobguard.check_devices(job, {"F": "/tmp/a ;b/c"})
        assert str(cm.value) == (
            "filename=/tmp/a ;b/c in %s:3 (from filename=${F}): fio ends a "
            "value at ';' or '#' in some places and not in others, so which "
            "file or engine it would use is not certain: refused (name it "
            "without ';' and '#')" % job)
        with pytest.raises(jobguard.Refused):
            jobguard.check_devices(job, {"F": "x"}, ["--directory=/d#x"])
        with pytest.raises(jobguard.Refused) as cm:
            jobguard.check_devices(job, {"F": "x\n[/dev/sda]"})
        assert "${F} holds a line break" in str(cm.value)


@pytest.mark.skipif(not (FIO and LOSETUP and os.path.exists(ENGINE)),
                    reason="needs fio, losetup and the built engine")
class TestLoopDevice:
    """items 1 and 3 on a real block device: refused, and not written"""

    @pytest.fixture(autouse=True)
    def device(self):
        self.tmp = tempfile.mkdtemp()
        self.image = os.path.join(self.tmp, "disk.img")
        try:
            with loop_device(self.image, 4 << 20) as self.dev:
                self.before = sha(self.image)
                yield
        finally:
            shutil.rmtree(self.tmp)

    def assert_refused(self, p, text):
        assert p.returncode == 2, p.stderr
        assert text in message(p.stderr)
        assert "run-job: VARIANT=" not in message(p.stderr)  # fio not run
        assert sha(self.image) == self.before

    def test_run_job_cut_values(self):
        d = self.dev
        for env, args in (({"FILENAME": d + ";x"}, []),
                          ({"FILENAME": d + " #x"}, []),
                          ({"FILENAME": "f"}, ["--filename=%s;x" % d])):
            p = run_job(self.tmp, S2, *args, BACKEND="psync", **env)
            self.assert_refused(p, "fio ends a value at ';' or '#'")
            assert len(message(p.stderr).splitlines()) == 1, (
                env, args, p.stderr)

    def test_comment_after_a_device_in_the_job_file(self):
        job = write(os.path.join(self.tmp, "c.fio"),
                    "[global]\nioengine=psync\nrw=write\nsize=1m\n"
                    "[j]\nfilename=%s ;comment\n" % self.dev)
        p = run_job(self.tmp, job)
        self.assert_refused(p, "%s (from filename=%s in %s) is a block "
                            "device" % (self.dev, self.dev, job))

    def test_section_named_after_the_device(self):
        job = write(os.path.join(self.tmp, "s.fio"),
                    "[global]\nioengine=psync\nrw=write\nsize=1m\n"
                    "[%s]\n" % self.dev)
        p = run_job(self.tmp, job)
        self.assert_refused(p, "%s (from the job name %s) is a block "
                            "device" % (self.dev, self.dev))

    def test_runner_cut_value(self):
        p = run_cli("run", S2, "--outdir",
                    os.path.join(self.tmp, "out"), "--repeats", "1",
                    "--numjobs", "1", "--runtime", "1", "--no-line-probe",
                    "--set", "FILENAME=%s#x" % self.dev, "--set",
                    "BACKEND=psync", "--set", "SIZE=1m")
        assert p.returncode == 2, p.stderr
        assert "flagcheck run: error: filename=%s#x in %s:" % (
            self.dev, S2) in message(p.stderr)
        assert sha(self.image) == self.before


@pytest.mark.skipif(not FIO, reason="needs fio")
class TestServer:
    """item 2: ioengine=exec with a comment after it is not sent to a fio
    server without --allow-exec; directory=/dev with one is a /dev name"""

    def setup_method(self):
        self.tmp = tempfile.mkdtemp()
        os.chmod(self.tmp, 0o777)
        self.stops = []

    def teardown_method(self):
        for stop in reversed(self.stops):
            stop()
        shutil.rmtree(self.tmp)

    def server(self):
        """A fio server on a loopback port, as nobody when run as root."""
        port = free_port()
        user = None
        if os.geteuid() == 0:
            user = pwd.getpwnam("nobody")
        proc = subprocess.Popen(
            [FIO, "--server=ip:%s,%d" % (LOOPBACK, port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL, start_new_session=True, cwd=self.tmp,
            user=user.pw_uid if user else None,
            group=user.pw_gid if user else None,
            extra_groups=[] if user else None)

        def stop():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.stops.append(stop)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection((LOOPBACK, port), 1).close()
                return "%s,%d" % (LOOPBACK, port)
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("fio --server did not start")
                time.sleep(0.05)

    def test_exec_with_a_comment(self):
        marker = os.path.join(self.tmp, "ran")
        job = write(os.path.join(self.tmp, "exec.fio"),
                    "[global]\nsize=${SIZE}\n[j]\n"
                    "ioengine=exec ; the engine\nprogram=/bin/touch\n"
                    "arguments=%s\nruntime=1\n" % marker)
        p = run_cli("run", job, "--outdir",
                    os.path.join(self.tmp, "out"), "--repeats", "1",
                    "--numjobs", "1", "--runtime", "1", "--client",
                    self.server(), timeout=90)
        assert p.returncode == 2, p.stderr
        assert message(p.stderr).splitlines()[-1] == \
            ("flagcheck run: error: %s: ioengine=exec would have "
             "every fio server run the program its program= "
             "names, as the server's user; give --allow-exec if "
             "you mean it" % job)
        assert not os.path.exists(marker)

    def test_dev_directory_with_a_comment(self):
        # the same relative name under another directory: accepted
        ok = write(os.path.join(self.tmp, "srv.fio"),
                   "[global]\nrw=write\nsize=1m\nfilename=sdz\n"
                   "directory=/srv ;c\n[j]\n")
        p = run_cli("run", ok, "--dry-run", "--repeats", "1",
                    "--numjobs", "1", "--client", "127.0.0.1,1")
        assert p.returncode == 0, p.stderr
        job = write(os.path.join(self.tmp, "dir.fio"),
                    "[global]\nrw=write\nsize=1m\nfilename=sdz\n"
                    "directory=/dev ;c\n[j]\n")
        p = run_cli("run", job, "--dry-run", "--repeats", "1",
                    "--numjobs", "1", "--client", "127.0.0.1,1")
        assert p.returncode == 2, p.stderr
        assert ("/dev/sdz (from filename=sdz in %s under directory="
                "/dev in %s) is a name under /dev/ on the hosts"
                % (job, job)) in message(p.stderr)


class TestPatterns:
    """item 17: what the engine would get that is not what the job file
    says: run-job and flagcheck run read the job file and say so"""

    def setup_method(self):
        self.tmp = tempfile.mkdtemp()

    def teardown_method(self):
        shutil.rmtree(self.tmp)

    def job(self, lines):
        return write(os.path.join(self.tmp, "p.fio"),
                     "[global]\nioengine=external:${FLAGCHECK_ENGINE}\n"
                     "backend=null\nmodel=pattern\nvariant=${VARIANT}"
                     "   ; always | test_first\nfilename=x\nsize=1m\n"
                     "rw=randwrite\nnumjobs=${NUMJOBS}\ntime_based\n"
                     "runtime=${RUNTIME}\nflagcheck_stats=${FLAGCHECK_STATS}"
                     "\n%s\n[j]\n" % lines)

    def both(self, job, numjobs="2"):
        rj = run_job(self.tmp, job, NUMJOBS=numjobs, BACKEND="null")
        fr = run_cli("run", job, "--dry-run", "--repeats", "1",
                     "--numjobs", numjobs, "--no-pin")
        return rj, fr

    def test_pattern_cut_by_a_comment(self):
        job = self.job("pattern_words=a@0\npattern=set_bit(a,0);"
                       "set_bit(a,1)")
        want = ("%s:14: pattern=set_bit(a,0);set_bit(a,1): fio ends the "
                "line at ';' (a comment), so the engine would get "
                "pattern=set_bit(a,0); separate operations with ',' "
                "(docs/pattern.md), and put a blank before a comment" % job)
        rj, fr = self.both(job)
        assert (rj.returncode, message(rj.stderr)) == (2, "run-job: %s\n"
                                                       % want)
        assert fr.returncode == 2, fr.stderr
        assert message(fr.stderr).splitlines()[-1] == \
            "flagcheck run: error: %s" % want
        # a comment after a blank is a comment
        job = self.job("pattern_words=a@0\npattern=set_bit(a,0) ;c")
        rj, fr = self.both(job)
        assert fr.returncode == 0, fr.stderr
        assert "run-job: VARIANT=" in rj.stderr

    def test_writers_above_numjobs(self):
        job = self.job("pattern_words=a@0\npattern=set_bit(a,0)\n"
                       "pattern_writers=3")
        want = ("%s:15: pattern_writers=3 is above numjobs=2: every job "
                "would write, as with 0; want 0..2" % job)
        rj, fr = self.both(job)
        assert (rj.returncode, message(rj.stderr)) == (2, "run-job: %s\n"
                                                       % want)
        assert message(fr.stderr).splitlines()[-1] == \
            "flagcheck run: error: %s" % want
        rj, fr = self.both(job, "3")
        assert fr.returncode == 0, fr.stderr
        assert "run-job: VARIANT=" in rj.stderr

    def test_node_words_without_cpus_allowed(self):
        job = self.job("pattern_words=a@0:node\npattern=set_bit(a,0)")
        want = ("%s:13: pattern_words=a@0:node has a :node word and no "
                "cpus_allowed pins the jobs: each job uses the copy of the "
                "node it happens to start on" % job)
        rj, fr = self.both(job)
        assert message(rj.stderr).splitlines()[0] == \
            "run-job: warning: %s" % want
        assert fr.returncode == 0, fr.stderr
        assert "flagcheck run: warning: %s\n" % want in message(fr.stderr)
        rj = run_job(self.tmp, job, "--cpus_allowed=0", BACKEND="null")
        assert "warning" not in rj.stderr
