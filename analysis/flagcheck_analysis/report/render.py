"""Rendering the comparison and scaling tables as text (terminal), Markdown
and CSV.  Text and Markdown share one table model: a header and rows of
strings."""

import csv
import io


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
    base = section.base_mode
    header = [base]
    for mode in section.modes[1:]:
        header += ["%change", mode, "ratio 95% CI", "verdict"]
    header.append("metric")
    rows = []
    for row in section.rows:
        cells = [fmt_mean_sd(row.base)]
        for comp in row.others:
            cells += [fmt_change(comp, row.base), fmt_mean_sd(comp.cell),
                      fmt_ci(comp.verdict.ci), comp.verdict.text]
        cells.append(row.name)
        rows.append(cells)
    right = {0} | {1 + 4 * i + j for i in range(len(section.modes) - 1)
                   for j in (0, 1, 2)}
    title = "%s, numjobs=%d" % (section.scenario, section.numjobs)
    return title, header, rows, right


def scaling_tables(lines, modes):
    """One (title, header, rows, right) per scenario."""
    base = modes[0]
    out = []
    for scenario in sorted({l.scenario for l in lines}):
        header = ["numjobs"]
        for mode in modes:
            header += ["%s iops" % mode, "speedup", "efficiency"]
        header += ["%s/%s" % (mode, base) for mode in modes[1:]]
        rows = []
        for line in (l for l in lines if l.scenario == scenario):
            cells = [str(line.numjobs)]
            for mode in modes:
                p = line.points.get(mode)
                if p is None:
                    cells += ["-", "-", "-"]
                    continue
                cells += ["%s (n=%d)" % (fmt_value(p.iops), p.n),
                          "-" if p.speedup is None else "x%.2f" % p.speedup,
                          "-" if p.efficiency is None
                          else "%.0f%%" % (100 * p.efficiency)]
            for mode in modes[1:]:
                p = line.points.get(mode)
                cells.append("-" if p is None or p.ratio is None
                             else "x%.3f" % p.ratio)
            rows.append(cells)
        out.append(("scaling: %s (IOPS mean; speedup over numjobs=1; "
                    "efficiency = speedup / numjobs)" % scenario,
                    header, rows, set(range(len(header)))))
    return out


def text_table(title, header, rows, right):
    widths = [max(len(r[i]) for r in [header] + rows)
              for i in range(len(header))]
    def line(cells):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))
                         ).rstrip()
    rule = "  ".join("-" * w for w in widths)
    return "\n".join([title, line(header), rule] + [line(r) for r in rows])


def markdown_table(title, header, rows, right):
    def esc(c):
        return c.replace("|", "\\|")
    out = ["### " + title, "",
           "| " + " | ".join(esc(h) for h in header) + " |",
           "|" + "|".join("---:" if i in right else ":---"
                          for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def tables(sections, lines, modes, more=()):
    """All tables; `more`: further (title, header, rows, right) tables."""
    return ([compare_table(s) for s in sections]
            + scaling_tables(lines, modes) + list(more))


def text(header_lines, sections, lines, modes, more=()):
    parts = ["\n".join(header_lines)]
    parts += [text_table(*t) for t in tables(sections, lines, modes, more)]
    return "\n\n".join(parts) + "\n"


def markdown(header_lines, sections, lines, modes, more=()):
    parts = ["# flagcheck report", "\n".join("- " + h for h in header_lines)]
    parts += [markdown_table(*t) for t in tables(sections, lines, modes,
                                                 more)]
    return "\n\n".join(parts) + "\n"


def _num(v):
    return "" if v is None else format(v, ".10g")


def compare_csv(sections):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["scenario", "numjobs", "metric", "base_mode", "base_n",
                "base_mean", "base_stddev", "mode", "n", "mean", "stddev",
                "pct_change", "welch_t", "welch_df", "welch_p",
                "ratio_ci_low", "ratio_ci_high", "verdict"])
    for s in sections:
        for row in s.rows:
            for comp in row.others:
                v = comp.verdict
                wt = v.welch or (None, None, None)
                ci = v.ci or (None, None)
                w.writerow([s.scenario, s.numjobs, row.name, row.base.mode,
                            row.base.n, _num(row.base.mean),
                            _num(row.base.stddev), comp.cell.mode,
                            comp.cell.n, _num(comp.cell.mean),
                            _num(comp.cell.stddev), _num(comp.pct_change),
                            _num(wt[0]), _num(wt[1]), _num(wt[2]),
                            _num(ci[0]), _num(ci[1]), v.text])
    return buf.getvalue()


def scaling_csv(lines):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["scenario", "numjobs", "mode", "n", "iops_mean",
                "iops_stddev", "speedup", "efficiency", "ratio_to_base",
                "ratio_ci_low", "ratio_ci_high"])
    for line in lines:
        for p in line.points.values():
            ci = p.ratio_ci or (None, None)
            w.writerow([line.scenario, line.numjobs, p.mode, p.n,
                        _num(p.iops), _num(p.stddev), _num(p.speedup),
                        _num(p.efficiency), _num(p.ratio), _num(ci[0]),
                        _num(ci[1])])
    return buf.getvalue()


def csv_text(sections, lines):
    """--format csv on the terminal: both tables, a blank line between."""
    return compare_csv(sections) + "\n" + scaling_csv(lines)
