"""A fio job file read the way fio 3.33 reads it: the one reader every
guard (jobguard.py: block devices, the fio servers' programs, the pattern
options) and the runner use.

fio's rules, mirrored from its source (fio 3.33):
- init.c __parse_jobs_ini: a line ends at '\\n' only (fgets() of at most
  OPT_LEN_MAX - 1 bytes: a line longer than that is refused here, fio
  would read it as two); a NUL ends it too (C strings).
- parse.c strip_blank_end: a line ends at its first ';', then at its first
  '#' (a comment, wherever it starts), then blanks and control characters
  at its end go; strip_blank_front: blanks at its start go.
- init.c is_empty_or_comment: a line whose first character that is not
  blank or control is ';' or '#', or that has none, is skipped.
- init.c: "[NAME]": sscanf("[%255[^\\n]]") then the last character
  dropped; a NAME beginning with "global" is the global section (strncmp
  with 6); the section name is the job's name (add_job), the file fio
  opens when no filename= is given and a file of that name exists and is
  not a regular file (init.c add_job, exists_and_not_regfile).
- init.c: "include FILE": FILE as given if it exists, else beside the
  including job file; no [section] in an included file.
- options.c fio_option_dup_subs: ${VAR} in an option line, after the
  cut, becomes the variable's value or nothing (also "${}");
- options.c fio_keyword_replace: then $pagesize, $mb_memory and $ncpus
  (in that order, wherever they occur) become this machine's page size,
  its memory in MiB and its configured CPUs; where one was replaced and
  the line holds '+', '-', '*' or '/' and no quote, fio hands the value
  to bc (bc_calc) and takes what bc prints. Only in a job file: fio's
  command line and section names are not replaced;
  parse.c get_option: the key ends at the first '=', its blanks at the end
  stripped.
fio reads bytes: a byte that is not UTF-8 is kept as it is
(surrogateescape) and never stops the reading.

The runner also sends fio servers one job file per run and host: fio
3.33's client expands ${VAR} into a buffer only OPT_LEN_MAX bytes larger
than the file (client.c read_ini_data) and the server can not resolve
`include`, so render() writes the text with every ${VAR} replaced and
every include inlined; the servers' environments then play no part.
"""

import os
import re
from collections import namedtuple

from . import textfile

# parse.h OPT_LEN_MAX: fgets() reads at most OPT_LEN_MAX - 1 bytes a line
OPT_LEN_MAX = 8192
MAX_BYTES = textfile.MAX_BYTES
# C locale isspace() and iscntrl()
_SPACE = " \t\n\v\f\r"
_BLANK_OR_CNTRL = "".join(map(chr, range(32))) + " \x7f"

_VAR = re.compile(r"\$\{([^}]*)\}")
_INCLUDE = "include"

# one option line: its section (the job name as written), key, value after
# the cut, ${VAR} expansion and fio's keywords, the value before expansion,
# where it is, what the cut took off the line ("" when nothing), and
# whether fio replaced a keyword in it ("bc" where it then computes it)
Option = namedtuple("Option", "section key value written where comment "
                    "keyword", defaults=("",))
# options.c fio_keywords, in fio's order
KEYWORDS = ("$pagesize", "$mb_memory", "$ncpus")


class JobFileError(Exception):
    """One line: the file, what in it, and why fio or the guard can not
    take it."""


def read_text(path, what="job file"):
    """The text of @path (inputs/textfile.py: a regular file of at most
    MAX_BYTES, its bytes kept); JobFileError where it can not be read."""
    try:
        return textfile.read_text(path, what, MAX_BYTES)
    except textfile.TextFileError as e:
        raise JobFileError(str(e))


to_bytes = textfile.to_bytes


def cut(s):
    """parse.c strip_blank_end: @s ended at its first ';', then its first
    '#', and stripped of blanks and control characters at its end."""
    return s.split(";", 1)[0].split("#", 1)[0].rstrip(_BLANK_OR_CNTRL)


def is_comment(line):
    """init.c is_empty_or_comment."""
    rest = line.lstrip(_BLANK_OR_CNTRL)
    return not rest or rest[0] in ";#"


def expand(text, env):
    """${VAR} as fio replaces it: the variable's value, or nothing."""
    return _VAR.sub(lambda m: env.get(m.group(1), ""), text)


