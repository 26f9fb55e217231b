"""predict reads a job file's options as fio 3.33 does, through inputs/jobfile.py."""

import os

import pytest

from tests.analysis import helpers
from flagcheck_analysis.predict import jobspec
from flagcheck_analysis.inputs import jobfile

HEAD = "[global]\nmodel=pattern\n[j]\npattern_words=a\n"


def _job(tmp_path, body, name="t.fio"):
    p = tmp_path / name
    p.write_text(HEAD + body)
    return str(p)


def test_a_comment_after_a_blank_is_cut_as_fio_cuts_it(tmp_path):
    path = _job(tmp_path, "pattern=set_bit(a,0) ; a comment\n")
    assert jobspec.read(path).pattern == "set_bit(a,0)"


def test_the_job_over_global(tmp_path):
    p = tmp_path / "t.fio"
    p.write_text("[global]\nmodel=pattern\npattern=test_bit(a,0)\n"
                 "[j]\npattern_words=a\npattern=set_bit(a,0)\n")
    assert jobspec.read(str(p)).pattern == "set_bit(a,0)"


def test_a_second_job_section_is_refused_not_left_out(tmp_path):
    path = _job(tmp_path, "pattern=set_bit(a,0)\n[k]\npattern=test_bit(a,0)\n")
    with pytest.raises(jobspec.SpecError, match=r"job sections \[j\], \[k\]: "
                       "only one job section is simulated"):
        jobspec.read(path)


def test_the_reader_gives_expanded_values(tmp_path):
    path = _job(tmp_path, "filename=d$ncpus\n")
    _, opts = jobfile.read(path, {})
    want = "d%d" % os.sysconf("SC_NPROCESSORS_CONF")
    assert [o.value for o in opts if o.key == "filename"] == [want]


def test_unicode_digits_are_no_writer_count(tmp_path):
    path = _job(tmp_path, "pattern=set_bit(a,0)\npattern_writers=\u0663\n")
    with pytest.raises(jobspec.SpecError, match="pattern_writers"):
        jobspec.read(path)


def test_numjobs_of_the_runner_is_the_cpus_simulated(tmp_path, monkeypatch):
    """issue 49 item 12: numjobs=${NUMJOBS} reads --numjobs's fewest CPUs (the
    jobs flagcheck run would start), never the environment's or 1"""
    monkeypatch.setenv("NUMJOBS", "64")
    path = _job(tmp_path, "pattern=set_bit(a,0)\npattern_writers=2\n"
                "numjobs=${NUMJOBS}\npattern_words=a@0\n")
    assert jobspec.read(path, 2).writers == 2
    assert jobspec.read(path, 4).writers == 2
    for cpus, why in ((1, "NUMJOBS is 1, the fewest CPUs simulated"),
                      (None, "NUMJOBS is unset here: give --numjobs")):
        with pytest.raises(jobspec.SpecError) as e:
            jobspec.read(path, cpus)
        assert str(e.value) == (
            "%s:6: pattern_writers=2 is above numjobs=1: every job would "
            "write, as with 0; want 0..1 (%s)" % (path, why))
    p = helpers.run_cli("predict", path, "--machine", "milan-2s",
                        "--numjobs", "2,4", "--seeds", "1", "--fio-ns", "500")
    assert p.returncode == 0, p.stderr
    p = helpers.run_cli("predict", path, "--machine", "milan-2s",
                        "--numjobs", "4,1", "--seeds", "1", "--fio-ns", "500")
    assert p.returncode == 2
    assert helpers.message(p.stderr).endswith(
        "(NUMJOBS is 1, the fewest CPUs simulated)\n")
