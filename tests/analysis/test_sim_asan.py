"""flagcheck-sim built with AddressSanitizer+UBSan (make's
flagcheck-sim-asan): good and bad inputs, the refusals included, give no
sanitizer report, leaks included, and the same answer as the plain build."""

import os
import subprocess

import pytest

from tests.analysis import helpers

ASAN = os.path.join(helpers.BUILD, "flagcheck-sim-asan")
SIM = os.path.join(helpers.BUILD, "flagcheck-sim")
REPORTS = ("AddressSanitizer", "LeakSanitizer", "runtime error:",
           "UndefinedBehaviorSanitizer")


def matrix(n, cost="100"):
    rows = [" ".join("0" if a == b else cost for b in range(n))
            for a in range(n)]
    return "%d\n%s\n%s\n" % (n, "\n".join(rows),
                             " ".join(str(a % 2) for a in range(n)))


def ring(n):
    """CPUs on a ring, 10 ns a step: every waiter at its own distance"""
    rows = [" ".join(str(10 * min(abs(a - b), n - abs(a - b)))
                     for b in range(n)) for a in range(n)]
    return "%d\n%s\n%s\n" % (n, "\n".join(rows), " ".join(["0"] * n))


SET = ["--words", "a@0", "--pattern", "set_bit(a,1)", "--variant", "always"]
# loads and stores queued on one line, handed nearest first: a batch of
# loads taken from between stores, the queue's first, middle and last
MIX = ["--words", "a@0", "--pattern", "READ_ONCE(a),set_bit(a,1),"
       "READ_ONCE(a),READ_ONCE(a),clear_bit(a,1)", "--variant", "always",
       "--handover", "nearest", "--jitter", "0.3"]
CAS = ["--words", "r@0=1", "--pattern", "atomic_inc_not_zero(r),work(9)",
       "--variant", "test_first", "--handover", "nearest", "--jitter", "0.2"]
# the first GOOD cases print their JSON (exit 0), the rest are refused
GOOD = 6
CASES = [
    (MIX + ["--ios", "30", "--warmup", "3"], ring(12)),
    (SET + ["--ios", "5", "--warmup", "1"], matrix(4)),
    (CAS + ["--ios", "5", "--warmup", "0", "--line_pair", "true"], matrix(8)),
    (["--words", "n@3:node,o@5:obj(4,cpu)", "--pattern",
      "READ_ONCE(n),atomic_inc(o),WRITE_ONCE(n,1)/every=3", "--variant",
      "always", "--shared_readers", "serial", "--writers", "2", "--ios", "4"],
     matrix(6)),
    (SET + ["--atomics", "far", "--atomic_far", "40", "--ios", "3"],
     matrix(4)),
    # 32 pairs' copies, lines 1, 3, ..., 63: the whole arena
    (["--words", "p@1:pair", "--pattern", "atomic_inc(p)", "--variant",
      "always", "--ios", "3"], matrix(64, "50")),
    (CAS + ["--ios", "50", "--max_events", "100"], matrix(8)),
    (SET, "2\n0 nan\n1 0\n0 0\n"),
    (SET, "2\n0 1e308\n1 0\n0 0\n"),
    (SET, "3000\n"),
    (SET, "2\n0 1\n1 0\n0 9\n"),
    (SET, "2\n0 1\n1 0\n"),
    (SET, ""),
    (SET + ["--rest", "inf"], matrix(2)),
    (SET + ["--ios", "1e12"], matrix(2)),
    (SET + ["--ios"], matrix(2)),
    (SET + ["--bogus", "1"], matrix(2)),
    (SET + ["--jitter", "nan", "--atomics", "far", "--atomic_far", "40"],
     matrix(2)),
    (["--words", "a@0", "--pattern", "set_bit(a,", "--variant", "always"],
     matrix(2)),
    (["--words", "a@0", "--pattern", "", "--variant", "always"], matrix(2)),
    (["--words", "s@0:slot", "--pattern", "atomic_inc(s)", "--variant",
      "always"], matrix(1024, "50")),
    (["--words", "p@1:pair", "--pattern", "atomic_inc(p)", "--variant",
      "always"], matrix(1024, "50")),
]


@pytest.fixture(scope="module")
def asan():
    for p in (ASAN, SIM):
        if not os.path.exists(p):
            pytest.fail("%s missing: run make %s" % (p, p))
    return ASAN


@pytest.mark.parametrize("case", range(len(CASES)))
def test_no_sanitizer_report(asan, case):
    args, text = CASES[case]
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:exitcode=99",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    a = subprocess.run([asan] + args, input=text, capture_output=True,
                       text=True, timeout=120, env=env)
    assert not [r for r in REPORTS if r in a.stderr], a.stderr[-2000:]
    assert (a.returncode == 0) == (case < GOOD), a.stderr
    plain = subprocess.run([SIM] + args, input=text, capture_output=True,
                           text=True, timeout=120)
    assert (a.returncode, a.stdout, a.stderr) == \
        (plain.returncode, plain.stdout, plain.stderr)
