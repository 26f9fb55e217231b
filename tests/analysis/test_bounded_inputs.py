"""Every file a tool reads goes through one bounded reader
(results/textfile.py): a FIFO, /dev/zero, a file past its bound or a byte
that is not UTF-8 where a name is wanted gives one line naming the file,
never a hang, a MemoryError or a UnicodeDecodeError."""

import os

import pytest

from tests.analysis import helpers
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
    p = helpers.run_cli("flagcheck-run", S1, "--hosts", path, "--outdir",
                        str(tmp_path / "out"), timeout=30)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert helpers.message(p.stderr).strip().splitlines()[-1] == \
        "flagcheck-run: error: " + want.format(path)
    assert not os.path.exists(tmp_path / "out")


def test_a_host_lists_long_line_is_cut_in_the_message(tmp_path):
    path = tmp_path / "hosts"
    path.write_text("h," + "9" * 500 + "\n")
    with pytest.raises(hosts.HostError) as e:
        hosts.read_list(str(path))
    assert str(e.value) == ("%s line 1: 'h,%s...(502 characters): want "
                            "host[,port] with a port 1..65535"
                            % (path, "9" * 34))
