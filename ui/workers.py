"""Background work of the wizard, off the GUI thread: device detection, the cache walk, the one
measurement of the cache (app.opcache.measurement.measure_cache: CANN's next cleanup predicted
from the walk), reading op_cache.ini, reading a support bundle, and importing the core modules the pages need.

Both are QThreads that call a generator or function of the core and forward its results as
signals (queued to the GUI thread). The scan forwards the scanner's batches (one per
~100 ms, the core's `batch_seconds`) and stops between batches when interruption is requested.
The wizard keeps every worker it starts and stops and joins them all when it closes; the tests
fail any test that leaves one running.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal

from cann_config.app.collector import collector_paused

DETECTION_TIMEOUT = 5.0  # seconds npu-smi may take before the core gives up on it


def default_probe(timeout: float = DETECTION_TIMEOUT) -> Any:
    from cann_config.app.device.hostprobe import probe_host

    return probe_host(timeout=timeout)


class DetectionWorker(QThread):
    """Runs the host probe (npu-smi with a timeout, version files) once."""

    detected = Signal(object)  # app.device.hostprobe.HostProbe
    failed = Signal(str)

    def __init__(self, probe: Callable[..., Any] | None = None, timeout: float = DETECTION_TIMEOUT,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.setObjectName("detectionWorker")
        self._probe = probe or default_probe
        self._timeout = timeout

    def run(self) -> None:
        try:
            result = self._probe(timeout=self._timeout)
        except Exception as exc:  # noqa: BLE001 - any failure of detection is shown, not raised
            self.failed.emit(str(exc) or type(exc).__name__)
            return
        self.detected.emit(result)


class ScanWorker(QThread):
    """Walks a kernel_cache dir with app.opcache.scanner.scan_cache, forwarding its progress batches
    (the walk a MeasureWorker then measures: app.opcache.measurement.measure_cache). Whether the dir
    is there is looked at here too: the GUI thread never waits on the disk."""

    progress = Signal(object)  # app.opcache.scanner.ScanProgress, not final
    finishedScan = Signal(object)  # the final ScanProgress (its .usage is the CacheUsage)
    failed = Signal(str)
    missing = Signal()  # the kernel_cache dir does not exist: nothing is cached there yet

    def __init__(self, path: Path, batch_seconds: float = 0.1, parent: QObject | None = None):
        super().__init__(parent)
        self.setObjectName("scanWorker")
        self.path = path
        self.batch_seconds = batch_seconds
        self.stopped = False
        # Whether <kernel_cache>/op_cache.ini exists (looked at here, off the GUI thread): when it
        # does not, CANN creates it at the next start, emptying the SoC dir (app.opcache.measurement).
        self.ini_exists: bool | None = None

    def run(self) -> None:
        from cann_config.app.errors import InputError
        from cann_config.app.io.inputfiles import input_is_dir
        from cann_config.app.opcache.parallel import scan_pool
        from cann_config.app.opcache.scanner import scan_cache

        last = None
        try:
            if not input_is_dir(self.path):
                self.missing.emit()
                return
            self.ini_exists = os.path.lexists(self.path / "op_cache.ini")
            # The walk shared with worker processes on the free cores: new interpreters, never a
            # fork of this process with Qt in it (app.opcache.parallel).
            with collector_paused(freeze=True), scan_pool() as pool:
                for item in scan_cache(self.path, batch_seconds=self.batch_seconds,
                                       should_stop=self.isInterruptionRequested, splitter=pool):
                    last = item
                    if getattr(item, "done", False):
                        break
                    self.progress.emit(item)
        except InputError as exc:
            self.failed.emit(str(exc))
            return
        except OSError as exc:
            self.failed.emit(f"{self.path}: {exc.strerror or exc}")
            return
        self.stopped = self.isInterruptionRequested()
        if last is not None:
            self.finishedScan.emit(last)


class IniReadWorker(QThread):
    """Reads one op_cache.ini (app.opcache.ini.read_op_cache_ini) off the GUI thread: a file on a
    slow or hung mount, or anything else that makes the read wait, never holds the window.

    `read` carries the path, the OpCacheIni (None: no file there) and, when the file cannot be
    used, the one-line reason naming it (unreadable, a FIFO, too big, ...)."""

    read = Signal(object, object, str)  # Path, OpCacheIni | None, reason ("" when usable or absent)

    def __init__(self, path: Path, parent: QObject | None = None):
        super().__init__(parent)
        self.setObjectName("iniReadWorker")
        self.path = path

    def run(self) -> None:
        from cann_config.app.errors import InputError
        from cann_config.app.io.inputfiles import input_exists
        from cann_config.app.opcache.ini import read_op_cache_ini

        try:
            # Unreadable (EACCES, ENAMETOOLONG...) is said, never taken for "no file yet".
            ini = read_op_cache_ini(self.path) if input_exists(self.path) else None
        except InputError as exc:
            self.read.emit(self.path, None, " ".join(str(exc).split()))
            return
        except OSError as exc:
            self.read.emit(self.path, None, f"{self.path}: {exc.strerror or exc}")
            return
        self.read.emit(self.path, ini, "")


def stop_and_join(thread: QThread) -> None:
    """Ask a worker to stop and wait until it has (the core's own timeouts bound the wait)."""
    if thread.isRunning():
        thread.requestInterruption()
        thread.quit()
        thread.wait()


class _Stopped(Exception):
    """The window closed while a measurement read the cache: nothing partial is shown."""


class MeasureWorker(QThread):
    """The one measurement of a cache (app.opcache.measurement.measure_cache), off the GUI thread:
    what `scan --json` and `diagnose` print, for the limits `max_e`/`ratio_e`.

    `usage` is the walk a ScanWorker made (the gauge shows its progress batches while it walks):
    measure_cache takes it as its walk, and predicts CANN's next cleanup of each SoC dir from it
    (reading the kernel jsons); the same walk serves the user's choice of sizes too. A prediction
    cut by the window closing is never shown (nothing is emitted)."""

    measured = Signal(object, object, object)  # the CacheUsage, (max_mb, ratio), the CacheMeasurement
    failed = Signal(str)

    def __init__(self, usage: Any, max_e: Any, ratio_e: Any, now: float, *, dir_info: Any = None,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.setObjectName("measureWorker")
        self.usage, self.max_e, self.ratio_e, self.now = usage, max_e, ratio_e, now
        self.dir_info = dict(dir_info or {})

    def _predict(self, usage: Any, max_mb: int, ratio: int) -> dict[str, Any]:
        from cann_config.app.opcache.cleanup import predict_cleanup
        from cann_config.app.opcache.parallel import worker_count

        result = {}
        threads = worker_count()  # the C loops read a step's jsons in threads of their own
        for name, soc in usage.socs.items():
            # Asked between groups of jsons too: closing the window does not wait for the
            # seconds a big SoC dir's jsons take to read.
            prediction = predict_cleanup(soc, max_mb, ratio, self.now, should_stop=self.isInterruptionRequested,
                                         threads=threads)
            if self.isInterruptionRequested() or getattr(prediction, "stopped", False):
                raise _Stopped  # a partial prediction is never shown as CANN's
            result[name] = prediction
        return result

    def run(self) -> None:
        from cann_config.app.errors import InputError
        from cann_config.app.opcache.measurement import measure_cache

        try:
            with collector_paused(freeze=True):
                measured = measure_cache(self.usage.kernel_cache, self.dir_info, self.max_e, self.ratio_e,
                                         walk=lambda _path, _candidates: self.usage, predict=self._predict)
        except _Stopped:
            return
        except InputError as exc:
            self.failed.emit(str(exc))
            return
        self.measured.emit(self.usage, (int(self.max_e.value), int(self.ratio_e.value)), measured)


class BundleWorker(QThread):
    """Reads a support bundle with app.support.bundle.load_bundle (a file of up to 32 MiB, parsed and
    checked part by part), so a large or slow file never holds the window."""

    loaded = Signal(object)  # app.support.bundle.Bundle
    failed = Signal(str)  # one line naming the file

    def __init__(self, path: str, parent: QObject | None = None):
        super().__init__(parent)
        self.setObjectName("bundleWorker")
        self.path = path

    def run(self) -> None:
        from cann_config.app.errors import InputError
        from cann_config.app.support.bundle import load_bundle

        try:
            bundle = load_bundle(self.path)
            import cann_config.app.support.report  # noqa: F401 - what showing the bundle needs next, imported here
        except InputError as exc:
            self.failed.emit(" ".join(str(exc).split()))
            return
        except Exception as exc:  # noqa: BLE001 - whatever a hostile file provokes is a message
            self.failed.emit(" ".join(f"{self.path}: {str(exc) or type(exc).__name__}".split()))
            return
        self.loaded.emit(bundle)


class ModulePreloader(QThread):
    """Imports the modules the pages will need off the GUI thread after the first paint (the
    core's, pure Python, and widget modules that only define classes), and makes Python's view
    of Qt's `Qt` namespace (ui/qtprops.py).

    Importing app.opcache and app.io.exporters executes ~100 ms of module code (dataclasses,
    regular expressions), and the `Qt` namespace is ~100 Python enums made at once (15-35 ms, in
    one piece); on the GUI thread either stalled the window while the pages were built
    (tests/bench/bench_page_stalls.py). Here the interpreter switches threads every few ms
    (sys.getswitchinterval), so the GUI thread keeps answering; a page built afterwards finds the
    modules loaded, and one built meanwhile waits only for the module it needs (Python's import
    lock, which cannot deadlock: the project has no import cycle, tests/test_import_contracts.py;
    a Qt type or the namespace is made once, whichever thread asks first). No Qt object is
    made here: only the GUI thread makes widgets, palettes or text formats. A module that fails to
    import is left alone: the page's own import raises the error where it is used, as it would
    without this thread.
    """

    def __init__(self, names: tuple[str, ...] | list[str], *, qt_namespace: bool = False,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.setObjectName("modulePreloader")
        self.names = tuple(names)
        self.qt_namespace = qt_namespace

    def run(self) -> None:
        for name in self.names:
            if self.isInterruptionRequested():
                return
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - raised again by the page that imports it
                continue
        if self.qt_namespace and not self.isInterruptionRequested():
            from PySide6.QtCore import Qt  # noqa: F401 - importing the name is what makes the namespace
