"""This machine's cache-line costs shown (calibration.json): the header
lines, the patterns table and the transfer-latency heatmap, as
flagcheck-calibrate prints them and the report's "why" section holds them."""

import textwrap

from ..inputs import textfile
from ..inputs.calibfile import RELATIONS, line_rate, point, visit
from ..machines.calibmachine import DISAGREE
from . import plot, render


def _ns(v):
    return "-" if v is None else "%.1f" % v


def _rate(v):
    return "%.1fM" % (v / 1e6)


def used_line(check):
    """What the report took between the runs' CPUs: this calibration's
    figure, or the runs' own line probes where the two are more than
    calibmachine.DISAGREE apart (@check: calibmachine.ProbeCheck, or None
    where the runs probed nothing: no line)."""
    if check is None:
        return None
    pairs = ", ".join("%d,%d" % p for p in check.pairs)
    if check.set_aside:
        return ("set aside for the runs' CPUs (%s): this calibration puts "
                "%.0f ns between them, their own line probes %.0f ns "
                "(median of %d), more than x%g apart: the report used the "
                "probes" % (pairs, check.cal_ns, check.probe_ns, check.n,
                            DISAGREE))
    return ("the runs' CPUs (%s): this calibration puts %.0f ns between "
            "them, their own line probes %.0f ns (median of %d), within "
            "x%g: the calibration stands" % (
                pairs, check.cal_ns, check.probe_ns, check.n, DISAGREE))


def header_lines(doc, check=None):
    host = doc.get("host") or {}
    nodes = host.get("nodes") or {}
    smt = host.get("smt_groups") or []
    return [
        "calibration: %s, %d usable CPU%s (%s), %d NUMA node%s, %s; "
        "%g s budget" % (
            textfile.printable(host.get("cpu_model", "unknown CPU")),
            len(doc["cpus"]),
            "" if len(doc["cpus"]) == 1 else "s",
            ",".join(map(str, doc["cpus"])), len(nodes) or 1,
            "" if len(nodes) <= 1 else "s",
            "SMT siblings %s" % " ".join(
                "(%s)" % ",".join(map(str, g)) for g in smt)
            if smt else "no SMT siblings among them",
            doc.get("seconds", 0)),
        "cache-line transfer, one way (CAS ping-pong, median of each pair's "
        "samples of %s round trips / 2; per relation the median over pairs "
        "[min..max]): %s" % (doc.get("batch", "?"), transfer_text(doc)),
    ] + [l for l in [used_line(check)] if l]


def transfer_text(doc):
    summary = doc.get("summary") or {}
    parts = []
    for rel, name in RELATIONS:
        s = summary.get(rel)
        parts.append("%s -" % name if s is None else
                     "%s %.1f ns [%.1f..%.1f], %d pair%s" % (
                         name, s["median_ns"], s["min_ns"], s["max_ns"],
                         s["pairs"], "" if s["pairs"] == 1 else "s"))
    return "; ".join(parts)


def patterns_table(doc):
    """(title, header, rows, right) for render: per thread count."""
    header = ["threads", "always ns/RMW per thread", "min..max",
              "line RMW/s", "RMWs/visit", "hand-over ns", "kept",
              "test_first ns/op per thread", "test_first RMWs"]
    rows = []
    for a in doc["patterns"]["always"]:
        t = point(doc, "test_first", a["threads"])
        v = visit(doc, a["threads"])
        rate = line_rate(doc, a["threads"])[0]
        rows.append([str(a["threads"]), "%.2f" % a["ns_per_op"],
                     "%.2f..%.2f" % (a.get("ns_per_op_min", a["ns_per_op"]),
                                     a.get("ns_per_op_max", a["ns_per_op"])),
                     "-" if rate is None else _rate(rate),
                     _opt(v, "rmw_per_visit", "%.2f"),
                     _opt(v, "handover_ns", "%.1f"),
                     "-" if v is None else "%d/%d" % (v["stretches_kept"],
                                                      v["stretches"]),
                     "-" if t is None else "%.3f" % t["ns_per_op"],
                     "-" if t is None else str(t.get("rmw", "-"))])
    return ("one shared flags word: always = two test_and_clear_bit() per "
            "iteration, test_first = test_bit() first (the bits stay clear); "
            "line RMW/s, RMWs/visit and hand-over from lock xadd on one "
            "line, over the stretches where every thread ran (kept/all), "
            "a visit the RMWs the line serves in one CPU; "
            "threads pinned to the first N usable CPUs",
            header, rows, set(range(len(header))))


def _opt(v, field, fmt):
    return "-" if v is None or v.get(field) is None else fmt % v[field]


def text(doc, check=None):
    return "\n".join(header_lines(doc, check)) + "\n\n" + \
        render.text_table(*patterns_table(doc)) + "\n"


def markdown(doc, heatmap=None, check=None):
    out = ["### Calibration of this machine", ""]
    out += ["- " + line for line in header_lines(doc, check)]
    out += ["", render.markdown_table(*patterns_table(doc))]
    if heatmap:
        out += ["", "![cache-line transfer latency between CPUs](%s)"
                % heatmap]
    return "\n".join(out) + "\n"


def heatmap(doc, path, check=None):
    """The transfer matrix as a heatmap PNG at path, the runs' CPU pairs
    boxed and, under the title, whether the report used the figure there
    or set it aside for the runs' line probes (@check, used_line());
    returns path."""
    plt = plot._pyplot()
    cpus, n = doc["cpus"], len(doc["cpus"])
    data = [[float("nan") if v is None else v for v in row]
            for row in doc["transfer_ns"]]
    size = min(12, 3 + 0.25 * n)
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    im = ax.imshow(data, cmap="viridis", interpolation="nearest")
    fig.colorbar(im, ax=ax, label="one-way transfer latency (ns)")
    step = max(1, n // 32)
    ticks = list(range(0, n, step))
    ax.set_xticks(ticks)
    ax.set_yticks(ticks)
    ax.set_xticklabels([str(cpus[i]) for i in ticks], rotation=90)
    ax.set_yticklabels([str(cpus[i]) for i in ticks])
    if n <= 16:
        lo, hi = im.get_clim()
        for i in range(n):
            for j in range(n):
                if data[i][j] == data[i][j]:          # not NaN
                    ax.text(j, i, "%.0f" % data[i][j], ha="center",
                            va="center", fontsize="small",
                            color="k" if data[i][j] > (lo + hi) / 2
                            else "w")
    ax.set_xlabel("CPU")
    ax.set_ylabel("CPU")
    title = "cache-line transfer, one way: %s" % (
        doc.get("host") or {}).get("cpu_model", "")
    if check is not None:
        at = {c: i for i, c in enumerate(cpus)}
        for a, b in check.pairs:
            for i, j in ((at.get(a), at.get(b)), (at.get(b), at.get(a))):
                if i is not None and j is not None:
                    ax.add_patch(plt.Rectangle(
                        (j - 0.5, i - 0.5), 1, 1, fill=False, linewidth=2,
                        edgecolor="red" if check.set_aside else "tab:orange"))
        title += "\n" + "\n".join(textwrap.wrap(
            "boxed: " + used_line(check), 70))
    ax.set_title(title, fontsize="medium")
    fig.tight_layout()
    plot.save_figure(fig, path, dpi=100)
    plt.close(fig)
    return path
