"""flagcheck_stats= names a regular file or a new one, never a device, a
FIFO or a socket: fio refuses the option in one line before any I/O, and a
scratch loop device named there is left as it was (its SHA-256 before and
after)."""
import hashlib
import os
import socket

import pytest

from tests.analysis.helpers import loop_device


def refused(ctx, path, what):
    r = ctx.fio_run(ctx.base_args(runtime="100ms") +
                    ["--flagcheck_stats=%s" % path], stats=False, timeout=60)
    assert r.rc != 0
    line = "flagcheck: flagcheck_stats=%s is %s: a regular file or a new " \
        "one is allowed (a device would be overwritten)" % (path, what)
    assert line in r.err.splitlines()
    return r


def test_a_character_device_is_refused(ctx):
    refused(ctx, "/dev/full", "a character device")


def test_a_fifo_is_refused_without_waiting_for_a_reader(ctx, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    refused(ctx, str(fifo), "a FIFO")


def test_a_socket_is_refused(ctx, tmp_path):
    path = str(tmp_path / "sock")
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(path)
        refused(ctx, path, "a socket")
    finally:
        s.close()


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@pytest.fixture
def scratch_device(tmp_path):
    with loop_device(str(tmp_path / "back.img"), 1 << 20) as dev:
        yield dev


def test_a_block_device_is_refused_and_left_as_it_was(ctx, scratch_device):
    before = sha256(scratch_device)
    refused(ctx, scratch_device, "a block device")
    assert sha256(scratch_device) == before
