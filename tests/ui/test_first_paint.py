"""Issue 16: nothing the first page does not need is done before the window's first paint.

`cann-config gui --smoke` is run in a fresh process as a user starts it; at its `shown` line (the
first paint) the test looks at what was imported, whether Python's garbage collector ran and
whether the window icon was loaded, and again once every page is built. The time itself is
tests/bench/bench_startup.py's to measure: no timing is asserted here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SMOKE = r"""
import builtins, gc, json, sys
real_print = builtins.print
seen = {}

def state():
    from PySide6.QtWidgets import QApplication
    return {"modules": sorted(sys.modules), "gc": gc.isenabled(), "frozen": gc.get_freeze_count(),
            "icon": not QApplication.windowIcon().isNull()}

def hooked(*args, **kwargs):
    text = args[0] if args and isinstance(args[0], str) else ""
    if text.startswith(("shown", "ready")):
        seen[text.split()[0]] = state()
        if text.startswith("ready"):
            return real_print(json.dumps(seen), flush=True)
        return None
    return real_print(*args, **kwargs)

builtins.print = hooked
from cann_config.app.cli import main
sys.exit(main(["gui", "--smoke", "--device", "Ascend910B3"]))
"""

# The start path: the command, the application, the wizard and its first page (the other pages'
# own modules are small shells; what they show is imported when they are built).
UI_BEFORE_PAINT = {"", ".app", ".controller", ".dialogs", ".docpane", ".gui_command", ".pages", ".pages.base",
                   ".pages.cache", ".pages.device", ".pages.export", ".pages.memory", ".pages.options", ".qtprops",
                   ".settings", ".translation", ".window_geometry", ".wizard"}
# Core modules the first page does not use: the op cache, support bundles, exporters and
# importers, the host probe (no detection runs with --device) and the device phrases (the
# banner names the device by its label until the window has painted).
APP_AFTER_PAINT = ("cann_config.app.opcache", "cann_config.app.support", "cann_config.app.io.exporters",
                   "cann_config.app.io.importers", "cann_config.app.io.envfile", "cann_config.app.io.scripts",
                   "cann_config.app.device.hostprobe", "cann_config.app.device.npusmi",
                   "cann_config.app.device.availability")


def run_smoke(tmp_path: Path) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path),
           "CANN_CONFIG_SMOKE_READY": "1"}
    done = subprocess.run([sys.executable, "-c", SMOKE], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_first_paint_imports_only_what_the_first_page_needs(tmp_path):
    seen = run_smoke(tmp_path)
    modules = seen["shown"]["modules"]
    ui = {name[len("cann_config.ui"):] for name in modules if name.startswith("cann_config.ui")}
    assert ui <= UI_BEFORE_PAINT, f"imported before the first paint: {sorted(ui - UI_BEFORE_PAINT)}"
    early = [name for name in modules if name.startswith(APP_AFTER_PAINT)]
    assert not early, f"core modules imported before the first paint: {early}"
    qt = {name for name in modules if name.startswith("PySide6.Qt")}
    assert qt == {"PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets"}
    # The pages built after the paint do import them: the list above is not vacuous.
    assert "cann_config.ui.editors" in seen["ready"]["modules"]
    assert any(name.startswith("cann_config.app.opcache") for name in seen["ready"]["modules"])


def test_the_collector_and_the_window_icon_wait_for_the_first_paint(tmp_path):
    seen = run_smoke(tmp_path)
    shown, ready = seen["shown"], seen["ready"]
    assert shown["gc"] is False and shown["icon"] is False
    assert ready["gc"] is True and ready["icon"] is True
    assert ready["frozen"] > 0  # what start-up made is not walked by every later collection


def test_the_same_page_help_is_not_laid_out_twice(qtbot):
    from cann_config.app.catalog import load_catalog
    from cann_config.ui.docpane import DocPane

    catalog = load_catalog()
    pane = DocPane(catalog)
    qtbot.addWidget(pane)
    laid_out: list[str] = []
    real_set_html = pane.setHtml
    pane.setHtml = lambda html: (laid_out.append(html), real_set_html(html))  # type: ignore[method-assign]
    pane.show_help("<p>first page</p>")
    pane.show_help("<p>first page</p>")
    assert laid_out == ["<p>first page</p>"]
    pane.show_help("<p>other page</p>")
    assert len(laid_out) == 2 and "other page" in pane.toPlainText()
    pane.show_option(catalog.option("max_op_cache_size"))
    pane.show_help("<p>other page</p>")  # an option was shown in between: the help comes back
    assert len(laid_out) == 4 and pane.toPlainText() == "other page"


def _header_fonts(wizard) -> list[tuple[str, bool]]:
    from cann_config.ui.pages.device import HEADER_ROLE

    combo = wizard.device_page.device_combo
    model = combo.model()
    return [(combo.itemData(i, HEADER_ROLE), model.item(i).font().bold()) for i in range(combo.count())
            if combo.itemData(i) is None]


def test_the_series_headers_are_bold_once_the_window_has_painted(make_wizard, qtbot):
    built = make_wizard(device="Ascend910B3")  # every page built at once: bold at once
    headers = _header_fonts(built)
    assert len(headers) >= 5 and all(bold for _sid, bold in headers)
    combo = built.device_page.device_combo
    assert not any(combo.model().item(i).font().bold() for i in range(combo.count()) if combo.itemData(i) is not None)
    deferred = make_wizard(device="Ascend910B3", deferred=True)
    assert not any(bold for _sid, bold in _header_fonts(deferred))  # not yet: the list is not open before it
    deferred.show()
    qtbot.waitUntil(lambda: not deferred.device_page.quick_start, timeout=10000)
    assert _header_fonts(deferred) == headers


def test_the_lists_made_when_needed_keep_their_place_and_tab_order(make_wizard, qtbot):
    """importList and bundleFindings are made when they first have something to list (not for
    the first paint): they take the place and the Tab position they had when made with the page."""
    from PySide6.QtWidgets import QListWidget

    data = ROOT / "tests" / "data"
    wizard = make_wizard(device="Ascend910B3")
    page = wizard.device_page
    assert wizard.findChild(QListWidget, "importList") is None and wizard.findChild(QListWidget, "bundleFindings") is None
    wizard.show()
    qtbot.waitExposed(wizard)
    worker = wizard.open_bundle(str(data / "bundles" / "a2-910b3.json"))
    qtbot.waitUntil(lambda: worker.isFinished() and page.bundle_box.isVisible(), timeout=20000)
    assert wizard.open_file(str(data / "env" / "bom.env"))  # made after bundleFindings, listed before it
    imports, findings = page.imports, page.bundle_findings
    assert imports is not None and imports.isVisible() and imports.count() > 0
    assert findings is not None and findings.isVisible() and findings.count() > 0
    assert page.files_box.layout().indexOf(imports) == page.files_box.layout().count() - 1
    assert page.bundle_box.layout().indexOf(findings) == 1  # between the summary and the fixes
    stops, widget = [], page.open_bundle_button
    while len(stops) < 3:
        widget = widget.nextInFocusChain()
        if widget.isVisible() and widget.focusPolicy().value & 1 and page.isAncestorOf(widget):
            stops.append(widget.objectName())
    assert stops == ["importList", "bundleFindings", "applyFixesButton"]


def test_bundle_findings_are_shown_as_soon_as_the_bundle_is_listed(make_wizard, qtbot):
    """bundleFindings, made inside a box already on screen, is visible when refresh_bundle
    returns, not one turn of the event loop later (Qt shows a widget added to a shown parent
    through a queued call; the panel must not be half drawn meanwhile)."""
    from cann_config.app.support.bundle import load_bundle

    wizard = make_wizard(device="Ascend910B3")
    wizard.show()
    qtbot.waitExposed(wizard)
    bundle = load_bundle(ROOT / "tests" / "data" / "bundles" / "a2-910b3.json")
    wizard.controller.open_bundle(bundle)  # no event processed from here to the asserts
    findings = wizard.device_page.bundle_findings
    assert wizard.device_page.bundle_box.isVisible()
    assert findings is not None and findings.isVisible() and findings.count() > 0
