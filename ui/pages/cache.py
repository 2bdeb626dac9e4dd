"""Page 3 (`cachePage`): the operator-compile cache — mode, directory, size limit, keep ratio,
the gauge and op_cache.ini.

Everything shown is computed by the core: the directories by app.opcache.cachedir, the effective size
values and where each comes from (op_cache.ini › env › default) by app.opcache.resolution, the usage by
app.opcache.scanner (in a worker, batches every ~100 ms, Stop between batches), what the next compiler
start would delete by app.opcache.cleanup, and the file by app.opcache.ini (lossless render, atomic
save that refuses a file changed on disk). The size editors show the value that will be written:
the user's choice when there is one (marked modified, with a reset), otherwise the effective
value. op_cache.ini is written only after the review dialog, never silently.

With a support bundle open the page shows the customer's host: the effective values resolved
from the bundle's op_cache.ini and environment, checked against the customer's installed CANN
(as `bundle.diagnosis()` resolves them), and the gauge shows the cache as `collect` measured it
there, with the cleanup prediction made there. Nothing of it is on this computer, so the scan
and the save of op_cache.ini are off, each saying why.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cann_config.app.catalog import Value
from cann_config.app.errors import InputError
from cann_config.app.i18n import pick
from cann_config.app.units import human_bytes
from cann_config.ui import dialogs
from cann_config.ui.controller import WizardController
from cann_config.ui.docpane import SEVERITY_COLOURS, severity_prefix
from cann_config.ui.gauge import CacheGauge, GaugeRow
from cann_config.ui.pages.options import OptionsPage
from PySide6.QtCore import QThread, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:  # pragma: no cover - typing only
    from cann_config.ui.workers import PredictionWorker, ScanWorker

DIR_OPTION = "op_compiler_cache_dir"


class CachePage(OptionsPage):
    workerStarted = Signal(QThread)

    def __init__(self, controller: WizardController, parent: QWidget | None = None):
        super().__init__("cache", controller, parent)
        self.setObjectName("cachePage")
        self.dir_resolution: Any = None
        self.resolution: Any = None
        self.usage: Any = None  # app.opcache.scanner.CacheUsage of the last finished scan
        self.progress: Any = None  # the last ScanProgress while scanning
        self.scan_worker: ScanWorker | None = None
        # What the status lines say, as functions of the current language, so a language switch
        # says it again in the new one.
        self._scan_error: Callable[[], str] | None = None
        self._scan_text: Callable[[], str] | None = None
        self._save_text: Callable[[], str] | None = None
        self._loaded_ini_path: Path | None = None
        self._ini_error = ""
        self._predictions: dict[tuple[int, int], dict[str, Any]] = {}
        self._prediction_worker: PredictionWorker | None = None
        self._work_stopped = False  # the window is closing: no new worker is started

    def _build(self) -> None:
        # Here, not at the top: the module is imported before the first paint (ui/qtprops.py).
        from PySide6.QtCore import Qt

        controller = self.controller

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget(scroll)
        layout = QVBoxLayout(body)
        self.effective: dict[str, QLabel] = {}
        self.modified: dict[str, QLabel] = {}
        self.reset: dict[str, QToolButton] = {}
        for option in self.options():
            row = self.make_row(option, body)
            layout.addWidget(row)
            if option.id == DIR_OPTION:
                self.dirs_label = QLabel(body)
                self.dirs_label.setObjectName("cacheDirsLabel")
                self.dirs_label.setWordWrap(True)
                self.dirs_label.setTextFormat(Qt.TextFormat.RichText)
                self.dirs_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                layout.addWidget(self.dirs_label)
                row.editor.browseRequested.connect(self._browse)
            if option.targets.ini:
                modified = QLabel(row)
                modified.setObjectName(f"modified_{option.id}")
                modified.setStyleSheet("color: #8a5a00; font-weight: bold; padding-right: 4px;")
                reset = QToolButton(row)
                reset.setObjectName(f"reset_{option.id}")
                reset.clicked.connect(lambda _checked=False, oid=option.id: self.controller.reset_value(oid))
                effective = QLabel(row)
                effective.setObjectName(f"effective_{option.id}")
                effective.setWordWrap(True)
                row.extra.addWidget(modified)
                row.extra.addWidget(reset)
                row.layout().addWidget(effective, 5, 0)
                self.effective[option.id] = effective
                self.modified[option.id] = modified
                self.reset[option.id] = reset

        self.gauge_box = QGroupBox(body)
        gauge_layout = QVBoxLayout(self.gauge_box)
        self.gauge = CacheGauge(self.gauge_box)
        scan_row = QHBoxLayout()
        self.scan_button = QPushButton(self.gauge_box)
        self.scan_button.setObjectName("scanButton")
        self.scan_status = QLabel(self.gauge_box)
        self.scan_status.setObjectName("scanStatus")
        self.scan_status.setWordWrap(True)
        scan_row.addWidget(self.scan_button)
        scan_row.addWidget(self.scan_status, 1)
        self.scan_findings_label = QLabel(self.gauge_box)
        self.scan_findings_label.setObjectName("scanFindings")
        self.scan_findings_label.setWordWrap(True)
        self.scan_findings_label.setTextFormat(Qt.TextFormat.RichText)
        self.scan_findings_label.hide()
        gauge_layout.addWidget(self.gauge)
        gauge_layout.addLayout(scan_row)
        gauge_layout.addWidget(self.scan_findings_label)
        layout.addWidget(self.gauge_box)

        self.ini_box = QGroupBox(body)
        ini_layout = QVBoxLayout(self.ini_box)
        self.ini_status = QLabel(self.ini_box)
        self.ini_status.setObjectName("iniStatus")
        self.ini_status.setWordWrap(True)
        self.ini_status.setTextFormat(Qt.TextFormat.RichText)
        self.ini_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        ini_buttons = QHBoxLayout()
        self.save_ini_button = QPushButton(self.ini_box)
        self.save_ini_button.setObjectName("saveIniButton")
        self.reload_ini_button = QPushButton(self.ini_box)
        self.reload_ini_button.setObjectName("reloadIniButton")
        ini_buttons.addWidget(self.save_ini_button)
        ini_buttons.addWidget(self.reload_ini_button)
        ini_buttons.addStretch(1)
        self.findings_label = QLabel(self.ini_box)
        self.findings_label.setObjectName("cacheFindings")
        self.findings_label.setWordWrap(True)
        self.findings_label.setTextFormat(Qt.TextFormat.RichText)
        ini_layout.addWidget(self.ini_status)
        ini_layout.addWidget(self.findings_label)
        ini_layout.addLayout(ini_buttons)
        layout.addWidget(self.ini_box)
        layout.addStretch(1)
        scroll.setWidget(body)
        outer.addWidget(scroll, 1)

        self.scan_button.clicked.connect(self.toggle_scan)
        self.save_ini_button.clicked.connect(self.review_and_save)
        self.reload_ini_button.clicked.connect(self.reload_ini)
        controller.profileChanged.connect(self.refresh)
        controller.deviceChanged.connect(self.refresh)
        controller.filesChanged.connect(self.refresh)
        controller.bundleChanged.connect(self._bundle_opened)
        self.retranslate()

    # -- what the core computes -----------------------------------------------------------------

    def _resolve(self) -> None:
        """Directories, op_cache.ini and effective values for the current choices."""
        from cann_config.app.opcache.cachedir import resolve_cache_dir
        from cann_config.app.opcache.resolution import resolve_settings

        c = self.controller
        self.dir_resolution = resolve_cache_dir(c.profile.framework, str(c.value(DIR_OPTION)), environ=c.environ)
        self._follow_ini()
        # With a bundle, the version lines are checked against the customer's CANN (the
        # bundle's versions), as `diagnose --bundle` does; this computer's CANN says nothing.
        installed = (c.bundle.installed_versions() or None) if c.bundle is not None else None
        soc = c.device.soc_version if c.device is not None else None
        self.resolution = resolve_settings(ini=c.ini, environ=c.environ, framework=c.profile.framework,
                                           installed_versions=installed, soc_version=soc)

    def ini_path(self) -> Path:
        """The op_cache.ini this page edits: the one the user opened, else the resolved one."""
        c = self.controller
        if c.ini_path is not None and c.ini_explicit:
            return Path(c.ini_path)
        return Path(self.dir_resolution.ini_path)

    def _follow_ini(self) -> None:
        """Read the op_cache.ini of the resolved directory when it changes (unless one was opened)."""
        from cann_config.app.opcache.ini import read_op_cache_ini

        c = self.controller
        if c.ini_explicit:
            return
        path = Path(self.dir_resolution.ini_path)
        if path == self._loaded_ini_path:
            return
        self._loaded_ini_path = path
        self._ini_error = ""
        ini = None
        if path.exists():
            try:
                ini = read_op_cache_ini(path)
            except InputError as exc:
                self._ini_error = str(exc)
        c.set_ini(ini, path if ini is not None else None, explicit=False, notify=False)

    def effective_value(self, option_id: str) -> Any:
        return self.resolution.effective.get(option_id) if self.resolution is not None else None

    def base_value(self, option_id: str) -> Value | None:
        """For an op_cache.ini setting, the value kept unless the user changes it: the edited
        file's own valid value, else the value CANN uses now."""
        c = self.controller
        option = c.catalog.option(option_id)
        if not option.targets.ini:
            return None
        if c.ini is not None:
            entry = c.ini.values_as_cann_reads().get(option.targets.ini)
            if entry is not None:
                try:
                    return option.parse(entry.value)
                except ValueError:
                    pass
        effective = self.effective_value(option_id)
        if effective is not None and effective.value is not None and option.check(effective.value) is None:
            return effective.value
        return None

    def shown_value(self, option_id: str) -> Value:
        """What the editor shows: the user's choice, else (op_cache.ini settings) the base value."""
        c = self.controller
        if option_id in c.profile.options:
            return c.profile.options[option_id]
        base = self.base_value(option_id)
        return base if base is not None else c.value(option_id)

    def ini_changes(self) -> dict[str, Value]:
        """The size values to write: both, as the editors show them, when either was chosen."""
        c = self.controller
        ids = [oid for oid in self.rows if c.catalog.option(oid).targets.ini]
        if not any(oid in c.profile.options for oid in ids):
            return {}
        return {oid: self.shown_value(oid) for oid in ids}

    # -- showing it -----------------------------------------------------------------------------

    def refresh(self) -> None:
        if not self.built:
            return
        self._resolve()
        c = self.controller
        self._syncing = True
        try:
            for oid, row in self.rows.items():
                option = row.option
                value = self.shown_value(oid)
                row.show_state(value, c.availability(option), self.notes_for(option, value))
        finally:
            self._syncing = False
        self._show_dirs()
        self._show_effective()
        self._show_ini()
        self._show_gauge()

    def _source_text(self, effective: Any) -> str:
        where = {"op_cache.ini": self.tr("from op_cache.ini"), "env": self.tr("from the environment"),
                 "default": self.tr("CANN's default"), "profile": self.tr("from the profile")}
        text = where.get(effective.source, effective.source)
        if effective.source == "env" and effective.variable:
            text = self.tr("from $%1").replace("%1", str(effective.variable))
        if effective.file:
            text += f" ({effective.file}" + (f":{effective.line}" if effective.line else "") + ")"
        return text

    def _show_effective(self) -> None:
        c = self.controller
        for oid, label in self.effective.items():
            effective = self.effective_value(oid)
            option = c.catalog.option(oid)
            if effective is None:
                label.clear()
            else:
                value = "" if effective.value is None else f"{effective.value} {option.unit}".strip()
                label.setText(self.tr("CANN uses now: %1 — %2").replace("%1", value)
                              .replace("%2", self._source_text(effective)))
                label.setToolTip(pick(effective.detail) if effective.detail else "")
            chosen = oid in c.profile.options
            changed = chosen and c.profile.options[oid] != self.base_value(oid)
            self.modified[oid].setText(self.tr("modified") if changed else "")
            self.reset[oid].setEnabled(chosen)

    def _show_dirs(self) -> None:
        r = self.dir_resolution
        c = self.controller
        how = pick(r.how) if isinstance(r.how, dict) else str(r.how)
        lines = [self.tr("<b>Cache base:</b> %1 — %2").replace("%1", escape(str(r.base))).replace("%2", escape(how)),
                 self.tr("<b>kernel_cache:</b> %1").replace("%1", escape(str(r.kernel_cache)))]
        soc = c.device.soc_version if c.device is not None else None
        if soc:
            lines.append(self.tr("<b>SoC dir of %1:</b> %2").replace("%1", escape(soc))
                         .replace("%2", escape(str(r.soc_dir(soc)))))
        self.dirs_label.setText("<br>".join(lines))
        editor = self.rows[DIR_OPTION].editor
        editor.line.setPlaceholderText(self.tr("not set: %1").replace("%1", str(r.base)))

    def _show_ini(self) -> None:
        c = self.controller
        path = self.ini_path()
        remote = c.ini_from_bundle()
        if remote:
            text = self._bundle_ini_text(path)
        elif self._ini_error:
            text = self.tr("<b>op_cache.ini cannot be used:</b> %1").replace("%1", escape(self._ini_error))
        elif c.ini is None:
            text = self.tr("<b>op_cache.ini:</b> %1 does not exist yet; saving creates it from the documented "
                           "template.").replace("%1", escape(str(path)))
        else:
            text = self.tr("<b>op_cache.ini:</b> %1").replace("%1", escape(str(path)))
            if not c.ini.counts:
                text += "<br>" + escape(self.tr("CANN does not use this file as it is: %1")
                                        .replace("%1", c.ini.cann_view.reason or ""))
        if self.save_message and not remote:
            text += "<br>" + escape(self.save_message)
        self.ini_status.setText(text)
        for button in (self.save_ini_button, self.reload_ini_button):
            button.setEnabled(not remote)
            button.setToolTip(self.tr("The file is on the customer's host: export the fixed op_cache.ini on the "
                                      "Export page and send it.") if remote else "")
        findings = list(self.resolution.findings) if self.resolution is not None else []
        lines = []
        seen = set()
        for finding in findings:
            key = (finding.code, finding.message())
            if key in seen:
                continue
            seen.add(key)
            where = f" <small>({escape(finding.where())})</small>" if finding.where() else ""
            lines.append(f"<span style='color:{SEVERITY_COLOURS.get(finding.severity, '#000')}'>"
                         f"<b>{escape(severity_prefix(finding.severity))}</b></span> {escape(finding.message())}{where}")
        self.findings_label.setText("<br>".join(lines))
        self.findings_label.setVisible(bool(lines))

    def _bundle_ini_text(self, path: Path) -> str:
        """What the ini box says about the customer's op_cache.ini (from the bundle)."""
        c = self.controller
        bundle = c.bundle
        where = escape(str(path))
        if c.ini is not None:
            text = self.tr("<b>op_cache.ini on the customer's host:</b> %1 (from the support bundle)").replace("%1", where)
            if not c.ini.counts:
                text += "<br>" + escape(self.tr("CANN does not use this file as it is: %1")
                                        .replace("%1", c.ini.cann_view.reason or ""))
        elif bundle.ini_error:
            text = self.tr("<b>op_cache.ini on the customer's host</b> could not be read there: %1") \
                .replace("%1", escape(bundle.ini_error))
        else:
            text = self.tr("<b>op_cache.ini on the customer's host:</b> %1 does not exist there.").replace("%1", where)
        return text + "<br>" + escape(self.tr("It cannot be saved from here: export the fixed op_cache.ini on the "
                                              "Export page and send it to the customer."))

    # -- the gauge ------------------------------------------------------------------------------

    def size_settings(self) -> tuple[int, int]:
        """(max_op_cache_size in MB, remain_cache_size_ratio in %) as the editors show them."""
        return int(self.shown_value("max_op_cache_size")), int(self.shown_value("remain_cache_size_ratio"))

    def predictions(self) -> dict[str, Any] | None:
        """cann_config.app.opcache.cleanup's prediction per SoC dir of the last scan, for the sizes being set; None
        while a worker is still computing it (it reads the cache's json files)."""
        if self.usage is None:
            return None
        return self._predictions.get(self.size_settings())

    def _request_prediction(self) -> None:
        """Compute the prediction for the sizes being set in a worker, unless it is known."""
        key = self.size_settings()
        if self.usage is None or key in self._predictions or self._work_stopped:
            return
        if self._prediction_worker is not None and self._prediction_worker.isRunning():
            return  # when it finishes, the sizes are looked at again
        from cann_config.ui.workers import PredictionWorker

        worker = PredictionWorker(self.usage, key[0], key[1], time.time(), parent=self)
        worker.predicted.connect(self._predicted)
        worker.finished.connect(self._request_prediction)
        self._prediction_worker = worker
        self.workerStarted.emit(worker)
        worker.start()

    def _predicted(self, usage: Any, key: tuple[int, int], result: dict[str, Any]) -> None:
        if usage is self.usage:
            self._predictions[key] = result
            self._show_gauge()

    def gauge_rows(self) -> list[GaugeRow]:
        """The gauge's numbers: per SoC dir, from the scan and app.opcache.cleanup's prediction (with a
        bundle: from the customer's host, as `collect` measured and predicted there)."""
        if self.controller.bundle is not None:
            return self._bundle_gauge_rows()
        rows = []
        predictions = self.predictions()
        if self.usage is not None and predictions is not None:
            for name, prediction in sorted(predictions.items()):
                rows.append(GaugeRow(name, prediction.used_bytes, self.usage.socs[name].files,
                                     prediction.max_bytes if prediction.ageing else None,
                                     prediction.keep_threshold_bytes if prediction.ageing else None,
                                     prediction.freed_bytes, prediction.triggers))
        elif self.usage is not None:
            for name, soc in sorted(self.usage.socs.items()):
                rows.append(GaugeRow(name, soc.cann_bytes, soc.files, None, None, 0, False, pending=True))
        elif self.progress is not None:
            # While scanning: the running totals so far (CANN's measure).
            for name in sorted(self.progress.socs):
                totals = self.progress.socs[name]
                rows.append(GaugeRow(name, totals.cann_bytes, totals.files, None, None, 0, False, pending=True))
        return rows

    def _bundle_gauge_rows(self) -> list[GaugeRow]:
        cache = self.controller.bundle.cache
        rows = []
        for name, soc in sorted((cache.socs if cache is not None else {}).items()):
            pred = soc.prediction
            if pred is None:  # a partial walk, or a prediction that did not finish: no limit lines
                rows.append(GaugeRow(name, soc.cann_bytes or 0, soc.files or 0, None, None, 0, False, pending=True))
            else:
                rows.append(GaugeRow(name, pred.used_bytes, soc.files or 0, pred.max_bytes if pred.ageing else None,
                                     pred.keep_threshold_bytes if pred.ageing else None, pred.freed_bytes,
                                     pred.triggers))
        return rows

    def _bundle_gauge_message(self) -> str:
        cache = self.controller.bundle.cache
        if cache is None:
            return self.tr("The bundle holds no measurement of the cache.")
        if cache.error:
            return self.tr("The cache could not be measured on the customer's host: %1").replace("%1", cache.error)
        if cache.exists is False:
            return self.tr("%1 does not exist on the customer's host: nothing is cached there yet.") \
                .replace("%1", cache.kernel_cache or "kernel_cache")
        if not cache.socs:
            return self.tr("The cache holds no SoC directory yet.")
        return ""

    def scan_findings(self) -> list[Any]:
        c = self.controller
        if c.bundle is not None:
            return list(c.bundle.cache_findings(self.resolution.effective)) if self.resolution is not None else []
        predictions = self.predictions()
        if self.usage is None or predictions is None:
            return []
        from cann_config.app.opcache.cleanup import cache_findings

        return list(cache_findings(self.usage, predictions, self.size_settings()[0]))

    def _show_gauge(self) -> None:
        bundle = self.controller.bundle
        if bundle is not None:
            self._show_bundle_gauge(bundle)
            return
        self._request_prediction()
        rows = self.gauge_rows()
        usage = self.usage
        message = ""
        if usage is not None and not usage.socs:
            message = self.tr("The cache holds no SoC directory yet.")
        elif self.scan_error:
            message = self.scan_error
        findings = self.scan_findings()
        self.scan_findings_label.setText("<br>".join(
            f"<span style='color:{SEVERITY_COLOURS.get(f.severity, '#000')}'><b>{escape(severity_prefix(f.severity))}"
            f"</b></span> {escape(f.message())}" for f in findings))
        self.scan_findings_label.setVisible(bool(findings))
        self.gauge.set_rows(rows, free_bytes=getattr(usage, "free_bytes", None),
                            fs_type=getattr(usage, "fs_type", None), message=message,
                            partial=bool(getattr(usage, "stopped", False)))

    def _show_bundle_gauge(self, bundle: Any) -> None:
        findings = self.scan_findings()
        self.scan_findings_label.setText("<br>".join(
            f"<span style='color:{SEVERITY_COLOURS.get(f.severity, '#000')}'><b>{escape(severity_prefix(f.severity))}"
            f"</b></span> {escape(f.message())}" for f in findings))
        self.scan_findings_label.setVisible(bool(findings))
        cache = bundle.cache
        self.gauge.set_rows(self.gauge_rows(), free_bytes=getattr(cache, "free_bytes", None),
                            fs_type=getattr(cache, "fs_type", None), message=self._bundle_gauge_message(),
                            partial=bool(getattr(cache, "partial", False)))
        self._show_scan_button()

    def _bundle_scan_text(self) -> str:
        """Why there is no scan here, and what the bundle measured instead."""
        text = self.tr("Not scanned here: the cache is on the customer's host.")
        cache = self.controller.bundle.cache
        if cache is not None and cache.files is not None:
            text += " " + self.tr("Measured there by cann-config collect: %1 files, %2 (on disk %3).") \
                .replace("%1", f"{cache.files:,}").replace("%2", human_bytes(cache.apparent_bytes or 0)) \
                .replace("%3", human_bytes(cache.allocated_bytes or 0))
        limits = cache.limits if cache is not None else {}
        if "max_op_cache_size" in limits and "remain_cache_size_ratio" in limits:
            text += " " + self.tr("What the next start deletes was predicted there with the customer's limits "
                                  "(%1 MB, %2 %).").replace("%1", str(limits["max_op_cache_size"])) \
                .replace("%2", str(limits["remain_cache_size_ratio"]))
        return text

    def _bundle_opened(self) -> None:
        """A bundle replaces this computer's cache: a scan in progress stops, its result goes."""
        self.stop_scan()
        self.usage = None
        self.progress = None
        self._predictions = {}
        self._scan_error = None
        self._save_text = None
        self.refresh()

    # -- scanning -------------------------------------------------------------------------------

    def scanning(self) -> bool:
        return self.scan_worker is not None and self.scan_worker.isRunning()

    def toggle_scan(self) -> None:
        if self.scanning():
            self.stop_scan()
        else:
            self.start_scan()

    @property
    def scan_error(self) -> str:
        return self._scan_error() if self._scan_error is not None else ""

    @property
    def save_message(self) -> str:
        return self._save_text() if self._save_text is not None else ""

    def _set_scan_text(self, text: Callable[[], str] | None) -> None:
        self._scan_text = text
        self.scan_status.setText(text() if text is not None else "")

    def start_scan(self) -> None:
        if self._work_stopped or self.controller.bundle is not None:
            return
        path = Path(self.dir_resolution.kernel_cache)
        self.usage = None
        self.progress = None
        self._scan_error = None
        if not path.is_dir():
            self._scan_error = lambda: self.tr("%1 does not exist: nothing is cached there yet.").replace("%1", str(path))
            self._set_scan_text(self._scan_error)
            self._show_gauge()
            return
        from cann_config.ui.workers import ScanWorker

        worker = ScanWorker(path, parent=self)
        worker.progress.connect(self._scan_progress)
        worker.finishedScan.connect(self._scan_finished)
        worker.failed.connect(self._scan_failed)
        worker.finished.connect(self._worker_finished)
        self.scan_worker = worker
        self.workerStarted.emit(worker)
        self._set_scan_text(lambda: self.tr("Scanning %1 …").replace("%1", str(path)))
        worker.start()
        self._show_scan_button()

    def stop_scan(self) -> None:
        if self.scan_worker is not None:
            self.scan_worker.requestInterruption()

    def _scan_progress(self, progress: Any) -> None:
        self.progress = progress
        self._set_scan_text(lambda: self.tr("Scanning: %1 files, %2, %3 s").replace("%1", f"{progress.files:,}")
                            .replace("%2", human_bytes(progress.apparent_bytes))
                            .replace("%3", f"{progress.elapsed:.1f}"))
        self._show_gauge()

    def _scan_finished(self, final: Any) -> None:
        usage = final.usage
        self.usage = usage
        self._predictions = {}
        self.progress = None
        self._set_scan_text(lambda: self._scan_summary(usage))
        self._show_gauge()

    def _scan_summary(self, usage: Any) -> str:
        text = self.tr("%1 files, %2 (on disk %3), %4 s").replace("%1", f"{usage.files:,}") \
            .replace("%2", human_bytes(usage.apparent_bytes)).replace("%3", human_bytes(usage.allocated_bytes)) \
            .replace("%4", f"{usage.elapsed:.1f}")
        if usage.stopped:
            text = self.tr("Stopped: %1").replace("%1", text)
        if usage.unreadable:
            text += " — " + self.tr("%1 entries could not be read").replace("%1", str(len(usage.unreadable)))
        return text

    def _scan_failed(self, message: str) -> None:
        self._scan_error = lambda: message
        self._set_scan_text(self._scan_error)
        self._show_gauge()

    def _worker_finished(self) -> None:
        self._show_scan_button()

    def _show_scan_button(self) -> None:
        self.scan_button.setText(self.tr("&Stop") if self.scanning() else self.tr("S&can the cache"))
        remote = self.controller.bundle is not None and not self.scanning()
        self.scan_button.setEnabled(not remote)
        self.scan_button.setToolTip(self.tr("The cache is on the customer's host: the bundle's measurement is "
                                            "shown.") if remote else "")
        if remote:
            self._set_scan_text(self._bundle_scan_text)

    # -- op_cache.ini ---------------------------------------------------------------------------

    def _browse(self, option_id: str) -> None:
        start = str(self.controller.value(option_id)) or str(self.dir_resolution.base)
        path = dialogs.choose_directory(self, self.tr("Choose the cache directory"), start)
        if path:
            self.rows[option_id].editor.set_value(path)

    def reload_ini(self) -> None:
        from cann_config.app.opcache.ini import read_op_cache_ini

        c = self.controller
        path = self.ini_path()
        self._ini_error = ""
        ini = None
        if path.exists():
            try:
                ini = read_op_cache_ini(path)
            except InputError as exc:
                self._ini_error = str(exc)
        self._loaded_ini_path = path if not c.ini_explicit else self._loaded_ini_path
        c.set_ini(ini, path if (ini is not None or c.ini_explicit) else None, explicit=c.ini_explicit)

    def review_and_save(self) -> bool:
        """Show the exact change; write op_cache.ini only when the user accepts it."""
        from cann_config.app.opcache.ini import (
            FileChangedError,
            creation_findings,
            decode_ini_text,
            render_op_cache_ini,
            save_op_cache_ini,
        )
        from cann_config.ui.review import ReviewDialog

        c = self.controller
        path = self.ini_path()
        changes = self.ini_changes()
        notes: list[str] = []
        try:
            if c.ini is None:
                from cann_config.app.opcache.ini import installed_op_cache_versions

                installed = installed_op_cache_versions()
                findings = creation_findings(changes, installed, file=str(path))
                for finding in findings:
                    changes.update(finding.suggestion)
                    notes.append(f"{severity_prefix(finding.severity)} {finding.message()}")
                data = render_op_cache_ini(None, changes)
            else:
                data = render_op_cache_ini(c.ini, changes)
        except (InputError, ValueError) as exc:
            self._not_saved(str(exc))
            return False
        except Exception as exc:  # noqa: BLE001 - UsageError and the like: shown, never a traceback
            self._not_saved(str(exc))
            return False
        old = None if c.ini is None else decode_ini_text(c.ini.original)
        if c.ini is not None and data == c.ini.original:
            self._set_save_message(lambda: self.tr("Nothing to save: %1 already holds these values; it was not "
                                                   "touched.").replace("%1", str(path)))
            c.mark_saved()
            return True
        dialog = ReviewDialog(str(path), old, decode_ini_text(data), notes, self)
        if not dialogs.run_dialog(dialog):
            self._set_save_message(lambda: self.tr("Not saved: the review was cancelled."))
            return False
        try:
            if c.ini is None:
                path.parent.mkdir(parents=True, exist_ok=True)
            result = save_op_cache_ini(path, data, None if c.ini is None else c.ini.original)
        except FileChangedError as exc:
            message = self._not_saved(str(exc))
            dialogs.show_error(self, self.tr("op_cache.ini changed on disk"), message)
            return False
        except (InputError, OSError) as exc:
            message = self._not_saved(str(exc))
            dialogs.show_error(self, self.tr("Not saved"), message)
            return False
        backup = result.backup
        if backup is not None:
            self._save_text = lambda: self.tr("Saved %1 (previous version kept as %2).").replace("%1", str(path)) \
                .replace("%2", str(backup))
        else:
            self._save_text = lambda: self.tr("Saved %1.").replace("%1", str(path))
        c.mark_saved()
        self.reload_ini()
        return True

    def _not_saved(self, reason: str) -> str:
        return self._set_save_message(lambda: self.tr("Not saved: %1").replace("%1", reason))

    def _set_save_message(self, text: Callable[[], str]) -> str:
        """Show what became of the save (in the current language, now and after a switch)."""
        self._save_text = text
        self._show_ini()
        return text()

    # -- texts ----------------------------------------------------------------------------------

    def retranslate(self) -> None:
        if not self.built:
            return
        self.setTitle(self.tr("Operator compile cache"))
        self.setSubTitle(self.tr("Where compiled operators are kept, how much space they may use, and what "
                                 "CANN would delete next."))
        for reset in self.reset.values():
            reset.setText(self.tr("Reset"))
            reset.setToolTip(self.tr("Go back to the value of op_cache.ini, or the one CANN uses now"))
        self.gauge_box.setTitle(self.tr("Cache usage per SoC directory"))
        self.ini_box.setTitle(self.tr("op_cache.ini"))
        self.save_ini_button.setText(self.tr("&Review and save op_cache.ini…"))
        self.reload_ini_button.setText(self.tr("Re&load"))
        self._show_scan_button()
        if self._scan_text is not None:
            self.scan_status.setText(self._scan_text())
        super().retranslate()

    def remember_choices(self) -> None:
        """Nothing of this page is remembered: its values belong to the profile and the files."""

    def stop_work(self) -> None:
        """The window is closing: start no worker from now on (a scan result that arrives after
        the workers were joined would otherwise start a prediction)."""
        self._work_stopped = True
