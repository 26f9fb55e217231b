"""The C unit programs of tests/unit, in each build `make unit-tests` makes:
plain, AddressSanitizer+UBSan, ThreadSanitizer. One test per (variant,
program); a program passes with exit 0 and skips with exit 77, its last
output line saying why."""
import glob
import os

import pytest

import fiorun

VARIANTS = ("unit", "unit-asan", "unit-tsan")
SOURCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "unit")


def programs(build, variant):
    """What the build holds, and every program tests/unit has a source for
    (a missing one then fails instead of going unnoticed)."""
    d = os.path.join(build, variant)
    built = set(os.listdir(d)) if os.path.isdir(d) else set()
    sources = {os.path.basename(p)[:-2]
               for p in glob.glob(os.path.join(SOURCES, "test_*.c"))}
    return sorted(built | sources)


def pytest_generate_tests(metafunc):
    config = metafunc.config
    build = os.path.normpath(os.path.join(str(config.rootpath),
                                          config.getoption("--build")))
    cases = [(v, p) for v in VARIANTS for p in programs(build, v)]
    metafunc.parametrize("variant,program", cases,
                         ids=[f"{v}/{p}" for v, p in cases])


def test_unit_program(build, variant, program):
    d = os.path.join(build, variant)
    if not os.path.isdir(d):
        pytest.fail(f"{d} missing: run make unit-tests")
    path = os.path.join(d, program)
    if not os.path.exists(path):
        pytest.fail(f"{path} missing: run make unit-tests")
    rc, out = fiorun.run_program([path])
    if rc == 77:
        pytest.skip((out.strip().splitlines() or ["exit 77"])[-1])
    assert rc == 0, f"exit {rc}\n{out}"
