"""The width every line a flagcheck tool prints keeps to (WIDTH columns),
and the one wrap that keeps it: a longer line goes on over more lines,
each continuation indented by 2 more than the line.  A word is never
cut (a path stays whole, so a reader can join the lines again); only a
word longer than the width itself overruns it.  In results/, the
lowest layer, so that every tool's messages use it; ArgumentParser is
argparse's with its errors kept to the same width.  A width is in
terminal columns (columns()): a CJK character takes two, a combining
mark none."""

import argparse
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


def wrap_words(text, width):
    """@text's words over lines of at most @width columns (textwrap.wrap,
    by columns): no indent."""
    return _wrap_line(text, width, "")


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


# the option column of --help at most: an option longer than this has
# its help two blanks after it, on its line still
OPTION_COLUMN = 32


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """The house style of every subcommand's --help (as perf's and git's):
    a one-line usage (`PROG [OPTIONS] POSITIONAL...`), then ONE line per
    option, `  --repeats N        runs per variant and numjobs (default
    5)`, every option's help starting at one column, never wrapped onto a
    second line, the description and epilog as written; WIDTH columns
    wide whatever COLUMNS says.  An option's help is written to
    fit (tests/analysis/test_lines_fit.py checks each); the long
    explanation is in docs/, which the epilog names.  Only a line that
    would still overrun WIDTH (a default naming a long path) goes on,
    indented to the help's column, rather than past the width."""

    def __init__(self, prog, **kw):
        # WIDTH whatever the terminal: a narrower one would wrap each
        # option's help onto lines of its own (git's help is as fixed)
        kw["width"] = min(kw.get("width") or WIDTH, WIDTH)
        kw["max_help_position"] = OPTION_COLUMN
        super().__init__(prog, **kw)

    def _format_usage(self, usage, actions, groups, prefix):
        if usage is None:
            words = ["[OPTIONS]" if any(a.option_strings and a.help
                                        is not argparse.SUPPRESS and
                                        not isinstance(a, argparse._HelpAction)
                                        for a in actions) else "[-h]"]
            words += [self._format_args(
                a, self._get_default_metavar_for_positional(a))
                for a in actions if not a.option_strings]
            usage = " ".join([self._prog] + [w for w in words if w])
        return super()._format_usage(usage, actions, groups, prefix)

    def _format_action(self, action):
        column = min(self._action_max_length + 2, self._max_help_position)
        head = " " * self._current_indent + \
            self._format_action_invocation(action)
        text = " ".join(self._expand_help(action).split()) \
            if action.help else ""
        if not text:
            return head + "\n"
        line = pad(head, column - 2) + "  " + text
        if columns(line) <= self._width:
            return line + "\n"
        first = pad(head, column - 2) + "  "
        return "\n".join(_wrap_line(first + text, self._width,
                                     " " * columns(first))) + "\n"

    def _fill_text(self, text, width, indent):
        # the description and epilog as written, a line over WIDTH wrapped
        return wrap("\n".join(indent + l for l in text.splitlines()),
                    self._width)

    def _split_lines(self, text, width):
        # as wrap() does: a path or a hyphenated name is never cut, the
        # width in columns
        return wrap_words(" ".join(text.split()), width)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose messages (an error naming a long value,
    its usage) and help keep to WIDTH columns, and which takes an option
    only as written: `--repeat 2` is refused naming `--repeats`, not run
    as it (argparse's allow_abbrev)."""

    def __init__(self, *args, **kw):
        kw.setdefault("formatter_class", HelpFormatter)
        kw.setdefault("allow_abbrev", False)
        super().__init__(*args, **kw)

    def parse_known_args(self, args=None, namespace=None):
        ns, extras = super().parse_known_args(args, namespace)
        for word in extras:
            name = word.split("=", 1)[0]
            if not name.startswith("--") or len(name) < 3:
                continue
            meant = sorted(o for o in self._option_string_actions
                           if o.startswith(name))
            if meant:
                self.error("%s: not an option (options are never "
                           "abbreviated): did you mean %s?"
                           % (name, " or ".join(meant)))
        return ns, extras

    def exit(self, status=0, message=None):
        if message:
            message = wrap(message.rstrip("\n")) + "\n"
        super().exit(status, message)
