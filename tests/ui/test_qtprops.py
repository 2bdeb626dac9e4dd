"""ui/qtprops.py: the integers the first page uses instead of Qt's enums are Qt's values, the
labels they set up behave as with the enums, and the window paints its first page without
Python's view of the `Qt` namespace (what makes it start sooner)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from cann_config.ui import qtprops
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

ROOT = Path(__file__).resolve().parents[2]


def test_the_values_are_qts():
    assert qtprops.RICH_TEXT == Qt.TextFormat.RichText.value
    assert qtprops.TEXT_SELECTABLE_BY_MOUSE == Qt.TextInteractionFlag.TextSelectableByMouse.value
    assert qtprops.USER_ROLE == Qt.ItemDataRole.UserRole.value


def test_a_rich_label_is_rich_text_and_selectable(qtbot):
    label = QLabel()
    qtbot.addWidget(label)
    qtprops.rich_text(label)
    assert label.textFormat() == Qt.TextFormat.RichText
    assert label.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
    plain = QLabel()
    qtbot.addWidget(plain)
    qtprops.rich_text(plain, selectable=False)
    assert plain.textFormat() == Qt.TextFormat.RichText
    assert not plain.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse


def test_the_device_page_labels(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    banner = wizard.findChild(QLabel, "deviceBanner")
    assert banner.textFormat() == Qt.TextFormat.RichText
    assert banner.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse
    combo = wizard.device_page.device_combo
    headers = [combo.itemData(i, qtprops.USER_ROLE + 1) for i in range(combo.count())]
    assert "atlas-a2" in headers


FIRST_PAINT = """
import sys
import PySide6.QtCore as QtCore
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
import cann_config.ui as ui
wizard = ui.create_wizard(device="Ascend910B3", deferred=True)
def painted():
    print("Qt" in QtCore.__dict__, flush=True)
    wizard.shutdown()
    app.exit(0)
wizard.after_first_paint(painted)
wizard.show()
sys.exit(app.exec())
"""


def test_the_first_page_paints_without_the_qt_namespace(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", FIRST_PAINT], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False", "the first page used PySide6.QtCore.Qt (see ui/qtprops.py)"
