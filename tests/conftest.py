"""pytest's fixtures for flagcheck's tests.

--build DIR (default: build, relative to the repository root) names the
build directory that `make` filled: the engine, the unit-test programs
and a scratch area for the runs (DIR/tests). `make check` passes its
$(BUILD).

--fio PATH (default: the fio on PATH) names the fio binary every test
runs: fio itself, fio servers, run-job (its FIO) and flagcheck run (its
--fio). The engine in the build directory must be built against that
fio's source (make check-fio-versions does both). The analysis tests
read both from the environment (FLAGCHECK_TEST_FIO, FLAGCHECK_TEST_BUILD,
set here; tests/analysis/helpers.py). The import path is pytest.ini's
pythonpath, set once for every test module.
"""
import os
import shutil
import subprocess

import pytest

import fiorun
import parts
import widthcheck


def pytest_addoption(parser):
    parser.addoption("--build", default="build", metavar="DIR",
                     help="flagcheck's build directory, made by make "
                          "(default: build, relative to the repository root)")
    parser.addoption("--fio", default=None, metavar="PATH",
                     help="the fio binary the tests run, fio servers too "
                          "(default: fio on PATH)")
    parts.add_options(parser)


def pytest_configure(config):
    build = os.path.normpath(os.path.join(str(config.rootpath),
                                          config.getoption("--build")))
    fio = config.getoption("--fio")
    path = shutil.which(fio) if fio else shutil.which("fio")
    if fio and not path:
        raise pytest.UsageError(f"--fio {fio}: not an executable file")
    os.environ["FLAGCHECK_TEST_BUILD"] = build
    if path:
        os.environ["FLAGCHECK_TEST_FIO"] = os.path.abspath(path)
    parts.register(config)


@pytest.fixture(scope="session")
def build():
    """The build directory, as an absolute path."""
    return os.environ["FLAGCHECK_TEST_BUILD"]


@pytest.fixture(scope="session")
def ctx(build):
    """A fiorun.Context: the build dir, the engine, fio, scratch dirs."""
    c = fiorun.Context(build, os.environ.get("FLAGCHECK_TEST_FIO"))
    yield c
    c.cleanup()


@pytest.fixture(autouse=True)
def lines_fit(monkeypatch):
    """Every run of a flagcheck tool whose output a test captures as text
    prints no line over 120 columns (tests/widthcheck.py)."""
    real = subprocess.run

    def run(*args, **kw):
        p = real(*args, **kw)
        if kw.get("text") or kw.get("universal_newlines"):
            widthcheck.check(p.args, p.stdout, p.stderr)
        return p
    monkeypatch.setattr(subprocess, "run", run)
