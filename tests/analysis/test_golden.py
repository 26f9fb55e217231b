"""The report's tables on the committed fixtures, against golden files.
FLAGCHECK_UPDATE_GOLDEN=1 rewrites the golden files (fixtures/record does)."""

import os
import tempfile

from tests.analysis.helpers import FIXTURES, RESULTS, run_cli

GOLDEN = os.path.join(FIXTURES, "golden")
UPDATE = os.environ.get("FLAGCHECK_UPDATE_GOLDEN") == "1"


class TestGolden:
    def check(self, name, actual):
        path = os.path.join(GOLDEN, name)
        if UPDATE:
            os.makedirs(GOLDEN, exist_ok=True)
            with open(path, "w") as f:
                f.write(actual)
        with open(path) as f:
            assert actual == f.read(), "differs from %s" % path

    def test_tables(self):
        with tempfile.TemporaryDirectory() as out:
            for fmt, name in (("text", "report.txt"),
                              ("markdown", "report-stdout.md"),
                              ("csv", "report-stdout.csv")):
                p = run_cli("report", "--verbose", RESULTS, "--no-plot",
                            "--outdir", out, "--format", fmt)
                assert p.returncode == 0, p.stderr
                assert p.stderr.count("\n") == 1, p.stderr
                self.check(name, p.stdout)
            for name in ("report.md", "compare.csv", "scaling.csv"):
                with open(os.path.join(out, name)) as f:
                    self.check(name, f.read())
