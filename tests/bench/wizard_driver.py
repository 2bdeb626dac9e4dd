"""Run by the GUI benchmarks in a fresh process: `cann-config gui` as a user starts it (the CLI's
`main(["gui", ...])`, its own `app.exec()` loop), with a 5 ms QTimer on the GUI thread recording
the gaps between its ticks (a gap far above 5 ms is a stall the user feels) and, beside each gap,
the CPU time the GUI thread spent in it (`time.thread_time`: on a machine shared with other jobs
the wall-clock gaps grow with their load; the CPU time is the work the window itself did).

    python tests/bench/wizard_driver.py [--hurry] [--cache-base DIR]

Phases, each a span between two marks (a gap counts in the span it ends in):

  building  from the first paint (the paint pass over) until the wizard says every page is
            built (`after_pages_built`); nothing is clicked - what the window does while the
            user reads the first page;
  visiting  then Next on every page in turn, the next click 100 ms after the window has
            painted the page, until the last page has painted + 0.5 s. Each click's wait (the
            click until the window's paint of the new page is over) is recorded per page; on
            the export page that paint shows the preview's text.
  scan      (with --cache-base) back to the cache page, the cache dir set to DIR, the limit to
            1 MiB and Scan clicked (each its own event, 100 ms apart): from the click until the
            gauge has its final numbers and CANN's predicted cleanup (every kernel json read, in
            workers);
  idle      0.5 s of the idle loop, for reference.

--hurry: a user who does not wait for the pages to be built: Next is clicked 100 ms after the
first paint and then 100 ms after each page has painted, while the wizard is still building them
in the background, so a page not built yet is built when it is shown (the export page's first
export included); there is no `building` span and `visiting` starts at the first paint.

Prints one JSON line.
"""

from __future__ import annotations

