"""One command, flagcheck: analysis/flagcheck is a shim over cli/main.py,
whose table names every subcommand once; --help lists them, one line
each, and each subcommand's module has the main() it runs."""

import ast
import importlib
import json
import os
import subprocess
import sys

import pytest

from tests.analysis.helpers import ANALYSIS, FLAGCHECK, REPO, message

sys.path.insert(0, ANALYSIS)
from flagcheck_analysis.cli import main as cli  # noqa: E402

NAMES = [n for n, _, _ in cli.SUBCOMMANDS]


def flagcheck(*args):
    return subprocess.run([sys.executable, FLAGCHECK] + list(args),
                          capture_output=True, text=True, timeout=60)


def test_the_script_is_a_shim():
    with open(FLAGCHECK) as f:
        tree = ast.parse(f.read(), FLAGCHECK)
    assert [n for n in ast.walk(tree) if isinstance(
        n, (ast.FunctionDef, ast.ClassDef, ast.Lambda))] == []
    froms = [n for n in tree.body if isinstance(n, ast.ImportFrom)]
    assert [(f.module, [a.name for a in f.names]) for f in froms] == \
        [("flagcheck_analysis.cli.main", ["main"])]


def test_no_other_entry_script_remains():
    assert sorted(n for n in os.listdir(ANALYSIS)
                  if n.startswith("flagcheck")) == \
        ["flagcheck", "flagcheck_analysis"]


def test_help_lists_every_subcommand_once():
    p = flagcheck("--help")
    assert p.returncode == 0, p.stderr
    listed = [line.split()[0] for line in p.stdout.splitlines()
              if line.startswith("  ")]
    assert listed == NAMES
    assert NAMES == ["run", "report", "compare", "predict", "calibrate",
                     "backtest", "physics", "catalogue", "lru", "from-diff"]


@pytest.mark.parametrize("name", NAMES)
def test_each_subcommand_has_its_main_and_help(name):
    module = dict((n, m) for n, m, _ in cli.SUBCOMMANDS)[name]
    assert callable(importlib.import_module(
        "flagcheck_analysis." + module).main)
    p = flagcheck(name, "--help")
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("usage: flagcheck %s" % name)


def test_unknown_or_missing_subcommand_is_refused_in_one_line():
    p = flagcheck("frobnicate")
    assert (p.returncode, p.stdout) == (2, "")
    assert message(p.stderr) == ("flagcheck: 'frobnicate': not a "
                                 "subcommand; allowed: %s\n"
                                 % ", ".join(NAMES))
    p = flagcheck()
    assert p.returncode == 2 and p.stdout.startswith("usage: flagcheck ")


# slow: a fresh interpreter per command
@pytest.mark.slow
def test_compare_is_report_compare(tmp_path):
    """issue 49 item 15: compare takes A and B among its options and after
    `--`, and names no option the user never typed"""
    fixtures = os.path.join(REPO, "tests", "analysis", "fixtures", "results")
    p = flagcheck("compare", fixtures)
    assert p.returncode == 2
    assert p.stderr.splitlines()[-1] == ("flagcheck compare: error: the "
                                         "following arguments are required: B")
    out = str(tmp_path / "out")
    for args in (["--no-plot", fixtures, fixtures],
                 ["--format", "json", fixtures, fixtures],
                 ["--", fixtures, fixtures]):
        p = flagcheck("compare", "--outdir", out, *args)
        assert p.returncode == 0, (args, p.stderr)
        assert "--compare: expected" not in p.stderr
    assert json.loads(flagcheck("compare", "--outdir", out, "--format",
                                "json", fixtures, fixtures).stdout)
