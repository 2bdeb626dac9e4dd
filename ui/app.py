"""Running the wizard as an application: the QApplication, the language, the window, the loop.

A Qt fatal message while the application starts (an X display named in DISPLAY that does not
answer, a platform plugin that cannot load) would abort the process; the message handler turns
it into the same one-line message and exit status 2 as a missing display (ui/gui_command.py).

Nothing the first page does not need is done before the window has painted (issue 16,
docs/architecture.md#pages-paid-for-when-shown): the window icon (an SVG: Qt loads its SVG
plugin and library to read it) is set just after the first paint, and Python's cyclic garbage
collector, which ui/gui_command.py pauses while the application starts, runs again from then on.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QtMsgType, qInstallMessageHandler
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from cann_config.app.i18n import current_language, normalize_language
from cann_config.app.resources import resource
from cann_config.ui import create_wizard, settings
from cann_config.ui.translation import apply_language

# The packaging id (packaging/io.github.cann_config_assistant.CannConfig.desktop): on Wayland the
# compositor matches the window to its menu entry and icon by it.
DESKTOP_FILE_NAME = "io.github.cann_config_assistant.CannConfig"


def _fatal_to_exit(mode: QtMsgType, context: Any, message: str) -> None:
    if mode == QtMsgType.QtFatalMsg:
        first = message.strip().splitlines()[0] if message.strip() else "Qt could not start"
        print(f"cann-config: cannot open a window ({first}); set QT_QPA_PLATFORM=offscreen to run without "
              "a screen, or use the command line (cann-config --help)", file=sys.stderr, flush=True)
        os._exit(2)
    if mode in (QtMsgType.QtCriticalMsg, QtMsgType.QtWarningMsg) and os.environ.get("CANN_CONFIG_QT_DEBUG"):
        print(f"qt: {message}", file=sys.stderr)


def remembered_language() -> str | None:
    """The language chosen in the window's language switch last time, if it is one we know."""
    stored = settings.read_str(settings.KEY_LANGUAGE)
    try:
        return normalize_language(stored) if stored else None
    except ValueError:
        return None


def _set_window_icon(app: QApplication) -> None:
    from PySide6.QtGui import QIcon

    icon = resource("icons", "cann-config.svg")
    if icon.is_file():
        app.setWindowIcon(QIcon(str(icon)))


def _after_first_paint(app: QApplication) -> None:
    """What waited for the first paint: the window icon, and the garbage collector. What was made
    until now lives as long as the window, so it is frozen (gc.freeze): the collector never walks
    it again, and later collections stay short while the other pages are built."""
    _set_window_icon(app)
    gc.freeze()
    gc.enable()


def run(args: Any, started: Callable[[], float] | None = None) -> int:
    qInstallMessageHandler(_fatal_to_exit)
    existing = QApplication.instance()  # a test's, or gui_command's first one
    app = existing if isinstance(existing, QApplication) else QApplication(sys.argv[:1])
    settings.configure_application(app)
    QGuiApplication.setDesktopFileName(DESKTOP_FILE_NAME)
    qInstallMessageHandler(None)
    # --lang, else the language last chosen in the window, else the locale's (app.cli set it).
    apply_language(getattr(args, "lang", None) or remembered_language() or current_language())

    wizard = create_wizard(device=args.device, profile=args.profile, ini=args.ini, framework=args.framework,
                           deferred=True, bundle=getattr(args, "bundle", None))
    def seconds() -> float:
        return started() if started is not None else 0.0

    if args.smoke:
        # A packaging check: report the first paint, let the other pages be built, then exit
        # (no detection). CANN_CONFIG_SMOKE_READY=1 also reports when the pages are built.
        wizard.set_detection_on_show(False)
        wizard.after_first_paint(lambda: print(f"shown {seconds():.3f}", flush=True))
    wizard.after_first_paint(lambda: _after_first_paint(app))
    wizard.show()
    if args.smoke:
        def finish() -> None:
            if os.environ.get("CANN_CONFIG_SMOKE_READY"):
                print(f"ready {seconds():.3f}", flush=True)
            wizard.shutdown()
            app.exit(0)

        wizard.after_pages_built(finish)
    try:
        status = app.exec()
    finally:
        gc.enable()  # the window may close before it has painted
    wizard.shutdown()
    return int(status)
