"""The documentation: README.md stays a short user's document, and every
relative link in README.md and docs/**/*.md leads to a file (or folder)
of the repository, and to a heading of it where the link names one."""
import glob
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README_MAX_LINES = 300

# [text](target) and ![alt](target), target up to a space or ")"; an
# optional "title" after it is not part of the target
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`]*`")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")     # https:, mailto:


def doc_files():
    files = [os.path.join(ROOT, "README.md")]
    files += glob.glob(os.path.join(ROOT, "docs", "**", "*.md"),
                       recursive=True)
    return sorted(files)


def prose_lines(text):
    """(line number, line) outside fenced code blocks, inline code blanked:
    a link inside code is an example, not a link."""
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield n, INLINE_CODE.sub("``", line)


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation other
    than '-' and '_' dropped, each space a '-'."""
    text = INLINE_CODE.sub(lambda m: m.group(0).strip("`"), heading)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(text):
    """Every heading's anchor in a Markdown text, with GitHub's -1, -2 ...
    for repeated headings."""
    seen, out = {}, set()
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if fenced or not m:
            continue
        s = slug(m.group(1))
        out.add(s if s not in seen else "%s-%d" % (s, seen[s]))
        seen[s] = seen.get(s, 0) + 1
    return out


def links(path):
    """(line number, target) of every relative link in the file at path."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for n, line in prose_lines(text):
        for m in LINK.finditer(line):
            target = m.group(1)
            if not EXTERNAL.match(target):
                yield n, target


def broken(path, target):
    """Why the link target from the file at path does not resolve, or None."""
    name, _, anchor = target.partition("#")
    dest = os.path.normpath(os.path.join(os.path.dirname(path), name)) \
        if name else path
    if not dest.startswith(ROOT + os.sep) and dest != ROOT:
        return "leads outside the repository"
    if not os.path.exists(dest):
        return "no such file: %s" % os.path.relpath(dest, ROOT)
    if anchor:
        if not dest.endswith(".md") or os.path.isdir(dest):
            return "an anchor into something that is not a Markdown file"
        with open(dest, encoding="utf-8") as f:
            if anchor not in anchors(f.read()):
                return "no heading #%s in %s" % (
                    anchor, os.path.relpath(dest, ROOT))
    return None


def test_readme_is_short():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        n = len(f.read().splitlines())
    assert n <= README_MAX_LINES, \
        "README.md has %d lines, more than %d: move reference text to docs/" \
        % (n, README_MAX_LINES)


@pytest.mark.parametrize("path", doc_files(),
                         ids=lambda p: os.path.relpath(p, ROOT))
def test_every_relative_link_resolves(path):
    found = list(links(path))
    bad = ["%s:%d: (%s) %s" % (os.path.relpath(path, ROOT), n, t, why)
           for n, t in found for why in [broken(path, t)] if why]
    assert not bad, "\n".join(bad)


def test_readme_links_the_docs():
    """The README is the way in: every page directly in docs/ is linked
    from it."""
    readme = os.path.join(ROOT, "README.md")
    linked = {os.path.normpath(os.path.join(ROOT, t.partition("#")[0]))
              for _, t in links(readme)}
    pages = glob.glob(os.path.join(ROOT, "docs", "*.md"))
    assert pages
    missing = sorted(os.path.relpath(p, ROOT) for p in pages
                     if p not in linked)
    assert not missing, "not linked from README.md: %s" % ", ".join(missing)


def test_checker_finds_what_is_broken(tmp_path, monkeypatch):
    """The checker itself: a missing file, a missing heading and a link
    out of the tree are each reported; code and external links are not
    checked; a good file and heading pass."""
    monkeypatch.setitem(globals(), "ROOT", str(tmp_path))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(
        "# Top\n\n## The `make` step, and why\n\n## Top\n")
    readme = tmp_path / "README.md"
    readme.write_text(
        "[ok](docs/a.md) [ok2](docs/a.md#the-make-step-and-why) "
        "[dup](docs/a.md#top-1) [self](#x)\n"
        "[gone](docs/b.md) [nohead](docs/a.md#nowhere) [out](../x.md)\n"
        "`[code](nowhere.md)` [web](https://example.invalid/x)\n"
        "```\n[fenced](nowhere.md)\n```\n# X\n")
    got = {t: broken(str(readme), t) for _, t in links(str(readme))}
    assert set(got) == {"docs/a.md", "docs/a.md#the-make-step-and-why",
                        "docs/a.md#top-1", "#x", "docs/b.md",
                        "docs/a.md#nowhere", "../x.md"}
    assert [t for t, why in got.items() if why] == \
        ["docs/b.md", "docs/a.md#nowhere", "../x.md"]
