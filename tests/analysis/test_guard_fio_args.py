"""What fio writes or removes past its job file's rw=: fio's short options
(-o FILE), every job file on its command line, --trigger-file, a replayed
iolog (read_iolog=, replay_redirect=) and the verify state.  jobs/run-job
and flagcheck run refuse each before fio starts, against a scratch loop
device whose SHA-256 is the same before and after (test_out_paths'
fixture: a node of it made in the test's directory)."""

import os

import pytest

from tests.analysis.helpers import message, run_cli
from tests.analysis.test_guard_keywords import S1, S2, needs_fio, refused, \
    run_job
from tests.analysis.test_out_paths import device  # noqa: F401 (fixture)
from flagcheck_analysis.guard import fioargs, jobguard, replay

BLOCK = "is a block device: its data would be lost; set " \
    "FLAGCHECK_DESTROY=yes to run it anyway"


def iolog(path, target, actions=("write",), version=2):
    """An iolog of @version at @path: @target added, opened, each of
    @actions on 4 KiB of it, closed."""
    t = "1 " if version == 3 else ""
    lines = ["fio version %d iolog" % version, "%s%s add" % (t, target),
             "%s%s open" % (t, target)] + \
        ["%s%s %s %d 4096" % (t, target, a, 4096 * i)
         for i, a in enumerate(actions)] + ["%s%s close" % (t, target)]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return str(path)


def refusal(job, env=None, args=(), remote=False):
    with pytest.raises(jobguard.Refused) as e:
        jobguard.check_devices(str(job), env or {}, args, remote)
    return str(e.value)


def null_job(tmp_path, body="", name="j"):
    job = tmp_path / "j.fio"
    job.write_text("[%s]\nioengine=null\nrw=read\nsize=1m\n%s" % (name, body))
    return str(job)


class TestCommandLine:
    ASK = staticmethod(fioargs.asking("fio"))

    def read(self, *args):
        opts, jobs, maybe = fioargs.read(list(args), self.ASK)
        return sorted({(o.name, o.value) for o in opts if o.fio}), jobs, maybe

    def test_short_options(self):
        out = [("output", "/dev/X")]
        assert self.read("-o", "/dev/X") == (out, [], [])
        assert self.read("-o/dev/X") == (out, [], [])
        assert self.read("-bo", "/dev/X", "j.fio")[0] == [
            ("bandwidth-log", None), ("output", "/dev/X")]
        assert self.read("-W", "/dev/X")[0] == [("trigger-file", "/dev/X")]

    @pytest.mark.skipif(not fioargs.asking("fio")("bs"),
                        reason="needs fio (fio --cmdhelp)")
    def test_job_files_among_the_options(self):
        assert self.read("--output", "a.fio", "b.fio") == (
            [("output", "a.fio")], ["b.fio"], [])
        # --thread takes a value only after '=': the next word is a job
        assert self.read("--thread", "b.fio")[1:] == (["b.fio"], [])
        assert self.read("--bs", "4k", "b.fio")[1:] == (["b.fio"], [])
        # an option fio does not know (an engine's): both
        assert self.read("--hipri", "b.fio")[1:] == ([], ["b.fio"])
        assert self.read("--", "-o")[1:] == (["-o"], [])


class TestReplayLog:
    def test_actions_and_files(self, tmp_path):
        for v in (2, 3):
            assert replay.read_log(iolog(tmp_path / "w", "/dev/X",
                                         version=v)) == (True, ["/dev/X"])
            assert replay.read_log(iolog(tmp_path / "r", "/dev/X", (
                "read", "sync"), version=v)) == (False, ["/dev/X"])
        assert replay.read_log(iolog(tmp_path / "t", "f", ("trim",)))[0]

    def test_lines_as_fgets_reads_them(self, tmp_path):
        log = tmp_path / "long"
        log.write_text("fio version 2 iolog\n" + "x" * 4095 +
                       "/dev/X write 0 4096\n")
        # fio reads 4095 bytes, then the rest of the line as a line of its own
        assert replay.read_log(str(log)) == (True, ["/dev/X"])

    def test_a_log_not_read_here(self, tmp_path):
        os.mkfifo(tmp_path / "fifo")
        (tmp_path / "trace").write_bytes(b"\x65\x61\x74\x07" + bytes(60))
        for log in ("-", str(tmp_path / "fifo"), str(tmp_path / "trace")):
            with pytest.raises(replay.Unknown):
                replay.read_log(log)
            job = tmp_path / "psync.fio"
            job.write_text("[j]\nioengine=psync\nrw=read\nsize=1m\n"
                           "filename=%s\nread_iolog=%s\n"
                           % (tmp_path / "data", log))
            assert "fio replays every action of the log" in refusal(job)
            # sent to a regular file: judged as writing that file
            jobguard.check_devices(str(job), {}, [
                "--replay_redirect=%s" % (tmp_path / "data")])


