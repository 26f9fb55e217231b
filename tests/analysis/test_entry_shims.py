"""Every analysis/flagcheck-* entry script is a shim: it imports one main()
from a module of the package, where the layers test sees its imports, and
holds no code of its own."""

import ast
import glob
import os

import pytest

from tests.analysis.helpers import REPO

SCRIPTS = sorted(glob.glob(os.path.join(REPO, "analysis", "flagcheck-*")))


def test_the_scripts_are_found():
    names = [os.path.basename(s) for s in SCRIPTS]
    assert {"flagcheck-calibrate", "flagcheck-lru",
            "flagcheck-catalogue", "flagcheck-run"} <= set(names)


@pytest.mark.parametrize("path", SCRIPTS, ids=os.path.basename)
def test_a_script_is_a_shim(path):
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    defs = [n for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Lambda))]
    assert defs == []
    # from PKG.MODULE import main, or from PKG import MODULE
    froms = [n for n in tree.body if isinstance(n, ast.ImportFrom)]
    assert len(froms) == 1 and len(froms[0].names) == 1
    module, name = froms[0].module, froms[0].names[0].name
    if name != "main":
        module = "%s.%s" % (module, name)
    assert module.startswith("flagcheck_analysis.")
    rel = os.path.join(REPO, "analysis", *module.split(".")) + ".py"
    assert os.path.isfile(rel)
    with open(rel) as f:
        mod = ast.parse(f.read(), rel)
    assert "main" in [n.name for n in mod.body
                      if isinstance(n, ast.FunctionDef)]
