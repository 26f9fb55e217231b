"""Every number of a command line through the one bounded parser
(inputs/numbers.py), in every tool: its range as docs/errors.md states
it, one value given once, two options of one setting refused, a long
value cut in the message."""

import os

import pytest

from tests.analysis import helpers
from flagcheck_analysis.cli import predict as predict_cli

GUP = os.path.join(helpers.REPO, "jobs", "catalogue", "gup-pin-fast.fio")
S1 = os.path.join(helpers.REPO, "jobs", "pattern",
                  "s1-filemap-odirect-read.fio")


def predict(capsys, *args):
    try:
        rc = predict_cli.main(list(args))
    except SystemExit as e:
        rc = e.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out, helpers.message(err).strip().splitlines()


@pytest.mark.parametrize("cpus,want", [
    ("64," * 39 + "64", "--numjobs '%s...(119 characters): 64 given twice; "
     "each value once" % ("64," * 12)),
    ("2,4,2", "--numjobs '2,4,2': 2 given twice; each value once"),
    (",".join(str(n) for n in range(1, 34)), "--numjobs '1,2,3,4,5,6,7,8,9,10,"
     "11,12,13,14,15,...(89 characters): 33 CPU counts: allowed at most "
     "32")])
def test_cpus_each_once_and_bounded_before_any_simulation(capsys, cpus,
                                                          want):
    rc, _, err = predict(capsys, GUP, "--machine", "epyc-2s-256", "--numjobs",
                         cpus, "--rest", "work")
    assert (rc, err) == (2, ["flagcheck predict: " + want])


@pytest.mark.parametrize("ns", ["0.5", "0", "1e6000", "\u0663"])
def test_fio_ns_below_one_ns_is_refused(capsys, ns):
    rc, _, err = predict(capsys, GUP, "--machine", "icelake-sp-2s",
                         "--numjobs", "2", "--rest", "fio", "--fio-ns", ns)
    assert rc == 2 and err[-1] == ("flagcheck predict: error: argument "
                                   "--fio-ns: %r: want a number of ns from "
                                   "1 to 1e+06" % ns)


def test_fio_ns_of_one_ns_is_taken(capsys):
    rc, out, _ = predict(capsys, GUP, "--machine", "icelake-sp-2s",
                         "--numjobs", "2", "--rest", "fio", "--fio-ns", "1",
                         "--seeds", "1")
    assert rc == 0 and "fio's 1 ns per I/O" in helpers.message(out)


@pytest.mark.parametrize("tool", ["predict", "backtest"])
def test_every_tools_fio_ns_is_the_same(tool):
    p = helpers.run_cli(tool, "--fio-ns", "0.5", "/nonexistent")
    assert p.returncode == 2
    assert p.stderr.splitlines()[-1].endswith(
        "argument --fio-ns: '0.5': want a number of ns from 1 to 1e+06")


def test_seeds_long_value_is_cut(capsys):
    rc, _, err = predict(capsys, GUP, "--machine", "icelake-sp-2s",
                         "--numjobs", "2", "--rest", "work", "--seeds",
                         "9" * 401)
    assert (rc, err) == (2, ["flagcheck predict: --seeds %s...(401 "
                             "characters): allowed 1 or more, at most 100"
                             % ("9" * 36)])


@pytest.mark.parametrize("where", ["/nonexistent", "empty"])
def test_list_machines_of_no_directory_is_refused(capsys, tmp_path, where):
    d = str(tmp_path) if where == "empty" else where
    rc, out, err = predict(capsys, "--list-machines", "--machines-dir", d)
    assert rc == 2 and out == ""
    assert err[-1] == "flagcheck predict: error: argument --machines-dir: " \
        "%r: %s" % (d, "no machine profile (NAME.toml) in it" if where ==
                    "empty" else "not a directory (a directory of machine "
                    "profiles)")


def test_one_word_for_a_count_of_jobs():
    # flagcheck run's --numjobs is predict's too; --cpus names it, no alias
    p = helpers.run_cli("predict", GUP, "--cpus", "4")
    assert p.returncode == 2 and p.stderr.splitlines()[-1] == (
        "flagcheck predict: error: --cpus: now --numjobs N (flagcheck run's "
        "word)")


def test_predict_dir_stops_where_the_simulator_does():
    p = helpers.run_cli("predict", helpers.RESULTS, "--numjobs", "1025")
    assert (p.returncode, p.stderr) == (2, "flagcheck predict: --numjobs '1025': "
                                        "allowed whole numbers from 1 to 1024 "
                                        "(the simulator's CPUs)\n")
    p = helpers.run_cli("report", "--predict", "64", helpers.RESULTS)
    assert p.returncode == 2 and p.stderr.splitlines()[-1] == (
        "flagcheck report: error: --predict: now flagcheck predict DIR "
        "--numjobs N; the report renders what it stores")


def test_set_runtime_and_runtime_are_two_runtimes(tmp_path):
    p = helpers.run_cli("run", S1, "--outdir", str(tmp_path / "o"),
                        "--runtime", "1", "--set", "RUNTIME=100",
                        "--dry-run")
    assert p.returncode == 2
    assert p.stderr.splitlines()[-1] == ("flagcheck run: error: --set "
                                         "RUNTIME=100 and --runtime 1: two "
                                         "runtimes; give one of them")


@pytest.mark.parametrize("args,want", [
    (["--set", "RUNTIME=" + "9" * 401], "--set RUNTIME=%s...(401 "
     "characters): want a whole number of seconds, 1 or more, at most "
     "18446744073709 (as --runtime)" % ("9" * 36)),
    (["--runtime", "18446744073710"], "argument --runtime: '18446744073710'"
     ": want a whole number of 1 or more, at most 18446744073709"),
    (["--precision", "nan"], "argument --precision: 'nan': allowed is a "
     "percentage above 0 and below 100"),
    (["--repeats", "\u0663"], "argument --repeats: '\u0663': want a whole "
     "number of 1 or more, at most 10000"),
    (["--run-timeout", "1e999"], "argument --run-timeout: '1e999': want a "
     "number of seconds above 0"),
    # issue 49 item 16: a variant names the run's files
    (["--variants", "always," + "v" * 300], "argument --variants: '%s...(300 "
     "characters): a variant name is 1 to 64 letters, digits, '_' and '-', "
     "starting with a letter or digit" % ("v" * 36)),
    (["--variants", "x" * 65], "argument --variants: '%s...(65 characters): "
     "a variant name is 1 to 64 letters, digits, '_' and '-', starting with "
     "a letter or digit" % ("x" * 36))])
def test_run_options_are_bounded(tmp_path, args, want):
    p = helpers.run_cli("run", S1, "--outdir", str(tmp_path / "o"),
                        "--dry-run", *args)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert helpers.message(p.stderr).splitlines()[-1] == \
        "flagcheck run: error: " + want


@pytest.mark.parametrize("args,want", [
    (["--max-threads", "\u00b2"], "argument --max-threads: '\u00b2' is not "
     "valid: a whole number of at least 1, at most 8192"),
    (["--max-threads", "8193"], "argument --max-threads: '8193' is not "
     "valid: a whole number of at least 1, at most 8192"),
    (["--seconds", "nan"], "argument --seconds: 'nan' is not valid: a "
     "number of seconds from 0.01 to 3600")])
def test_calibrate_options_are_bounded(tmp_path, args, want):
    p = helpers.run_cli("calibrate", "--outdir", str(tmp_path),
                        *args)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.splitlines()[-1] == "flagcheck calibrate: error: " + want