class TestFioOwnFiles:
    def test_server_client_and_stdin(self, tmp_path):
        job = null_job(tmp_path)
        for args in (["--server"], ["--client=h"], ["-S"],
                     ["--daemonize=/tmp/p"]):
            assert "runs fio as a server or a client" in refusal(
                job, args=args), args
        assert "from stdin" in refusal(job, args=["-"])

    def test_bandwidth_log_and_verify_state(self, tmp_path, monkeypatch):
        monkeypatch.chdir(tmp_path)
        os.symlink("/dev/null", "agg-write_bw.log")
        job = null_job(tmp_path, name="a/b")
        assert refusal(job, args=["-b"]) == (
            "%s: -b on the command line, agg-write_bw.log, is a symbolic "
            "link (to a character device): a regular file or a new name is "
            "allowed, never a link (fio writes its bandwidth log there)"
            % job)
        os.unlink("agg-write_bw.log")
        os.mkdir("out")
        os.mkfifo("out/local-a.b-0-verify.state")
        assert refusal(job, args=["--aux-path=out"]) == (
            "%s: the job's verify state, out/local-a.b-0-verify.state, is a "
            "FIFO: a regular file or a new name is allowed, never a link "
            "(fio saves it there)" % job)
        jobguard.check_devices(job, {})         # in fio's own directory


@needs_fio
class TestRunJob:
    def test_short_output(self, device, tmp_path):
        for args in (["-o", device], ["-o" + device]):
            refused(run_job(str(tmp_path), S1, *args, BACKEND="null"),
                    "--output=%s (from %s on the command line) is a block "
                    "device" % (device, " ".join(args)))

    def test_second_job_file(self, device, tmp_path):
        second = tmp_path / "second.fio"
        second.write_text("[w]\nioengine=psync\nrw=write\nsize=1m\n"
                          "filename=%s\n" % device)
        refused(run_job(str(tmp_path), S1, str(second), BACKEND="null"),
                "%s writes (rw=write) and %s (from filename=%s in %s) %s"
                % (S1, device, device, second, BLOCK))

    def test_trigger_file(self, device, tmp_path):
        for args in (["--trigger-file=" + device], ["-W", device]):
            refused(run_job(str(tmp_path), S1, *args, BACKEND="null"),
                    "--trigger-file=%s (from %s on the command line) is a "
                    "block device" % (device, " ".join(args)))

    def test_read_iolog_replays_writes(self, device, tmp_path):
        data = tmp_path / "data"
        data.write_bytes(bytes(1 << 20))
        log = iolog(tmp_path / "w.log", device)
        refused(run_job(str(tmp_path), S1, "--read_iolog=" + log,
                        FILENAME=str(data), BACKEND="psync"),
                "%s writes (read_iolog=%s replays writes) and %s (from %s, "
                "in the log read_iolog=%s (from read_iolog=%s on the command "
                "line) names) %s" % (S1, log, device, device, log, log,
                                     BLOCK))
        # replay_redirect= sends every replayed I/O to the device
        log = iolog(tmp_path / "f.log", str(data))
        refused(run_job(str(tmp_path), S1, "--read_iolog=" + log,
                        "--replay_redirect=" + device, FILENAME=str(data),
                        BACKEND="psync"),
                "%s (from replay_redirect=%s on the command line) is a block "
                "device" % (device, device))

    def test_a_reading_log_still_runs(self, device, tmp_path):
        log = iolog(tmp_path / "r.log", device, ("read", "read"))
        p = run_job(str(tmp_path), S1, "--read_iolog=" + log,
                    FILENAME=device, BACKEND="psync")
        assert p.returncode == 0, p.stderr

    def test_flagcheck_run_read_iolog_in_the_job_file(self, device,
                                                      tmp_path):
        log = iolog(tmp_path / "w.log", device)
        with open(S1) as f:
            text = f.read().replace("[global]\n", "[global]\nread_iolog=%s\n"
                                    % log, 1)
        job = tmp_path / "s1-log.fio"
        job.write_text(text)
        (tmp_path / "data").write_bytes(bytes(1 << 20))
        p = run_cli("run", str(job), "--dry-run", "--repeats", "1",
                    "--numjobs", "1", "--set", "FILENAME=data", "--set",
                    "BACKEND=psync", "--outdir", str(tmp_path / "out"),
                    cwd=str(tmp_path))
        assert p.returncode == 2, p.stderr
        assert "writes (read_iolog=%s replays writes) and %s" % (
            log, device) in message(p.stderr), p.stderr


@needs_fio
def test_flagcheck_run_keeps_the_verify_state_in_outdir(tmp_path):
    with open(S2) as f:
        text = f.read().replace("rw=randwrite\n", "rw=randwrite\n"
                                "verify=md5\n", 1)
    job = tmp_path / "s2-verify.fio"
    job.write_text(text)
    elsewhere, out = tmp_path / "elsewhere", tmp_path / "out"
    elsewhere.mkdir()
    args = (str(job), "--numjobs", "1", "--repeats", "1", "--runtime", "1",
            "--ramp", "0", "--no-line-probe", "--variants", "always",
            "--outdir", str(out), "--quiet")
    p = run_cli("run", *args, cwd=str(elsewhere), timeout=120)
    assert p.returncode == 0, p.stderr
    assert os.listdir(elsewhere) == []
    assert os.path.isfile(out / "local-randwrite-0-verify.state")
    # a link planted where fio saves it: refused before fio starts
    os.unlink(out / "local-randwrite-0-verify.state")
    os.symlink("/dev/null", out / "local-randwrite-0-verify.state")
    p = run_cli("run", *args, "--dry-run", cwd=str(elsewhere))
    assert p.returncode == 2, p.stderr
    assert "the job's verify state, %s, is a symbolic link" % (
        out / "local-randwrite-0-verify.state") in message(p.stderr)
