"""Rendering the comparison and scaling tables as text (terminal), Markdown
and CSV.  Text and Markdown share one table model: a header and rows of
strings."""

import csv
import io
import json
import re

from ..inputs import published
from ..stats import interval
from .. import width

# a cell's width: terminal columns, not len() (functions, not the module:
# the layout's functions take a parameter named width)
cols, pad, cut, wrap_words = (width.columns, width.pad, width.cut,
                              width.wrap_words)


def fmt_value(v):
    if v is None:
        return "-"
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return "%.0f" % v
    if abs(v) >= 1:
        return "%.2f" % v
    return "%.3g" % v


def fmt_mean_sd(cell):
    """LKP's 'mean ± %stddev'; no ± for a single run."""
    if not cell.n:
        return "-"
    if cell.n == 1:
        return fmt_value(cell.mean)
    if cell.pct_stddev is None:                 # mean 0
        return "0" if not cell.stddev else "0 ± %s" % fmt_value(cell.stddev)
    return "%s ± %2.0f%%" % (fmt_value(cell.mean), cell.pct_stddev)


def fmt_change(comp, base):
    if comp.pct_change is not None:
        return "%+.1f%%" % comp.pct_change
    if base.n and comp.cell.n:
        return "n/a (base 0)"
    return "-"


def fmt_ci(ci):
    return "-" if ci is None else "%.3f..%.3f" % ci


def compare_table(section):
    """(title, header, rows, right_aligned_columns) for one section."""
    base = section.base_variant
    header = [base]
    for variant in section.variants[1:]:
        header += ["%change", variant, "ratio 95% CI", "verdict"]
    header.append("metric")
    rows = []
    for row in section.rows:
        cells = [fmt_mean_sd(row.base)]
        for comp in row.others:
            cells += [fmt_change(comp, row.base), fmt_mean_sd(comp.cell),
                      fmt_ci(comp.verdict.ci), comp.verdict.text]
        cells.append(row.name)
        rows.append(cells)
    right = {0} | {1 + 4 * i + j for i in range(len(section.variants) - 1)
                   for j in (0, 1, 2)}
    title = "%s, numjobs=%d" % (section.scenario, section.numjobs)
    return title, header, rows, right


def scaling_tables(lines, variants):
    """One (title, header, rows, right) per scenario."""
    base = variants[0]
    out = []
    for scenario in sorted({l.scenario for l in lines},
                           key=published.order_key):
        header = ["numjobs"]
        for variant in variants:
            header += ["%s iops" % variant, "speedup", "efficiency"]
        header += ["%s/%s" % (variant, base) for variant in variants[1:]]
        rows = []
        for line in (l for l in lines if l.scenario == scenario):
            cells = [str(line.numjobs)]
            for variant in variants:
                p = line.points.get(variant)
                if p is None:
                    cells += ["-", "-", "-"]
                    continue
                cells += ["%s (n=%d)" % (fmt_value(p.iops), p.n),
                          "-" if p.speedup is None else "x%.2f" % p.speedup,
                          "-" if p.efficiency is None
                          else "%.0f%%" % (100 * p.efficiency)]
            for variant in variants[1:]:
                p = line.points.get(variant)
                cells.append("-" if p is None or p.ratio is None
                             else "x%.3f" % p.ratio)
            rows.append(cells)
        out.append(("scaling: %s (IOPS mean; speedup over numjobs=1; "
                    "efficiency = speedup / numjobs; %s: the ratio the "
                    "comparison's CI and the summary are of)"
                    % (scenario, "/".join(variants[1:2] + [base])
                       if len(variants) == 2 else "variant/%s" % base),
                    header, rows, set(range(len(header)))))
    return out


# the terminal's width: a text table wider than this moves its long notes
# to numbered footnotes under it, then breaks its headers in two, then
# splits its columns; every other line is wrapped (report.md keeps all)
WIDTH = 120
_width = [WIDTH]        # flagcheck report --width sets it (set_width)
NOTE_MIN = 16           # a column is not cut narrower than this for a note
_CUTS = (": ", "; ", " (", ", ")
_PROSE = re.compile(r"[A-Za-z]{2,}[ ,:;]+[A-Za-z]{2,}")


def set_width(cols):
    """The width every text table and line keeps to; 0: no limit."""
    _width[0] = cols


def terminal_width():
    return _width[0] or 10 ** 9


def _widths(header, rows):
    return [max(cols(line) for r in [header] + rows for line in
                r[i].split("\n")) for i in range(len(header))]


def _total(widths):
    return sum(widths) + 2 * (len(widths) - 1)


def _note(cell, cap, notes):
    """@cell shortened to @cap with a footnote mark; its text in @notes."""
    if cell not in notes:
        notes.append(cell)
    mark = "[%d]" % (notes.index(cell) + 1)
    room = cap - len(mark) - 1
    cuts = [cell.find(c) for c in _CUTS]
    cuts = [i for i in cuts if 0 < i and cols(cell[:i]) <= room]
    if cuts:
        head = cell[:min(cuts)]
    else:
        head = cut(cell, room + 1).rsplit(" ", 1)[0] if room > 0 \
            else ""
        head = cut(head, room)
    return (head.rstrip(" ,;:(") + " " + mark) if head else mark


