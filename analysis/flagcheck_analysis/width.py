"""The width every line a flagcheck tool prints keeps to (WIDTH columns),
and the one wrap that keeps it: a longer line goes on over more lines,
each continuation indented by 2 more than the line.  A word is never
cut (a path stays whole, so a reader can join the lines again); only a
word longer than the width itself overruns it.  In results/, the
lowest layer, so that every tool's messages use it; ArgumentParser is
argparse's with its errors kept to the same width."""

import argparse
import shutil
import textwrap

WIDTH = 120


def wrap(text, width=WIDTH):
    """Every line of @text longer than @width wrapped."""
    out = []
    for l in text.split("\n"):
        if len(l) <= width:
            out.append(l)
            continue
        indent = len(l) - len(l.lstrip(" "))
        out += textwrap.wrap(l, width, initial_indent="",
                             subsequent_indent=" " * (indent + 2),
                             break_on_hyphens=False,
                             break_long_words=False,
                             drop_whitespace=True) or [l]
    return "\n".join(out)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """argparse's help, its description as written, at most WIDTH columns
    wide whatever COLUMNS says."""

    def __init__(self, prog, **kw):
        cols = kw.get("width") or shutil.get_terminal_size().columns - 2
        kw["width"] = min(cols, WIDTH)
        super().__init__(prog, **kw)

    def _split_lines(self, text, width):
        # as wrap() does: a path or a hyphenated name is never cut
        return textwrap.wrap(" ".join(text.split()), width,
                             break_on_hyphens=False, break_long_words=False)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose messages (an error naming a long value,
    its usage) and help keep to WIDTH columns."""

    def __init__(self, *args, **kw):
        kw.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kw)

    def exit(self, status=0, message=None):
        if message:
            message = wrap(message.rstrip("\n")) + "\n"
        super().exit(status, message)
