"""Every file a tool reads goes through one bounded reader
(inputs/textfile.py): a FIFO, /dev/zero, a file past its bound or a byte
that is not UTF-8 where a name is wanted gives one line naming the file,
never a hang, a MemoryError or a UnicodeDecodeError."""

import json
import os
import shutil
import subprocess
import threading

import pytest

from tests.analysis import helpers
from flagcheck_analysis.inputs import safewrite
from flagcheck_analysis.run import hosts

S1 = os.path.join(helpers.REPO, "jobs", "pattern",
                  "s1-filemap-odirect-read.fio")


def _host_list(tmp_path, make):
    path = tmp_path / "hosts"
    if make == "zero":
        return "/dev/zero"
    if make == "fifo":
        os.mkfifo(path)
    elif make == "big":
        path.write_text("# padding\n" * (hosts.MAX_BYTES // 10 + 1))
    else:
        path.write_bytes(b"node1\nnode\xff2\n")
    return str(path)


@pytest.mark.parametrize("make,want", [
    ("zero", "/dev/zero: not a regular file: a host list must be one"),
    ("fifo", "{}: not a regular file: a host list must be one"),
    ("big", "{}: larger than 65536 bytes: not a host list"),
    ("bytes", "{} line 2: a byte that is not UTF-8: want a host name, an "
     "address or a socket path")])
def test_a_host_list_is_read_bounded(tmp_path, make, want):
    path = _host_list(tmp_path, make)
    p = helpers.run_cli("run", S1, "--hosts", path, "--outdir",
                        str(tmp_path / "out"), timeout=30)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert helpers.message(p.stderr).strip().splitlines()[-1] == \
        "flagcheck run: error: " + want.format(path)
    assert not os.path.exists(tmp_path / "out")


def test_a_host_lists_long_line_is_cut_in_the_message(tmp_path):
    path = tmp_path / "hosts"
    path.write_text("h," + "9" * 500 + "\n")
    with pytest.raises(hosts.HostError) as e:
        hosts.read_list(str(path))
    assert str(e.value) == ("%s line 1: 'h,%s...(502 characters): want "
                            "host[,port] with a port 1..65535"
                            % (path, "9" * 34))


# ---- a manifest's long values are cut in its messages ----

@pytest.mark.parametrize("digits", [300, 401])
def test_a_manifests_long_repeat_is_cut(tmp_path, digits):
    out = tmp_path / "results"
    shutil.copytree(helpers.RESULTS, out)
    path = out / "manifest.json"
    doc = json.loads(path.read_text())
    doc["runs"][0]["repeat"] = 123456.5
    path.write_text(json.dumps(doc).replace("123456.5", "9" * digits))
    p = helpers.run_cli("report", "--verbose", "--no-plot", "--outdir",
                        str(tmp_path / "o"), str(out))
    assert "Traceback" not in p.stderr and "9" * 41 not in p.stderr
    name = doc["runs"][0]["name"]
    if digits == 300:
        want = ("%s: %s: name %r is not a run of variant always, numjobs 1, "
                "repeat a whole number of 300 digits "
                "as the entry says (run left out)" % (path, name, name))
    else:
        want = ("unusable manifest: %s: runs[0].repeat is a whole number of "
                "401 digits: want a whole number >= 1" % path)
    assert want in helpers.message(p.stderr), p.stderr


# ---- --compare: a directory name that is not UTF-8, --format ----

def _two_sides(tmp_path, b_name):
    a = os.path.join(str(tmp_path), "A")
    b = os.path.join(os.fsencode(str(tmp_path)), b_name)
    shutil.copytree(helpers.RESULTS, a)
    shutil.copytree(helpers.RESULTS, os.fsdecode(b))
    return a, os.fsdecode(b)


@pytest.mark.parametrize("b_name,shown", [(b"B\xff", "B\\xff"),
                                          (b"B\x1b[2J", "B\\x1b[2J")])
def test_compare_a_side_whose_name_is_no_text(tmp_path, b_name, shown):
    a, b = _two_sides(tmp_path, b_name)
    p = subprocess.run(helpers.cli_argv("report", "--compare", a,
                                        b), capture_output=True)
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 0 and "Traceback" not in err, err
    line = "B: %s/%s (8 runs)" % (tmp_path, shown)
    assert line in p.stdout.decode("utf-8").splitlines()
    report = os.path.join(b, "report")
    assert sorted(os.listdir(report)) == ["sidebyside.md"]
    with open(os.path.join(report, "sidebyside.md"), encoding="utf-8") as f:
        assert "- " + line + "\n" in f.read()


def test_a_failed_write_leaves_no_tmp_and_the_old_file(tmp_path):
    path = str(tmp_path / "sidebyside.md")
    safewrite.write(path, "old\n")
    with pytest.raises(UnicodeEncodeError):
        safewrite.write(path, "B\udcff\n")
    assert os.listdir(str(tmp_path)) == ["sidebyside.md"]
    with open(path) as f:
        assert f.read() == "old\n"


def test_compare_prints_the_format_asked(tmp_path):
    a = str(tmp_path / "A")
    shutil.copytree(helpers.RESULTS, a)
    out = {}
    for fmt in ("json", "csv", "text"):
        p = helpers.run_cli("report", "--verbose", "--compare", a, a,
                            "--format", fmt, "--outdir", str(tmp_path / "o"))
        assert p.returncode == 0, p.stderr
        out[fmt] = p.stdout
    doc = json.loads(out["json"])
    assert doc["header"][:2] == ["A: %s (8 runs)" % a, "B: %s (8 runs)" % a]
    assert [t["columns"][:2] for t in doc["tables"]] == \
        [["gain", "numjobs"], ["variant", "numjobs"]]
    rows = [r for t in doc["tables"] for r in t["rows"]]
    assert len(rows) == 6 and doc["notes"] == []
    csv_lines = out["csv"].splitlines()
    assert csv_lines[0] == "table,gain,numjobs,A,B,B/A,95% CI,verdict"
    assert len([l for l in csv_lines if l]) == 2 + 6
    assert out["text"].startswith("A: %s (8 runs)\n" % a)


# ---- the kernel's files and the other readers: the same bounded reader ----

def _no_hang(call):
    got = {}
    t = threading.Thread(target=lambda: got.update(r=call()), daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "hung reading a FIFO"
    return got["r"]


def test_system_files_that_are_fifos_are_not_read(tmp_path):
    from flagcheck_analysis.predict import answer
    from flagcheck_analysis.machines import cpulist
    from flagcheck_analysis.run import clock, interference
    for name in ("loadavg", "stat", "cs", "cal.json"):
        os.mkfifo(tmp_path / name)
    assert _no_hang(lambda: interference.read_loadavg(str(tmp_path))) is None
    assert _no_hang(lambda: clock.kernel_clocksource(
        str(tmp_path / "cs"))) is None
    assert _no_hang(lambda: cpulist.read_text(str(tmp_path / "cs"))) is None
    assert _no_hang(lambda: answer.cpu_model_of(
        str(tmp_path / "cal.json"))) == ""
    got = _no_hang(lambda: pytest.raises(OSError, interference.read_proc_stat,
                                         str(tmp_path)))
    assert "cannot read" in str(got.value)


def test_fio_output_files_that_are_fifos_are_not_read(tmp_path):
    """fio's output file, read for the text before its JSON and for what
    each host's server said, goes through the bounded reader: a FIFO left
    at its name is not read (the old open() blocked for ever)."""
    from flagcheck_analysis.run import clientserver, proctree, runner
    os.mkfifo(tmp_path / "out.json")
    out = str(tmp_path / "out.json")
    assert _no_hang(lambda: clientserver.output_text(out)) == ""
    assert _no_hang(lambda: runner._text_lines(out)) == []
    (tmp_path / "ok.json").write_bytes(b"fio: warn\xff\n{}\n")
    assert runner._text_lines(str(tmp_path / "ok.json")) == ["fio: warn\ufffd"]
    assert proctree._parent(os.getpid()) == os.getppid()


def test_a_loadavg_of_no_numbers_is_none(tmp_path):
    from flagcheck_analysis.run import interference
    (tmp_path / "loadavg").write_text("0.5 nan 1e999 1/2 3\n")
    assert interference.read_loadavg(str(tmp_path)) is None
    (tmp_path / "loadavg").write_text("0.5 1 2.25 1/2 3\n")
    assert interference.read_loadavg(str(tmp_path)) == [0.5, 1, 2.25]


@pytest.mark.parametrize("iops", ["0", "-1", "1e999", "\"x\""])
def test_fio_null_engine_iops_is_bounded(iops):
    from flagcheck_analysis.predict import fiocost
    with pytest.raises(ValueError) as e:
        fiocost.null_iops("fio's null-engine JSON",
                          '{"fio version": "fio-3.33", "jobs": [{"jobname": '
                          '"null", "read": {"iops": %s}}]}' % iops)
    assert str(e.value).startswith("fio's null-engine JSON: jobs[") and \
        ".iops " in str(e.value), str(e.value)


def test_a_manifests_host_is_printed_escaped(tmp_path):
    out = tmp_path / "results"
    shutil.copytree(helpers.RESULTS, out)
    path = out / "manifest.json"
    doc = json.loads(path.read_text())
    doc["host"]["hostname"] = "box\x1b[2J\nfake line"
    path.write_text(json.dumps(doc))
    p = helpers.run_cli("report", "--verbose", "--no-plot", "--outdir",
                        str(tmp_path / "o"), str(out))
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout and "\nfake line" not in p.stdout
    assert "host: box\\x1b[2J\\nfake line, " in p.stdout
