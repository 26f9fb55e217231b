"""flagcheck predict's command and what it reads: its refusals, the job
file's pattern options and header lines, the rest (work or fio's cost),
the physics taken from the profile alone, and the report's big-box rows
built from the same predictions (docs/predict.md)."""

import argparse
import ast
import json
import os
import subprocess

import pytest

from tests.analysis import helpers
from tests.analysis.standin_machine import Machine
from flagcheck_analysis.cli import predict
from flagcheck_analysis.predict import fiocost, jobspec, simulate
from tests.analysis.simcase import (EXACT, SIM, run, sim_binary,  # noqa: F401
                                  spec)


def test_physics_come_only_from_the_profile():
    # the simulator's physics options are built in one place, from
    # machine.physics; no module of predict/ (the back-test's too) names them
    names = ("handover", "shared_readers", "line_pair", "jitter")
    base = os.path.join(helpers.ANALYSIS, "flagcheck_analysis")
    files = [os.path.join(base, "predict", f)
             for f in os.listdir(os.path.join(base, "predict"))
             if f.endswith(".py")]
    for path in files:
        with open(path) as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and \
                    node.name == "physics" and path.endswith("simulate.py"):
                continue
            for sub in ast.walk(node) if isinstance(
                    node, ast.FunctionDef) else ():
                if isinstance(sub, ast.Constant) and sub.value in names:
                    pytest.fail("%s: %s outside simulate.physics()"
                                % (path, sub.value))
    m = Machine(handover="nearest", shared_readers="serial",
                line_pair=True, jitter=0.25)
    assert simulate.physics(m) == ["--handover", "nearest",
                                   "--shared_readers", "serial",
                                   "--line_pair", "true",
                                   "--jitter", "0.25", "--atomics", "near",
                                   "--visit", "0", "--hold", "0"]
    assert set(jobspec.Spec._fields).isdisjoint(names)


# ----- the command -----

def _predict(*args):
    return subprocess.run(["/usr/bin/python3",
                           helpers.FLAGCHECK, "predict"] + list(args),
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, FLAGCHECK_SIM=SIM))


def test_command_refuses_a_c_model_job():
    p = _predict(os.path.join(helpers.REPO, "jobs",
                              "filemap-odirect-read.fio"),
                 "--machine", "x", "--numjobs", "4")
    assert p.returncode == 2
    # one message, within 120 columns: a long path makes it go on indented
    lines = p.stderr.splitlines()
    assert lines[0].startswith("flagcheck predict: ") and \
        all(l.startswith("  ") for l in lines[1:])
    assert "model=filemap_check_errors: flagcheck predict takes " \
        "model=pattern job files" in " ".join(l.strip() for l in lines)


def test_command_refuses_bad_cpus():
    with pytest.raises(ValueError) as e:
        predict.cpu_counts("4,x")
    assert str(e.value) == "--numjobs '4,x': allowed N[,N...], whole " \
        "numbers (ASCII digits) from 1 to 1024"


def test_jobspec_reads_the_pattern_options():
    s = jobspec.read(os.path.join(helpers.REPO, "jobs", "catalogue",
                                  "memcg-adjacent-lines.fio"))
    assert s.words == "vmstats_percpu@2,vmstats@3,vmstats_percpu_moved@4"
    assert s.pattern.startswith("READ_ONCE(vmstats_percpu),")
    assert s.fixed.startswith("READ_ONCE(vmstats_percpu_moved),")
    assert s.writers == 0


def test_published_machine_and_rest_lines():
    s = jobspec.read(os.path.join(helpers.REPO, "jobs", "pattern",
                                  "s1-filemap-odirect-read.fio"))
    assert s.published == jobspec.Published("xeon-4s-2014", 16,
                                            "nodes=0,1")
    assert (s.rest, s.rest_ns) == ("work", 3990.0)
    assert s.rest_rule.startswith("after-fix rate: ")