def _lines(path, text):
    for n, line in enumerate(text.split("\n"), 1):
        if len(to_bytes(line)) > OPT_LEN_MAX - 1:
            raise JobFileError("%s:%d: a line of more than %d bytes: fio "
                               "would read it as two" % (path, n,
                                                         OPT_LEN_MAX - 1))
        yield n, line.split("\0", 1)[0]


def section_name(line):
    """The section a "[NAME]" line opens, as fio reads it (after the
    cut), or None when the line opens none."""
    line = cut(line.lstrip(_SPACE))
    if not line.startswith("[") or len(line) < 2:
        return None
    return line[1:256][:-1]


def is_global(name):
    return name.startswith("global")


def include_path(path, name):
    """The file `include NAME` in job file @path names: NAME where it
    exists, else beside @path."""
    if os.path.exists(name) or "/" not in path:
        return name
    return os.path.join(os.path.dirname(path), name)


def _option_lines(path, text, section, nested):
    """[(where, section, the line after the cut, what the cut took)],
    includes followed; a section opened is marked by a line None."""
    out = []
    for n, line in _lines(path, text):
        where = "%s:%d" % (path, n)
        if is_comment(line):
            continue
        name = section_name(line)
        if name is not None:
            if nested:
                raise JobFileError("%s: a [section] in an included file "
                                   "(fio: No new sections in included "
                                   "files)" % where)
            section = name
            out.append((where, section, None, ""))
            continue
        whole = line.lstrip(_SPACE)
        line = cut(whole)
        if section is None:
            raise JobFileError("%s: %s: an option before the first "
                               "[section] (fio refuses it)" % (where, line))
        if line.startswith(_INCLUDE):
            if nested:
                raise JobFileError("%s: include inside an included file"
                                   % where)
            inc = include_path(path, line[len(_INCLUDE) + 1:])
            out += _option_lines(inc, read_text(inc), section, True)
            continue
        out.append((where, section, line, whole[len(line):]))
    return out


def keyword_values():
    """{keyword: what fio 3.33 replaces it with on this machine}
    (fio_keywords_init: page_size, os_phys_mem() / 1 MiB,
    cpus_configured())."""
    page = os.sysconf("SC_PAGESIZE")
    return {"$pagesize": str(page),
            "$mb_memory": str(os.sysconf("SC_PHYS_PAGES") * page // 2**20),
            "$ncpus": str(os.sysconf("SC_NPROCESSORS_CONF"))}


def replace_keywords(value, values=None):
    """(@value with fio's keywords replaced, "" where none was, "keyword"
    where one was, "bc" where fio would then compute it with bc)."""
    if not any(w in value for w in KEYWORDS):
        return value, ""
    values = values or keyword_values()
    out = value
    for word in KEYWORDS:
        out = out.replace(word, values[word])
    math = any(c in out for c in "+-*/") and "'" not in out
    return out, "bc" if math else "keyword"


def _expand_checked(line, env, where):
    for m in _VAR.finditer(line):
        value = env.get(m.group(1), "")
        if "\n" in value:
            raise JobFileError("%s: ${%s} holds a line break: fio and its "
                               "servers would read a new line there"
                               % (where, m.group(1)))
    return expand(line, env)


def read(path, env):
    """([section names in order], [Option]) of job file @path as fio reads
    it, ${VAR} from @env; raises JobFileError."""
    sections, opts = [], []
    for where, section, line, comment in _option_lines(
            path, read_text(path), None, False):
        if line is None:
            sections.append(section)
            continue
        key, eq, written = line.partition("=")
        key = cut(key)
        written = written if eq else None
        value = None if written is None else \
            _expand_checked(written, env, where)
        value, keyword = (None, "") if value is None else \
            replace_keywords(value)
        opts.append(Option(section, key, value, written, where, comment,
                           keyword))
    return sections, opts


def render(path, env):
    """The text of job file @path with ${VAR} from @env and every include
    inlined (for fio servers); raises JobFileError."""
    read(path, env)         # what fio would refuse, refused here first
    out = []
    text = read_text(path)
    for n, line in _lines(path, text):
        body = cut(line.lstrip(_SPACE))
        if not is_comment(line) and body.startswith(_INCLUDE) and \
                section_name(line) is None:
            inc = include_path(path, body[len(_INCLUDE) + 1:])
            out += ["; include %s (inlined by flagcheck run)"
                    % body[len(_INCLUDE) + 1:]]
            out += [expand(l, env) for _, l in _lines(inc, read_text(inc))]
            continue
        out.append(expand(line, env))
    text = "\n".join(out)
    return text if text.endswith("\n") else text + "\n"
