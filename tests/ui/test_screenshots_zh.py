"""The Chinese window as a user sees it, with a real CJK font: no text cut off on any page, and
the screenshots of docs/screenshots/zh_CN/ made the way the README's are (Xvfb, the xcb
platform, docs/screenshots/take_screenshots.py --lang zh_CN).

Skipped where fonts-wqy-microhei is missing: without a CJK font every Chinese character is drawn
as a box and measured as one, so neither the layout nor the pictures would mean anything.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel, QWidget

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "screenshots" / "take_screenshots.py"
PAGES = ("device", "memory", "cache", "export")


def cjk_font() -> bool:
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return False
    listed = subprocess.run([fc_list, ":lang=zh"], capture_output=True, text=True, timeout=30).stdout
    return "WenQuanYi Micro Hei" in listed


pytestmark = [pytest.mark.screenshot,
              pytest.mark.skipif(not cjk_font(), reason="needs a CJK font (apt-get install fonts-wqy-microhei)")]


@pytest.fixture(autouse=True)
def _no_unsaved_question(monkeypatch):
    """Closing a shown wizard with choices made does not ask what to do with them."""
    from cann_config.ui import dialogs

    monkeypatch.setattr(dialogs, "ask_unsaved", lambda *args, **kwargs: "discard")


def clipped(root: QWidget) -> list[str]:
    """The visible texts under `root` that do not fit the space their widget was given."""
    found = []
    for widget in root.findChildren(QWidget):
        if not widget.isVisible() or widget.width() <= 0:
            continue
        if isinstance(widget, QLabel) and widget.text() and not widget.pixmap():
            if widget.wordWrap():
                needed = widget.heightForWidth(widget.width())
                if needed > widget.height() + 1:
                    found.append(f"{widget.objectName()}: {widget.text()!r} needs {needed} px high, has "
                                 f"{widget.height()}")
            elif widget.minimumSizeHint().width() > widget.width() + 1:
                found.append(f"{widget.objectName()}: {widget.text()!r} needs {widget.minimumSizeHint().width()} "
                             f"px wide, has {widget.width()}")
        elif isinstance(widget, QAbstractButton) and widget.text():
            if widget.sizeHint().width() > widget.width() + 1:
                found.append(f"{widget.objectName()}: {widget.text()!r} needs {widget.sizeHint().width()} px, "
                             f"has {widget.width()}")
        elif isinstance(widget, QGroupBox) and widget.title():
            needed = widget.fontMetrics().horizontalAdvance(widget.title()) + 16
            if needed > widget.width():
                found.append(f"{widget.objectName()}: {widget.title()!r} needs {needed} px, has {widget.width()}")
    return found


@pytest.mark.parametrize("width, height", [(1240, 800), (1000, 700)])
def test_no_chinese_text_is_cut_off(make_wizard, qtbot, tmp_path, width, height):
    """Every page in zh_CN at the screenshots' size and at a smaller window, after a scan."""
    from cann_config.ui.editors import OptionEditor
    from tests.ui.test_cache_page import make_cache_tree
    from tests.ui.test_translations import switch

    wizard = make_wizard(device="Ascend310P3", framework="tf1")
    switch(wizard, "zh_CN")
    wizard.resize(width, height)
    wizard.show()
    qtbot.waitExposed(wizard)
    make_cache_tree(tmp_path / "cache", groups=4)
    wizard.findChild(OptionEditor, "option_op_compiler_cache_dir").setProperty("value", str(tmp_path / "cache"))
    wizard.findChild(OptionEditor, "option_max_op_cache_size").setProperty("value", 2)
    wizard.findChild(OptionEditor, "option_static_memory_policy").setProperty("value", 2)
    problems = []
    for _ in wizard.pageIds():
        page = wizard.currentPage()
        if page is wizard.cache_page:
            panel = page.usage_panel
            panel.start_scan()
            qtbot.waitUntil(lambda p=panel: p.usage is not None and p.predictions() is not None, timeout=20000)
        # The layouts settle in the event loop, after what the page's workers found (the
        # op_cache.ini read, the scan) has shown its widgets: judged once they have, or after 2 s.
        found = clipped(wizard)
        for _settling in range(100):
            if not found:
                break
            qtbot.wait(20)
            found = clipped(wizard)
        problems += [f"{page.objectName()} {text}" for text in found]
        wizard.next()
    assert not problems, "\n".join(problems)


def xcb_problem(env: dict[str, str]) -> str | None:
    """Why Qt's xcb platform cannot start under Xvfb here (None when it can).

    Xvfb alone is not enough: Qt >= 6.5 also needs libxcb-cursor0, which a machine with Xvfb
    may lack; that is a missing tool, as Xvfb itself is, not a failure of the screenshots."""
    started = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 640x480x24", "env", "QT_QPA_PLATFORM=xcb",
                              sys.executable, "-c", "from PySide6.QtGui import QGuiApplication; QGuiApplication([])"],
                             capture_output=True, text=True, timeout=60, env=env)
    if started.returncode == 0:
        return None
    lines = [line for line in started.stderr.splitlines() if "xcb" in line] or started.stderr.splitlines()[-1:]
    return "Qt's xcb platform does not start under Xvfb: " + " ".join(lines)


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="needs Xvfb (apt-get install xvfb)")
def test_screenshots_of_each_page_in_zh_CN(tmp_path):
    """docs/screenshots/take_screenshots.py --lang zh_CN under Xvfb, as the README's are made."""
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    problem = xcb_problem(env)
    if problem is not None:
        pytest.skip(problem + " (install the libxcb libraries Qt names, e.g. libxcb-cursor0)")
    done = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1366x768x24", "env", "QT_QPA_PLATFORM=xcb",
                           sys.executable, str(SCRIPT), "--lang", "zh_CN", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    for name in PAGES:
        image = QImage(str(tmp_path / f"{name}.png"))
        # The window placed itself on the 1366x768 screen: it fits, at the size the pages are made for.
        assert 1000 <= image.width() <= 1366 and 600 <= image.height() <= 768, (name, image.size())
        # Drawn, not blank: many colours (text, the gauge, the highlighted preview).
        colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
        assert len(colours) > 20, name
    committed = ROOT / "docs" / "screenshots" / "zh_CN"
    assert sorted(p.name for p in committed.glob("*.png")) == sorted(f"{n}.png" for n in PAGES)
