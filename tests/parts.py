"""make check's two parts (docs/testing.md): `--part serial` runs only
the tests marked serial (they pin CPUs, load them or measure time, so
they run alone) and writes what it saw to --part-record FILE; `--part
parallel` runs every other test, with pytest-xdist's workers (-n), and
its closing summary is that of both: the serial part's failures, skips
and durations are counted in it, and its exit status is a failure when
either part failed. A part that selects no test (-k, a test id) fails
nothing; both selecting none is pytest's exit status 5, as one run."""

import json
import os
import time

import pytest

PARTS = ("serial", "parallel")
MARK = "serial"
# pytest's exit statuses: OK, TESTS_FAILED, NO_TESTS_COLLECTED
OK, FAILED, NO_TESTS = 0, 1, 5


def add_options(parser):
    parser.addoption("--part", choices=PARTS, default=None,
                     help="run only the tests marked serial, or only the "
                          "others (make check runs both, serial first)")
    parser.addoption("--part-record", metavar="FILE", default=None,
                     help="the serial part's outcome: written by --part "
                          "serial, counted in the summary of --part "
                          "parallel")


def register(config):
    part = config.getoption("--part")
    if part is None:
        return
    record = config.getoption("--part-record")
    if not record:
        raise pytest.UsageError("--part %s needs --part-record FILE" % part)
    config.pluginmanager.register(Part(config, part, record),
                                  "flagcheck-part")


def combined(first, second):
    """The exit status of two runs: a failure of either, else OK where
    either ran a test, else NO_TESTS."""
    for rc in (second, first):
        if rc not in (OK, NO_TESTS):
            return rc
    return NO_TESTS if (first, second) == (NO_TESTS, NO_TESTS) else OK


class Part:
    def __init__(self, config, part, record):
        self.config, self.part = config, part
        self.record = os.path.abspath(record)
        self.start = time.time()
        self.reports = []
        self.controller = not hasattr(config, "workerinput")

    def _read(self):
        try:
            with open(self.record) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, config, items):
        serial = self.part == "serial"
        keep = [i for i in items
                if (i.get_closest_marker(MARK) is not None) == serial]
        if not serial:
            # -x (or --maxfail N) reached in the serial part: nothing more
            seen = self._read()
            failed = sum(1 for r in (seen or {}).get("reports", ())
                         if r.get("outcome") == "failed")
            if config.option.maxfail and failed >= config.option.maxfail:
                keep = []
            # the serial ones are counted by the serial part: dropped here
            # without a word, so that the summary counts each test once
            items[:] = keep
            return
        gone = [i for i in items if i not in keep]
        if gone:
            config.hook.pytest_deselected(items=gone)
        items[:] = keep

    def pytest_runtest_logreport(self, report):
        if self.part == "serial":
            self.reports.append(self.config.hook.pytest_report_to_serializable(
                config=self.config, report=report))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session, exitstatus):
        if not self.controller:
            return
        if self.part == "serial":
            tmp = self.record + ".tmp"
            with open(tmp, "w") as f:
                json.dump({"exitstatus": int(exitstatus), "start": self.start,
                           "reports": self.reports}, f)
            os.replace(tmp, self.record)
            return
        tr = self.config.pluginmanager.get_plugin("terminalreporter")
        seen = self._read()
        if seen is None:
            if tr:
                tr.write_line("the serial part left no record in %s: it did "
                              "not run to its end" % self.record, red=True)
            session.exitstatus = combined(FAILED, session.exitstatus)
            return
        for data in seen["reports"]:
            rep = self.config.hook.pytest_report_from_serializable(
                config=self.config, data=data)
            if isinstance(rep.longrepr, list):  # a skip's (path, line,
                rep.longrepr = tuple(rep.longrepr)  # reason): JSON's list
            if tr is not None:
                cat = self.config.hook.pytest_report_teststatus(
                    report=rep, config=self.config)[0]
                tr.stats.setdefault(cat, []).append(rep)
        if tr is not None:
            # the closing line's time: from the serial part's start
            if hasattr(tr, "_sessionstarttime"):
                tr._sessionstarttime = min(tr._sessionstarttime,
                                           seen["start"])
            if hasattr(tr, "_set_main_color"):
                tr._set_main_color()
        session.exitstatus = combined(seen["exitstatus"], session.exitstatus)
