"""scripts/fio-versions.sh runs a chosen list of tests under each fio of
the matrix (docs/fio-versions.md): every id in that list must name tests
that exist, or the matrix fails on every version for want of a name."""

import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def matrix_ids():
    with open(os.path.join(REPO, "scripts", "fio-versions.sh")) as f:
        text = f.read()
    block = re.search(r"^TESTS=\((.*?)\)$", text, re.S | re.M).group(1)
    return re.findall(r'"([^"]+)"', block)


# slow: collects the whole suite
@pytest.mark.slow
def test_every_test_the_version_matrix_runs_exists():
    ids = matrix_ids()
    assert len(ids) == 10
    p = subprocess.run([sys.executable, "-m", "pytest", "--collect-only",
                        "-q", "-p", "no:cacheprovider"] + ids, cwd=REPO,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    for i in ids:
        assert any(l.startswith(i) for l in p.stdout.splitlines()), i
