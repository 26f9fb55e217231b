"""A patch with no published figure is first-class: `published-figure:
none` is a form of the line, the tables show "-" where the gain would be,
the estimate still comes, and no scenario's published text (S1's commit
and its share) appears in the tables of a run that has no S1."""

import os
import re

import pytest

from tests.analysis.helpers import REPO, run_cli
from flagcheck_analysis.report import catalogue, timeshare, why

ENGINE = os.path.join(REPO, "build", "fio-flagcheck.so")


@pytest.mark.parametrize("value, what", [
    ("none", ""), ("none: my own patch", "my own patch"),
    ("none  not measured yet", "not measured yet")])
def test_none_is_a_form(value, what):
    f = catalogue.parse(value, "j.fio:3")
    assert (f.gain, f.form, f.what, f.values) == (None, "none", what, ())


def test_refusal_names_none_among_the_forms():
    with pytest.raises(catalogue.FigureError) as e:
        catalogue.parse("nothing", "j.fio:3")
    assert "or 'none' (nothing published)" in str(e.value)


def test_catalogue_row_without_a_gain():
    row = catalogue.Row("mine", 2, 100.0, 150.0, (3, 3), 1.5,
                        catalogue.Figure(None, "none", "", ()))
    _, header, body, _ = catalogue.table([row])
    col = dict(zip(header, body[0]))
    assert (col["test_first/always"], col["published"],
            col["published figure"]) == ("x1.50", "-", "-")


def test_time_share_title_names_s1_only_with_s1():
    mine = timeshare.Share("mine", 2, "always", 3, 40.0, 12.0, None)
    title = why.share_table([mine])[0]
    assert "7fcbbaf18392" not in title and "published" not in title
    s1 = timeshare.Share("S1 filemap-odirect-read", 2, "always", 3, 40.0,
                       12.0, timeshare.S1_SHARE)
    assert "published: 7fcbbaf18392" in why.share_table([s1, mine])[0]


# slow: a real flagcheck run and its report
@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists(ENGINE), reason="needs the engine")
def test_a_job_file_with_none_runs_and_reports(tmp_path):
    src = os.path.join(REPO, "jobs", "catalogue", "gup-pin-fast.fio")
    with open(src) as f:
        text = f.read()
    text, n = re.subn(r"(?m)^; published-figure: .*$",
                      "; published-figure: none: my own patch", text)
    assert n == 1
    # a patch of one's own names no published machine either
    text, n = re.subn(r"(?m)^; published-(machine|rest): .*\n", "", text)
    assert n == 2
    job = tmp_path / "my-patch.fio"
    job.write_text(text)
    out = str(tmp_path / "res")
    p = run_cli("run", str(job), "--numjobs", "1,2", "--repeats",
                "1", "--runtime", "1", "--ramp", "0", "--no-line-probe",
                "--no-calibrate", "--outdir", out, "--quiet", timeout=180)
    assert p.returncode == 0, p.stderr
    p = run_cli("predict", out, "--machine", "skylake-sp-2s", "--numjobs", "64",
                timeout=300)
    assert p.returncode == 0, p.stderr
    p = run_cli("report", "--verbose", "--no-plot", "--width", "0", out)
    assert p.returncode == 0, p.stderr
    block = p.stdout.rstrip("\n").split("\n\n")[-1].splitlines()
    assert block[0].startswith("summary: ")
    header = block[1]
    line, = [l for l in block if l.startswith("my-patch ")]
    pub = header.index("published")
    assert line[pub:].split()[0] == "-", line
    assert "7fcbbaf18392" not in p.stdout
    assert "filemap_check_errors" not in p.stdout
    # the estimate for a bigger box still comes, in the summary too
    assert re.search(r"(?m)^my-patch: on skylake-sp-2s at 64 CPUs: x[0-9.]+ "
                     r"\([0-9.]+\.\.[0-9.]+\)$", "\n".join(block)), block
    assert re.search(r"(?m)^my-patch +2 ", p.stdout.split("ESTIMATE")[1]) \
        if "ESTIMATE" in p.stdout else False, p.stdout
