"""The cache page's Clean button runs `cann-config clean` as a child process (QProcess).

A child process, not a thread of the wizard and never a `fork` of it: CANN's delete lock is an
`fcntl` lock, which belongs to a process (a thread of the wizard would share the wizard's locks),
and forking a process that runs Qt's threads is unsafe. The child is the same program: the
interpreter with `-m cann_config.app`, or the frozen bundle's executable itself. It prints the
`clean --json` document (docs/architecture.md), which this object hands over parsed; every rule
of the clean lives in app/opcache/clean.py.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from PySide6.QtCore import QObject, QProcess, Signal

from cann_config.app.i18n import current_language


def clean_command(kernel_cache: str, yes: bool) -> tuple[str, list[str]]:
    """The program and arguments of `cann-config clean --json` for `kernel_cache`."""
    prefix = [] if getattr(sys, "frozen", False) else ["-m", "cann_config.app"]
    args = [*prefix, "--lang", current_language(), "clean", "--cache-dir", kernel_cache, "--json"]
    return sys.executable, [*args, "--yes"] if yes else args


class CacheCleaner(QObject):
    """One `cann-config clean` at a time: `done(document, exit status)` or `failed(reason)`."""

    done = Signal(object, int)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("cacheCleaner")
        self._process: QProcess | None = None

    def running(self) -> bool:
        return self._process is not None

    def start(self, kernel_cache: str, yes: bool) -> None:
        if self._process is not None:
            return
        process = QProcess(self)
        process.finished.connect(self._finished)
        process.errorOccurred.connect(self._error)
        self._process = process
        program, args = clean_command(kernel_cache, yes)
        process.start(program, args)

    def wait(self, msecs: int = 30_000) -> None:
        """Let a running clean finish (the window is closing: a clean is never killed half-way)."""
        if self._process is not None:
            self._process.waitForFinished(msecs)

    def _finished(self, code: int, _status: Any) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        out = bytes(process.readAllStandardOutput().data()).decode("utf-8", "replace")
        err = bytes(process.readAllStandardError().data()).decode("utf-8", "replace").strip()
        try:
            document = json.loads(out)
        except ValueError:
            self.failed.emit(err.splitlines()[-1] if err else f"exit {code}")
            return
        self.done.emit(document, code)

    def _error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart and self._process is not None:
            self._process = None
            self.failed.emit(str(error))
