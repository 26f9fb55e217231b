"""A resume that would mix setups is refused (another engine build, a job
variable from the environment, a damaged manifest), and generated edits
of every field of a results directory give no traceback and no figure
outside its range."""

import json
import os
import random
import re
import shutil

import pytest

from tests.analysis.helpers import FIO, FIXTURES, message, run_cli

from flagcheck_analysis.cli import report

from tests.analysis.test_edited_inputs import (
    dump, edit_manifest, in_process, load, report_of, results)

S2 = os.path.join(FIXTURES, "summary", "s2")
WHY_CAL = os.path.join(FIXTURES, "why", "calibration.json")


def _job(tmp_path, reads):
    job = str(tmp_path / "reads.fio")
    with open(job, "w") as f:
        f.write("[global]\nioengine=null\nthread\nrw=randread\nbs=4k\n"
                "size=${SIZE}\ntime_based\nruntime=${RUNTIME}\n"
                "numjobs=${NUMJOBS}\ndescription=%s ${VARIANT}\n[j]\n"
                % reads)
    return job


def _run(job, out, *more, env=None, dry=False):
    return run_cli("run", job, "--variants", "always", "--numjobs",
                   "1", "--repeats", "1", "--ramp", "0", "--runtime", "1",
                   "--no-line-probe", "--quiet", "--outdir", out, *more,
                   *(("--dry-run",) if dry else ()),
                   env=dict(os.environ, **(env or {})), timeout=120)


needs_fio = pytest.mark.skipif(not FIO, reason="fio not installed")


@needs_fio
def test_a_job_variable_from_the_environment_is_recorded(tmp_path):
    job, out = _job(tmp_path, "${MYBS}"), str(tmp_path / "out")
    p = _run(job, out, env={"MYBS": "4k"})
    assert p.returncode == 0, p.stderr
    run = load(os.path.join(out, "manifest.json"))["runs"][0]
    assert run["job_env"] == {"MYBS": "4k"}
    p = _run(job, out, env={"MYBS": "1m"}, dry=True)
    assert p.returncode == 2
    assert message(p.stderr).splitlines()[-1] == (
        "flagcheck run: error: $MYBS: %s has runs made with MYBS=4k "
        "(reads_always_nj1_r1), this command would use MYBS=1m: export "
        "MYBS=4k to resume it, or another --outdir" % out)
    assert _run(job, out, env={"MYBS": "4k"}, dry=True).returncode == 0


@needs_fio
def test_another_engine_build_is_refused(tmp_path):
    job, out = _job(tmp_path, "${FLAGCHECK_ENGINE}"), str(tmp_path / "out")
    engine = str(tmp_path / "engine.so")
    with open(engine, "wb") as f:
        f.write(b"build 1")
    p = _run(job, out, "--set", "FLAGCHECK_ENGINE=" + engine)
    assert p.returncode == 0, p.stderr
    with open(engine, "wb") as f:
        f.write(b"build 2")
    p = _run(job, out, "--set", "FLAGCHECK_ENGINE=" + engine, dry=True)
    assert p.returncode == 2
    assert re.search(r"error: FLAGCHECK_ENGINE: .* has runs made with an "
                     r"engine build of sha256 [0-9a-f]{12} \(reads_always_"
                     r"nj1_r1\), this command would use one of sha256 "
                     r"[0-9a-f]{12}: build or give", message(p.stderr)), \
        p.stderr


@needs_fio
def test_the_damaged_manifest_recovery_keeps_the_setup(tmp_path):
    job, out = _job(tmp_path, "x"), str(tmp_path / "out")
    p = _run(job, out)
    assert p.returncode == 0, p.stderr
    path = os.path.join(out, "manifest.json")
    os.rename(path, path + ".damaged")
    p = _run(job, out, "--runtime", "2", "--set", "SIZE=4g", dry=True)
    assert p.returncode == 2
    assert message(p.stderr).splitlines()[-1] == (
        "flagcheck run: error: --runtime: %s has runs made with RUNTIME=1 "
        "(reads_always_nj1_r1), this command would use RUNTIME=2: give "
        "--runtime 1 to resume it, or another --outdir" % out)
    p = _run(job, out)                 # the same command: resumed, kept
    assert p.returncode == 0, p.stderr
    run = load(path)["runs"][0]
    assert (run["resumed"], run["settings"]["vars"]["RUNTIME"]) == (True, "1")


def test_runs_of_two_engine_builds_are_reported_apart(tmp_path):
    out = results(tmp_path)

    def two(m):
        for e in m["runs"]:
            e["engine_sha256"] = ("a" if e["repeat"] == 1 else "b") * 64
    edit_manifest(out, two)
    rc, stdout, err = report_of(out, tmp_path)
    assert "differ in engine: not averaged together" in err, err


# ---- the fuzz: generated hand-edits through the report ----

VALUES = [-1, 0, 1e308, -1e308, 1e-300, 10 ** 30, -50, 5000, "x", [],
          [["x", "y"]], {}, None, True, "\u00e9", [1, 2], {"a": 1}, 2 ** 64,
          -0.5, 1e9]
