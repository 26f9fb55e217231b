"""The one rule for every path a tool writes (inputs/outpath.py): a
regular file or absent, never a link, inside the directory the command
named.  The tools' own outputs (flagcheck predict's fio cost record and its
.tmp, --plot, build/flagcheck-calibrate --output) against a scratch loop
device whose SHA-256 is the same before and after, a link to it, a FIFO."""

import json
import os
import stat
import subprocess

import pytest

from tests.analysis import helpers
from tests.analysis.helpers import loop_device, message
from tests.analysis.test_guard_keywords import sha256
from flagcheck_analysis.inputs import outpath, safewrite

PREDICT = [helpers.FLAGCHECK, "predict"]
CALIBRATE = os.path.join(helpers.BUILD, "flagcheck-calibrate")
SIM = os.path.join(helpers.BUILD, "flagcheck-sim")
THRESHOLD = os.path.join(helpers.REPO, "jobs", "catalogue",
                         "memcg-flush-threshold.fio")
ALLOWED = "refused (a regular file or a new name is allowed, never a link)"


@pytest.fixture
def device(tmp_path):
    """A node of a scratch loop device (made in @tmp_path, so that a node
    replaced by a file is not one under /dev/), still a block device and
    its SHA-256 the same after the test."""
    with loop_device(str(tmp_path / "back.img"), 1 << 20) as dev:
        node = str(tmp_path / "node")
        try:
            os.mknod(node, stat.S_IFBLK | 0o600, os.stat(dev).st_rdev)
        except OSError as e:
            pytest.skip("mknod not permitted here: %s" % e.strerror)
        before = sha256(dev)
        yield node
        assert stat.S_ISBLK(os.lstat(node).st_mode), "the node was replaced"
        assert sha256(dev) == before, "the loop device was written"


class TestRule:
    def test_what_is_refused(self, tmp_path):
        os.mkfifo(tmp_path / "fifo")
        (tmp_path / "file").write_text("x")
        os.mkdir(tmp_path / "dir")
        os.symlink("file", tmp_path / "to-file")
        os.symlink("/dev/null", tmp_path / "to-null")
        os.symlink("gone", tmp_path / "dangling")
        got = {n: outpath.why_not(str(tmp_path / n)) for n in
               ("fifo", "file", "dir", "to-file", "to-null", "dangling",
                "new")}
        assert got == {"fifo": "a FIFO", "file": None, "dir": "a directory",
                       "to-file": "a symbolic link (to a regular file)",
                       "to-null": "a symbolic link (to a character device)",
                       "dangling": "a symbolic link (to nothing)",
                       "new": None}
        assert outpath.why_not("/dev/null") == "a character device"

    def test_inside_the_output_directory(self, tmp_path):
        out = tmp_path / "out"
        out.mkdir()
        os.symlink(str(out), tmp_path / "alias")
        assert outpath.why_not(str(out / "a.json"), str(out)) is None
        assert outpath.why_not(str(tmp_path / "alias" / "a"),
                               str(out)) is None
        assert outpath.why_not(str(out / ".." / "a"), str(out)) == \
            "outside %s, where this command's output goes" % out
        assert outpath.why_not(str(tmp_path / "outer" / "a"), str(out))

    def test_safewrite_refuses_and_leaves_it(self, tmp_path):
        os.mkfifo(tmp_path / "fifo")
        os.symlink("/dev/null", tmp_path / "link")
        for name, what in (("fifo", "a FIFO"), ("link", "a symbolic link "
                                                "(to a character device)")):
            path = str(tmp_path / name)
            with pytest.raises(outpath.OutPathError) as e:
                safewrite.write(path, "x")
            assert str(e.value) == "%s is %s: %s" % (path, what, ALLOWED)
        assert os.readlink(tmp_path / "link") == "/dev/null"
        assert stat.S_ISFIFO(os.lstat(tmp_path / "fifo").st_mode)
        # a FIFO left at PATH.tmp is not removed either
        os.mkfifo(tmp_path / "f.tmp")
        with pytest.raises(outpath.OutPathError):
            safewrite.write(str(tmp_path / "f"), "x")
        assert not os.path.exists(tmp_path / "f")


def predict(*args, **env):
    return subprocess.run(["/usr/bin/python3"] + PREDICT + list(args),
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, FLAGCHECK_SIM=SIM, **env))


