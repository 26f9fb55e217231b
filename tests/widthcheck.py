"""Every line flagcheck's tools print is at most WIDTH columns: the check
tests/conftest.py puts around subprocess.run for every test, on each run
of one of the tools (analysis/flagcheck SUB, jobs/run-job) whose output was
captured as text.  Not checked: output meant for programs or other
renderers (--json, --format json, csv or markdown, flagcheck backtest's
stdout, a Markdown document: docs/backtest.md's tables, flagcheck-sim's
JSON, the shell commands of --dry-run), a report asked for without a
width limit (--width 0), and fio's own lines (run-job's output is fio's
but for its own "run-job:" messages; fio's lines that flagcheck run
quotes under a failure start with "fio:" or are fio's JSON)."""

import os
import unicodedata

WIDTH = 120
MACHINE_READABLE = ("--json", "--output-format=json", "--dry-run")
# tools whose stdout is a Markdown document
MARKDOWN = ("flagcheck backtest",)


def columns(line):
    """The terminal columns of @line, by Unicode's East Asian Width (W
    and F: two columns) and its combining marks (none): what a terminal
    shows, not len()."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else
               0 if unicodedata.combining(c) else 1 for c in line)


def tool(argv):
    """The tool's name where @argv runs one of flagcheck's tools, else
    None."""
    if isinstance(argv, (str, bytes)) or not argv:
        return None
    argv = [str(a) for a in argv]
    for i, a in enumerate(argv[:2]):
        name = os.path.basename(a)
        if name == "flagcheck" and i + 1 < len(argv):
            return "flagcheck " + argv[i + 1]
        if name == "run-job":
            return name
    return None


def _argv_has(argv, *words):
    argv = [str(a) for a in argv]
    return any(w in argv for w in words) or any(
        a == "--format" and b in ("json", "csv", "markdown")
        for a, b in zip(argv, argv[1:])) or any(
        a == "--width" and b == "0" for a, b in zip(argv, argv[1:]))


def long_lines(argv, out, err):
    """The lines of @out and @err (text or None) the check covers that are
    longer than WIDTH."""
    name = tool(argv)
    if name is None:
        return []
    streams = [err]
    if not _argv_has(argv, *MACHINE_READABLE) and name not in MARKDOWN:
        streams.append(out)
    found = []
    for text in streams:
        for line in (text or "").splitlines():
            s = line.strip()
            if name == "run-job" and not s.startswith("run-job:"):
                continue
            if s.startswith(("fio:", "fio-", "{", "\"")):
                continue
            if columns(line) > WIDTH:
                found.append(line)
    return found


def check(argv, out, err):
    """AssertionError naming the command and its lines over WIDTH."""
    found = long_lines(argv, out, err)
    if found:
        raise AssertionError(
            "%s printed %d line(s) over %d columns:\n%s" % (
                " ".join(str(a) for a in argv), len(found), WIDTH,
                "\n".join("%d: %s" % (columns(l), l) for l in found)))