# columns whose figures have a range: (header, lowest, highest)
RANGED = {"others": (0, 100), "steal": (0, 100), "of the CPUs": (0, 100),
          "before ns": (0, 1e6), "after ns": (0, 1e6),
          "ns per check": (0, None), "share of job time": (0, None)}


def _leaves(doc, path=()):
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _leaves(v, path + (i,))
    if path:
        yield path


def _fuzz_dir(d):
    shutil.copytree(S2, d)
    shutil.copy(WHY_CAL, d)
    m = load(os.path.join(d, "manifest.json"))
    for e in m["runs"]:
        e["line_probe"] = {"cpus": [0, 1], "before_ns": 50.0,
                           "after_ns": 60.0}
        e["interference"]["run_cpus"].update(kthreads_s=0.1,
                                             kthreads=[["kworker", 0.1]])
    dump(os.path.join(d, "manifest.json"), m)


def _ranged_figures(markdown):
    """(header, text) of every cell of report.md's tables in RANGED."""
    header = None
    for line in markdown.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if header is None:
            header = cells
        elif not set(line) <= set("|-: "):
            for h, c in zip(header, cells):
                if h in RANGED:
                    yield h, c


# slow: 60 reports of generated edits
@pytest.mark.slow
@pytest.mark.skipif(not FIO, reason="needs fio (its cost is recorded once)")
def test_generated_edits(tmp_path, monkeypatch):
    # fio's cost per I/O recorded once, as flagcheck predict --measure-fio
    # does, so that each of the reports reads it rather than measures it
    from flagcheck_analysis.predict import fiocost
    cost = str(tmp_path / "fio-cost.json")
    fiocost.record(cost, FIO)
    monkeypatch.setenv("FLAGCHECK_FIO_COST", cost)
    rnd = random.Random(29)
    base = str(tmp_path / "base")
    _fuzz_dir(base)
    names = sorted(n for n in os.listdir(base) if n.endswith("json")
                   or n.endswith(".jsonl"))
    for case in range(60):
        d = str(tmp_path / "r")
        shutil.copytree(base, d)
        for _ in range(rnd.choice((1, 1, 2, 3))):
            name = rnd.choice(names)
            path = os.path.join(d, name)
            with open(path) as f:
                lines = f.read().splitlines()
            i = rnd.randrange(len(lines)) if name.endswith(".jsonl") else 0
            text = lines[i] if name.endswith(".jsonl") else "\n".join(lines)
            doc = json.JSONDecoder().raw_decode(text[text.index("{"):])[0]
            where = rnd.choice(list(_leaves(doc)))
            target = doc
            for key in where[:-1]:
                target = target[key]
            target[where[-1]] = rnd.choice(VALUES)
            if name.endswith(".jsonl"):
                lines[i] = json.dumps(doc)
            else:
                lines = json.dumps(doc, indent=1).splitlines()
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
        rc, stdout, err = in_process("--no-plot", "--outdir",
                                     str(tmp_path / "o"), d)
        assert rc in (0, 1, 2), (case, err)     # 2: no --base runs left
        assert not re.search(r"(?<![\w.])(inf|nan)(?!\w)", stdout), \
            (case, stdout)
        md = os.path.join(str(tmp_path / "o"), "report.md")
        if rc == 0:
            with open(md) as f:
                for header, text in _ranged_figures(f.read()):
                    m = re.match(r"^-?[0-9.]+", text)
                    if not m:
                        continue
                    low, high = RANGED[header]
                    v = float(m.group())
                    assert v >= low and (high is None or v <= high), \
                        (case, header, text)
        shutil.rmtree(d)
        shutil.rmtree(str(tmp_path / "o"), ignore_errors=True)


def test_one_bad_counters_file_leaves_the_bh_lru_table(tmp_path, capsys):
    from tests.analysis.test_lru import line
    d = str(tmp_path)
    for name, variant in (("s_on_nj1_r1", "on"), ("s_off_nj1_r1", "off")):
        with open(os.path.join(d, name + ".flagcheck.jsonl"), "w") as f:
            f.write(json.dumps(line(variant, 1, 1000, 10000)) + "\n")
    bad = os.path.join(d, "s_on_nj1_r2.flagcheck.jsonl")
    with open(bad, "w") as f:
        f.write('{"flagcheck": 2, "ios": -1}\n')
    ((sw, points),) = report.sweeps([d])
    assert sw.model == "bh_lru"
    assert sorted((p.variant, p.value, p.n) for p in points) == \
        [("off", 1, 1), ("on", 1, 1)]
    assert message(capsys.readouterr().err) == (
        "flagcheck report: %s: line 1: ios is -1: not a whole number of 0 "
        "or more (left out of the bh_lru table)\n" % bad)
    report.sweeps([d], {os.path.realpath(bad)})  # named already
    assert capsys.readouterr().err == ""
