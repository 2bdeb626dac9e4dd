"""The distribution installs one import root, `cann_config`, over app/, ui/ and resources/.

pyproject.toml lists the packages by hand (setuptools cannot discover them under a remapped
root); these tests fail when a package folder is added without being listed, or when a module
of the project is imported by its folder name instead of through the root.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"app": "cann_config.app", "ui": "cann_config.ui", "resources": "cann_config.resources"}


def test_every_package_folder_is_listed_under_the_cann_config_root():
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert setup["package-dir"] == {dotted: folder for folder, dotted in FOLDERS.items()}
    found = set()
    for folder, dotted in FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((dotted, *rel)))
    assert set(setup["packages"]) == found
    assert {name.split(".")[0] for name in setup["packages"]} == {"cann_config"}


def test_no_module_imports_the_folders_by_their_bare_names():
    offenders = []
    for folder in ("app", "ui", "tests", "docs", "packaging"):
        for path in (ROOT / folder).rglob("*.py"):
            if "data" in path.relative_to(ROOT).parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module or ""]
                offenders += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names
                              if n.split(".")[0] in FOLDERS]
    assert offenders == []
