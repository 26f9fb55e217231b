"""The width every line a flagcheck tool prints keeps to (WIDTH columns),
and the one wrap that keeps it: a longer line goes on over more lines,
each continuation indented by 2 more than the line.  A word is never
cut (a path stays whole, so a reader can join the lines again); only a
word longer than the width itself overruns it.  A width is in terminal
columns (columns()): a CJK character takes two, a combining mark none.
The --help style and argparse's parser kept to it: cli/argparser.py."""

import re
import unicodedata

WIDTH = 120


def char_columns(c):
    """The terminal columns of one character: 2 for a wide or full-width
    one (East Asian Width W or F: CJK), 0 for a combining mark or a
    zero-width format character, else 1."""
    if unicodedata.east_asian_width(c) in ("W", "F"):
        return 2
    if unicodedata.combining(c) or unicodedata.category(c) == "Cf":
        return 0
    return 1


def columns(text):
    """The terminal columns @text takes (one line)."""
    if text.isascii():
        return len(text)
    return sum(char_columns(c) for c in text)


def pad(text, cols, right=False):
    """@text padded with blanks to @cols columns, on the left where
    @right (str.ljust and rjust count characters, not columns)."""
    fill = " " * max(0, cols - columns(text))
    return fill + text if right else text + fill


def cut(text, cols):
    """The longest start of @text within @cols columns."""
    used = 0
    for i, c in enumerate(text):
        used += char_columns(c)
        if used > cols:
            return text[:i]
    return text


def wrap(text, width=WIDTH):
    """Every line of @text wider than @width columns wrapped."""
    out = []
    for l in text.split("\n"):
        if columns(l) <= width:
            out.append(l)
            continue
        indent = len(l) - len(l.lstrip(" "))
        out += _wrap_line(l, width, " " * (indent + 2)) or [l]
    return "\n".join(out)


def wrap_words(text, width, indent=""):
    """@text's words over lines of at most @width columns (textwrap.wrap,
    by columns), the lines after the first after @indent."""
    return _wrap_line(text, width, indent)


def _wrap_line(line, width, indent):
    """@line over lines of at most @width columns, the first as it starts,
    the others after @indent; a word is never cut, the blanks where a
    line is cut dropped, the others kept (as textwrap does, with
    break_long_words and break_on_hyphens off, but by columns)."""
    lines, cur, used, prefix = [], [], 0, ""
    for chunk in re.findall(r"\s+|\S+", line.expandtabs()):
        blank = chunk.isspace()
        if blank:
            chunk = " " * len(chunk)
        if blank and not cur and lines:
            continue
        w = columns(chunk)
        if cur and used + w > width - len(prefix):
            while cur and cur[-1].isspace():
                cur.pop()
            if cur:
                lines.append(prefix + "".join(cur))
                prefix = indent
            cur, used = [], 0
            if blank:
                continue
        cur.append(chunk)
        used += w
    while cur and cur[-1].isspace():
        cur.pop()
    if cur:
        lines.append(prefix + "".join(cur))
    return lines
