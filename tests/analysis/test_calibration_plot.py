"""The calibration's heatmap and lines say what the report took between
the runs' CPUs (issue 48, friction 9): this calibration's figure, or,
where the runs' own line probes are more than x2 from it, that it was set
aside for them; the runs' CPU pairs boxed on the heatmap."""

import json
import os
import shutil

import pytest

from tests.analysis.helpers import RESULTS, run_cli
from flagcheck_analysis.inputs import calibfile, manifest
from flagcheck_analysis.machines import calibmachine
from flagcheck_analysis.report import conditions, linecosts, plot


def _copy(tmp_path, ns):
    """The committed results with the calibration's one pair at @ns."""
    d = shutil.copytree(RESULTS, str(tmp_path / "results"))
    path = os.path.join(d, calibfile.JSON_NAME)
    with open(path) as f:
        doc = json.load(f)
    doc["transfer_ns"] = [[None, ns], [ns, None]]
    for s in doc["summary"].values():
        s.update(median_ns=ns, min_ns=ns, max_ns=ns)
    with open(path, "w") as f:
        json.dump(doc, f)
    return d


def _check(d):
    entries = conditions.ok_entries([manifest.load(
        manifest.path_in(d))])
    path = os.path.join(d, calibfile.JSON_NAME)
    return calibmachine.check_probes(calibmachine.CalibratedMachine(
        calibfile.load(path), path), entries), path


@pytest.mark.parametrize("ns,words", [
    (32.0, "set aside for the runs' CPUs (0,1): this calibration puts 32 ns "
     "between them, their own line probes 106 ns (median of 8), more than "
     "x2 apart: the report used the probes"),
    (109.773, "the runs' CPUs (0,1): this calibration puts 110 ns between "
     "them, their own line probes 106 ns (median of 8), within x2: the "
     "calibration stands")], ids=["set-aside", "stands"])
def test_the_report_says_which_figure_it_took(tmp_path, ns, words):
    d = _copy(tmp_path, ns)
    p = run_cli("report", "--verbose", "--no-plot", "--width", "0",
                "--outdir", str(tmp_path / "out"), d)
    assert p.returncode == 0, p.stderr
    assert "\n%s\n" % words in p.stdout
    with open(str(tmp_path / "out" / "report.md")) as f:
        assert "- %s\n" % words in f.read()


def test_the_heatmap_boxes_the_pair_and_says_it(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    check, path = _check(_copy(tmp_path, 32.0))
    assert check.set_aside and check.pairs == [(0, 1)]
    drawn = {}

    def keep(fig, out, **kw):
        ax = fig.axes[0]
        drawn["title"] = " ".join(ax.get_title().split())
        drawn["boxes"] = sorted((round(r.get_x() + 0.5), round(r.get_y() +
                                                             0.5))
                                for r in ax.patches)
    monkeypatch.setattr(plot, "save_figure", keep)
    linecosts.heatmap(calibfile.load(path), str(tmp_path / "h.png"), check)
    assert drawn["title"].endswith("boxed: " + linecosts.used_line(check))
    assert "set aside" in drawn["title"]
    assert drawn["boxes"] == [(0, 1), (1, 0)]
