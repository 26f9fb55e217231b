"""fio's command line as fio 3.33 reads it (init.c parse_cmd_line:
getopt_long_only() over fio's own options and every job option, the words
left over being job files), every way fio could read a word taken so that
nothing fio would write is missed: long options and their abbreviations,
one-dash short options, the next word as an option's value or a job file.
docs/analysis.md, "The command line beside the job file"."""

import collections
import re
import subprocess

# init.c l_opts: long name -> (short letter, takes: "required",
# "optional" (only -oV or --opt=V) or "none")
FIO_OPTIONS = {
    "output": ("o", "required"), "latency-log": ("l", "required"),
    "bandwidth-log": ("b", "none"), "minimal": ("m", "none"),
    "output-format": ("F", "required"), "append-terse": ("f", "optional"),
    "version": ("v", "none"), "help": ("h", "none"),
    "cmdhelp": ("c", "optional"), "enghelp": ("i", "optional"),
    "showcmd": ("s", "none"), "readonly": ("r", "none"),
    "eta": ("e", "required"), "eta-interval": ("O", "required"),
    "eta-newline": ("E", "required"), "debug": ("d", "required"),
    "parse-only": ("P", "none"), "section": ("x", "required"),
    "inflate-log": ("X", "required"), "alloc-size": ("a", "required"),
    "profile": ("p", "required"), "warnings-fatal": ("w", "none"),
    "max-jobs": ("j", "required"), "terse-version": ("V", "required"),
    "server": ("S", "optional"), "daemonize": ("D", "required"),
    "client": ("C", "required"), "remote-config": ("R", "required"),
    "cpuclock-test": ("T", "none"), "crctest": ("G", "optional"),
    "memcpytest": ("M", "optional"), "idle-prof": ("I", "required"),
    "status-interval": ("L", "required"),
    "trigger-file": ("W", "required"), "trigger-timeout": ("B", "required"),
    "trigger": ("H", "required"), "trigger-remote": ("J", "required"),
    "aux-path": ("K", "required"), "merge-blktrace-only": ("A", "none"),
}
SHORT = {s: (name, takes) for name, (s, takes) in FIO_OPTIONS.items()}
# a long option name fio (or an engine) could have: getopt compares the
# word up to '=' with the names, all made of these characters
_NAME = re.compile(r"[A-Za-z0-9_-]+")

# one reading of a word: @name a long name of fio's own (@fio) or a job
# option's name as written; @value None where none is given; @written the
# word, and the next where it is the value
Option = collections.namedtuple("Option", "name value fio written")


def _long(word, name, value, has_eq, nxt, takes_value):
    """The readings of long option @name (as written, up to '='), each
    with whether it takes the next word @nxt: [(Option, takes_next)]."""
    exact = name in FIO_OPTIONS
    out = []
    for n in [name] if exact else [n for n in FIO_OPTIONS
                                   if n.startswith(name)]:
        if has_eq or FIO_OPTIONS[n][1] != "required" or nxt is None:
            out.append((Option(n, value if has_eq else None, True, word),
                        False))
        else:
            out.append((Option(n, nxt, True, word + " " + nxt), True))
    if exact:
        return out
    # a job option (or an engine's): its value after '=', else the next
    # word where it takes a value (fio --cmdhelp), and both where not known
    if has_eq:
        return out + [(Option(name, value, False, word), False)]
    takes = takes_value(name) if nxt is not None else False
    if takes is not False:
        out.append((Option(name, nxt, False, word + " " + nxt), True))
    if takes is not True:
        out.append((Option(name, None, False, word), False))
    return out


def _short(word, nxt):
    """The readings of @word (one dash) as fio's short options:
    [(Option, takes_next)], or [] where a letter is not fio's."""
    out, i = [], 1
    while i < len(word):
        c = word[i]
        if c not in SHORT:
            return []
        name, takes = SHORT[c]
        rest = word[i + 1:]
        if takes == "none":
            out.append((Option(name, None, True, word), False))
            i += 1
        elif rest or takes == "optional" or nxt is None:
            return out + [(Option(name, rest or None, True, word), False)]
        else:
            return out + [(Option(name, nxt, True, word + " " + nxt), True)]
    return out


def read(args, takes_value=lambda name: None):
    """(options, job files) of fio's command line @args: options a list
    of Option, every reading of every word; job files the words fio takes
    as job files, and (maybe) those that only some reading leaves over.
    @takes_value(name): whether job option @name takes a value (True),
    takes none unless after '=' (False), or is not known (None)."""
    options, jobs, maybe, i = [], [], [], 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            jobs += args[i:]
            break
        if not word.startswith("-") or word == "-":
            jobs.append(word)
            continue
        nxt = args[i] if i < len(args) else None
        name, eq, value = word.lstrip("-").partition("=")
        one_dash = not word.startswith("--")
        readings = []
        if _NAME.fullmatch(name) and not (
                one_dash and len(word) == 2 and word[1] in SHORT):
            readings += _long(word, name, value, bool(eq), nxt,
                              takes_value)
        if one_dash:
            readings += _short(word, nxt)
        options += [o for o, _ in readings]
        takes = {t for _, t in readings}
        if takes == {True}:
            i += 1              # the next word is a value only
        elif True in takes and not nxt.startswith("-"):
            maybe.append(nxt)   # a value, or a job file: both
            i += 1
    return options, jobs, maybe


def asking(fio):
    """takes_value() for read(), asking @fio (fio --cmdhelp=NAME: "type:
    empty or boolean value" for the STR_SET options, which take a value
    only after '='); None where fio names no option (or only a closest
    match) by @name, or can not be asked."""
    known = {}

    def takes_value(name):
        if name not in known:
            known[name] = _cmdhelp(fio, name)
        return known[name]
    return takes_value


def _cmdhelp(fio, name):
    try:
        p = subprocess.run([fio, "--cmdhelp=" + name], capture_output=True,
                           text=True, errors="replace", timeout=30,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    fields = [line.partition(":")[::2] for line in p.stdout.splitlines()]
    fields = [(k.strip(), v.strip()) for k, v in fields]
    names = {fields[0][0]} if fields else set()
    names |= {v for k, v in fields if k == "alias"}
    kinds = [v for k, v in fields if k == "type"]
    if p.returncode != 0 or "closest match" in p.stdout or \
            name not in names or not kinds:
        return None
    return not kinds[0].startswith("empty or boolean")