def test_a_bad_published_machine_line_is_one_line(tmp_path):
    f = tmp_path / "bad.fio"
    f.write_text("; published-machine: icelake 0\n[global]\nmodel=pattern\n"
                 "pattern=READ_ONCE(x)\npattern_words=x@0\n")
    with pytest.raises(jobspec.SpecError) as e:
        jobspec.read(str(f))
    assert str(e.value) == "%s:1: published-machine 'icelake 0' is not " \
        "valid: allowed 'PROFILE N [nodes=A[,B...]]' (N >= 1)" % f


def test_header_work_ns_is_the_rest():
    # "work NS": as if work(NS) ended both sequences
    m = Machine(atomic_local=(0.0,) * 3, load_hit=(0.0,) * 3)
    ns, _ = fiocost.rest_of("work", None, m, work_ns=3990.0)
    assert ns == 3990.0
    r = run(spec("x@0", "atomic_inc(x)"), m, 1, rest=ns)
    assert r["iops"] == pytest.approx(1e9 / 3990.0, rel=EXACT)


def test_predict_imports_no_report():
    # predict/ sits below report/: the report may use it, not the reverse
    base = os.path.join(helpers.ANALYSIS, "flagcheck_analysis", "predict")
    for f in os.listdir(base):
        if f.endswith(".py"):
            with open(os.path.join(base, f)) as fh:
                tree = ast.parse(fh.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom):
                    assert "report" not in (node.module or ""), f


def test_rest_work_adds_nothing_and_fio_scales_by_the_clocks(monkeypatch):
    assert fiocost.rest_of("work", 300.0, Machine())[0] == 0.0
    monkeypatch.setattr(fiocost, "this_clock_ghz", lambda: (3.0, "t"))
    ns, how = fiocost.rest_of("fio", 300.0, Machine(clock_ghz=2.0))
    assert ns == pytest.approx(450.0, rel=EXACT)
    assert how == "fio: work(ns) + fio's 300 ns per I/O (given (--fio-ns)) " \
        "x 3.00 GHz here (t) / 2.00 GHz"


def test_measured_rest_widens_the_band():
    # (typ, low, high) rest: the low-cost runs take the low rest
    m = Machine(same_llc=(100.0,) * 3, atomic_local=(0.0,) * 3)
    sp = spec("x@0:job", "atomic_inc(x)")
    p = simulate.predict(sp, m, 1, rest_ns=(100.0, 50.0, 200.0), seeds=1)
    a = p["variants"]["always"]
    assert (a["iops"], a["low"], a["high"]) == pytest.approx(
        (1e7, 5e6, 2e7), rel=EXACT)


# ----- the report's big-box answer -----

# slow: the back-test's predictions, twice
@pytest.mark.slow
def test_report_bigbox_rows_are_the_backtests_and_repeat(monkeypatch):
    from flagcheck_analysis.predict import answer
    from flagcheck_analysis.predict import backtest
    from flagcheck_analysis.report import bigbox
    path = os.path.join(helpers.REPO, "jobs", "catalogue",
                        "memcg-adjacent-lines.fio")
    mf = [{"matrix": {"jobs": {"memcg-adjacent-lines": path}}}]
    args = argparse.Namespace(cpus=8, machine="icelake-8380-2s",
                              fio_ns=300.0, inputs=[])
    warned = []
    monkeypatch.setattr(fiocost, "this_clock_ghz", lambda: (None, "t"))
    def rows():
        return bigbox.table(answer.big_box(args, mf, warned.append,
                                           curves=False))[0][2]
    first = rows()
    assert warned == []
    # one answer: --numjobs's machine with the header's rest; the fio
    # rest and the published machine are its footnote
    assert [r[:4] for r in first] == [
        ["memcg-adjacent-lines", "icelake-8380-2s", "8", "work"]]
    fio, at_pub = first[0][bigbox.OTHER].split("; on the published ")
    assert fio.startswith("with this fio job's rest (fio 300 ns (--fio-ns)) "
                          "in place of the header's published-rest (work: ")
    # the published machine's figure is the back-test's for the file,
    # with its band over every unknown (THE band; bt.low..high is the
    # costs and seeds alone, today's band)
    from flagcheck_analysis.machines import loader
    bt = backtest.row(path, helpers.REPO, loader.load, None)
    assert at_pub.startswith(
        "machine (xeon-sp-4s-144 at 144 CPUs, the header's rest): "
        "x%.2f (%.2f..%.2f), D/C " % (bt.pred, bt.band["low"],
                                      bt.band["high"]))
    # two reports of the same results give the same band
    assert rows() == first


