"""The analysis in layers: results/ and stats/ import no layer above them,
calibrate/ does not import run/ (run/ calibrates through it), and nothing
flagcheck-run loads is part of report/ (the report's modules
and matplotlib stay out of a run)."""

import ast
import os
import subprocess
import unittest

from tests.analysis.helpers import REPO

PACKAGE = os.path.join(REPO, "analysis", "flagcheck_analysis")
NAME = "flagcheck_analysis"


def module_files():
    """{dotted module name: its file} of every module of the package."""
    out = {}
    for top, _, files in os.walk(PACKAGE):
        rel = os.path.relpath(top, os.path.dirname(PACKAGE))
        for f in files:
            if f.endswith(".py"):
                parts = rel.split(os.sep)
                if f != "__init__.py":
                    parts.append(f[:-3])
                out[".".join(parts)] = os.path.join(top, f)
    return out


def imports(name, path, known):
    """The package's modules that module @name imports, wherever in the
    module the import statement is (a function's own import counts)."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    is_pkg = path.endswith("__init__.py")
    here = name.split(".") if is_pkg else name.split(".")[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            bases = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = here[:len(here) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            bases = [mod] + ["%s.%s" % (mod, a.name) for a in node.names]
        else:
            continue
        for b in bases:
            if b in known:
                out.add(b)
    return out


def closure(start, graph):
    seen, todo = set(), list(start)
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo += graph[m]
            # importing a.b.c runs a/__init__ and a/b/__init__ first
            parts = m.split(".")
            todo += [".".join(parts[:i]) for i in range(1, len(parts))]
    return seen


class TestLayers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        files = module_files()
        cls.graph = {m: imports(m, p, files) for m, p in files.items()}

    def of(self, layer):
        prefix = "%s.%s." % (NAME, layer)
        mods = [m for m in self.graph if m.startswith(prefix)]
        self.assertTrue(mods, "no modules under %s" % prefix)
        return mods

    def reached(self, layer, forbidden):
        out = {}
        for m in self.of(layer):
            bad = sorted(x for x in closure([m], self.graph)
                         if any(x.startswith("%s.%s" % (NAME, f))
                                for f in forbidden))
            if bad:
                out[m] = bad
        return out

    def test_run_never_imports_report(self):
        self.assertEqual(self.reached("run", ["report"]), {})

    def test_calibrate_measurement_never_imports_report(self):
        # the runner measures through calibrate.calibration
        self.assertEqual({m: b for m, b in self.reached(
            "calibrate", ["report"]).items()
            if m != NAME + ".calibrate.cli"}, {})

    def test_calibrate_never_imports_run(self):
        # the runner calibrates through calibrate/, never the other way
        self.assertEqual(self.reached("calibrate", ["run"]), {})

    def test_results_and_stats_import_no_layer_above(self):
        above = ["run", "calibrate", "report"]
        self.assertEqual(self.reached("results", above + ["stats"]), {})
        self.assertEqual(self.reached("stats", above), {})

    def test_the_walk_sees_imports(self):
        # the report does import the run package's lineprobe: the walk
        # would see run importing report the same way
        self.assertIn(NAME + ".run.lineprobe",
                      closure([NAME + ".report.cli"], self.graph))


def renamed_imports(path):
    """[(line, module, alias)] of the package's modules imported under
    another name in @path: a grep for a module's name must find its uses."""
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        ours = node.level or (node.module or "").startswith(NAME)
        out += [(node.lineno, a.name, a.asname) for a in node.names
                if ours and a.asname and a.asname != a.name]
    return out


class TestNames(unittest.TestCase):
    def test_modules_are_imported_by_their_names(self):
        bad = {p: r for p in module_files().values()
               for r in [renamed_imports(p)] if r}
        self.assertEqual(bad, {})


class TestRunLoads(unittest.TestCase):
    def test_help_loads_no_report_and_no_matplotlib(self):
        p = subprocess.run(
            ["/usr/bin/python3", "-X", "importtime",
             os.path.join(REPO, "analysis", "flagcheck-run"), "--help"],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        loaded = [line.rsplit("|", 1)[-1].strip()
                  for line in p.stderr.splitlines()
                  if line.startswith("import time:")]
        self.assertIn(NAME + ".run.cli", loaded)
        self.assertEqual([m for m in loaded if m == "matplotlib"
                          or m.startswith("matplotlib.")
                          or m.startswith(NAME + ".report")], [])


if __name__ == "__main__":
    unittest.main()
