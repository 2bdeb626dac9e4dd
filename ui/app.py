"""Running the wizard as an application: the QApplication, the language, the window, the loop.

A Qt fatal message while the application starts (an X display named in DISPLAY that does not
answer, a platform plugin that cannot load) would abort the process; the message handler turns
it into the same one-line message and exit status 2 as a missing display (app/cli/cmd_gui.py).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, QTimer, QtMsgType, qInstallMessageHandler
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from app.i18n import current_language, set_language
from app.resources import resource
from ui import settings
from ui.translation import install_translators


def _fatal_to_exit(mode: QtMsgType, context: Any, message: str) -> None:
    if mode == QtMsgType.QtFatalMsg:
        first = message.strip().splitlines()[0] if message.strip() else "Qt could not start"
        print(f"cann-config: cannot open a window ({first}); set QT_QPA_PLATFORM=offscreen to run without "
              "a screen, or use the command line (cann-config --help)", file=sys.stderr, flush=True)
        os._exit(2)
    if mode in (QtMsgType.QtCriticalMsg, QtMsgType.QtWarningMsg) and os.environ.get("CANN_CONFIG_QT_DEBUG"):
        print(f"qt: {message}", file=sys.stderr)


class _FirstPaint(QObject):
    """Calls `done` once the watched window has painted for the first time."""

    def __init__(self, done: Callable[[], None]):
        super().__init__()
        self._done = done
        self._seen = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Paint and not self._seen:
            self._seen = True
            # The children paint in the same pass: report after it has finished.
            QTimer.singleShot(0, self._done)
        return False


def run(args: Any, started: Callable[[], float] | None = None) -> int:
    qInstallMessageHandler(_fatal_to_exit)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    settings.configure_application(app)
    qInstallMessageHandler(None)
    icon = resource("icons", "cann-config.svg")
    if icon.is_file():
        app.setWindowIcon(QIcon(str(icon)))
    lang = getattr(args, "lang", None) or settings.read_str(settings.KEY_LANGUAGE) or current_language()
    set_language(lang)
    install_translators(current_language())

    from ui import create_wizard

    wizard = create_wizard(device=args.device, profile=args.profile, ini=args.ini, framework=args.framework)
    if args.smoke:
        wizard._detect_on_show = False  # a packaging check: show the window, nothing else

        def report() -> None:
            seconds = started() if started is not None else 0.0
            print(f"shown {seconds:.3f}", flush=True)
            wizard.shutdown()
            app.exit(0)

        watcher = _FirstPaint(report)
        wizard.installEventFilter(watcher)
    wizard.show()
    status = app.exec()
    wizard.shutdown()
    return int(status)
