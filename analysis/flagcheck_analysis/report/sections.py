"""The report's sections, all of one kind.  The report is its header, then
every section's tables() (on stdout as text or Markdown, and report.md);
after that, on stdout, every section's block() (for --format csv, its
csv()); the files of each section in the output directory; its plots
(draw); and what it appends to report.md (appendix).  Each default below
adds nothing: a section defines only what it has."""

from . import (bigbox, fixtable, header, messages, plot, render, summary,
               sweep)


class Section:
    plots = "plots"             # what "... skipped" names when draw fails
    bottom_line = False         # its block is the short answer's (Summary)

    def tables(self):
        """(title, header, rows, right) tables of the report's body."""
        return []

    def block(self, fmt):
        """What stdout shows after the body ("text" or "markdown")."""
        return ""

    def short(self, fmt):
        """Its block in the short answer (a bottom_line section's)."""
        return self.block(fmt)

    def csv(self):
        """Its CSV table, for --format csv (also one of its files)."""
        return ""

    def json_tables(self):
        """(tables, lines) of its block for --format json: what block()
        shows, as tables and lines of text (by default its text)."""
        return [], self.block("text").splitlines()

    def files(self):
        """[(name, body)] written to the output directory."""
        return []

    def json_data(self):
        """{key: its figures as numbers} for --format json."""
        return {}

    def draw(self, outdir):
        """Draw the plots into outdir; True when it wrote one.  Raises
        plot.PlotError."""
        return False

    def appendix(self):
        """Markdown appended to report.md after the body."""
        return ""

    def lead(self):
        """Markdown put first in report.md, right after its title."""
        return ""


class Tables(Section):
    """Tables in the body, nothing else: the per-host tables, the
    conditions, the line probe, the scaling law's fits."""

    def __init__(self, tables):
        self._tables = list(tables)

    def tables(self):
        return self._tables


class Compare(Section):
    """The LKP-style comparison per scenario and numjobs (compare.csv)."""

    def __init__(self, sections):
        self.sections = sections

    def tables(self):
        return [render.compare_table(s) for s in self.sections]

    def csv(self):
        return render.compare_csv(self.sections)

    def files(self):
        return [("compare.csv", self.csv())]

    def json_data(self):
        return {"compare": render.compare_data(self.sections)}


class Scaling(Section):
    """IOPS against numjobs (scaling.csv) and its plots, with the scaling
    law's curves."""

    def __init__(self, lines, order, fits, predict, marks=None,
                 figures=None):
        self.lines, self.order = lines, order
        self.fits, self.predict = fits, predict
        self.undecided, self.busy = marks or ({}, {})
        self.figures = figures

    def tables(self):
        return render.scaling_tables(self.lines, self.order)

    def csv(self):
        return render.scaling_csv(self.lines)

    def files(self):
        return [("scaling.csv", self.csv())]

    def draw(self, outdir):
        return bool(plot.plot(self.lines, self.order, outdir, self.fits,
                              self.predict, self.undecided, self.busy,
                              self.figures))


class FixTable(Section):
    """With three variants: LKP's regression-and-fix table (threeway.md)."""

    def __init__(self, records, variants):
        self.records, self.variants = records, variants

    def block(self, fmt):
        return render.in_format(fmt, fixtable.text, fixtable.markdown)(
            self.records, self.variants)

    def files(self):
        return [("threeway.md", fixtable.markdown(self.records, self.variants))]


class Sweep(Section):
    """A metric against a parameter (sweep.py: S5's ns per lookup against
    mod): its table, <stem>.md, <stem>.csv and its plot."""

    def __init__(self, sweep, pts):
        self.sweep, self.pts = sweep, pts

    def block(self, fmt):
        return render.in_format(fmt, sweep.text, sweep.markdown)(
            self.sweep, self.pts)

    def files(self):
        return [(self.sweep.stem + ".md", sweep.markdown(self.sweep,
                                                         self.pts)),
                (self.sweep.stem + ".csv", sweep.csv_text(self.sweep,
                                                          self.pts))]

    def draw(self, outdir):
        return bool(sweep.draw(self.sweep, self.pts, outdir))


class BigBoxPlot(Section):
    """The big-box answers' plots (<scenario>_bigbox.png,
    bigbox.draw())."""
    plots = "the big-box answer's plot"

    def __init__(self, answers, records):
        self.answers, self.records = answers, records

    def draw(self, outdir):
        return bool(bigbox.draw(self.answers, self.records, outdir))


class Data(Section):
    """Figures for --format json alone (the big-box answers' numbers)."""

    def __init__(self, key, figures):
        self.key, self.figures = key, figures

    def json_data(self):
        return {self.key: self.figures}


class Summary(Section):
    """The bottom line, one row per scenario: last on stdout, the whole
    of the short answer's but a line, first in report.md."""
    bottom_line = True

    def __init__(self, rows, simulated=None):
        self.rows, self.simulated = rows, simulated

    def block(self, fmt):
        return render.in_format(fmt, summary.text, summary.markdown)(
            self.rows, self.simulated)

    def short(self, fmt):
        if fmt != "text":
            return self.block(fmt)
        return summary.short_text(self.rows, self.simulated)

    def json_tables(self):
        return [summary.table(self.rows)], summary.lines(self.rows,
                                                         self.simulated)

    def json_data(self):
        return {"summary": summary.data(self.rows)}

    def lead(self):
        return summary.markdown(self.rows, self.simulated)


def body(fmt, head, sections):
    """The header and every section's tables, as text or Markdown."""
    return render.in_format(fmt, render.text, render.markdown)(
        head, [t for s in sections for t in s.tables()])


def report_md(head, sections):
    """report.md: its title, every section's lead, the body, the
    appendices."""
    title, rest = body("markdown", head, sections).split("\n\n", 1)
    leads = "".join(l + "\n" for l in (s.lead() for s in sections) if l)
    return "%s\n\n%s%s" % (title, leads, rest) + "".join(
        "\n" + a for a in (s.appendix() for s in sections) if a)


def stdout(fmt, head, sections, verbose=True):
    """What --format prints (stdout_parts(), whole)."""
    return "".join(stdout_parts(fmt, head, sections, verbose))


def stdout_parts(fmt, head, sections, verbose=True):
    """(what --format prints before the bottom line, the bottom line):
    for text, every table (@verbose) or the short answer, the runs' line
    and any warning of the header (header.short()), then the bottom line
    (the Summary's block); for markdown, the body and the blocks; for
    csv, the sections' CSV tables, a blank line between; for json, one
    object of the header, every table and the summary's lines
    (render.json_doc()); csv and json have no bottom line of their own."""
    if fmt == "csv":
        return "\n".join(c for c in (s.csv() for s in sections) if c), ""
    if fmt == "json":
        blocks = [s.json_tables() for s in sections]
        data = {}
        for s in sections:
            data.update(s.json_data())
        return render.json_doc(
            head, [t for s in sections for t in s.tables()] +
            [t for b in blocks for t in b[0]], [l for b in blocks
                                                  for l in b[1]],
            data, messages.WARNINGS), ""
    short = fmt == "text" and not verbose
    if short:
        out = "".join(line + "\n" for line in header.short(head))
    else:
        out = body(fmt, head, sections)
        for s in sections:
            b = s.block(fmt)
            if b and not s.bottom_line:
                out += "\n" + b
    last = "".join("\n" + b for b in (s.short(fmt) if short else
                                      s.block(fmt) for s in sections
                                      if s.bottom_line) if b)
    if fmt == "text":
        return render.wrap(out), render.wrap(last)
    return out, last
