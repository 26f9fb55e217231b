"""The short answer (issue 48, friction 6): flagcheck report prints the
runs' line, its warnings and the bottom line, one line each of ratio,
interval, verdict, published figure, big-box band and reason; --verbose
and report.md have every table.  On fixtures/summary (S2 and rate-cap)."""

import json
import os

from tests.analysis.helpers import FIXTURES, run_cli

S2 = os.path.join(FIXTURES, "summary", "s2")
CAP = os.path.join(FIXTURES, "summary", "rate-cap")
TITLE = "bottom line: each scenario's fix against its pattern"


def _report(tmp_path, *args):
    p = run_cli("report", "--no-plot", "--outdir", str(tmp_path), S2, CAP,
                *args)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    return p


def _bottom(stdout):
    """The bottom line's lines: from its title to the end."""
    lines = stdout.splitlines()
    at = [i for i, l in enumerate(lines) if l.startswith(TITLE)]
    assert len(at) == 1, stdout
    return lines[at[0]:]


def test_the_answer_alone_on_one_screen(tmp_path):
    p = _report(tmp_path)
    lines = p.stdout.splitlines()
    assert lines[0] == "runs: 10 (always n=2, test_first n=2, 20000 n=3, " \
        "40000 n=3)"
    assert max(len(l) for l in lines) <= 120
    assert len(lines) <= 25, p.stdout
    # no table: the comparison table's columns are in report.md only
    assert "%change" not in p.stdout and "%stddev" not in p.stdout
    md = (tmp_path / "report.md").read_text()
    assert "%change" in md and "%stddev" in md
    assert "every table: report.md there, or --verbose" in \
        " ".join(p.stderr.split())


def test_one_line_per_scenario_with_the_verdicts_interval(tmp_path):
    p = _report(tmp_path)
    bottom = _bottom(p.stdout)
    assert p.stdout.endswith("\n".join(bottom) + "\n")    # printed last
    doc = json.loads(_report(tmp_path, "--format", "json").stdout)
    table, = [t for t in doc["tables"] if t["title"].startswith("summary")]
    rows = {r[0]: r for r in table["rows"]}
    s2 = [l for l in bottom if l.startswith("S2 buffer-new-randwrite ")]
    cap = [l for l in bottom if l.startswith("rate-cap ")]
    assert len(s2) == 1 and len(cap) == 1, bottom
    assert s2[0].startswith("S2 buffer-new-randwrite at 2 jobs: "
                            "test_first/always x1.164, 95% CI ")
    assert s2[0].endswith(": undecided")
    assert cap[0].endswith(": decided: 40000 faster")
    # the interval is the one of the summary's table (stats/interval.py)
    for line, name in ((s2[0], "S2 buffer-new-randwrite"),
                       (cap[0], "rate-cap")):
        assert "95%% CI %s over " % rows[name][3] in line, (line, rows[name])
    assert "  published: x1.03 (930 -> 958 MiB/s, arm64 Kunpeng 920, 16 " \
        "jobs)" in bottom
    assert any(l.startswith("  big box, an estimate: on kunpeng-920-6426 ")
               for l in bottom), bottom
    # the reasons, one a line; what limits the big-box gain is left to
    # report.md
    assert "  - the machine was busy in 4 of 4 runs" in bottom
    assert "  - the machine was busy in 6 of 6 runs" in bottom
    assert "bottleneck" not in p.stdout
    assert "bottleneck" in (tmp_path / "report.md").read_text()


def test_verbose_prints_every_table_and_the_summary_last(tmp_path):
    p = _report(tmp_path, "--verbose", "--width", "0")
    assert "%change" in p.stdout and TITLE not in p.stdout
    block = p.stdout.rstrip("\n").split("\n\n")[-1].splitlines()
    assert block[0].startswith("summary: "), block[0]
    assert "every table" not in p.stderr
