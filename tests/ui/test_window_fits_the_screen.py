"""The window on real screen sizes and scale factors: 1366x768 and 1600x1000, at QT_SCALE_FACTOR
1 and 2. Each case runs in its own process: the offscreen platform takes its screen from a JSON
config (`-platform offscreen:configfile=...`) and the scale factor is read once at start-up."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PROBE = r"""
import json
from PySide6.QtWidgets import QApplication, QScrollArea, QWizard
from PySide6.QtCore import QByteArray
app = QApplication([])
import cann_config.ui as ui
from cann_config.ui import settings
settings.configure_application(app)

def visible_buttons(w):
    out = []
    for which in (QWizard.WizardButton.BackButton, QWizard.WizardButton.NextButton,
                  QWizard.WizardButton.FinishButton, QWizard.WizardButton.CancelButton):
        b = w.button(which)
        if b.isVisible():
            top_left, bottom_right = b.mapToGlobal(b.rect().topLeft()), b.mapToGlobal(b.rect().bottomRight())
            out.append([top_left.x(), top_left.y(), bottom_right.x(), bottom_right.y()])
    return out

def frame(w):
    f = w.frameGeometry()
    return [f.x(), f.y(), f.right(), f.bottom()]

w = ui.create_wizard(device="Ascend910B3")
w.show(); app.processEvents()
a = w.screen().availableGeometry()
out = {"available": [a.x(), a.y(), a.right(), a.bottom()], "frame": frame(w), "buttons": {}}
for pid in w.pageIds():
    w.setCurrentId(pid) if hasattr(w, "setCurrentId") else None
    app.processEvents()
    page = w.currentPage()
    out["buttons"][page.objectName()] = visible_buttons(w)
    if page.objectName() == "memoryPage":
        area = page.findChild(QScrollArea)
        out["memory_hscroll"] = area.horizontalScrollBar().maximum() > 0
    if page.objectName() == "exportPage":
        preview = page.findChild(QPlainTextEdit_type := __import__("PySide6.QtWidgets", fromlist=["x"]).QPlainTextEdit,
                                 "exportPreview")
        out["preview_lines"] = (preview.viewport().height() - 2 * preview.document().documentMargin()) \
            // preview.fontMetrics().lineSpacing()
    if pid != w.pageIds()[-1]:
        w.next()
w.close()
# A geometry saved at another scale factor, or larger than this screen, is not restored.
again = ui.create_wizard(device="Ascend910B3")
again.show(); app.processEvents()
out["reopened"] = frame(again)
again.close()
print(json.dumps(out))
"""

SCREENS = {"1366x768": (1366, 768), "1600x1000": (1600, 1000)}


def run_probe(tmp_path, screen: str, scale: int, settings_from: str | None = None) -> subprocess.Popen:
    width, height = SCREENS[screen]
    config = tmp_path / f"{screen}.json"
    config.write_text(json.dumps({"screens": [{"name": screen, "x": 0, "y": 0, "width": width, "height": height,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    home = tmp_path / f"home-{screen}-{scale}"
    home.mkdir(exist_ok=True)
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), QT_SCALE_FACTOR=str(scale),
               QT_QPA_PLATFORM=f"offscreen:configfile={config}")
    return subprocess.Popen([sys.executable, "-c", PROBE], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


@pytest.fixture(scope="module")
def probes(tmp_path_factory):
    """The four cases, run side by side."""
    tmp_path = tmp_path_factory.mktemp("screens")
    running = {(screen, scale): run_probe(tmp_path, screen, scale) for screen in SCREENS for scale in (1, 2)}
    results = {}
    for key, proc in running.items():
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        results[key] = json.loads(out.strip().splitlines()[-1])
    return results


def inside(rect, area) -> bool:
    return area[0] <= rect[0] and area[1] <= rect[1] and rect[2] <= area[2] and rect[3] <= area[3]


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("scale", [1, 2])
def test_the_window_and_its_bottom_row_are_on_the_screen(probes, screen, scale):
    result = probes[(screen, scale)]
    assert inside(result["frame"], result["available"]), result
    for page, buttons in result["buttons"].items():
        assert buttons, page
        for button in buttons:
            assert inside(button, result["available"]), (page, button, result["available"])
    # Reopened (the geometry saved by the first window): still inside the screen.
    assert inside(result["reopened"], result["available"]), result


@pytest.mark.parametrize(("screen", "scale"), [("1366x768", 1), ("1600x1000", 1), ("1600x1000", 2)])
def test_memory_page_without_sideways_scroll_and_a_twelve_line_preview(probes, screen, scale):
    # (QT_SCALE_FACTOR=2 on 1366x768 leaves a 683x384 screen: the window fits, the pages scroll.)
    result = probes[(screen, scale)]
    assert result["memory_hscroll"] is False
    assert result["preview_lines"] >= 12


def test_a_saved_geometry_is_restored_only_at_its_scale_inside_the_screen():
    from PySide6.QtCore import QRect

    from cann_config.ui.window_geometry import default_geometry, restorable

    laptop = QRect(0, 0, 1366, 768)
    placed = default_geometry(laptop)
    assert laptop.contains(placed.adjusted(-8, -32, 8, 8)) and placed.height() < 768 - 32
    assert abs(placed.center().x() - laptop.center().x()) <= 1
    assert restorable(QRect(100, 50, 1100, 650), laptop, 1.0, 1.0)
    # saved at QT_SCALE_FACTOR=2, shown at 1: the 765x381 window of the report is not kept
    assert not restorable(QRect(0, 24, 765, 381), laptop, 2.0, 1.0)
    assert not restorable(QRect(0, 24, 765, 381), QRect(0, 0, 1600, 1000), 1.0, 1.0)  # too small to use
    assert not restorable(QRect(91, 0, 1184, 784), laptop, 1.0, 1.0)  # taller than the screen
    assert not restorable(QRect(100, 50, 1100, 650), laptop, None, 1.0)  # saved before the scale was
