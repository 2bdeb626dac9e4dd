"""What the wizard does after its first paint, in slices (docs/architecture.md#pages-paid-for-when-shown):
the core modules imported in a worker thread, the pages built a few widgets per slice, then each
page and the documentation pane laid out and painted off screen."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

from cann_config.ui.pages.base import WizardPage
from cann_config.ui.workers import ModulePreloader


def test_the_preloader_imports_the_modules_and_skips_one_that_fails(tmp_path, monkeypatch, qtbot):
    (tmp_path / "preload_ok_mod.py").write_text("VALUE = 42\n")
    (tmp_path / "preload_bad_mod.py").write_text("raise RuntimeError('broken on purpose')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("preload_ok_mod", "preload_bad_mod"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    worker = ModulePreloader(["preload_bad_mod", "preload_ok_mod"])
    with qtbot.waitSignal(worker.finished, timeout=10000):
        worker.start()
    worker.wait()
    assert sys.modules["preload_ok_mod"].VALUE == 42
    assert "preload_bad_mod" not in sys.modules  # the page's own import raises the error where it is used


def test_every_page_names_core_modules_that_exist_and_are_qt_free():
    import cann_config.ui.pages.cache as cache
    import cann_config.ui.pages.export as export
    import cann_config.ui.pages.memory as memory

    pages = (memory.MemoryPage, cache.CachePage, export.ExportPage)
    names = [name for page in pages for name in page.core_modules]
    assert names and all(issubclass(page, WizardPage) for page in pages)
    for name in names:
        assert name.startswith("cann_config.app."), name  # the core never imports PySide6
        assert importlib.util.find_spec(name) is not None, name
    widgets = [name for page in pages for name in page.widget_modules]
    assert widgets
    for name in widgets:
        assert name.startswith("cann_config.ui."), name
        assert importlib.util.find_spec(name) is not None, name
    # Its import makes text formats and a palette: it belongs to the GUI thread.
    assert not {"cann_config.ui.highlighter", "cann_config.ui.pages.export_preview"} & set(widgets)


def test_the_memory_page_is_built_a_row_per_slice(make_wizard):
    wizard = make_wizard(device="Ascend910B3", deferred=True)
    page = wizard.memory_page
    slices = 0
    while not page.built:
        page.build_slice()
        slices += 1
    # A slice per option row at the least (built, then its texts), not the page in one piece.
    assert slices > 2 * len(page.rows) >= 2 * 5


def test_after_the_first_paint_every_page_is_built_and_prepared_and_the_pane_unchanged(make_wizard, qtbot):
    from PySide6.QtWidgets import QLabel

    wizard = make_wizard(device="Ascend910B3", deferred=True)
    wizard.set_detection_on_show(False)
    done = []
    wizard.after_pages_built(lambda: done.append([(p.built, p.prepared) for p in wizard.pages]))
    wizard.show()
    qtbot.waitUntil(lambda: bool(done), timeout=20000)
    assert done == [[(True, True)] * 4]
    # Laid out off screen at the width the page is shown at (the words wrap at it).
    assert wizard.cache_page.width() == wizard.currentPage().width()
    # The off-screen layout of an option's documentation did not change what the pane shows:
    # the device page's own help, until an option is focused.
    assert wizard.doc_pane.shown_option is None
    assert wizard.doc_pane.toPlainText().strip() and "static_memory_policy" not in wizard.doc_pane.toPlainText()
    assert wizard.findChild(QLabel, "deviceBanner").text()
    wizard.next()
    assert wizard.doc_pane.shown_option == next(iter(wizard.memory_page.rows))


def _until_pages_built(tmp_path, watch: str, on_built: str) -> str:
    """Run a fresh `cann-config gui` window whose ModulePreloader is the class `Watch` defined by
    `watch` (Python source, with sys, threading, QtCore and the ui modules at hand); once every page
    is built, run `on_built` (source printing what the test checks) and return what it printed."""
    script = textwrap.dedent("""
        import sys, threading
        import PySide6.QtCore as QtCore
        from PySide6.QtWidgets import QApplication
        app = QApplication(sys.argv[:1])
        import cann_config.ui as ui
        import cann_config.ui.workers as workers
    """) + textwrap.dedent(watch) + textwrap.dedent("""
        workers.ModulePreloader = Watch
        wizard = ui.create_wizard(device="Ascend910B3", deferred=True)
        wizard.set_detection_on_show(False)
        def finish():
    """) + textwrap.indent(textwrap.dedent(on_built), "    ") + textwrap.dedent("""
            wizard.shutdown()
            app.exit(0)
        wizard.after_pages_built(finish)
        wizard.show()
        sys.exit(app.exec())
    """)
    env = {"QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path),
           "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_window_makes_the_qt_namespace_off_the_gui_thread(tmp_path):
    # A fresh process: whether the namespace exists depends on what ran before in this one.
    out = _until_pages_built(tmp_path, """
        made_on = []

        class Watch(workers.ModulePreloader):
            def run(self):
                super().run()
                made_on.append(("Qt" in vars(QtCore), threading.current_thread() is not threading.main_thread()))
    """, """
        print(made_on, "Qt" in vars(QtCore), flush=True)
    """)
    assert out.split("\n")[0] == "[(True, True)] True"


def test_the_pages_find_their_modules_imported_by_the_preloader(tmp_path):
    # If a page starts importing a module its core_modules/widget_modules do not name, its build
    # imports it on the GUI thread again, inside a slice: this lists what the slices imported.
    out = _until_pages_built(tmp_path, """
        loaded = set()

        class Watch(workers.ModulePreloader):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                self.finished.connect(lambda: loaded.update(sys.modules))  # queued to the GUI thread
    """, """
        print(" ".join(sorted(m for m in set(sys.modules) - loaded if m.startswith("cann_config"))), flush=True)
    """)
    on_gui_thread = set(out.split())
    # The preview's highlighter makes text formats at import (GUI thread only).
    assert on_gui_thread <= {"cann_config.ui.highlighter", "cann_config.ui.pages.export_preview"}, on_gui_thread
    assert "cann_config.ui.pages.export_preview" in on_gui_thread  # the listing works


def test_the_prediction_worker_stops_between_json_groups_and_shows_no_partial_prediction(monkeypatch, qtbot,
                                                                                          tmp_path):
    """The measure worker (app.opcache.measurement.measure_cache on the walk a scan made) asks its
    own interruption between json groups, and shows nothing when it was interrupted."""
    import cann_config.app.opcache.cleanup as cleanup
    from cann_config.app.opcache.resolution import Effective
    from cann_config.app.opcache.scanner import scan_to_end
    from tests.ui.test_cache_page import make_cache_tree

    make_cache_tree(tmp_path / "base", soc="Ascend910B3", groups=3)
    make_cache_tree(tmp_path / "base", soc="Ascend310P3", groups=3)
    usage = scan_to_end(tmp_path / "base" / "kernel_cache")
    real = cleanup.predict_cleanup
    asked = []

    def predict(soc, max_mb, ratio, now=None, *, should_stop=None, **kwargs):
        asked.append(should_stop)
        return real(soc, max_mb, ratio, now, should_stop=should_stop, **kwargs)

    monkeypatch.setattr(cleanup, "predict_cleanup", predict)
    shown = []
    from cann_config.ui.workers import MeasureWorker

    running = MeasureWorker(usage, Effective(1, "env"), Effective(50, "env"), 0.0)
    running.measured.connect(lambda *args: shown.append(args))
    with qtbot.waitSignal(running.finished, timeout=10000):
        running.start()
    assert len(shown) == 1 and set(shown[0][2].predictions) == {"Ascend910B3", "Ascend310P3"}
    assert shown[0][1] == (1, 50) and shown[0][2].to_json()["limits"]["max_op_cache_size"]["value"] == 1
    assert all(callable(stop) for stop in asked)  # the worker's own interruption is asked

    asked.clear()
    stopping = MeasureWorker(usage, Effective(1, "env"), Effective(50, "env"), 0.0)
    stopping.isInterruptionRequested = lambda: True  # the window closed while it read
    stopping.measured.connect(lambda *args: shown.append(args))
    with qtbot.waitSignal(stopping.finished, timeout=10000):
        stopping.start()
    assert len(shown) == 1 and len(asked) == 1  # stopped at the first SoC dir, nothing shown
