"""pahole's output (Debian's dwarves: `pahole -C STRUCT vmlinux`), read
for the byte offset of each member of each struct it prints, so that
`flagcheck from-diff --layout BEFORE AFTER` puts a word on the line
pahole says (docs/your-patch.md).  A file with no struct is refused in
one line naming it."""

import re
from collections import namedtuple

from . import textfile

# pahole of one struct is a few KiB; of a whole vmlinux tens of MiB
MAX_BYTES = 64 << 20

Member = namedtuple("Member", "name type offset size")

_OPEN = re.compile(r"^(struct|union)\s+([A-Za-z_]\w*)\s*\{\s*$")
# a member: its declaration, then /* OFFSET SIZE */ or, for a bit
# field, /* OFFSET: BIT SIZE */
_MEMBER = re.compile(r"^\t(?!/)(.*?);\s*/\*\s*(\d+)(?::\s*\d+)?\s+(\d+)\s*\*/")
_NAME = re.compile(r"\(\*\s*([A-Za-z_]\w*)\)|([A-Za-z_]\w*)\s*(?:\[[^\]]*\]"
                   r"\s*)*(?::\s*\d+)?\s*(?:__attribute__.*)?$")


class PaholeError(Exception):
    """One line: the file and what is wrong."""


def read(path):
    """{struct name: {member name: Member}} of pahole's output at @path;
    a struct's members in the order printed (offset order)."""
    try:
        text = textfile.read_text(path, "pahole output", MAX_BYTES)
    except textfile.TextFileError as e:
        raise PaholeError(str(e))
    return parse(path, text)


def parse(path, text):
    out, cur = {}, None
    for line in text.split("\n"):
        m = _OPEN.match(line)
        if m and cur is None:
            cur = out.setdefault(m.group(2), {})
            continue
        if cur is None:
            continue
        if line.startswith("}"):
            cur = None
            continue
        m = _MEMBER.match(line)
        if m:
            decl = m.group(1).strip()
            n = _NAME.search(decl)
            if n:
                name = n.group(1) or n.group(2)
                kind = decl[:n.start()].strip()
                cur[name] = Member(name, kind, int(m.group(2)),
                                   int(m.group(3)))
    if not any(out.values()):
        raise PaholeError("%s: no struct with members: want pahole's "
                          "output (pahole -C STRUCT FILE)" % path)
    return out


def offset(layout, path):
    """The byte offset of the member chain @path (['d_lockref',
    'count']) in @layout, searching each struct for its first name and
    following embedded structs pahole also printed; None where a name is
    not in it."""
    for sname, members in layout.items():
        if path[0] not in members:
            continue
        m = members[path[0]]
        off = m.offset
        for name in path[1:]:
            inner = re.match(r"^(?:struct|union)\s+(\w+)$", m.type)
            if not inner or inner.group(1) not in layout or \
                    name not in layout[inner.group(1)]:
                break
            m = layout[inner.group(1)][name]
            off += m.offset
        return off
    return None