# serial: fio's cost per I/O measured, the refusal timed
@pytest.mark.serial
@pytest.mark.skipif(not helpers.FIO, reason="needs fio")
def test_fio_cost_record_on_a_device(device, tmp_path):
    link = tmp_path / "link.json"
    os.symlink(device, link)
    # refused before fio is measured: a fio first on PATH that leaves a
    # mark if it is ever started
    bindir, mark = tmp_path / "bin", tmp_path / "fio-started"
    bindir.mkdir()
    (bindir / "fio").write_text("#!/bin/sh\ntouch %s\n" % mark)
    (bindir / "fio").chmod(0o755)
    path_env = "%s:%s" % (bindir, os.environ.get("PATH", ""))
    for path in (device, str(link)):
        p = predict("--measure-fio", FLAGCHECK_FIO_COST=path, PATH=path_env)
        assert p.returncode == 1, p.stdout + p.stderr
        assert message(p.stderr) == "flagcheck predict: %s is %s: %s\n" % (
            path, "a block device" if path == device else
            "a symbolic link (to a block device)", ALLOWED)
        assert not mark.exists()
    assert os.readlink(link) == device
    # a link planted at the record's .tmp: removed, its target untouched
    rec = tmp_path / "fio-cost.json"
    os.symlink(device, str(rec) + ".tmp")
    p = predict("--measure-fio", FLAGCHECK_FIO_COST=str(rec))
    assert p.returncode == 0, p.stderr
    assert json.loads(rec.read_text())["fio_ns"] > 0
    assert not os.path.lexists(str(rec) + ".tmp")


def test_plot_on_a_device(device, tmp_path):
    link = tmp_path / "curve.png"
    os.symlink(device, link)
    for path, what in ((device, "a block device"),
                       (str(link), "a symbolic link (to a block device)")):
        p = predict(THRESHOLD, "--machine", "icelake-sp-2s", "--numjobs", "4",
                    "--rest", "work", "--seeds", "1", "--plot", path)
        assert p.returncode == 1, p.stdout + p.stderr
        assert message(p.stderr) == "flagcheck predict: --plot: %s is %s: " \
            "%s\n" % (path, what, ALLOWED)


# serial: the refusal timed
@pytest.mark.serial
@pytest.mark.skipif(not os.path.exists(CALIBRATE),
                    reason="needs build/flagcheck-calibrate (make)")
def test_calibrate_output_on_a_device_a_link_a_fifo(device, tmp_path):
    link = tmp_path / "c.json"
    os.symlink(device, link)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, what in ((device, "a block device"),
                       (str(link), "a symbolic link"),
                       (str(fifo), "a FIFO")):
        # refused, not measured: a measurement would outlast the timeout
        p = subprocess.run([CALIBRATE, "--seconds", "30", "--output", path],
                           capture_output=True, text=True, timeout=25)
        assert p.returncode == 1, p.stderr
        assert p.stderr == "flagcheck-calibrate: %s is %s: %s\n" % (
            path, what, ALLOWED)
    assert os.readlink(link) == device
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_lru_tables_follow_no_link(tmp_path):
    from tests.analysis.test_lru import line
    with open(tmp_path / "s_on_nj1_r1.flagcheck.jsonl", "w") as f:
        f.write(json.dumps(line("on", 1, 1000, 10000)) + "\n")
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("victim\n")
    os.symlink(str(victim), out / "lru.md")
    p = helpers.run_cli("lru", str(tmp_path), "--no-plot",
                        "--outdir", str(out))
    assert p.returncode == 1, p.stderr
    assert message(p.stderr) == "flagcheck lru: cannot write to %s: %s is " \
        "a symbolic link (to a regular file): %s\n" % (out, out / "lru.md",
                                                       ALLOWED)
    assert victim.read_text() == "victim\n"


@pytest.mark.skipif(not helpers.FIO, reason="needs fio")
def test_host_job_files_stay_in_the_results_directory(tmp_path):
    import argparse
    from flagcheck_analysis.inputs import matrix
    from flagcheck_analysis.run import clientserver, hosts
    job = tmp_path / "s.fio"
    job.write_text("[s]\nioengine=null\nrw=read\nsize=1m\n")
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    os.symlink(str(elsewhere), out / "jobs")
    args = argparse.Namespace(outdir=str(out), scenarios={"s": str(job)},
                              vars={}, fio=helpers.FIO)
    run = matrix.Run("s", "always", 1, 1)
    with pytest.raises(outpath.OutPathError) as e:
        clientserver.write_job_files(args, run, [hosts.parse("h,8765")])
    assert "outside %s, where this command's output goes" % out in \
        str(e.value)
    assert os.listdir(elsewhere) == []


@pytest.mark.skipif(not (helpers.FIO and os.path.exists(helpers.ENGINE)),
                    reason="needs fio and the built engine")
def test_lock_file_on_a_device(device, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    lock = out / "flagcheck.lock"
    os.rename(device, lock)
    p = helpers.run_cli(
        "run", os.path.join(helpers.HERE, "flagcheck-fixture.fio"),
        "--variants", "always", "--numjobs", "1", "--repeats", "1", "--ramp",
        "0", "--no-line-probe", "--quiet", "--runtime", "1", "--set",
        "FLAGCHECK_ENGINE=" + helpers.ENGINE, "--outdir", str(out),
        timeout=120)
    os.rename(lock, device)                 # for the fixture's checks
    assert p.returncode == 1, p.stderr
    assert message(p.stderr) == "flagcheck run: %s is a block device: %s\n" \
        % (lock, ALLOWED)