def beside_table(sp, m, measured, rest, probes=None):
    """The rows of the table of @sp simulated on @m (predict/answer.py)
    beside @measured {(numjobs, variant): IOPS} (report/bigbox.py)."""
    from flagcheck_analysis.predict import answer
    from flagcheck_analysis.report import bigbox
    from flagcheck_analysis.stats.compare import Record
    rows = answer.beside_rows(sp, m, sorted({n for n, _ in measured}), rest,
                              probes)
    recs = [Record("S", v, n, 0, {"iops": x}, "r.json")
            for (n, v), x in measured.items()]
    return bigbox.beside([{"label": "S", "rows": rows}], recs)[0][2]


def test_report_beside_rows_measured_over_simulated():
    m = Machine(atomic_local=(5.0,) * 3, load_hit=(1.0,) * 3)
    sp = spec("x@0", "atomic_inc(x),work(95)")
    # one CPU: 1 / (100 ns) exactly; measured 10% and 20% under it
    rows = beside_table(sp, m, {(1, "always"): 9e6, (1, "test_first"): 8e6},
                        (0.0, "0 null", False))
    assert [r[:5] + r[6:] for r in rows] == [
        ["S", "1", "always", "0 null", "9000000", "0.90", "yes", "-"],
        ["S", "1", "test_first", "0 null", "8000000", "0.80", "no", "-"]]


def test_report_beside_rest_from_one_job_runs_is_not_judged_there():
    # the one-job runs give the rest: 1e9 / 4e6 - (5 + 95) = 150 ns a
    # run; their rows say so, the two-job rows are judged with it
    from flagcheck_analysis.predict import answer
    from flagcheck_analysis.stats.compare import Record
    m = Machine(same_llc=(50.0,) * 3, atomic_local=(5.0,) * 3,
                load_hit=(1.0,) * 3)
    sp = spec("x@0", "atomic_inc(x),work(95)")
    recs = [Record("S", variant, 1, 0, {"iops": 4e6}, "r.json")
            for variant in ("always", "test_first")]
    args = argparse.Namespace(fio_ns=None)
    rest = answer.beside_rest(args, sp, m, recs, "S")
    assert rest == ((150.0, 150.0, 150.0), "150", True)
    rows = beside_table(sp, m, {(1, "always"): 4e6, (2, "always"): 7e6},
                        rest)
    assert [r[1] for r in rows] == ["1", "2"]
    assert rows[0][7] == "its rest"
    assert rows[1][7] in ("yes", "no")
    assert (rows[0][8], rows[1][8]) == ("-", "50.0 cal")


