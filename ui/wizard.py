"""The wizard window (`configWizard`): four pages around one controller, the documentation pane
beside them, the workers it owns, and what happens on close.

The documentation pane is the wizard's side widget, so it is one pane for every page: it shows
the option in focus on the memory and cache pages and a page's own help elsewhere. The language
switch (`languageButton`, 中文 / English) sits in the button row, so it is there on every page: it
re-translates the window, the catalog texts, the findings and the export preview at once, and is
remembered. On close the wizard asks before losing unsaved choices (when it is on screen), saves
its geometry, and stops and joins every worker it started.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QCoreApplication, QThread, QTimer
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QPushButton, QWidget, QWizard

from cann_config.app.device.table import DeviceOrigin
from cann_config.app.errors import InputError
from cann_config.app.i18n import current_language
from cann_config.ui import dialogs, settings
from cann_config.ui.controller import WizardController
from cann_config.ui.docpane import DocPane
from cann_config.ui.pages.base import WizardPage
from cann_config.ui.pages.cache import CachePage
from cann_config.ui.pages.device import DevicePage
from cann_config.ui.pages.export import ExportPage
from cann_config.ui.pages.memory import MemoryPage

if TYPE_CHECKING:  # pragma: no cover - typing only
    from PySide6.QtGui import QCloseEvent, QPaintEvent, QShowEvent

    from cann_config.ui.workers import BundleWorker

# The pages' modules are light: each page imports what it shows when it is built (ui/pages/base.py).
# ui.workers and the dialogs are imported where they are used, after the first paint.

PAGE_DEVICE, PAGE_MEMORY, PAGE_CACHE, PAGE_EXPORT = range(4)

# What the device banner's full phrases (the first slice after the first paint) import: the
# compiled message tables and the terminal-safe text of the values they quote.
BANNER_MODULES = ("cann_config.app.message_data", "cann_config.app.textsafe")

# Each language named in itself, so a reader finds theirs whatever the window shows now.
LANGUAGE_NAMES = (("zh_CN", "中文（简体）"), ("en", "English"))
LANGUAGE_SHORT = {"zh_CN": "中文", "en": "English"}

# QWizard does not re-read its button texts when the language changes: they are set again from
# Qt's own catalog (qtbase_<lang>.qm, context "QWizard"), as the ModernStyle wizard names them.
QT_WIZARD_BUTTONS = ((QWizard.WizardButton.BackButton, "< &Back"), (QWizard.WizardButton.NextButton, "&Next >"),
                     (QWizard.WizardButton.CommitButton, "Commit"), (QWizard.WizardButton.FinishButton, "&Finish"),
                     (QWizard.WizardButton.CancelButton, "Cancel"), (QWizard.WizardButton.HelpButton, "&Help"))


class ConfigWizard(QWizard):
    def __init__(self, controller: WizardController, *, detect: bool, probe: Callable[..., Any] | None = None,
                 deferred: bool = False, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("configWizard")
        self.controller = controller
        controller.setParent(self)
        self._probe = probe
        self._detect_on_show = detect
        self._detection_started = False
        self._shut_down = False
        self._deferred = deferred
        self._painted = False
        self._after_paint: list[Callable[[], None]] = []
        self._after_built: list[Callable[[], None]] = []
        self._slices: Iterator[None] | None = None  # what is left to do after the first paint
        self._slices_done = False
        # Builds the pages after the first paint, one slice per turn of the event loop.
        self._builder = QTimer(self)
        self._builder.setInterval(0)
        self._builder.timeout.connect(self._build_next_slice)
        self.workers: list[QThread] = []
        self.setWizardStyle(QWizard.WizardStyle.ModernStyle)
        self.setOption(QWizard.WizardOption.NoBackButtonOnStartPage, True)
        self.setOption(QWizard.WizardOption.HaveHelpButton, False)
        self._make_language_switch()

        self.doc_pane = DocPane(controller.catalog, self)
        self.doc_pane.setMinimumWidth(340)
        self.setSideWidget(self.doc_pane)

        self.device_page = DevicePage(controller, self, quick_start=deferred)
        self.memory_page = MemoryPage(controller, self)
        self.cache_page = CachePage(controller, self)
        self.export_page = ExportPage(controller, self)
        # In page-id order (PAGE_DEVICE, ...): the order they are shown, and built.
        self.pages: tuple[WizardPage, ...] = (self.device_page, self.memory_page, self.cache_page, self.export_page)
        for page_id, page in enumerate(self.pages):
            self.setPage(page_id, page)
            page.docRequested.connect(self.show_option_doc)
            page.workerStarted.connect(self._worker_started)
        # The first paint needs the first page only.
        self.device_page.ensure_built()
        self.device_page.detectRequested.connect(self.start_detection)
        self.device_page.openFileRequested.connect(self.open_file)
        self.device_page.openBundleRequested.connect(self.open_bundle)
        self.device_page.paste_button.clicked.connect(self.paste_npu_smi)
        self.device_page.open_smi_button.clicked.connect(self.open_npu_smi_file)
        self.export_page.saveProfileRequested.connect(self.save_profile)
        self.export_page.reportRequested.connect(self.show_report)
        self.currentIdChanged.connect(self._page_changed)
        controller.profileChanged.connect(self._refresh_doc)
        controller.deviceChanged.connect(self._refresh_doc)
        self.device_page.set_recent(settings.recent_files(), self.open_file)
        if not deferred:
            self.build_pages()

        self.place_window()
        self.retranslate(pages=False)  # each page built so far set its own texts

    def place_window(self) -> None:
        """The saved geometry when it fits this screen at this scale, else a default that fits,
        centred (ui/window_geometry.py)."""
        from cann_config.ui.window_geometry import default_geometry, restorable

        screen = self.screen()
        available = screen.availableGeometry()
        # The docs pane gives way on a small (or scaled) screen, so the page keeps its width.
        self.doc_pane.setMinimumWidth(min(340, max(160, available.width() // 4)))
        scale = screen.devicePixelRatio()
        store = settings.app_settings()
        geometry = store.value(settings.KEY_GEOMETRY)
        try:
            saved_scale: float | None = float(store.value(settings.KEY_GEOMETRY_SCALE))
        except (TypeError, ValueError):
            saved_scale = None
        if (isinstance(geometry, QByteArray) and not geometry.isEmpty() and self.restoreGeometry(geometry)
                and restorable(self.geometry(), available, saved_scale, scale)):
            return
        self.setGeometry(default_geometry(available))

    # -- building and first paint ----------------------------------------------------------------

    def build_pages(self) -> None:
        """Build every page now (what `create_wizard` does, and a caller that needs them all)."""
        while not self._build_slice():
            pass

    def _build_slice(self) -> bool:
        """One slice of what is left to build after the first paint; True when nothing is left."""
        if self._slices is None:
            self._slices = self._post_paint_slices()
        if next(self._slices, StopIteration) is StopIteration:
            self._slices_done = True
        return self._slices_done

    def _post_paint_slices(self) -> Iterator[None]:
        """What the window does after its first paint, one slice per turn of the event loop
        (each well under the 50 ms of docs/architecture.md#pages-paid-for-when-shown).

        What the device page left until the window had painted first (the banner's full phrases,
        which need the message tables; the bold series headers), then the pages
        in the order they are shown, each in its own slices (ui/pages/base.py), then Python's
        view of Qt's `Qt` namespace (ui/qtprops.py; made by the module preloader when there is
        one): the cache gauge's first paint and the dialogs need it, and the page being shown
        would otherwise stall for the ~15 ms it takes. Last, each page's first layout and paint,
        and the documentation pane's first option, off screen, so a page's first visit does not
        pay for them. A page shown before its turn is built at once (WizardPage.ensure_built);
        its slices here are then skipped.
        """
        if self.device_page.quick_start:
            self.device_page.finish_quick_start()
            yield
        for page in self.pages:
            while not page.built:
                page.build_slice()
                yield
        from PySide6.QtCore import Qt  # noqa: F401 - importing the name is what makes the namespace

        yield
        self.device_page.finish_after_paint()  # (its initializePage left these until after the first paint)
        yield
        if not self.isVisible():
            return  # built for a caller (create_wizard, a test): nothing is shown yet
        for page in self.pages:
            if not page.prepared:
                current = self.currentPage()
                page.prepare_to_show(current.size() if current is not None else page.size())
                yield
        yield from self._prepare_doc_pane()

    def _prepare_doc_pane(self) -> Iterator[None]:
        """Lay out and paint an option's documentation once, off screen, at the pane's width
        (in three slices: the HTML, its layout, its paint): the first one shown (the memory
        page's, when it is visited) would otherwise pay for the heading, bold and monospace
        fonts' first layout and glyphs while the page changes."""
        rows = getattr(self.memory_page, "rows", None)
        viewport = self.doc_pane.viewport()
        if not rows or viewport.width() <= 0:
            return
        from PySide6.QtGui import QPainter, QPixmap

        from cann_config.ui.docpane import option_html

        option = rows[self.first_option_of(self.memory_page)].option
        document = self.doc_pane.document().clone(self)
        document.setHtml(option_html(option, self.controller.catalog, current=self.controller.value(option.id),
                                     framework=self.controller.profile.framework))
        document.setTextWidth(viewport.width())
        yield
        document.documentLayout().documentSize()  # lays the whole document out
        yield
        pixmap = QPixmap(viewport.size())
        painter = QPainter(pixmap)
        document.drawContents(painter)
        painter.end()
        document.deleteLater()

    def _start_building(self) -> None:
        """After the first paint: the core modules the pages import, and Python's view of the
        `Qt` namespace, are made in a worker thread first (ui/workers.py ModulePreloader), then
        the pages are built slice by slice on the GUI thread, which then has the interpreter to
        itself."""
        import sys

        import PySide6.QtCore

        wanted = [name for page in self.pages if not page.built for name in page.core_modules + page.widget_modules]
        if self.device_page.quick_start:
            wanted[:0] = BANNER_MODULES
        names = [name for name in wanted if name not in sys.modules]
        qt_namespace = "Qt" not in vars(PySide6.QtCore)
        if not (names or qt_namespace) or self._shut_down:
            self._builder.start()
            return
        from cann_config.ui.workers import ModulePreloader

        preloader = ModulePreloader(list(dict.fromkeys(names)), qt_namespace=qt_namespace, parent=self)
        preloader.finished.connect(self._preloaded)
        self._worker_started(preloader)
        preloader.start()

    def _preloaded(self) -> None:
        if not self._shut_down:
            self._builder.start()

    def _build_next_slice(self) -> None:
        if self._shut_down or self._build_slice():
            self._builder.stop()
            callbacks, self._after_built = self._after_built, []
            for callback in callbacks:
                callback()

    def after_pages_built(self, callback: Callable[[], None]) -> None:
        """Run `callback` once every page is built and the slices after the first paint are
        done (at once if they are)."""
        if self._slices_done:
            QTimer.singleShot(0, self, callback)
        else:
            self._after_built.append(callback)

    def after_first_paint(self, callback: Callable[[], None]) -> None:
        """Run `callback` once the window has painted (at once if it already has)."""
        if self._painted:
            QTimer.singleShot(0, self, callback)
        else:
            self._after_paint.append(callback)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        # An override, not an event filter: a filter would bring every event of the window to
        # Python before the first paint (and make a Python class of each kind of event).
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            self.setProperty("painted", True)  # (WizardPage.initializePage reads it)
            # Children paint in the same pass; the callbacks run when it is over.
            for callback in self._after_paint:
                QTimer.singleShot(0, self, callback)
            self._after_paint.clear()

    # -- texts ----------------------------------------------------------------------------------

    def _make_language_switch(self) -> None:
        """The language switch: a button in the button row with a menu of the languages."""
        button = QPushButton(self)
        button.setObjectName("languageButton")
        menu = QMenu(button)
        menu.setObjectName("languageMenu")
        group = QActionGroup(menu)
        group.setExclusive(True)
        self.language_actions = {}
        for code, name in LANGUAGE_NAMES:
            action = menu.addAction(name)
            action.setObjectName(f"language_{code}")
            action.setCheckable(True)
            action.setData(code)
            group.addAction(action)
            self.language_actions[code] = action
        # A bound method, not a lambda holding the wizard: a connection keeps its callable alive
        # as long as the action, which would keep the wizard from ever being freed.
        group.triggered.connect(self._language_chosen)
        button.setMenu(menu)
        self.language_button = button
        self.setOption(QWizard.WizardOption.HaveCustomButton1, True)
        self.setButton(QWizard.WizardButton.CustomButton1, button)
        self.setButtonLayout([QWizard.WizardButton.CustomButton1, QWizard.WizardButton.Stretch,
                              QWizard.WizardButton.BackButton, QWizard.WizardButton.NextButton,
                              QWizard.WizardButton.CommitButton, QWizard.WizardButton.FinishButton,
                              QWizard.WizardButton.CancelButton])

    def _language_chosen(self, action: QAction) -> None:
        self.set_language(action.data())

    def retranslate(self, *, pages: bool = True) -> None:
        """Every text of the window again, in the current language (app.i18n and the installed
        translators): the pages (unless `pages` is False: a page built just now has its texts),
        Qt's buttons, the language switch, the documentation pane."""
        self.setWindowTitle(self.tr("CANN Config Assistant"))
        for which, source in QT_WIZARD_BUTTONS:
            self.setButtonText(which, QCoreApplication.translate("QWizard", source))
        lang = current_language()
        # Through QWizard: it sets its buttons' texts itself whenever the page changes.
        self.setButtonText(QWizard.WizardButton.CustomButton1, LANGUAGE_SHORT.get(lang, lang))
        self.language_button.setToolTip(self.tr("Language of the window, the documentation and the exports"))
        self.language_button.setAccessibleName(self.tr("Language"))
        for code, action in self.language_actions.items():
            action.setChecked(code == lang)
        for page in self.pages if pages else ():
            if page.built:
                page.retranslate()
                page.refresh()
        if self.doc_pane.shown_option:
            self.show_option_doc(self.doc_pane.shown_option)
        else:
            self._page_changed(self.currentId())

    def set_language(self, lang: str) -> str:
        """Switch the whole window to `lang` ("zh_CN" or "en") without a restart, and remember
        it; returns the language in effect (English when the translation cannot be loaded)."""
        from cann_config.app.i18n import normalize_language
        from cann_config.ui.translation import apply_language

        wanted = normalize_language(lang)
        lang = apply_language(wanted)
        if lang == wanted:  # a translation that could not be loaded is not remembered as chosen
            settings.write(settings.KEY_LANGUAGE, lang)
        self.retranslate()
        return lang

    # -- documentation pane ---------------------------------------------------------------------

    def show_option_doc(self, option_id: str) -> None:
        c = self.controller
        option = c.catalog.option(option_id)
        self.doc_pane.show_option(option, current=c.value(option_id), framework=c.profile.framework,
                                  availability=c.availability(option))

    def _refresh_doc(self) -> None:
        if self.doc_pane.shown_option:
            self.show_option_doc(self.doc_pane.shown_option)

    def _page_changed(self, page_id: int) -> None:
        page = self.pages[page_id] if 0 <= page_id < len(self.pages) else self.device_page
        help_html = page.help_html() if page.built else None
        if help_html is not None:
            self.doc_pane.show_help(help_html)
        elif getattr(page, "rows", None):
            self.show_option_doc(self.first_option_of(page))

    def first_option_of(self, page: WizardPage) -> str:
        """The option the documentation pane opens on for `page`: the first the framework in use
        takes (the catalog says which), in the order the page shows them; a PyTorch user's pane
        does not open on a TensorFlow option it cannot use."""
        rows = getattr(page, "rows", {})
        taken = self.controller.catalog.frameworks[self.controller.profile.framework].options
        shown = [oid for oid in rows if oid in taken]
        return shown[0] if shown else next(iter(rows))

    # -- detection ------------------------------------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._deferred:
            self._deferred = False
            self.after_first_paint(self._start_building)
        if self._detect_on_show and not self._detection_started:
            self._detection_started = True
            # After the first paint: the window is on screen before npu-smi is even started.
            self.after_first_paint(self.start_detection)

    def set_detection_on_show(self, detect: bool) -> None:
        self._detect_on_show = detect

    def _worker_started(self, worker: QThread) -> None:
        self.workers = [w for w in self.workers if not w.isFinished()] + [worker]

    def start_detection(self) -> None:
        from cann_config.ui.workers import DetectionWorker

        if any(isinstance(w, DetectionWorker) and w.isRunning() for w in self.workers) or self._shut_down:
            return
        worker = DetectionWorker(self._probe, parent=self)
        worker.detected.connect(self._detected)
        worker.failed.connect(self._detection_failed)
        self.workers.append(worker)
        self.controller.set_detection("running")
        worker.start()

    def _detected(self, probe: Any) -> None:
        c = self.controller
        c.set_detection("done", probe)
        device = getattr(probe, "device", None)
        if c.device_origin in (DeviceOrigin.NONE, DeviceOrigin.DETECTED) and not c.session.is_remote:  # a customer's host is not this one
            known = device is not None and (device.soc_version or device.series)
            c.set_device(device if known else None, DeviceOrigin.DETECTED if known else DeviceOrigin.NONE)

    def _detection_failed(self, message: str) -> None:
        self.controller.set_detection("failed", None, message)

    # -- npu-smi output and files -------------------------------------------------------------

    def _use_npu_smi(self, info_text: str, board_texts: list[str], source: str) -> None:
        from cann_config.app.device.npusmi import device_from_npu_smi

        try:
            device = device_from_npu_smi(info_text, board_texts, source="npu-smi output file", info_source=source,
                                         board_sources=[source] * len(board_texts))
        except InputError as exc:
            dialogs.show_error(self, self.tr("Not npu-smi output"), str(exc))
            return
        self.controller.set_device(device, DeviceOrigin.NPU_SMI)

    def paste_npu_smi(self) -> None:
        from cann_config.ui.npusmi_dialog import NpuSmiDialog

        dialog = NpuSmiDialog(self)
        if dialogs.run_dialog(dialog):
            info, boards = dialog.texts()
            self._use_npu_smi(info, boards, self.tr("<pasted npu-smi output>"))

    def open_npu_smi_file(self) -> None:
        path = dialogs.choose_open_file(self, self.tr("Open npu-smi output"), self.tr("Text files (*.txt *.log);;All files (*)"))
        if not path:
            return
        from cann_config.app.device.npusmi import read_npu_smi_file

        try:
            text = read_npu_smi_file(path)
        except InputError as exc:
            dialogs.show_error(self, self.tr("Cannot read the file"), str(exc))
            return
        self._use_npu_smi(text, [], path)

    def open_file(self, path: str = "") -> bool:
        """Start from an existing file (op_cache.ini, env file, script or profile)."""
        from cann_config.ui.fileimport import import_file

        if not path:
            path = dialogs.choose_open_file(
                self, self.tr("Open a file to start from"),
                self.tr("Settings files (op_cache.ini *.ini *.sh *.env *.py *.json);;All files (*)"))
            if not path:
                return False
        try:
            import_file(self.controller, path, DevicePage.file_kind(path))
        except InputError as exc:
            dialogs.show_error(self, self.tr("Cannot use this file"), str(exc))
            return False
        self.device_page.set_recent(settings.add_recent_file(str(Path(path).resolve())), self.open_file)
        return True

    # -- support bundles and the report ------------------------------------------------------

    def open_bundle(self, path: str = "") -> BundleWorker | QThread | None:
        """Read a support bundle in a worker, then look at the customer's host through it (see
        WizardController.open_bundle); a file that is not a bundle is one line on the device
        page and changes nothing. Returns the worker (None when nothing was started)."""
        from cann_config.ui.workers import BundleWorker

        if self._shut_down or any(isinstance(w, BundleWorker) and w.isRunning() for w in self.workers):
            return None
        if not path:
            paths = dialogs.choose_open_files(self, self.tr("Open support bundles (several: compare the nodes)"),
                                              self.tr("Support bundles (*.json);;All files (*)"))
            if len(paths) > 1:
                return self.compare_bundles(paths)
            if not paths:
                return None
            path = paths[0]
        page = self.device_page
        page.set_bundle_status(lambda: self.tr("Reading %1 …").replace("%1", path))
        page.open_bundle_button.setEnabled(False)
        worker = BundleWorker(path, parent=self)
        worker.loaded.connect(self._bundle_loaded)
        worker.failed.connect(self._bundle_failed)
        worker.finished.connect(self._bundle_worker_finished)
        self.workers = [w for w in self.workers if not w.isFinished()] + [worker]
        worker.start()
        return worker

    def compare_bundles(self, paths: list[str]) -> QThread | None:
        """Several bundles: the nodes side by side (ui/fleet_dialog.py), read in a worker; the
        wizard's own state does not change. Returns the worker."""
        from cann_config.ui.fleet_dialog import FleetDialog, FleetWorker

        page = self.device_page
        page.set_bundle_status(lambda: self.tr("Reading %1 support bundles …").replace("%1", str(len(paths))))
        page.open_bundle_button.setEnabled(False)
        worker = FleetWorker(paths, parent=self)

        def loaded(comparison: Any) -> None:
            page.set_bundle_status(None)
            if not self._shut_down:
                dialogs.run_dialog(FleetDialog(comparison, self))

        worker.loaded.connect(loaded)
        worker.failed.connect(self._bundle_failed)
        worker.finished.connect(self._bundle_worker_finished)
        self.workers = [w for w in self.workers if not w.isFinished()] + [worker]
        worker.start()
        return worker

    def _bundle_loaded(self, bundle: Any) -> None:
        if self._shut_down:
            return
        self.device_page.set_bundle_status(None)
        self.controller.open_bundle(bundle)  # the cache page stops its scan (bundleChanged)

    def _bundle_worker_finished(self) -> None:
        self.device_page.open_bundle_button.setEnabled(True)

    def _bundle_failed(self, message: str) -> None:
        self.device_page.set_bundle_status(lambda: self.tr("Not opened: %1").replace("%1", message), error=True)

    def report_diagnosis(self) -> Any:
        """The diagnosis the report describes: the bundle's (the customer's configuration as
        collected), else the current choices on this computer as `cann-config diagnose` reads
        them (the op_cache.ini the cache page shows, the env file opened, the profile)."""
        c = self.controller
        ini_path = self.cache_page.ini_path()  # builds the page if it was not yet
        return c.session.report_diagnosis(ini_path if ini_path.is_file() else None)

    def show_report(self) -> None:
        """The report (app.support.report) in a dialog that saves it as Markdown or HTML."""
        from cann_config.app.support.report import make_report
        from cann_config.ui.report_dialog import ReportDialog

        try:
            report = make_report(self.report_diagnosis(), self.controller.bundle)
        except InputError as exc:
            dialogs.show_error(self, self.tr("No report"), str(exc))
            return
        dialogs.run_dialog(ReportDialog(report, self))

    def save_profile(self) -> bool:
        path = dialogs.choose_save_file(self, self.tr("Save profile"), "cann-config-profile.json",
                                        self.tr("Profiles (*.json)"))
        if not path:
            return False
        from cann_config.app.errors import InputError
        from cann_config.app.io.outputfiles import write_output

        try:
            write_output(Path(path), self.controller.profile.dumps().encode("utf-8"))
        except InputError as exc:
            dialogs.show_error(self, self.tr("Not saved"), str(exc))
            return False
        self.controller.mark_saved()
        self.device_page.set_recent(settings.add_recent_file(str(Path(path).resolve())), self.open_file)
        return True

    # -- closing ---------------------------------------------------------------------------------

    def _confirm_unsaved(self) -> bool:
        """Ask about every unsaved thing (the choices, an op_cache.ini edit), each with its own
        save, until nothing is left unsaved, the user discards, or cancels."""
        while self.isVisible():
            ini_path = self.cache_page.unsaved_ini() if self.cache_page.built else None
            if not self.controller.dirty and ini_path is None:
                return True
            answer = dialogs.ask_unsaved(self, self.tr("Save each to keep it, or discard them."),
                                         choices=self.controller.dirty, ini_path=ini_path)
            if answer == "save":
                if not self.save_profile():
                    return False
            elif answer == "save-ini":
                if not self.cache_page.panels()[3].review_and_save():  # built: it has the unsaved file
                    return False
            else:
                return answer == "discard"
        return True

    def done(self, result: int) -> None:
        if not self._shut_down and not self._confirm_unsaved():
            return
        self.shutdown()
        super().done(result)

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt override
        super().closeEvent(event)
        if event.isAccepted():
            self.shutdown()

    def shutdown(self) -> None:
        """Remember the window and choices; stop and join every worker (safe to call twice)."""
        if self._shut_down:
            return
        self._shut_down = True
        if self.isVisible():
            settings.write(settings.KEY_GEOMETRY, self.saveGeometry())
            settings.write(settings.KEY_GEOMETRY_SCALE, self.screen().devicePixelRatio())
        self._builder.stop()
        for page in self.pages:
            if page.built:
                page.remember()
                page.stop()
        from cann_config.ui.workers import stop_and_join

        for worker in self.workers:
            stop_and_join(worker)