import argparse
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
    """Every tick's wall and GUI-thread CPU time; marks name the spans measured."""

    def __init__(self) -> None:
        self.times: list[tuple[float, float]] = []
        self.marks: dict[str, tuple[float, float]] = {}
        self.pages: list[tuple[float, str]] = []  # (when, page shown from then on)
        self.timer = QTimer()
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(lambda: self.times.append((time.perf_counter(), time.thread_time())))

    def mark(self, name: str) -> None:
        self.marks[name] = (time.perf_counter(), time.thread_time())

    def page_at(self, when: float) -> str:
        shown = [name for at, name in self.pages if at <= when]
        return shown[-1] if shown else ""

    def worst(self, start: str, end: str) -> dict[str, float | str]:
        """The longest gap between two marks: its ms, the GUI thread's CPU ms in it, when it
        ended (s after `start`) and the page shown when it began."""
        t0, t1 = self.marks[start], self.marks[end]
        inside = [t0] + [t for t in self.times if t0[0] < t[0] <= t1[0]] + [t1]
        gaps = [((b[0] - a[0]) * 1000, (b[1] - a[1]) * 1000, b[0] - t0[0], self.page_at(a[0]))
                for a, b in zip(inside, inside[1:], strict=False)]
        gap, cpu, at, page = max(gaps)
        return {"ms": gap, "cpu_ms": cpu, "at": at, "page": page, "span_s": t1[0] - t0[0]}


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
    parser = argparse.ArgumentParser()
    parser.add_argument("--hurry", action="store_true")
    parser.add_argument("--cache-base")
    args = parser.parse_args()
    app = QApplication(sys.argv[:1])
    ticks = Ticks()
    result: dict[str, object] = {"visits": {}}
    keep: list[object] = []

    def find_wizard() -> QWizard | None:
        return next((w for w in app.topLevelWidgets() if isinstance(w, QWizard) and w.isVisible()), None)

    def finish() -> None:
        ticks.mark("end")
        if "built" in ticks.marks:
            result["building"] = ticks.worst("painted", "built")
        result["visiting"] = ticks.worst("built" if "built" in ticks.marks else "painted", "toured")
        if "scan_start" in ticks.marks:
            result["scan"] = ticks.worst("scan_start", "scan_end")
            result["scan_seconds"] = ticks.marks["scan_end"][0] - ticks.marks["scan_start"][0]
        result["idle"] = ticks.worst("idle_start", "end")
        wizard = find_wizard()
        if wizard is not None:
            wizard.shutdown()
        app.exit(0)

    def idle() -> None:
        ticks.mark("idle_start")
        QTimer.singleShot(TAIL_MS, finish)

    def scan(wizard: QWizard) -> None:
        from cann_config.ui.editors import OptionEditor

        panel = wizard.cache_page.usage_panel  # the gauge and the scan

        def done() -> bool:
            return panel.usage is not None and not panel.scanning() and panel.predictions() is not None

        def finished() -> None:
            ticks.mark("scan_end")
            result["gauge"] = [f"{r.soc} {r.percent:.0f} %" for r in panel.gauge.rows]
            QTimer.singleShot(0, idle)

        def check() -> None:
            # Each change of what the gauge shows goes through refresh(); the scan is over once
            # the gauge has its final rows (no polling loop of our own beside the app's).
            if panel.usage is not None and "scan_walked" not in result:
                result["scan_walked"] = time.perf_counter() - ticks.marks["scan_start"][0]  # totals known
            if done() and "scan_end" not in ticks.marks:
                finished()

        original = panel.refresh

        def refresh() -> None:
            original()
            check()

        panel.refresh = refresh

        def click() -> None:
            ticks.mark("scan_start")
            wizard.findChild(QPushButton, "scanButton").click()

        # As a user does it: the dir, then the limit, then Scan, each its own event.
        def set_limit() -> None:
            wizard.findChild(OptionEditor, "option_max_op_cache_size").setProperty("value", 1)
            QTimer.singleShot(STEP_DELAY_MS, click)

        wizard.findChild(OptionEditor, "option_op_compiler_cache_dir").setProperty("value", args.cache_base)
        QTimer.singleShot(STEP_DELAY_MS, set_limit)

    def click_next(wizard: QWizard, then) -> None:
        upcoming = wizard.page(wizard.currentId() + 1)
        built_before = bool(getattr(upcoming, "built", True))
        clicked = time.perf_counter()
        wizard.next()
        page = wizard.currentPage().objectName()
        ticks.pages.append((clicked, page))

        def painted() -> None:
            # The window's paint of the new page is over: the user sees it.
            visit = {"ms": (time.perf_counter() - clicked) * 1000, "built_before": built_before}
            if page == "exportPage":
                visit["preview_chars"] = len(wizard.export_page.preview.toPlainText())
            result["visits"][page] = visit
            then()

        keep.append(PaintWatch(wizard, painted))

    def tour(wizard: QWizard) -> None:
        if wizard.currentId() == wizard.pageIds()[-1]:
            def toured() -> None:
                ticks.mark("toured")
                if args.cache_base:
                    wizard.back()  # to the cache page
                    ticks.pages.append((time.perf_counter(), wizard.currentPage().objectName()))
                    keep.append(PaintWatch(wizard, lambda: scan(wizard)))
                else:
                    idle()

            QTimer.singleShot(TAIL_MS, toured)
            return
        click_next(wizard, lambda: QTimer.singleShot(STEP_DELAY_MS, lambda: tour(wizard)))

    class FirstPaint(QObject):
        """The wizard's first Paint event, seen by an application-wide filter (removed at once)."""

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
            if event.type() == QEvent.Type.Paint and isinstance(watched, QWizard):
                app.removeEventFilter(self)
                wizard = watched
                ticks.pages.append((time.perf_counter(), wizard.currentPage().objectName()))

                def painted() -> None:
                    # Queued before anything the wizard schedules after its own first paint (an
                    # application filter runs before the wizard's own).
                    ticks.mark("painted")
                    result["first_paint_s"] = time.perf_counter() - started
                    if args.hurry:
                        QTimer.singleShot(STEP_DELAY_MS, lambda: tour(wizard))
                    else:
                        def built() -> None:
                            ticks.mark("built")
                            result["built_s"] = ticks.marks["built"][0] - ticks.marks["painted"][0]
                            QTimer.singleShot(STEP_DELAY_MS, lambda: tour(wizard))

                        wizard.after_pages_built(built)

                QTimer.singleShot(0, painted)
            return False

    first_paint = FirstPaint()
    app.installEventFilter(first_paint)
    ticks.timer.start()
    started = time.perf_counter()
    from cann_config.app.cli import main as cli_main

    status = cli_main(["gui", "--device", "Ascend910B3", "--lang", "en"])
    result["ui"] = sys.modules["cann_config.ui"].__file__
    print(json.dumps(result), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