def test_report_beside_rows_take_each_cells_own_line_probes():
    # the 2-job cell's runs probed the line at 25..31 ns: its transfers
    # cost their median, 29 ns, not the calibration's 50, and the row says
    # so; with no rest the always form is two RMWs a transfer (the floor)
    from flagcheck_analysis.predict import answer
    m = Machine(same_llc=(50.0,) * 3, atomic_local=(5.0,) * 3,
                load_hit=(1.0,) * 3)
    sp = spec("x@0", "atomic_inc(x)")
    entries = [{"scenario": "S", "numjobs": 2, "line_probe": {
        "cpus": [0, 1], "before_ns": b, "after_ns": a}}
        for b, a in ((25.0, 29.0), (31.0, 30.0))]
    probes = answer.cell_probes(entries + [{"scenario": "T", "numjobs": 2,
                                            "line_probe": None}], ("S",))
    assert probes == {2: [25.0, 29.0, 31.0, 30.0]}
    rows = beside_table(sp, m, {(2, "always"): 6.9e7},
                        (0.0, "0 given", False), probes)
    assert rows[0][8] == "30.0"
    assert float(rows[0][5].split()[0]) == pytest.approx(2e9 / 30.0,
                                                          rel=1e-6)


def test_line_probes_stand_in_for_a_contradicted_calibration():
    from flagcheck_analysis.machines import calibmachine, machine
    m = Machine(same_llc=(108.0,) * 3)
    p = calibmachine.Probed(m, [40.0, 29.0, 106.0, 31.0])
    assert [p.transfer_ns(0, 1, w) for w in ("low", "typ", "high")] == \
        [29.0, 40.0, 106.0]
    assert p.transfer_ns(1, 1) == 0.0
    assert (p.physics, p.local_ns("atomic_local")) == \
        (m.physics, m.local_ns("atomic_local"))
    # the closed form of one shared word with no rest, at the probes' cost:
    # two RMWs a transfer (the floor)
    r = run(spec("x@0", "atomic_inc(x)"), p, 2)
    assert r["iops"] == pytest.approx(2e9 / 40.0, rel=EXACT)
    with pytest.raises(machine.MachineError):
        calibmachine.Probed(m, [])


def test_a_calibration_the_line_probes_contradict_is_not_used():
    from flagcheck_analysis.predict import answer
    m = Machine(name="calibration", same_llc=(29.0,) * 3)

    def entry(before, after):
        return {"line_probe": {"cpus": [0, 1], "before_ns": before,
                               "after_ns": after}}
    assert answer.disagreement(m, [entry(40.0, 50.0)]) is None
    assert answer.disagreement(m, [entry(28.9, 106.6), entry(98.3, 106.7),
                                   {"line_probe": None}]) == (
        "the calibration (calibration) puts 29 ns between the runs' CPUs, "
        "their line probes 107 ns (median of 4): more than x2 apart, the "
        "calibration is not used (simulated beside measured is left out)")


# ----- a C model's job file and its pattern twin -----

C_MODELS = {"filemap-odirect-read": "s1-filemap-odirect-read",
            "buffer-new-randwrite": "s2-buffer-new-randwrite",
            "aim7-creat-clo": "s3-aim7-creat-clo",
            "fxmark-dwtl-uptodate": "s4-fxmark-dwtl-uptodate"}


def test_a_c_model_job_file_is_simulated_as_its_pattern_twin():
    from flagcheck_analysis.predict import answer
    jobs = {c: os.path.join(helpers.REPO, "jobs", c + ".fio")
            for c in C_MODELS}
    jobs["bh-lru-lookup"] = os.path.join(helpers.REPO, "jobs",
                                         "bh-lru-lookup.fio")
    warned = []
    got = answer.job_files([{"matrix": {"jobs": jobs}}], warned.append)
    assert warned == []
    # S5 names no twin (its twin has no LRU): left out
    assert got == {c: os.path.join(helpers.REPO, "jobs", "pattern",
                                   t + ".fio") for c, t in C_MODELS.items()}


