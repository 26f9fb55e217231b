"""One flagcheck predict command, bounded (issue 49 item 9): the whole
command's simulated events against simulate.COMMAND_EVENTS, refused before
any prediction where the plan is past it, and a progress line on a
terminal only."""

import io
import os
import stat

import pytest

from tests.analysis.helpers import REPO, message, run_cli
from flagcheck_analysis.predict import simulate

S2 = os.path.join(REPO, "jobs", "pattern", "s2-buffer-new-randwrite.fio")
SIM = os.path.join(REPO, "build", "flagcheck-sim")


@pytest.mark.skipif(not os.path.exists(SIM), reason="needs make (the sim)")
def test_work_past_the_budget_is_refused_before_it_starts(tmp_path):
    log = tmp_path / "runs"
    wrapper = tmp_path / "sim"
    wrapper.write_text('#!/bin/sh\necho run >> "%s"\nexec "%s" "$@"\n'
                       % (log, SIM))
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    p = run_cli("predict", S2, "--machine", "milan-2s", "--numjobs", "2,4,8",
                "--seeds", "100", "--fio-ns", "500",
                env=dict(os.environ, FLAGCHECK_SIM=str(wrapper)))
    assert (p.returncode, p.stdout) == (2, "")
    lines = message(p.stderr).splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "flagcheck predict: %s: --numjobs 2,4,8 at --seeds 100: about " % S2)
    assert lines[0].endswith(
        " simulated events, past the command's budget of 5e+08 "
        "(docs/predict.md): fewer --seeds or --numjobs")
    # one short probe per CPU count, nothing of the predictions
    assert log.read_text().count("run") == 3


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class Terminal(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


def test_the_budget_holds_every_run_of_the_command():
    spec = type("Spec", (), {"path": "j.fio"})()
    tally = simulate.Tally(budget=10, stream=Terminal(False))
    tally.check(spec)
    tally.add({"events": 6})
    tally.check(spec)
    tally.add({"events": 6})
    with pytest.raises(simulate.PredictError) as e:
        tally.check(spec)
    assert str(e.value) == ("j.fio: 2 runs simulated 12 events, the "
                            "command's budget (1e+01, docs/predict.md): "
                            "fewer --seeds or --numjobs")


@pytest.mark.parametrize("tty", (True, False))
def test_a_progress_line_on_a_terminal_after_a_few_seconds(tty):
    clock, term = Clock(), Terminal(tty)
    tally = simulate.Tally(budget=1000, stream=term, clock=clock)
    tally.add({"events": 10})
    assert term.getvalue() == ""            # quick so far
    clock.now += simulate.PROGRESS_AFTER_S
    tally.add({"events": 10})
    tally.end()
    assert term.getvalue() == ("\r\033[Kflagcheck predict: 2 runs, 20 of "
                               "1e+03 simulated events, 3 s\r\033[K"
                               if tty else "")
