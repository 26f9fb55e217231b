"""A patch into its Translation: the path (translate.py), its items before
and after (items.py), the functions one path merged, the words placed
(jobtext.py), every assumption and every statement left out, in patch
line order (docs/your-patch.md, "From a diff")."""

from collections import namedtuple

from . import items, jobtext, translate

# periods: the conditions of the one threshold given items.EVERY, for
# the `; assumed: period=` line (Notes: patch line, condition's text)
Translation = namedtuple("Translation", "patch functions files before after "
                         "fixed fixed_run words assumptions skips periods")


def translation(patch, layouts=None):
    """The Translation of @patch; translate.NoPathError where it has no
    operation of the table on a line it changes; @layouts: (before,
    after) pahole layouts or None."""
    found, rd = translate.paths(patch)
    words = items.Words()
    groups, notes = [], []
    for func, before_refs, after_refs in found:
        sb, sa = items.Side(before_refs, words), items.Side(after_refs, words)
        key = ([items.text(i) for i in sb.build()],
               [items.text(i) for i in sa.build()])
        for g in groups:
            if g[0] == key:
                g[1].append(func)
                g[4].extend(before_refs + after_refs)
                break
        else:
            groups.append([key, [func], sb, sa, before_refs + after_refs])
        notes += sb.notes + sa.notes
    _, funcs, sb, sa, _ = groups[0]
    periods = _kept(sb.periods + sa.periods)
    if periods and items.EVERY in sb.given_every | sa.given_every:
        # the band sets the suffixes of the line's value: here it would
        # set the diff's own /every too, so the interval is said in words
        notes += [items.Note(n.line, "`%s`: an interval the diff does not "
                             "give: one call in %d assumed (/every=%d; no "
                             "`; assumed: period=` line: the diff's own "
                             "/every=%d would move with it)" % (
                                 n.text, items.EVERY, items.EVERY,
                                 items.EVERY)) for n in periods]
        periods = []
    if not sb.items and not sa.items:
        raise translate.NoPathError("%s: no hot-path change: no operation "
                                    "of the table on the path it changes"
                                    % patch.path)
    skips = list(rd.skips)
    for other in groups[1:]:
        line = other[4][0].ctx.lineno(0) if other[4] else 0
        skips.append(translate.Skip(line, "%s: a second path (%s): not this"
                                    " job's; write it in a job of its own"
                                    % (", ".join("%s()" % f for f in other[1]),
                                       ", ".join(other[0][1] or other[0][0]))))
    return _assemble(patch, funcs, sb.items, sa.items, words, notes, skips,
                     layouts, periods)


def _assemble(patch, funcs, before, after, words, notes, skips, layouts,
              periods):
    names, decl = jobtext.place(words, before, after, layouts)
    before = jobtext.renamed(before, names, "before")
    after = jobtext.renamed(after, names, "after")
    fixed = [items.text(i) for i in after] != \
        [items.text(i) for i in jobtext.converted(before)]
    assumptions = _placement(decl, words, layouts)
    kept = _kept(notes + words.notes)
    assumptions += ["%s:%d: %s" % (jobtext.base(patch.path), n.line,
                                   n.text) for n in kept]
    files = []
    for h in patch.hunks:
        if h.path not in files:
            files.append(h.path)
    return Translation(patch, funcs, files, before, after, fixed,
                       after if fixed else jobtext.converted(before), decl,
                       assumptions, sorted(set(skips)), periods)


def _kept(notes):
    """Each note once, at its first patch line."""
    seen, out = set(), []
    for n in sorted(notes, key=lambda n: n.line):
        if n.text not in seen:
            seen.add(n.text)
            out.append(n)
    return out


def _placement(decl, words, layouts):
    out = []
    for d in decl:
        name = d.split("@", 1)[0]
        base = name[:-6] if name.endswith("_moved") and \
            name[:-6] in words.names else name
        expr, sharing = words.names.get(base, ("?", "all"))
        who = "each job its own (:job, a per-CPU word)" if sharing == "job" \
            else "every job shares it"
        where = "the line pahole's layout gives" if layouts and \
            jobtext.layout_offset(layouts[0], expr) is not None or \
            layouts and jobtext.layout_offset(layouts[1], expr) is not None \
            else "a line pair of its own (no layout given: --layout)"
        out.append("%s (`%s`): %s, %s" % (d, expr, where, who))
    return out