def test_a_pattern_twin_line_naming_no_file_is_one_line(tmp_path):
    from flagcheck_analysis.inputs import jobheader
    from flagcheck_analysis.predict import answer
    bad = tmp_path / "c.fio"
    bad.write_text("; pattern-twin: pattern/nope.fio\n[global]\n")
    warned = []
    assert answer.job_files([{"matrix": {"jobs": {"c": str(bad)}}}],
                            warned.append) == {}
    assert warned == [
        "%s:1: pattern-twin 'pattern/nope.fio' is not valid: allowed a .fio "
        "job file relative to %s that exists (the big-box answer leaves it "
        "out)" % (bad, tmp_path)]
    plain = tmp_path / "plain.fio"
    plain.write_text("; no twin\n[global]\n")
    assert jobheader.pattern_twin(str(plain)) is None


# ----- one job section -----

PATTERN_GLOBAL = "[global]\nmodel=pattern\npattern_words=x@0\n" \
    "pattern=atomic_inc(x),work(100)\n"


def test_several_job_sections_are_refused_in_one_line(tmp_path):
    """fio runs each job section; predict simulates one job's pattern:
    a file of several is refused, naming them, not simulated as one."""
    f = tmp_path / "two.fio"
    f.write_text(PATTERN_GLOBAL + "[a]\n[b]\npattern=atomic_dec(x)\n")
    p = _predict(str(f), "--machine", "icelake-sp-2s", "--numjobs", "2",
                 "--rest", "work", "--seeds", "1")
    assert (p.returncode, p.stdout) == (2, "")
    # one message (a long path makes it go on indented)
    lines = p.stderr.splitlines()
    assert all(len(line) <= 120 for line in lines), lines
    assert all(line.startswith("  ") for line in lines[1:]), lines
    assert " ".join(line.strip() for line in lines) == "flagcheck " \
        "predict: %s: job sections [a], [b]: only one job section is " \
        "simulated; keep one (--numjobs sets how many run it)" % f
    with pytest.raises(jobspec.SpecError):
        jobspec.read(str(f))


def test_many_job_sections_are_named_within_120_columns(tmp_path):
    f = tmp_path / "six.fio"
    f.write_text(PATTERN_GLOBAL + "".join(
        "[job-with-a-long-name-%d]\n" % i for i in range(6)))
    p = _predict(str(f), "--machine", "icelake-sp-2s", "--numjobs", "2")
    assert p.returncode == 2
    lines = p.stderr.splitlines()
    assert all(len(line) <= 120 for line in lines), lines
    text = " ".join(line.strip() for line in lines)
    assert "[job-with-a-long-name-3] and 2 more: only one job section " \
        "is simulated" in text, text
    assert "[job-with-a-long-name-4]" not in text


def test_one_job_section_reads_as_before(tmp_path):
    # one job section over [global], or none at all: read as before, the
    # job's own values over [global]'s
    one = tmp_path / "one.fio"
    one.write_text(PATTERN_GLOBAL + "[j]\npattern=atomic_dec(x)\n")
    s = jobspec.read(str(one))
    assert (s.words, s.pattern) == ("x@0", "atomic_dec(x)")
    alone = tmp_path / "global.fio"
    alone.write_text(PATTERN_GLOBAL)
    assert jobspec.read(str(alone)).pattern == "atomic_inc(x),work(100)"


def test_the_published_figure_only_beside_its_machine():
    """Friction item 10 (issue 48): on another machine, or another CPU
    count, the published gain is not printed beside the prediction."""
    job = os.path.join(helpers.REPO, "jobs", "catalogue",
                       "memcg-flush-threshold.fio")     # icelake-8380-2s 160
    for args in (["--machine", "genoa-2s", "--numjobs", "4"],
                 ["--machine", "icelake-8380-2s", "--numjobs", "4"]):
        p = _predict(job, *args, "--seeds", "1", "--json")
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stdout)["published_gain"] is None
        p = _predict(job, *args, "--seeds", "1")
        assert "published" not in p.stdout, p.stdout
    spec = jobspec.read(job)
    on = argparse.Namespace(name="icelake-8380-2s")
    assert predict.published_here(spec, 1.95, on, 160) == 1.95
    assert predict.published_here(spec, 1.95, on, 4) is None
