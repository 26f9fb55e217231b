#!/usr/bin/python3
"""Run every flagcheck test and print one closing line: N passed, N failed.

The C unit tests (plain, ASan+UBSan, TSan builds) run as programs; the
engine tests run the real fio with the built engine; the analysis tests
are Python unittest cases. `make check` builds everything first.
"""
import argparse
import os
import sys
import time
import traceback
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import fiotests  # noqa: E402
from fiotests import Skip  # noqa: E402

# more engine tests: tests/engine_*.py, each registering with @fiotests.test
for _f in sorted(os.listdir(HERE)):
    if _f.startswith("engine_") and _f.endswith(".py"):
        __import__(_f[:-3])


def run_unit_programs(build, results):
    for variant in ("unit", "unit-asan", "unit-tsan"):
        d = os.path.join(build, variant)
        if not os.path.isdir(d):
            results.append(("fail", f"{variant}", f"{d} missing: run make unit-tests"))
            continue
        for prog in sorted(os.listdir(d)):
            name = f"{variant}/{prog}"
            t0 = time.monotonic()
            rc, out = fiotests.run_program([os.path.join(d, prog)])
            dt = time.monotonic() - t0
            if rc == 0:
                results.append(("pass", name, f"{dt:.1f}s"))
            elif rc == 77:
                results.append(("skip", name, out.strip().splitlines()[-1:]))
            else:
                results.append(("fail", name, f"exit {rc}\n{out}"))
            report(results[-1])


def run_engine_tests(build, selected, results):
    ctx = fiotests.Context(build)
    for name, fn in fiotests.TESTS:
        if selected and not any(s in name for s in selected):
            continue
        t0 = time.monotonic()
        try:
            fn(ctx)
            results.append(("pass", name, f"{time.monotonic() - t0:.1f}s"))
        except Skip as e:
            results.append(("skip", name, str(e)))
        except AssertionError as e:
            results.append(("fail", name, str(e) or traceback.format_exc()))
        except Exception:  # a broken test is a failed test, never a crash
            results.append(("fail", name, traceback.format_exc()))
        report(results[-1])


class _Collect(unittest.TestResult):
    def __init__(self, results):
        super().__init__()
        self.out = results

    def addSuccess(self, test):
        self.out.append(("pass", test.id(), ""))
        report(self.out[-1])

    def addFailure(self, test, err):
        self.out.append(("fail", test.id(), self._exc_info_to_string(err, test)))
        report(self.out[-1])

    def addError(self, test, err):
        self.addFailure(test, err)

    def addSkip(self, test, reason):
        self.out.append(("skip", test.id(), reason))
        report(self.out[-1])


def run_python_tests(top, results):
    d = os.path.join(HERE, "analysis")
    if not os.path.isdir(d):
        return
    suite = unittest.defaultTestLoader.discover(d, top_level_dir=top)
    suite.run(_Collect(results))


def report(r):
    status, name, detail = r
    tag = {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}[status]
    if status == "pass":
        print(f"{tag} {name} {detail}", flush=True)
    else:
        print(f"{tag} {name}: {detail}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default="build",
                    help="build directory made by make (default: build)")
    ap.add_argument("-k", action="append", default=[],
                    help="run only engine tests whose name contains this "
                         "(repeatable); skips unit and analysis tests")
    args = ap.parse_args()
    top = os.path.dirname(HERE)
    build = os.path.abspath(os.path.join(top, args.build)
                            if not os.path.isabs(args.build) else args.build)

    results = []
    if not args.k:
        run_unit_programs(build, results)
    run_engine_tests(build, args.k, results)
    if not args.k:
        run_python_tests(top, results)

    n = {s: sum(1 for r in results if r[0] == s) for s in ("pass", "fail", "skip")}
    for r in results:
        if r[0] == "fail":
            print(f"failed: {r[1]}")
    print(f"{n['pass']} passed, {n['fail']} failed, {n['skip']} skipped")
    return 1 if n["fail"] or not n["pass"] else 0


if __name__ == "__main__":
    sys.exit(main())
