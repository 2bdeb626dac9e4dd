"""Run by bench_responsiveness.py in a fresh process: `cann-config gui` as a user starts it, with a
5 ms QTimer on the GUI thread recording the gaps between its ticks (a gap far above 5 ms is a
stall the user feels), while the app's own event loop (`app.exec()` inside `cann_config.app.cli.main`)
runs the window.

    python tests/bench/wizard_driver.py [CACHE_BASE]

1. Page tour: from the first paint, click Next on every page as a user would (the next click
   100 ms after the page has painted) until the last page has painted, then 0.5 s more. The
   longest gap in that window is the stall "from first paint until every page is usable".
2. With CACHE_BASE: back to the cache page, point the cache dir at CACHE_BASE, set the limit to
   1 MiB and click Scan; measured until the gauge has its final numbers and CANN's predicted
   cleanup (every kernel json read in a worker).
3. 0.5 s of idle loop, for reference.

Prints one JSON line.
"""

from __future__ import annotations

import json
import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEvent, QObject, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QPushButton, QWizard  # noqa: E402

TICK_MS = 5
STEP_DELAY_MS = 100
TAIL_MS = 500


class Ticks:
    """Every tick's time; phases mark where each measure starts and ends."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.marks: dict[str, float] = {}
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(lambda: self.times.append(time.perf_counter()))

    def mark(self, name: str) -> None:
        self.marks[name] = time.perf_counter()

    def worst(self, start: str, end: str) -> tuple[float, float]:
        """(longest gap in ms, when it ended in s after `start`) between two marks."""
        t0, t1 = self.marks[start], self.marks[end]
        inside = [t0] + [t for t in self.times if t0 < t <= t1] + [t1]
        gaps = [(b - a, b) for a, b in zip(inside, inside[1:], strict=False)]
        gap, at = max(gaps)
        return gap * 1000, at - t0


class PaintWatch(QObject):
    """Calls `callback` once, after the watched widget's next Paint event has been handled.

    Watch the wizard itself: on the offscreen platform a page's own Paint is not always
    delivered when the page changes, the window's is.
    """

    def __init__(self, widget: QObject, callback) -> None:
        super().__init__()
        self.callback = callback
        self.fired = False
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if not self.fired and event.type() == QEvent.Type.Paint:
            self.fired = True
            QTimer.singleShot(0, self.callback)
        return False


def main() -> int:
    cache_base = sys.argv[1] if len(sys.argv) > 1 else None
    app = QApplication(sys.argv[:1])
    ticks = Ticks()
    result: dict[str, object] = {}
    keep: list[object] = []

    def find_wizard() -> QWizard | None:
        return next((w for w in app.topLevelWidgets() if isinstance(w, QWizard) and w.isVisible()), None)

    def finish() -> None:
        ticks.mark("end")
        result["tour_ms"], result["tour_at"] = ticks.worst("painted", "toured")
        if "scan_start" in ticks.marks:
            result["scan_ms"], result["scan_at"] = ticks.worst("scan_start", "scan_end")
            result["scan_seconds"] = ticks.marks["scan_end"] - ticks.marks["scan_start"]
        result["idle_ms"], _ = ticks.worst("idle_start", "end")
        wizard = find_wizard()
        if wizard is not None:
            wizard.shutdown()
        app.exit(0)

    def idle() -> None:
        ticks.mark("idle_start")
        QTimer.singleShot(TAIL_MS, finish)

    def scan(wizard: QWizard) -> None:
        from cann_config.ui.editors import OptionEditor

        page = wizard.cache_page.usage_panel  # the gauge and the scan
        wizard.findChild(OptionEditor, "option_op_compiler_cache_dir").setProperty("value", cache_base)
        wizard.findChild(OptionEditor, "option_max_op_cache_size").setProperty("value", 1)

        def done() -> bool:
            return page.usage is not None and not page.scanning() and page.predictions() is not None

        def poll() -> None:
            if done():
                ticks.mark("scan_end")
                result["gauge"] = [f"{r.soc} {r.percent:.0f} %" for r in page.gauge.rows]
                QTimer.singleShot(0, idle)
            else:
                QTimer.singleShot(1, poll)

        ticks.mark("scan_start")
        wizard.findChild(QPushButton, "scanButton").click()
        QTimer.singleShot(1, poll)

    def tour(wizard, step: int) -> None:
        ids = wizard.pageIds()
        if wizard.currentId() == ids[-1]:
            def toured() -> None:
                ticks.mark("toured")
                if cache_base:
                    wizard.back()  # to the cache page
                    keep.append(PaintWatch(wizard, lambda: scan(wizard)))
                else:
                    idle()

            QTimer.singleShot(TAIL_MS, toured)
            return
        wizard.next()
        keep.append(PaintWatch(wizard,
                               lambda: QTimer.singleShot(STEP_DELAY_MS, lambda: tour(wizard, step + 1))))

    class FirstPaint(QObject):
        """The wizard's first Paint event, seen by an application-wide filter (removed at once)."""

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
            if event.type() == QEvent.Type.Paint and isinstance(watched, QWizard):
                # Marked once the paint pass is over (the window is on screen), before anything
                # the wizard itself schedules after its first paint (an application filter runs
                # before the wizard's own, so this timer is queued first).
                QTimer.singleShot(0, lambda: ticks.mark("painted"))
                app.removeEventFilter(self)
                wizard = watched
                QTimer.singleShot(STEP_DELAY_MS, lambda: tour(wizard, 1))
            return False

    first_paint = FirstPaint()
    app.installEventFilter(first_paint)
    ticks.timer.start()
    from cann_config.app.cli import main as cli_main

    status = cli_main(["gui", "--device", "Ascend910B3", "--lang", "en"])
    print(json.dumps(result), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
