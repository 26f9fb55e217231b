"""flagcheck run's progress under --until-decided counts the budget's
worst case (every cell to --max-repeats): the run count and the ETA only
fall as cells decide early; they never grow with an added repeat."""

import os
import re
import shutil
import tempfile

import pytest

from tests.analysis.helpers import FIO, HERE, NULL_JOB, message, run_cli
from flagcheck_analysis.run import progress

FAKE_FIO = os.path.join(HERE, "fake-fio")
# the stand-in leaves the reading of the job file (--showcmd) to fio
pytestmark = pytest.mark.skipif(not FIO, reason="needs fio")
LINE = re.compile(r"^\[(\d+)/(\d+)\] \S+ ok.*, elapsed [0-9:]+, "
                  r"ETA ([0-9:]+)$")


# slow: a flagcheck run of 22 runs
@pytest.mark.slow
def test_the_total_is_the_worst_case_and_only_falls():
    tmp = tempfile.mkdtemp()
    try:
        p = run_cli("run", NULL_JOB, "--fio", FAKE_FIO,
                    "--numjobs", "1,2,3", "--until-decided", "--repeats",
                    "3", "--max-repeats", "5", "--ramp", "0", "--outdir",
                    os.path.join(tmp, "r"))
    finally:
        shutil.rmtree(tmp)
    assert p.returncode == 0, p.stderr
    seen = [(int(m.group(1)), int(m.group(2)))
            for m in map(LINE.match, message(p.stderr).splitlines()) if m]
    # fake-fio: nj1 and nj2 decide at 3 repeats, nj3 runs to 5; 2 variants
    worst = 3 * 5 * 2
    assert [t for _, t in seen] == [worst] * 6 + [worst - 4] * 6 + \
        [worst - 8] * 10
    assert [i for i, _ in seen] == list(range(1, 23))
    assert seen[-1][0] == seen[-1][1]


def test_the_eta_falls_with_the_worst_case(monkeypatch, capsys):
    p = progress.Progress(quiet=False)
    monkeypatch.setattr(progress.time, "monotonic", lambda: 100.0)
    etas = []
    for i, left in enumerate([29, 28, 23, 22], 1):
        p.line(i, 30, "x", 0.0, [60.0] * i, left, done="ok")
        etas.append(capsys.readouterr().err.rsplit("ETA ", 1)[1].strip())
    assert etas == ["0:29:00", "0:28:00", "0:23:00", "0:22:00"]
