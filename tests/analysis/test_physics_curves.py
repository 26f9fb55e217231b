"""make physics: the published curves under machines/curves/, each with
its source, read as the source wrote them, simulated on the profile of
its CPU (predict/curves.py, cli/physics.py)."""
import csv
import os
import re
import statistics
import subprocess

import pytest

from tests.analysis.helpers import REPO
from flagcheck_analysis.predict import curves
from flagcheck_analysis.machines import loader

FILES = sorted(os.path.join(curves.CURVES_DIR, f)
               for f in os.listdir(curves.CURVES_DIR) if f.endswith(".csv"))


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_each_curve_names_its_source_cpu_and_profile(path):
    c = curves.read(path)
    assert re.fullmatch(r"[0-9a-f]{40}", c.meta["source-commit"])
    assert c.meta["source-repository"].startswith("github.com/")
    if c.meta["profile"] != "-":
        loader.load(c.meta["profile"])
    assert c.meta["profile-rule"]


CSV = [p for p in FILES if "format: perfbook-raw" not in open(p).read()]
RAW = [p for p in FILES if p not in CSV]


@pytest.mark.parametrize("path", CSV, ids=os.path.basename)
def test_the_published_figure_is_the_median_of_the_sources_rows(path):
    with open(path) as f:
        rows = list(csv.reader(x for x in f if not x.startswith("#")))
    head, body = rows[0], rows[1:]
    cores, ns = head.index("Cores"), head.index("Nanos/Op")
    want = {}
    for r in body:
        want.setdefault(int(r[cores]), []).append(float(r[ns]))
    got = curves.read(path).points
    assert got == {n: statistics.median(v) for n, v in want.items()}
    # one loop a file, 15 trials a thread count, 1..N threads
    assert len({r[head.index("Implementation")] for r in body}) == 1
    assert {len(v) for v in want.values()} == {15}
    assert sorted(got) == list(range(1, max(got) + 1))


@pytest.mark.parametrize("path", RAW, ids=os.path.basename)
def test_a_perfbook_curve_is_the_median_of_each_lines_runs(path):
    # perfbook's .raw lines as they are: the thread count, then each
    # run's ns per update per thread, -nan where a run has none
    with open(path) as f:
        body = [x.split() for x in f if x.strip() and not
                x.startswith("#")]
    want = {int(r[0]): statistics.median(float(x) for x in r[1:]
                                         if x != "-nan") for r in body}
    assert curves.read(path).points == want
    assert len(want) == len(body) and min(want) == 1
    # its thread counts' runs: 30 each in both files
    assert {sum(x != "-nan" for x in r[1:]) for r in body} == {30}


def test_an_unpinned_run_spreads_over_the_nodes():
    # perfbook's hps: 8 threads one on each socket, cores before twins
    c = curves.read(os.path.join(curves.CURVES_DIR,
                                 "perfbook-hps-atomic-add.csv"))
    prof = loader.load(c.meta["profile"])
    assert c.meta["placement"] == "spread"
    assert curves.cpus_of(c, prof, 9) == [0, 28, 56, 84, 112, 140, 168,
                                          196, 1]
    assert curves.cpus_of(c._replace(meta=dict(c.meta, placement="compact")),
                          prof, 3) == [0, 1, 2]


def test_one_thread_alone_runs_at_the_profiles_uncontended_rmw():
    """No other CPU: each atomic add costs the profile's typical
    atomic_local, nothing else (rest 0): exactly 1e9 / atomic_local."""
    path = os.path.join(curves.CURVES_DIR,
                        "travisdowns-g2-16-atomic-add.csv")
    c = curves.read(path)
    prof = loader.load(c.meta["profile"])
    assert curves.simulated(c, prof, 1) == pytest.approx(
        1e9 / prof.local_ns("atomic_local", "typ"), rel=1e-9)


def test_a_curve_without_its_source_is_refused(tmp_path):
    text = open(FILES[0]).read().replace("# source-commit:", "# commit:")
    bad = tmp_path / "bad.csv"
    bad.write_text(text)
    with pytest.raises(curves.CurveError) as e:
        curves.read(str(bad))
    assert str(e.value) == "%s: header lacks source-commit: every curve " \
        "names its source and CPU" % bad


# slow: every published curve simulated
@pytest.mark.slow
def test_make_physics_prints_every_curve_and_the_line():
    p = subprocess.run(["make", "-s", "physics"], cwd=REPO,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    items = curves.curves()
    assert sum(len(c.points) for c in items) == sum(
        1 for x in lines if x.startswith(("travisdowns-", "perfbook-")))
    m = re.fullmatch(r"physics: (\d+) curves from (\d+) sources on (\d+) "
                     r"families, worst pub/sim x([0-9.]+)", lines[-1])
    assert m, lines[-1]
    assert int(m.group(1)) == len(items) == len(FILES)
    # the sources: the curves' repositories and their one-way costs'
    assert int(m.group(2)) == len({c.meta[k] for c in items for k in (
        "source-repository", "cost-source-repository") if k in c.meta}) \
        == 3
    assert int(m.group(3)) == len({c.meta["family"] for c in items})
    assert all(len(x) <= 120 for x in lines)


@pytest.mark.parametrize("make,want", [
    ("fifo", "{}: not a regular file: a curve file must be one"),
    ("nan", "{}: row 1: Nanos/Op is 'nan': want a finite number > 0 and "
     "<= 1e+06"),
    ("inf", "{}: row 1: Nanos/Op is '1e999': want a finite number > 0 and "
     "<= 1e+06"),
    ("digits", "{}: row 1: Cores is '\u0663': want a whole number >= 1 "
     "and <= 1024"),
    ("huge", "{}: row 1: Cores is '%s...(401 characters): want a whole "
     "number >= 1 and <= 1024" % ("1" + "0" * 35))])
def test_a_curve_file_by_the_bounded_reader_and_parser(tmp_path, make,
                                                       want):
    """A curve file is read as every other file (inputs/textfile.py: a
    FIFO is never opened) and its numbers by the one bounded parser: no
    'nan', inf, other scripts' digits or 401-digit thread counts."""
    bad = tmp_path / "bad.csv"
    if make == "fifo":
        os.mkfifo(bad)
    else:
        with open(CSV[0]) as f:
            lines = f.read().splitlines()
        i = next(n for n, l in enumerate(lines) if l[:1].isdigit())
        row = lines[i].split(",")
        if make in ("nan", "inf"):
            row[3] = "nan" if make == "nan" else "1e999"
        else:
            row[1] = "\u0663" if make == "digits" else "1" + "0" * 400
        lines[i] = ",".join(row)
        bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(curves.CurveError) as e:
        curves.read(str(bad))
    assert str(e.value) == want.format(bad)
