"""tools/typecheck.py (make typecheck): mypy sees each file under the name the code imports it by."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def typecheck_module():
    spec = importlib.util.spec_from_file_location("typecheck", ROOT / "tools" / "typecheck.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_file_of_app_and_ui_is_checked_under_its_import_name():
    tc = typecheck_module()
    dirs = tc.package_dirs()
    assert dirs["cann_config.app"] == ROOT / "app" and dirs["cann_config.ui"] == ROOT / "ui"
    sources = dict(tc.sources_of(["cann_config.app", "cann_config.ui"], dirs))
    files = sorted(str(p.relative_to(ROOT)) for folder in ("app", "ui") for p in (ROOT / folder).rglob("*.py"))
    # and the stub of a C extension (its module has no .py)
    stubs = sorted(str(p.relative_to(ROOT)) for folder in ("app", "ui") for p in (ROOT / folder).rglob("*.pyi")
                   if not p.with_suffix(".py").exists())
    assert stubs == ["app/opcache/_native.pyi"]
    assert sorted(sources) == sorted(files + stubs)
    assert sources["app/opcache/_native.pyi"] == "cann_config.app.opcache._native"
    assert sources["app/units.py"] == "cann_config.app.units"
    assert sources["app/__init__.py"] == "cann_config.app"
    assert sources["ui/pages/cache_panels/ini.py"] == "cann_config.ui.pages.cache_panels.ini"
    # The names are those the code imports: every `from cann_config.x.y import` names a checked module
    # or one of its attributes (a module the check would not see is a name the code cannot import).
    modules = set(sources.values())
    for path in sources:
        for name in re.findall(r"^\s*from (cann_config\.(?:app|ui)[\w.]*) import", (ROOT / path).read_text(encoding="utf-8"),
                               re.M):
            assert name in modules, (path, name)


def test_the_makefile_checks_app_and_ui():
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^TYPECHECK_PACKAGES := cann_config\.app cann_config\.ui$", text, re.M)
    assert "typecheck" in re.search(r"^test: (.*)$", text, re.M).group(1)


def test_a_package_setuptools_does_not_install_is_refused():
    tc = typecheck_module()
    with pytest.raises(SystemExit, match="cann_config.nope is not in pyproject.toml's package-dir"):
        tc.sources_of(["cann_config.nope"], tc.package_dirs())
