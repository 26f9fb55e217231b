"""Every line a tool prints fits 120 columns: the long messages once seen
(the calibration's disagreement with the line probes, flagcheck run's
progress and cell lines) wrap, each tool's --help and run-job's fit, and
the suite's own check (tests/widthcheck.py) catches a line over. The
analysis's module docstrings stay short: the prose lives in docs/."""

import argparse
import ast
import glob
import importlib
import os
import re
import subprocess
import sys

import pytest

import widthcheck
from tests.analysis.helpers import ANALYSIS, REPO, run_cli
from flagcheck_analysis.predict import answer
from flagcheck_analysis.report import messages
from flagcheck_analysis.run import progress
from flagcheck_analysis import width
from flagcheck_analysis.cli import main

# every subcommand of the one command
TOOLS = [name for name, _, _ in main.SUBCOMMANDS]
# the 242-column warning that opened a report
DISAGREE = answer.disagreement(
    type("M", (), {"name": "calibration",
                   "transfer_ns": lambda self, a, b: 28.0})(),
    [{"line_probe": {"cpus": [0, 1], "before_ns": 120.0,
                     "after_ns": 120.0}}],
    "--numjobs 64 is refused: name a profile with --machine, or calibrate "
    "again")


def fits(text):
    return all(len(l) <= 120 for l in text.splitlines())


def test_the_disagreement_warning_wraps(capsys):
    assert len("flagcheck report: " + DISAGREE) > 120
    messages.warn(DISAGREE)
    err = capsys.readouterr().err
    assert fits(err) and len(err.splitlines()) == 3
    assert " ".join(l.strip() for l in err.splitlines()) == \
        "flagcheck report: " + DISAGREE


def test_progress_lines_wrap(capsys):
    p = progress.Progress(quiet=False)
    cell = ("flagcheck run: S1 filemap-odirect-read nj2: decided after 3 "
            "repeats per variant: test_first/always x1.000 over 3 pairs, 95% CI "
            "0.997..1.003 narrower than ±2%")
    p.say(cell)
    p.line(8, 26, "null-engine_test_first_nj2_r1" * 3, 0.0, [1.0], 18,
           done="ok (busy: others used 41% of CPUs 0,1; steal 12%)")
    err = capsys.readouterr().err
    assert fits(err)
    assert err.splitlines()[0] + " " + err.splitlines()[1].strip() == cell


def test_wrap_keeps_short_lines_and_indents_the_rest():
    assert width.wrap("a\n  b") == "a\n  b"
    long = "  " + " ".join(["word"] * 40)
    lines = width.wrap(long).splitlines()
    assert len(lines) == 2 and lines[1].startswith("    word")
    assert " ".join(l.strip() for l in lines) == long.strip()


@pytest.mark.parametrize("tool", TOOLS)
def test_every_tools_help_fits(tool):
    p = run_cli(tool, "--help")
    assert p.returncode == 0, p.stderr
    prog = "flagcheck " + tool
    assert p.stdout.startswith("usage: " + prog) and fits(p.stdout)


def parser_of(tool):
    """The argparse parser of one subcommand (its module's
    build_parser())."""
    module = dict((n, m) for n, m, _ in main.SUBCOMMANDS)[tool]
    return importlib.import_module("flagcheck_analysis." +
                                   module).build_parser()


def invocation(action):
    """How --help names @action at the start of its line."""
    if not action.option_strings:
        return action.metavar or action.dest
    return ", ".join(action.option_strings)


@pytest.mark.parametrize("tool", TOOLS)
def test_every_option_is_one_line(tool):
    """Each option of the subcommand's parser on exactly one line of its
    --help, at two blanks' indent, and every line of the options'
    sections an option's (no help wrapped onto a continuation); every
    line within 120 columns, the whole at most the options + 15 lines."""
    p = run_cli(tool, "--help")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert all(width.columns(l) <= 120 for l in lines), \
        [l for l in lines if width.columns(l) > 120]
    actions = [a for a in parser_of(tool)._actions
               if a.help != argparse.SUPPRESS]
    heads = [invocation(a) for a in actions]
    for head in heads:
        starts = [l for l in lines if re.match(
            r"^  %s( |$)" % re.escape(head), l)]
        assert len(starts) == 1, (head, starts)
    # the options' sections: from a title ("options:") to a blank line
    section, listed = False, []
    for l in lines:
        if not l:
            section = False
        elif not l.startswith(" ") and l.endswith(":") and \
                not l.startswith("usage:"):
            section = True
        elif section:
            listed.append(l)
    assert len(listed) == len(heads), listed
    for l in listed:
        assert any(re.match(r"^  %s( |$)" % re.escape(h), l)
                   for h in heads), "a continuation line: %r" % l
    assert len(lines) <= len(actions) + 15, len(lines)


def test_run_job_help_is_its_usage():
    p = subprocess.run([os.path.join(REPO, "jobs", "run-job"), "--help"],
                       capture_output=True, text=True)
    assert p.returncode == 0 and p.stderr == ""
    assert p.stdout.startswith("Run one flagcheck job file with every "
                               "${VAR} it uses set, then run fio.\n")
    assert "  jobs/run-job JOBFILE [fio options...]\n" in p.stdout
    assert fits(p.stdout)


def test_the_suites_check_catches_a_long_line():
    argv = [sys.executable, os.path.join(ANALYSIS, "flagcheck"), "report"]
    long = "x" * 121
    assert widthcheck.long_lines(argv, long, "") == [long]
    assert widthcheck.long_lines(argv + ["--format", "json"], long, "") == []
    assert widthcheck.long_lines(argv, "", long) == [long]
    assert widthcheck.long_lines(["fio", "--version"], long, long) == []
    with pytest.raises(AssertionError, match="1 line"):
        widthcheck.check(argv, long, "")


# a module docstring says what the module does and points at docs/
DOCSTRING_MAX_LINES = 8


def long_module_docstrings(top):
    """{path under @top: lines of its module docstring} of every module
    under @top whose docstring is longer than DOCSTRING_MAX_LINES."""
    out = {}
    for path in sorted(glob.glob(os.path.join(top, "**", "*.py"),
                                 recursive=True)):
        with open(path, encoding="utf-8") as f:
            body = ast.parse(f.read(), path).body
        if (body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            lines = body[0].end_lineno - body[0].lineno + 1
            if lines > DOCSTRING_MAX_LINES:
                out[os.path.relpath(path, top)] = lines
    return out


def test_module_docstrings_are_short():
    top = os.path.join(ANALYSIS, "flagcheck_analysis")
    assert long_module_docstrings(top) == {}


def test_a_long_module_docstring_is_caught(tmp_path):
    (tmp_path / "long.py").write_text('"""one\n' + "more\n" * 7 + '"""\n')
    (tmp_path / "short.py").write_text('"""one\n' + "more\n" * 6 + '"""\n')
    assert long_module_docstrings(str(tmp_path)) == {"long.py": 9}
