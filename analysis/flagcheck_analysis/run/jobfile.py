"""A job file made ready to send to fio servers (fio --client=HOST FILE).

fio 3.33 expands ${VAR} in a local job file on the client, while it reads
the file (client.c read_ini_data -> fio_option_dup_subs, with the client's
environment), into a buffer only OPT_LEN_MAX bytes larger than the file;
the server then parses that buffer, where an `include FILE` line can not
be resolved (there is no file name to be relative to, and the file is on
the client).  So the runner does both itself: it writes one job file per
run and host with every ${VAR} replaced and every include inlined, and
sends that.  The servers' environments then play no part.
"""

import os
import re

_VAR = re.compile(r"\$\{([^}]+)\}")
_INCLUDE = re.compile(r"^\s*include\s+(\S.*?)\s*$")


class JobFileError(Exception):
    pass


def expand(text, env):
    """${VAR} as fio replaces it: the variable's value, or nothing."""
    return _VAR.sub(lambda m: env.get(m.group(1), ""), text)


def _read(path, env, depth):
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise JobFileError("%s: cannot read: %s" % (path, e.strerror))
    out = []
    for line in lines:
        line = expand(line, env)
        m = _INCLUDE.match(line)
        if not m:
            out.append(line)
            continue
        if depth:
            raise JobFileError("%s: include inside an included file" % path)
        name = m.group(1)
        if not os.path.isabs(name):
            name = os.path.join(os.path.dirname(path), name)
        body = _read(name, env, depth + 1)
        if any(l.lstrip().startswith("[") for l in body):
            # fio: "No new sections in included files"
            raise JobFileError("%s: included file holds a [section]" % name)
        out += ["; include %s (inlined by flagcheck-run)" % m.group(1)]
        out += body
    return out


def render(path, env):
    """The text of job file `path` with ${VAR} from `env` and every include
    inlined; raises JobFileError."""
    return "\n".join(_read(path, env, 0)) + "\n"
