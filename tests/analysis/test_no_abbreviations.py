"""An option is taken only as written (issue 48, friction item 8): an
abbreviation that argparse would have run as the option it starts
(`--repeat 2` as `--repeats 2`) is refused by every subcommand, naming the
option meant; in-process, through the one entry point."""

import pytest

from tests.analysis.helpers import message
from flagcheck_analysis.cli import main

# one abbreviation of each subcommand's, with what else it needs to parse
CASES = [
    ("run", ["--repeat", "2", "x.fio"], "--repeats"),
    ("report", ["--no-plo", "dir"], "--no-plot"),
    ("compare", ["a", "b", "--no-plo"], "--no-plot"),
    ("predict", ["--machin", "m", "x.fio"], "--machine or --machines-dir"),
    ("catalogue", ["--jo", "x.fio", "dir"], "--job"),
    ("calibrate", ["--second", "1"], "--seconds"),
    ("backtest", ["--fio-n", "1"], "--fio-ns"),
    ("physics", ["--hel"], "--help"),
    ("lru", ["--no-plo", "dir"], "--no-plot"),
    ("from-diff", ["--lay", "a", "b", "x.patch"], "--layout"),
]


@pytest.mark.parametrize("sub, args, meant", CASES,
                         ids=[c[0] for c in CASES])
def test_an_abbreviation_is_refused_naming_the_option(capsys, sub, args,
                                                      meant):
    with pytest.raises(SystemExit) as e:
        main.main([sub] + args)
    assert e.value.code == 2
    err = message(capsys.readouterr().err).splitlines()[-1]
    word = [a for a in args if a.startswith("--")][0]
    assert err == "flagcheck %s: error: %s: not an option (options are " \
        "never abbreviated): did you mean %s?" % (sub, word, meant), err


def test_every_subcommand_has_its_case():
    assert sorted(c[0] for c in CASES) == \
        sorted(n for n, _, _ in main.SUBCOMMANDS)


def test_every_other_parser_takes_options_as_written():
    """The benchmarks and the build's scripts parse their own options
    with argparse: none of them takes an abbreviation either."""
    import glob
    import os
    import re
    from tests.analysis.helpers import REPO

    loose = []
    for path in glob.glob(os.path.join(REPO, "benchmarks", "*.py")) + \
            glob.glob(os.path.join(REPO, "scripts", "*.py")):
        with open(path) as f:
            text = f.read()
        for m in re.finditer(r"argparse\.ArgumentParser\(([^)]*)\)", text):
            if "allow_abbrev=False" not in m.group(1):
                loose.append(os.path.relpath(path, REPO))
    assert loose == []
