"""flagcheck SUBCOMMAND [ARGS]: one entry point, as perf and git have.
Each subcommand's module is imported only when it runs, so `flagcheck run`
loads nothing of the report (nor matplotlib)."""

import sys

from .. import width
from ..inputs import jobheader

# name, the module whose main(argv) runs it, its one line of --help
SUBCOMMANDS = (
    ("run", "cli.run", "run fio job files over the variants x numjobs "
     "matrix, interleaved, pinned, resumable"),
    ("report", "cli.report", "the LKP-style tables, verdicts, scaling, "
     "plots and the why of a results directory"),
    ("compare", "cli.compare", "two results directories side by side: "
     "flagcheck compare A B (report --compare)"),
    ("predict", "cli.predict", "a model=pattern job file's IOPS and gain "
     "on a simulated machine profile"),
    ("calibrate", "cli.calibrate", "measure this machine's "
     "cache-line costs (calibration.json)"),
    ("backtest", "cli.backtest", "predict every job file with a "
     "published figure and set the two side by side"),
    ("physics", "cli.physics", "each published curve of one shared line "
     "beside the simulator on its CPU's profile"),
    ("catalogue", "cli.catalogue", "each catalogue job's "
     "test_first/always beside its published gain"),
    ("lru", "cli.lru", "S5: ns per __find_get_block() against the "
     "number of distinct blocks looked up"),
    ("from-diff", "cli.fromdiff", "a kernel patch of the family into a "
     "model=pattern job file"),
)

USAGE = "usage: flagcheck SUBCOMMAND [ARGS] (flagcheck SUBCOMMAND --help)"


def usage():
    lines = [USAGE, "", "subcommands:"]
    lines += ["  %-10s %s" % (name, text) for name, _, text in SUBCOMMANDS]
    lines += ["", "The reference: docs/analysis.md, docs/predict.md, "
              "docs/errors.md."]
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(width.wrap(usage()))
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    found = [m for n, m, _ in SUBCOMMANDS if n == name]
    if not found:
        print(width.wrap("flagcheck: '%s': not a subcommand; allowed: %s"
                         % (name[:60], ", ".join(
                             n for n, _, _ in SUBCOMMANDS))), file=sys.stderr)
        return 2
    # __import__, not importlib: python3 -X importtime sees it
    module = __import__("flagcheck_analysis." + found[0], fromlist=["main"])
    try:
        return module.main(rest)
    except jobheader.FigureError as e:
        # a job file's header line, wherever a subcommand reads it: one
        # line naming file:line, the value and the forms, never a traceback
        print(width.wrap("flagcheck %s: %s" % (name, e)), file=sys.stderr)
        return 1
