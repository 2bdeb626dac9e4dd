"""The import graph's two contracts: no cycles among the project's modules, and a Qt-free core.

No cycles: a cycle makes the order in which modules are first imported decide whether a name
exists yet, and hides which module depends on which. grimp (the graph library behind
import-linter) reads every import statement, those inside functions too; imports under
`if TYPE_CHECKING:` are left out, as they never run (every module has `from __future__ import
annotations`).

A Qt-free core (docs/architecture.md): nothing in app/ imports PySide6, shiboken6 or the front
end (cann_config.ui), at module level or inside a function, so the CLI runs on a server without
PySide6 and every rule is tested without a display. Checked on the source with `ast`, every
import statement anywhere in a module (typing-only ones too). The `gui` command reaches the front
end only through the CLI's command table, which names its module as a string (app/cli/__init__.py).
"""

from __future__ import annotations

import ast
import graphlib
import itertools
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("cann_config.app", "cann_config.ui", "cann_config.resources")
FORBIDDEN_IN_CORE = ("PySide6", "shiboken6", "cann_config.ui")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, cache_dir=None, exclude_type_checking_imports=True)


def find_cycle(graph: grimp.ImportGraph) -> list[str] | None:
    """One import cycle among the graph's modules (as a closed path), or None when there is none."""
    sorter = graphlib.TopologicalSorter({m: graph.find_modules_directly_imported_by(m) for m in graph.modules})
    try:
        sorter.prepare()
    except graphlib.CycleError as exc:
        # graphlib lists the cycle along "is needed by"; reversed, each module imports the next.
        return list(reversed(exc.args[1]))
    return None


def describe(graph: grimp.ImportGraph, cycle: list[str]) -> str:
    steps = []
    for importer, imported in itertools.pairwise(cycle):
        lines = sorted({d["line_number"] for d in graph.get_import_details(importer=importer, imported=imported)})
        steps.append(f"{importer} (line {', '.join(map(str, lines))}) -> {imported}")
    return "\n".join(steps)


def test_the_graph_sees_every_module_and_the_imports_inside_functions(graph):
    files = [*ROOT.joinpath("app").rglob("*.py"), *ROOT.joinpath("ui").rglob("*.py")]
    assert len([m for m in graph.modules if not m.startswith("cann_config.resources")]) == len(files)
    # ui/gui_command.py imports the Qt application only inside run(), at the command boundary.
    assert graph.direct_import_exists(importer="cann_config.ui.gui_command", imported="cann_config.ui.app")


def test_the_project_has_no_import_cycle(graph):
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle:\n" + describe(graph, cycle)


def test_a_cycle_would_be_found():
    made_up = grimp.ImportGraph()
    for name in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        made_up.add_module(name)
    made_up.add_import(importer="pkg.a", imported="pkg.b", line_number=3, line_contents="import pkg.b")
    made_up.add_import(importer="pkg.b", imported="pkg.c", line_number=9, line_contents="import pkg.c")
    made_up.add_import(importer="pkg.c", imported="pkg.a", line_number=12, line_contents="import pkg.a")
    cycle = find_cycle(made_up)
    assert cycle is not None and set(cycle) == {"pkg.a", "pkg.b", "pkg.c"}
    described = describe(made_up, cycle)
    for step in ("pkg.a (line 3) -> pkg.b", "pkg.b (line 9) -> pkg.c", "pkg.c (line 12) -> pkg.a"):
        assert step in described


def imported_names(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import statement in `source`, wherever it stands."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".") if is_package else module.split(".")[:-1]
                parts = parts[:len(parts) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def forbidden_imports(folder: Path, package: str) -> list[str]:
    problems = []
    for path in sorted(folder.rglob("*.py")):
        rel = path.relative_to(folder).with_suffix("")
        parts = list(rel.parts[:-1]) if rel.name == "__init__" else list(rel.parts)
        module = ".".join([package, *parts])
        for line, name in imported_names(path.read_text(encoding="utf-8"), module, rel.name == "__init__"):
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN_IN_CORE):
                problems.append(f"{path.relative_to(folder.parent)}:{line}: imports {name}")
    return problems


def test_the_core_never_imports_qt_or_the_front_end():
    assert forbidden_imports(ROOT / "app", "cann_config.app") == []


def test_a_qt_import_in_the_core_would_be_found(tmp_path):
    core = tmp_path / "app"
    (core / "sub").mkdir(parents=True)
    (core / "__init__.py").write_text("")
    (core / "sub" / "__init__.py").write_text("")
    (core / "sub" / "late.py").write_text("def f():\n    from PySide6.QtCore import QObject\n    return QObject\n")
    (core / "sub" / "typed.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import shiboken6\n")
    (core / "sub" / "relative.py").write_text("from ...ui import wizard\n")
    (core / "sub" / "fine.py").write_text("import json\nfrom cann_config.app.units import human_bytes\n")
    problems = forbidden_imports(core, "cann_config.app")
    assert problems == ["app/sub/late.py:2: imports PySide6.QtCore.QObject",
                        "app/sub/relative.py:1: imports cann_config.ui.wizard",
                        "app/sub/typed.py:3: imports shiboken6"]
