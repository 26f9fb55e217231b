"""pytest's fixtures for flagcheck's tests.

--build DIR (default: build, relative to the repository root) names the
build directory that `make` filled: the engine, the unit-test programs
and a scratch area for the runs (DIR/tests). `make check` passes its
$(BUILD).
"""
import os

import pytest

import fiorun


def pytest_addoption(parser):
    parser.addoption("--build", default="build", metavar="DIR",
                     help="flagcheck's build directory, made by make "
                          "(default: build, relative to the repository root)")


@pytest.fixture(scope="session")
def build(pytestconfig):
    """The build directory, as an absolute path."""
    return os.path.normpath(os.path.join(str(pytestconfig.rootpath),
                                         pytestconfig.getoption("--build")))


@pytest.fixture(scope="session")
def ctx(build):
    """A fiorun.Context: the build dir, the engine, fio, scratch dirs."""
    return fiorun.Context(build)
