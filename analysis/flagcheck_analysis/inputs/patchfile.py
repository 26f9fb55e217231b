"""A kernel patch a user gave: a `git format-patch` mail, `git show`
output or a plain unified diff, read into its source (subject, commit,
author, date) and its files' hunks, each line with its line number in
the patch file (docs/your-patch.md, "From a diff").  What is not a diff
is refused in one line naming the file: no hunk, a binary file, a file
past MAX_BYTES, a hunk cut short."""

import quopri
import re
from collections import namedtuple

from . import textfile

# a patch of the family is a few KiB (the fixtures are under 16 KiB); a
# treewide series of thousands of hunks stays under 4 MiB
MAX_BYTES = 4 << 20

# one line of a hunk: ' ' context, '-' removed, '+' added
Line = namedtuple("Line", "kind text lineno")
# a hunk: its file, the function git names after @@ (may be "") and that
# text whole, where it starts in the old and new file, its lines and its
# @@ line's number
Hunk = namedtuple("Hunk", "path function section old_start new_start lines "
                  "lineno")
Source = namedtuple("Source", "subject commit author date")
Patch = namedtuple("Patch", "path source hunks binary")

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
_COMMIT = (re.compile(r"^From ([0-9a-f]{40}) Mon Sep 17 00:00:00 2001$"),
           re.compile(r"^commit ([0-9a-f]{12,40})\b"),
           re.compile(r"^Commit-ID:\s+([0-9a-f]{12,40})$"),
           re.compile(r"^\[\s*[Uu]pstream commit ([0-9a-f]{12,40})\s*\]$"))
_FUNC = re.compile(r"\b([A-Za-z_][A-Za-z0-9_#]*)\s*\(")


class PatchError(Exception):
    """One line: the file, what is wrong and what is allowed."""


def read(path):
    """The Patch of the file at @path; PatchError where it is no diff."""
    try:
        text = textfile.read_text(path, "patch", MAX_BYTES)
    except textfile.TextFileError as e:
        raise PatchError(str(e))
    if "\0" in text:
        raise PatchError("%s: a binary file (a NUL byte): not a diff; "
                         "allowed: a git format-patch mail, git show "
                         "output or a unified diff" % path)
    if re.search(r"^Content-Transfer-Encoding:\s*quoted-printable\s*$",
                 text, re.M | re.I):
        text = quopri.decodestring(textfile.to_bytes(text)).decode(
            "utf-8", "surrogateescape")
    return parse(path, text.split("\n"))


def parse(path, lines):
    hunks, binary, name, old = [], [], None, None
    n = 0
    while n < len(lines):
        line = lines[n]
        if line.startswith("diff --git "):
            name = _git_name(line)
        elif line.startswith("--- "):
            old = _strip(line[4:])
        elif line.startswith("+++ "):
            name = _strip(line[4:]) or old    # a file removed: its old name
        elif line.startswith(("Binary files ", "GIT binary patch")):
            binary.append((name or "?", n + 1))
        m = _HUNK.match(line)
        if m and name is not None:
            hunk, n = _hunk(path, name, m, lines, n)
            hunks.append(hunk)
            continue
        n += 1
    if not hunks:
        raise PatchError("%s: not a diff: no hunk (a line '@@ -A,B +C,D @@' "
                         "after '--- a/FILE' and '+++ b/FILE'); allowed: a "
                         "git format-patch mail, git show output or a "
                         "unified diff" % path)
    return Patch(path, source(lines), hunks, binary)


def _git_name(line):
    m = re.match(r"^diff --git a/(\S+) b/(\S+)$", line)
    return m.group(2) if m else None


def _strip(name):
    name = name.split("\t")[0].strip()
    if name == "/dev/null":
        return None
    return name[2:] if name.startswith(("a/", "b/")) else name


def _hunk(path, name, m, lines, start):
    """The hunk whose @@ line is lines[start], and the index past it: as
    many old and new lines as the @@ line counts."""
    old = int(m.group(2)) if m.group(2) is not None else 1
    new = int(m.group(4)) if m.group(4) is not None else 1
    body, n = [], start + 1
    while old > 0 or new > 0:
        if n >= len(lines):
            raise PatchError("%s:%d: hunk cut short: %d old and %d new "
                             "lines missing at the end of the file"
                             % (path, start + 1, old, new))
        line = lines[n]
        kind = line[:1] if line else " "
        if kind == "\\":        # "\ No newline at end of file"
            n += 1
            continue
        if kind not in " -+":
            raise PatchError("%s:%d: a line in a hunk must start with ' ', "
                             "'-' or '+': %s" % (
                                 path, n + 1, textfile.printable(line[:40])))
        old -= kind in " -"
        new -= kind in " +"
        if old < 0 or new < 0:
            raise PatchError("%s:%d: more lines than the hunk's @@ line "
                             "counts" % (path, n + 1))
        body.append(Line(kind, line[1:], n + 1))
        n += 1
    f = _FUNC.search(m.group(5))
    return Hunk(name, f.group(1) if f else "", m.group(5).strip(),
                int(m.group(1)),
                int(m.group(3)), body, start + 1), n


def source(lines):
    """The patch's Source from its mail or git headers: the lines before
    the first 'diff'."""
    subject = commit = author = date = None
    head = []
    for line in lines:
        if line.startswith(("diff ", "--- ", "Index: ")):
            break
        head.append(line)
    for i, line in enumerate(head):
        for rx in _COMMIT:
            m = rx.match(line.strip())
            if m and commit is None:
                commit = m.group(1)[:12]
        if line.startswith("Subject:") and subject is None:
            subject = line[8:].strip()
            for more in head[i + 1:]:
                if not more[:1].isspace() or not more.strip():
                    break
                subject += " " + more.strip()
        elif line.startswith(("From:", "Author:")) and author is None:
            author = line.split(":", 1)[1].strip()
        elif line.startswith(("Date:", "AuthorDate:")) and date is None:
            date = line.split(":", 1)[1].strip()
    if subject is None:
        subject = _show_subject(head)
    if subject:
        subject = re.sub(r"^(\[[^\]]*\]\s*)+", "", subject)
    return Source(subject or None, commit, author, date)


def _show_subject(head):
    """git show's subject: the first indented line after the headers."""
    seen = False
    for line in head:
        if line.startswith(("Date:", "AuthorDate:", "CommitDate:")):
            seen = True
        elif seen and line.startswith("    ") and line.strip():
            return line.strip()
    return None
