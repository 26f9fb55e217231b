"""flagcheck-sim's memory: a unit's waiters are the CPUs themselves (each
waits for one access at a time), so a run's memory does not grow with
units x CPUs. S2's pattern twin has 16 words in each of 16,384 objects:
262,144 units, which a queue of N waiters each (8 bytes a waiter) made
512 MB at 256 CPUs."""

import os
import subprocess

import pytest

from tests.analysis import helpers

SIM = os.path.join(helpers.BUILD, "flagcheck-sim")
OBJECTS, WORDS = 16384, 16
# S2's heads: b_state of head k at byte 104 x k of the 64K page's object
# (written LINE+BYTE, as the job file writes them)
TWIN = ["--words", ",".join("h%d@%d+%d:obj(%d,offset(65536))=0x30"
                            % (k, 104 * k // 64, 104 * k % 64, OBJECTS)
                            for k in range(WORDS)),
        "--pattern", ",".join("clear_bit(h%d,5)" % k for k in range(WORDS)),
        "--variant", "always", "--ios", "1", "--warmup", "0"]


def matrix(n):
    rows = [" ".join("0" if a == b else "100" for b in range(n))
            for a in range(n)]
    return "%d\n%s\n%s\n" % (n, "\n".join(rows), " ".join(["0"] * n))


def run_rss(n):
    """flagcheck-sim on @n CPUs: (its JSON text, its peak RSS in KiB)"""
    p = subprocess.Popen([SIM] + TWIN, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdin.write(matrix(n).encode())
    p.stdin.close()
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    assert p.returncode == 0, err
    return out, usage.ru_maxrss


@pytest.fixture(scope="module")
def sim():
    if not os.path.exists(SIM):
        pytest.fail("%s missing: run make" % SIM)
    return SIM


def test_the_twin_uses_every_unit(sim):
    # one entry per field line, each summed over the objects that use it
    out, _ = run_rss(2)
    assert out.count(b'"objects": %d' % OBJECTS) == WORDS


def test_memory_does_not_grow_with_units_times_cpus(sim):
    _, one = run_rss(1)
    _, many = run_rss(256)
    # what grows with N: the holders' bitmaps (N / 8 bytes a unit: 8 MB)
    # and the N x N matrix; a queue of N waiters a unit would add
    # units x N x 8 bytes (512 MB), eight times the bound
    units = OBJECTS * WORDS
    assert (many - one) * 1024 < units * 256 * 8 / 8