def _is_note(cell, cap, right=False):
    """Prose (it has a space) longer than @cap: a footnote's text; names
    and numbers stay whole.  In a right-aligned (figures) column, only
    prose of words ("beyond 100% (x16.8): the runs' ..."), never a
    figure with its spread ("2547227 ±  7%")."""
    if right and not _PROSE.search(cell):
        return False
    return cols(cell) > cap and " " in cell.strip()


def _word(h):
    return max(cols(w) for w in h.split()) if h.strip() else 0


def _footnote(cells, right, width, notes):
    """Long prose becomes footnotes, the widest such column first, until
    the table fits (its headers may break later)."""
    header, rows = cells[0], cells[1:]
    while True:
        widths = [max([_word(header[i])] + [cols(r[i]) for r in rows])
                  for i in range(len(header))]
        over = _total(widths) - width
        if over <= 0:
            return
        free = [i for i in range(len(header))
                if i not in _keys(header) and
                any(_is_note(r[i], max(NOTE_MIN, _word(header[i])),
                             i in right) for r in rows)]
        if not free:
            return
        i = max(free, key=lambda k: widths[k])
        cap = max(NOTE_MIN, _word(header[i]), widths[i] - over)
        changed = False
        for r in rows:
            if _is_note(r[i], cap, i in right):
                r[i] = _note(r[i], cap, notes)
                changed = True
        if not changed:
            return


