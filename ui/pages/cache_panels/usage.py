"""The cache gauge (`cacheGauge`), the scan (`scanButton`, `scanStatus`, `scanFindings`) and the
clean (`cleanButton`: `cann-config clean` in a child process, ui/cleaner.py).

The cache is walked by app.opcache.scanner in a worker (batches every ~100 ms, Stop between
batches: the gauge grows while it walks); then the one measurement, app.opcache.measurement's
measure_cache, runs on that walk in another worker (it predicts CANN's next cleanup, reading the
cache's json files) for the sizes CANN uses now, and again for the user's choice when it differs.
The gauge's rows, the findings under it and `scan --json` / `diagnose` are all that one
CacheMeasurement. With a support bundle open, the gauge shows the measurement `collect` recorded on
the customer's host (read back as the same type), and the scan is off, saying why
(docs/cann/op-cache.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QThread, Signal
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from cann_config.app.units import CANN_MB, human_bytes
from cann_config.ui import dialogs
from cann_config.ui.cleaner import CacheCleaner
from cann_config.ui.controller import WizardController
from cann_config.ui.docpane import SEVERITY_COLOURS, severity_prefix
from cann_config.ui.gauge import CacheGauge, ChoiceMark, GaugeRow
from cann_config.ui.pages.cache_panels.state import CacheState
from cann_config.ui.qtprops import escape, rich_text
from cann_config.ui.workers import MeasureWorker, ScanWorker


class UsagePanel(QGroupBox):
    """What the cache holds per SoC directory, its limit and what CANN would delete next."""

    workerStarted = Signal(QThread)

    def __init__(self, controller: WizardController, state: CacheState, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("cacheUsagePanel")
        self.controller = controller
        self.state = state
        self.usage: Any = None  # app.opcache.scanner.CacheUsage of the last finished scan
        self.progress: Any = None  # the last ScanProgress while scanning
        self.scan_worker: ScanWorker | None = None
        # What the status line says, as a function of the current language (said again on a switch).
        self._scan_error: Callable[[], str] | None = None
        self._scan_text: Callable[[], str] | None = None
        # The measurement of the last walk per (max_op_cache_size, remain_cache_size_ratio):
        # app.opcache.measurement.CacheMeasurement, without "the next start empties" (decided when
        # shown: it follows the mode and op_cache.ini as they are edited).
        self._predictions: dict[tuple[int, int], Any] = {}
        self._prediction_worker: MeasureWorker | None = None
        # <kernel_cache>/op_cache.ini when the last scan found it missing (CANN creates it at the
        # next start, emptying the SoC dir), else None
        self._missing_ini: str | None = None
        self._work_stopped = False  # the window is closing: no new worker is started
        self._clean_target = ""  # the kernel_cache being cleaned
        self._cleaned: Callable[[], str] | None = None  # what the last clean deleted, in words

        layout = QVBoxLayout(self)
        self.gauge = CacheGauge(self)
        scan_row = QHBoxLayout()
        self.scan_button = QPushButton(self)
        self.scan_button.setObjectName("scanButton")
        self.scan_status = QLabel(self)
        self.scan_status.setObjectName("scanStatus")
        self.scan_status.setWordWrap(True)
        # What CANN means to delete, deleted under its lock (docs/cann/op-cache.md#cleaning-by-hand).
        self.clean_button = QPushButton(self)
        self.clean_button.setObjectName("cleanButton")
        self.cleaner = CacheCleaner(self)
        self.cleaner.done.connect(self._clean_done)
        self.cleaner.failed.connect(self._clean_failed)
        scan_row.addWidget(self.scan_button)
        scan_row.addWidget(self.clean_button)
        scan_row.addWidget(self.scan_status, 1)
        self.scan_findings_label = rich_text(QLabel(self), selectable=False)
        self.scan_findings_label.setObjectName("scanFindings")
        self.scan_findings_label.setWordWrap(True)
        self.scan_findings_label.hide()
        layout.addWidget(self.gauge)
        layout.addLayout(scan_row)
        layout.addWidget(self.scan_findings_label)
        self.scan_button.clicked.connect(self.toggle_scan)
        self.clean_button.clicked.connect(self.start_clean)

    # -- showing it -----------------------------------------------------------------------------

    def refresh(self) -> None:
        if not self.controller.session.can_scan:  # measured on the customer's host, by collect
            self._show_bundle_gauge(self.controller.session.recorded_cache())
            return
        self._request_prediction()
        usage = self.usage
        message = ""
        if usage is not None and not usage.socs:
            message = self.tr("The cache holds no SoC directory yet.")
        elif self.scan_error:
            message = self.scan_error
        self._show_findings()
        self.gauge.set_rows(self.gauge_rows(), free_bytes=getattr(usage, "free_bytes", None),
                            fs_type=getattr(usage, "fs_type", None), message=message,
                            partial=bool(getattr(usage, "stopped", False)))

    def _show_findings(self) -> None:
        findings = self.scan_findings()
        self.scan_findings_label.setText("<br>".join(
            f"<span style='color:{SEVERITY_COLOURS.get(f.severity, '#000')}'><b>{escape(severity_prefix(f.severity))}"
            f"</b></span> {escape(f.message())}" for f in findings))
        self.scan_findings_label.setVisible(bool(findings))

    def cann_settings(self) -> tuple[int, int]:
        """(max_op_cache_size, remain_cache_size_ratio) as CANN uses them now (the core's
        resolution); the editors' values when the resolution has none (set at run time)."""
        resolution = self.state.resolution
        if resolution is not None:
            max_e = resolution.effective.get("max_op_cache_size")
            ratio_e = resolution.effective.get("remain_cache_size_ratio")
            if max_e is not None and ratio_e is not None and not max_e.runtime and not ratio_e.runtime:
                return int(max_e.value), int(ratio_e.value)
        return self.state.size_settings()

    def choice_settings(self) -> tuple[int, int] | None:
        """The user's (editors') two sizes when they differ from what CANN uses now, else None."""
        choice = self.state.size_settings()
        return choice if choice != self.cann_settings() else None

    def predictions(self, key: tuple[int, int] | None = None) -> dict[str, Any] | None:
        """app.opcache.cleanup's prediction per SoC dir of the last scan, for the sizes `key`
        (default: what CANN uses now); None while a worker is still computing it (it reads the
        cache's json files)."""
        measured = self._measured(key)
        return measured.predictions if measured is not None else None

    def _measured(self, key: tuple[int, int] | None = None) -> Any:
        if self.usage is None:
            return None
        return self._predictions.get(key or self.cann_settings())

    def measurement(self, key: tuple[int, int] | None = None) -> Any:
        """The one measurement (app.opcache.measurement.CacheMeasurement) of the last scan for the
        sizes `key` (default: CANN's), with "the next start empties" as the page's op_cache.ini,
        versions and mode say now: what `scan --json` prints for the same tree. A bundle's: the
        measurement `collect` recorded. None while it is being measured."""
        if not self.controller.session.can_scan:
            measured = self.controller.session.recorded_cache()
        else:
            measured = self._measured(key)
        if measured is None:
            return None
        device = self.controller.device
        return measured.with_empties(self.next_start_empties(), device.soc_version if device is not None else None)

    def _limits(self, key: tuple[int, int]) -> tuple[Any, Any]:
        """The two sizes of `key` as app.opcache.resolution.Effective: CANN's own (with where each
        comes from) when `key` is what CANN uses now, else the user's choice."""
        from cann_config.app.opcache.resolution import Effective

        resolution = self.state.resolution
        if resolution is not None and key == self.cann_settings():
            max_e = resolution.effective.get("max_op_cache_size")
            ratio_e = resolution.effective.get("remain_cache_size_ratio")
            if max_e is not None and ratio_e is not None and not max_e.runtime and not ratio_e.runtime:
                return max_e, ratio_e
        return Effective(key[0], "profile"), Effective(key[1], "profile")

    def _request_prediction(self) -> None:
        """Compute the predictions for CANN's sizes and the user's in a worker, unless known."""
        if self.usage is None or self._work_stopped:
            return
        wanted = [self.cann_settings(), self.choice_settings()]
        key = next((k for k in wanted if k is not None and k not in self._predictions), None)
        if key is None:
            return
        if self._prediction_worker is not None and self._prediction_worker.isRunning():
            return  # when it finishes, the sizes are looked at again
        resolution = self.state.dir_resolution
        max_e, ratio_e = self._limits(key)
        worker = MeasureWorker(self.usage, max_e, ratio_e, time.time(),
                               dir_info=resolution.to_json() if resolution is not None else None, parent=self)
        worker.measured.connect(self._predicted)
        worker.finished.connect(self._request_prediction)
        self._prediction_worker = worker
        self.workerStarted.emit(worker)
        worker.start()

    def _predicted(self, usage: Any, key: tuple[int, int], measured: Any) -> None:
        if usage is self.usage:
            self._predictions[key] = measured
            self.refresh()

    def next_start_empties(self) -> Any:
        """Whether the next start empties the SoC dirs (app.opcache.measurement.next_start_empties),
        with the op_cache.ini CANN reads, the versions of the CANN that reads it and the mode."""
        resolution = self.state.resolution
        return self.controller.session.next_start_empties(resolution.effective if resolution is not None else {},
                                                          self.state.cann_ini, missing_ini=self._missing_ini)

    def _choice_mark(self, name: str) -> ChoiceMark | None:
        """The user's choice for SoC dir `name`, when it differs from CANN's (see ChoiceMark)."""
        choice = self.choice_settings()
        if choice is None:
            return None
        max_mb, ratio = choice
        if max_mb == -1:
            return ChoiceMark(max_mb, ratio, None, None, None)
        limit = max_mb * CANN_MB
        measured = self._measured(choice) if self.controller.session.can_scan else None
        soc = measured.document()["socs"].get(name) if measured is not None else None
        cleanup = soc.get("cleanup") if soc is not None else None
        return ChoiceMark(max_mb, ratio, limit, limit * ratio // 100,
                          cleanup.get("freed_bytes") if cleanup is not None else None)

    def gauge_rows(self) -> list[GaugeRow]:
        """The gauge's numbers per SoC dir: the measurement (a scan here, or the one `collect` made on
        the customer's host), what CANN uses now, and the user's choice beside it when it differs."""
        measured = self.measurement()
        if measured is not None or not self.controller.session.can_scan:
            return self._rows_of(measured)
        rows = []
        if self.usage is not None:  # walked, being measured
            for name, soc in sorted(self.usage.socs.items()):
                rows.append(GaugeRow(name, soc.cann_bytes, soc.files, None, None, 0, False, pending=True))
        elif self.progress is not None:
            # While scanning: the running totals so far (CANN's measure).
            for name in sorted(self.progress.socs):
                totals = self.progress.socs[name]
                rows.append(GaugeRow(name, totals.cann_bytes, totals.files, None, None, 0, False, pending=True))
        return rows

    def scan_findings(self) -> list[Any]:
        """The measurement's findings (as `scan` says them); a bundle's with what only a bundle can
        lack (app.support.bundle.Bundle.cache_findings)."""
        c = self.controller
        resolution = self.state.resolution
        if not c.session.can_scan:
            return c.session.recorded_cache_findings(resolution.effective) if resolution is not None else []
        measured = self.measurement()
        return list(measured.findings) if measured is not None else []

    # -- a support bundle -----------------------------------------------------------------------

    def _rows_of(self, measured: Any) -> list[GaugeRow]:
        """The gauge's rows from one measurement's document (app.opcache.measurement: a scan here,
        or the one `collect` recorded on the customer's host), the same numbers `scan --json` has."""
        if measured is None:
            return []
        rows = []
        for name, soc in sorted(measured.document()["socs"].items()):
            pred = soc.get("cleanup")
            files = soc.get("files") or 0
            if pred is None:  # a partial walk, or a prediction that did not finish: no limit lines
                rows.append(GaugeRow(name, soc.get("cann_bytes") or 0, files, None, None, 0, False, pending=True))
                continue
            ageing = bool(pred.get("ageing"))
            rows.append(GaugeRow(name, pred.get("used_bytes") or 0, files, pred.get("max_bytes") if ageing else None,
                                 pred.get("keep_threshold_bytes") if ageing else None, pred.get("freed_bytes") or 0,
                                 bool(pred.get("triggers")), empties=measured.soc_empties(name) is not None,
                                 choice=self._choice_mark(name), target_bytes=pred.get("target_bytes") or 0,
                                 target_reached=bool(pred.get("target_reached", True)),
                                 read_saved_groups=pred.get("read_saved_groups") or 0))
        return rows

    def _bundle_gauge_message(self) -> str:
        session = self.controller.session
        error = session.recorded_cache_error()
        if error:
            return self.tr("The cache could not be measured on the customer's host: %1").replace("%1", error)
        cache = session.recorded_cache()
        if cache is None:
            return self.tr("The bundle holds no measurement of the cache.")
        if not cache.exists:
            return self.tr("%1 does not exist on the customer's host: nothing is cached there yet.") \
                .replace("%1", str(cache.kernel_cache) or "kernel_cache")
        if not cache.document()["socs"]:
            return self.tr("The cache holds no SoC directory yet.")
        return ""

    def _show_bundle_gauge(self, cache: Any) -> None:
        self._show_findings()
        doc = cache.document() if cache is not None else {}
        fs = doc.get("filesystem") or {}
        self.gauge.set_rows(self.gauge_rows(), free_bytes=fs.get("free_bytes"), fs_type=fs.get("type"),
                            message=self._bundle_gauge_message(), partial=bool(doc.get("stopped")))
        self._show_scan_button()

    def _bundle_scan_text(self) -> str:
        """Why there is no scan here, and what the bundle measured instead."""
        text = self.tr("Not scanned here: the cache is on the customer's host.")
        cache = self.controller.session.recorded_cache()
        totals = (cache.document()["totals"] or {}) if cache is not None and cache.exists else {}
        if totals.get("files") is not None:
            text += " " + self.tr("Measured there by cann-config collect: %1 files, %2 (on disk %3).") \
                .replace("%1", f"{totals['files']:,}").replace("%2", human_bytes(totals.get("apparent_bytes") or 0)) \
                .replace("%3", human_bytes(totals.get("allocated_bytes") or 0))
        if cache is not None:
            text += " " + self.tr("What the next start deletes was predicted there with the customer's limits "
                                  "(%1 MB, %2 %).").replace("%1", str(cache.max_e.value)) \
                .replace("%2", str(cache.ratio_e.value))
        return text

    def forget_scan(self) -> None:
        """A bundle replaces this computer's cache: a scan in progress stops, its result goes."""
        self.stop_scan()
        self.usage = None
        self.progress = None
        self._predictions = {}
        self._scan_error = None
        self._missing_ini = None

    # -- scanning -------------------------------------------------------------------------------

    def scanning(self) -> bool:
        return self.scan_worker is not None and self.scan_worker.isRunning()

    def toggle_scan(self) -> None:
        if self.scanning():
            self.stop_scan()
        else:
            self._cleaned = None
            self.start_scan()

    @property
    def scan_error(self) -> str:
        return self._scan_error() if self._scan_error is not None else ""

    def _set_scan_text(self, text: Callable[[], str] | None) -> None:
        self._scan_text = text
        self.scan_status.setText(text() if text is not None else "")

    def start_scan(self) -> None:
        if self._work_stopped or not self.controller.session.can_scan or self.state.dir_resolution is None:
            return
        path = Path(self.state.dir_resolution.kernel_cache)
        self.usage = None
        self.progress = None
        self._scan_error = None
        worker = ScanWorker(path, parent=self)
        worker.missing.connect(lambda: self._scan_missing(path))
        worker.progress.connect(self._scan_progress)
        worker.finishedScan.connect(lambda final: self._scan_finished(final, worker.ini_exists))
        worker.failed.connect(self._scan_failed)
        worker.finished.connect(self._show_scan_button)
        self.scan_worker = worker
        self.workerStarted.emit(worker)
        self._set_scan_text(lambda: self.tr("Scanning %1 …").replace("%1", str(path)))
        worker.start()
        self._show_scan_button()

    def stop_scan(self) -> None:
        if self.scan_worker is not None:
            self.scan_worker.requestInterruption()

    def stop(self) -> None:
        """The window is closing: start no worker from now on (a scan result that arrives after
        the workers were joined would otherwise start a prediction); a clean deleting files is
        let finish."""
        self._work_stopped = True
        self.cleaner.wait()

    # -- cleaning -------------------------------------------------------------------------------

    def start_clean(self) -> None:
        """List what CANN means to delete (a dry run), ask, then delete it (`clean --yes`)."""
        if self.usage is None or not self.controller.session.can_scan or self.cleaner.running() or self._work_stopped:
            return
        self._clean_target = str(self.usage.kernel_cache)
        self._cleaned = None
        self.cleaner.start(self._clean_target, yes=False)
        self._set_scan_text(lambda: self.tr("Listing what CANN means to delete …"))
        self._show_scan_button()

    def _clean_done(self, document: dict[str, Any], code: int) -> None:
        socs = document.get("socs", {}).values()
        if document.get("lock_held"):
            held = str(document["lock_held"])
            self._set_scan_text(lambda: self.tr("CANN's delete lock %1 is held by another process (a compiler "
                                                "start cleaning this cache): nothing was deleted.").replace("%1", held))
        elif document.get("dry_run"):
            jsons = [group["json"] for soc in socs for group in soc.get("groups", ())]
            listed = sum(soc["cleanup"]["delete_bytes"] for soc in socs if soc.get("groups"))
            if not jsons:
                self._set_scan_text(lambda: self.tr("CANN means to delete nothing: each SoC directory is under its "
                                                    "limit, or what is over it was used in the last 30 minutes."))
            else:
                text = self.tr("Delete %1 kernel groups (%2), oldest used first, as CANN's cleaner means to? "
                               "They are deleted under CANN's own lock; CANN compiles them again when needed.") \
                    .replace("%1", f"{len(jsons):,}").replace("%2", human_bytes(listed))
                if dialogs.confirm_clean(self, text, "\n".join(jsons)):
                    self.cleaner.start(self._clean_target, yes=True)
                    self._set_scan_text(lambda: self.tr("Deleting what CANN means to delete …"))
                else:
                    self._set_scan_text(lambda: self.tr("Nothing was deleted."))
        else:
            results = [soc["result"] for soc in socs if soc.get("result")]
            groups = sum(r["deleted_groups"] for r in results)
            freed = human_bytes(sum(r["freed_bytes"] for r in results))
            failed = sum(len(r["failed"]) for r in results)
            # The clean's summary stays beside the numbers of the scan that follows it.
            self._cleaned = lambda: self.tr("Deleted %1 kernel groups, %2 freed.").replace("%1", f"{groups:,}") \
                .replace("%2", freed) + ("" if not failed else " " + self.tr(
                    "%1 files could not be deleted.").replace("%1", str(failed)))
            self._set_scan_text(self._cleaned)
            self.start_scan()
        self._show_scan_button()

    def _clean_failed(self, reason: str) -> None:
        self._set_scan_text(lambda: self.tr("The clean did not run: %1").replace("%1", reason))
        self._show_scan_button()

    def _scan_missing(self, path: Path) -> None:
        self._scan_error = lambda: self.tr("%1 does not exist: nothing is cached there yet.").replace("%1", str(path))
        self._set_scan_text(self._scan_error)
        self.refresh()

    def _scan_progress(self, progress: Any) -> None:
        self.progress = progress
        self._set_scan_text(lambda: self.tr("Scanning: %1 files, %2, %3 s").replace("%1", f"{progress.files:,}")
                            .replace("%2", human_bytes(progress.apparent_bytes))
                            .replace("%3", f"{progress.elapsed:.1f}"))
        self.refresh()

    def _scan_finished(self, final: Any, ini_exists: bool | None = None) -> None:
        usage = final.usage
        self._missing_ini = str(Path(usage.kernel_cache) / "op_cache.ini") if ini_exists is False else None
        self.usage = usage
        self._predictions = {}
        self.progress = None
        self._set_scan_text(lambda: self._scan_summary(usage))
        self.refresh()
        self._show_scan_button()

    def _scan_summary(self, usage: Any) -> str:
        text = self.tr("%1 files, %2 (on disk %3), %4 s").replace("%1", f"{usage.files:,}") \
            .replace("%2", human_bytes(usage.apparent_bytes)).replace("%3", human_bytes(usage.allocated_bytes)) \
            .replace("%4", f"{usage.elapsed:.1f}")
        if usage.stopped:
            text = self.tr("Stopped: %1").replace("%1", text)
        if usage.unreadable:
            text += " — " + self.tr("%1 entries could not be read").replace("%1", str(len(usage.unreadable)))
        if self._cleaned is not None:
            text = self._cleaned() + " " + text
        return text

    def _scan_failed(self, message: str) -> None:
        self._scan_error = lambda: message
        self._set_scan_text(self._scan_error)
        self.refresh()

    def _show_scan_button(self) -> None:
        self.clean_button.setText(self.tr("Cl&ean as CANN means to…"))
        self.clean_button.setToolTip(self.tr("CANN's own cleanup often deletes nothing (its read of each kernel "
                                             "refreshes the access time it checks): list what it means to delete, "
                                             "then delete it under CANN's lock."))
        self.clean_button.setEnabled(self.usage is not None and self.controller.session.can_scan
                                     and not self.scanning() and not self.cleaner.running())
        self.scan_button.setText(self.tr("&Stop") if self.scanning() else self.tr("S&can the cache"))
        remote = not self.controller.session.can_scan and not self.scanning()
        self.scan_button.setEnabled(not remote)
        self.scan_button.setToolTip(self.tr("The cache is on the customer's host: the bundle's measurement is "
                                            "shown.") if remote else "")
        if remote:
            self._set_scan_text(self._bundle_scan_text)

    def retranslate(self) -> None:
        self.setTitle(self.tr("Cache usage per SoC directory"))
        self._show_scan_button()
        if self._scan_text is not None:
            self.scan_status.setText(self._scan_text())
