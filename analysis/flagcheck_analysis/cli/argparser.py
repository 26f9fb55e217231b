"""argparse's parser in the house style of every subcommand's --help (as
perf's and git's), its messages kept to 120 columns (width.py)."""

import argparse

from .. import width


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
        kw["width"] = min(kw.get("width") or width.WIDTH, width.WIDTH)
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
        line = width.pad(head, column - 2) + "  " + text
        if width.columns(line) <= self._width:
            return line + "\n"
        first = width.pad(head, column - 2) + "  "
        return "\n".join(width.wrap_words(first + text, self._width,
                                          " " * width.columns(first))) + "\n"

    def _fill_text(self, text, cols, indent):
        # the description and epilog as written, a line over WIDTH wrapped
        return width.wrap("\n".join(indent + l for l in text.splitlines()),
                          self._width)

    def _split_lines(self, text, cols):
        # as wrap() does: a path or a hyphenated name is never cut, the
        # width in columns
        return width.wrap_words(" ".join(text.split()), cols)


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
            message = width.wrap(message.rstrip("\n")) + "\n"
        super().exit(status, message)


class Moved(argparse.Action):
    """An option that moved or was renamed: giving it is one line naming
    what to give now (@now), never an alias; hidden from --help."""

    def __init__(self, option_strings, dest, now=None, **kw):
        super().__init__(option_strings, dest, nargs="?",
                         help=argparse.SUPPRESS)
        self.now = now

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error("%s: now %s" % (option_string, self.now))