def _break_headers(header, rows, width):
    """Headers wider than their column's cells wrapped onto more lines,
    the widest first, until the table fits."""
    order = sorted(range(len(header)), key=lambda i: -cols(header[i]))
    for i in order:
        if _total(_widths(header, rows)) <= width:
            return
        cells = max([cols(r[i]) for r in rows] + [_word(header[i]), 1])
        if cols(header[i]) > cells:
            header[i] = "\n".join(wrap_words(
                header[i], max(cells, NOTE_MIN // 2)))


def _keys(header):
    """The columns every part of a split table repeats: the first (and
    numjobs or variant beside it), and a last 'metric' column."""
    keys = [0] + ([1] if len(header) > 1 and header[1] in
                  ("numjobs", "variant") else [])
    if len(header) > 2 and header[-1] == "metric":
        keys.append(len(header) - 1)
    return keys


def _column_groups(header, rows, width):
    """[[column]]: the key columns in every group, the others in as many
    groups as fit."""
    keys = _keys(header)
    widths = _widths(header, rows)
    base = _total([widths[k] for k in keys])
    groups, cur, used = [], [], base
    for i in range(len(header)):
        if i in keys:
            continue
        if cur and used + 2 + widths[i] > width:
            groups.append(cur)
            cur, used = [], base
        cur.append(i)
        used += 2 + widths[i]
    if cur or not groups:
        groups.append(cur)
    return [sorted(keys + g) for g in groups]


def _render(header, rows, right):
    widths = _widths(header, rows)

    def line(cells):
        return "  ".join(pad(c, w, i in right)
                         for i, (c, w) in enumerate(zip(cells, widths))
                         ).rstrip()
    depth = max(h.count("\n") for h in header) + 1
    heads = []
    for k in range(depth):
        parts = [h.split("\n") for h in header]
        heads.append(line([(["" ] * (depth - len(p)) + p)[k]
                           for p in parts]))
    rule = "  ".join("-" * w for w in widths)
    return heads + [rule] + [line(r) for r in rows]


def wrap(text, cols=None):
    """Every line longer than @cols (terminal_width()) wrapped, its
    continuation indented by 2 (width.py)."""
    return width.wrap(text, cols or terminal_width())


def text_table(title, header, rows, right, width=None):
    """The table as text, at most @width columns wide (WIDTH): a long note
    in a text column becomes a numbered footnote under the table ("[1]"),
    then headers break in two, then the columns are split into tables of
    their own, each with the key columns."""
    width = width or terminal_width()
    header = list(header)
    rows = [list(r) for r in rows]
    notes = []
    _footnote([header] + rows, right, width, notes)
    _break_headers(header, rows, width)
    out = [wrap(title, width)]
    if _total(_widths(header, rows)) <= width:
        out += _render(header, rows, right)
    else:
        for group in _column_groups(header, rows, width):
            out += _render([header[i] for i in group],
                           [[r[i] for i in group] for r in rows],
                           {k for k, i in enumerate(group) if i in right})
    out += [wrap("[%d] %s" % (n, t), width)
            for n, t in enumerate(notes, 1)]
    return "\n".join(out)


def markdown_table(title, header, rows, right):
    def esc(c):
        return c.replace("|", "\\|")
    out = ["### " + title, "",
           "| " + " | ".join(esc(h) for h in header) + " |",
           "|" + "|".join("---:" if i in right else ":---"
                          for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def text(header_lines, tables):
    parts = ["\n".join(wrap(h) for h in header_lines)]
    parts += [text_table(*t) for t in tables]
    return "\n\n".join(parts) + "\n"


def markdown(header_lines, tables):
    parts = ["# flagcheck report", "\n".join("- " + h for h in header_lines)]
    parts += [markdown_table(*t) for t in tables]
    return "\n\n".join(parts) + "\n"


def json_table(title, header, rows, right):
    """A table as --format json gives it: its cells the text's own."""
    return {"title": title, "columns": list(header),
            "right": sorted(right), "rows": [list(r) for r in rows]}


def json_doc(header_lines, tables, notes=(), data=None, warnings=()):
    """--format json: the header's lines, every table (json_table()), the
    lines under the summary, the sections' figures as numbers (@data:
    {"compare": ..., "summary": ..., "bigbox": ...}) and the warnings
    printed on stderr, as one object."""
    doc = {"header": list(header_lines),
           "tables": [json_table(*t) for t in tables],
           "notes": list(notes), "warnings": list(warnings)}
    doc.update(data or {})
    return json.dumps(doc, indent=1, allow_nan=False) + "\n"


def _interval_data(v):
    """The verdict's one interval as numbers (stats/interval.py), and any
    second statistic beside it, labelled as one (never the verdict's)."""
    iv = v.interval
    second = None
    if v.welch is not None and iv is not None and iv.by == "pairs":
        second = dict(v.welch._asdict(), what="Welch's test of the "
                      "unpaired means: a second statistic, not the "
                      "verdict's")
    return {"ratio": iv.ratio if iv else None,
            "ci": list(v.ci) if v.ci else None,
            "by": iv.by if iv else None, "n": iv.n if iv else None,
            "p": iv.p if iv else (v.welch.p if v.welch else None),
            "unpaired": iv.unpaired if iv else None,
            "welch": v.welch._asdict() if v.welch and not second else None,
            "second": second}


def compare_data(sections):
    """The comparison's figures as numbers: per scenario, numjobs and
    metric, the base cell and each other variant's, with %change, the
    ratio with its one interval (over pairs or unpaired, and why), the
    p-value of the interval's test and the verdict (its kind and its
    words)."""
    out = []
    for s in sections:
        for row in s.rows:
            out.append({
                "scenario": s.scenario, "numjobs": s.numjobs,
                "metric": row.key, "name": row.name,
                "base": _cell_data(row.base),
                "others": [dict(_cell_data(c.cell),
                                pct_change=c.pct_change,
                                verdict=c.verdict.kind,
                                verdict_text=c.verdict.text,
                                **_interval_data(c.verdict))
                           for c in row.others]})
    return out


def _cell_data(c):
    return {"variant": c.variant, "n": c.n, "mean": c.mean, "stddev": c.stddev,
            "values": list(c.values)}


def in_format(fmt, text, markdown):
    """The renderer that --format names ("text" or "markdown") of a pair:
    each caller names both, so that a grep for one finds its callers."""
    return {"text": text, "markdown": markdown}[fmt]


def csv_number(v):
    """A CSV cell of a number: ten significant figures, "" for None."""
    return "" if v is None else format(v, ".10g")


def compare_csv(sections):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["scenario", "numjobs", "metric", "base_variant", "base_n",
                "base_mean", "base_stddev", "variant", "n", "mean", "stddev",
                "pct_change", "ratio", "ratio_ci_low", "ratio_ci_high",
                "ratio_over", "p", "verdict"])
    for s in sections:
        for row in s.rows:
            for comp in row.others:
                v = comp.verdict
                d = _interval_data(v)
                ci = v.ci or (None, None)
                w.writerow([s.scenario, s.numjobs, row.name, row.base.variant,
                            row.base.n, csv_number(row.base.mean),
                            csv_number(row.base.stddev), comp.cell.variant,
                            comp.cell.n, csv_number(comp.cell.mean),
                            csv_number(comp.cell.stddev),
                            csv_number(comp.pct_change)]
                           + [csv_number(x) for x in (d["ratio"], *ci)]
                           + [interval.over(v.interval) if v.interval else "",
                              csv_number(d["p"]), v.text])
    return buf.getvalue()


def scaling_csv(lines):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["scenario", "numjobs", "variant", "n", "iops_mean",
                "iops_stddev", "speedup", "efficiency", "ratio_to_base",
                "ratio_ci_low", "ratio_ci_high", "ratio_over"])
    for line in lines:
        for p in line.points.values():
            ci = p.ratio_ci or (None, None)
            over = interval.over(p.ratio_by) if p.ratio_by else ""
            w.writerow([line.scenario, line.numjobs, p.variant, p.n]
                       + [csv_number(x) for x in (p.iops, p.stddev, p.speedup,
                                                  p.efficiency, p.ratio, *ci)]
                       + [over])
    return buf.getvalue()
