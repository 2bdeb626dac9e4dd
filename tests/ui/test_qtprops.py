"""ui/qtprops.py: the integers the pages use instead of Qt's enums are Qt's values, the widgets
they set up behave as with the enums, and the window paints its first page, and builds the
others after it, without Python's view of the `Qt` namespace (what makes it start sooner and
keeps each slice of the later pages short)."""

from __future__ import annotations

import html
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel

from cann_config.ui import qtprops

ROOT = Path(__file__).resolve().parents[2]


def test_the_values_are_qts():
    assert qtprops.PLAIN_TEXT == Qt.TextFormat.PlainText.value
    assert qtprops.RICH_TEXT == Qt.TextFormat.RichText.value
    assert qtprops.TEXT_SELECTABLE_BY_MOUSE == Qt.TextInteractionFlag.TextSelectableByMouse.value
    assert qtprops.TOOLTIP_ROLE == Qt.ItemDataRole.ToolTipRole.value
    assert qtprops.FOREGROUND_ROLE == Qt.ItemDataRole.ForegroundRole.value
    assert qtprops.USER_ROLE == Qt.ItemDataRole.UserRole.value
    assert qtprops.VERTICAL == Qt.Orientation.Vertical.value
    assert qtprops.NO_FOCUS == Qt.FocusPolicy.NoFocus.value
    assert qtprops.STRONG_FOCUS == Qt.FocusPolicy.StrongFocus.value
    assert qtprops.TEXT_WORD_WRAP == Qt.TextFlag.TextWordWrap.value


@given(st.text())
def test_escape_is_html_escape(text):
    assert qtprops.escape(text) == html.escape(text)


def test_escape_shows_markup_literally(qtbot):
    label = qtprops.rich_text(QLabel())
    qtbot.addWidget(label)
    label.setText(qtprops.escape("<b>a & 'b'</b> \"c\""))
    document = QTextDocument()
    document.setHtml(label.text())
    assert document.toPlainText() == "<b>a & 'b'</b> \"c\""


def test_the_helpers_set_what_the_enums_would(qtbot):
    from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget

    parent = QWidget()
    qtbot.addWidget(parent)
    splitter = qtprops.vertical_splitter(parent)
    assert splitter.orientation() == Qt.Orientation.Vertical and splitter.parent() is parent
    brush = qtprops.solid_brush("#123456")
    assert brush.style() == Qt.BrushStyle.SolidPattern and brush.color().name() == "#123456"
    items = QListWidget(parent)
    item = QListWidgetItem("x", items)
    qtprops.set_foreground(item, "#b3261e")
    assert item.foreground().color().name() == "#b3261e"
    label = qtprops.plain_text(QLabel("<b>x</b>", parent))
    assert label.textFormat() == Qt.TextFormat.PlainText
    assert qtprops.no_focus(label).focusPolicy() == Qt.FocusPolicy.NoFocus
    assert qtprops.strong_focus(label).focusPolicy() == Qt.FocusPolicy.StrongFocus


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


EVERY_PAGE = """
import sys
import PySide6.QtCore as QtCore
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
import cann_config.ui as ui
wizard = ui.create_wizard(device="Ascend910B3", deferred=True)
while not all(page.built for page in wizard.pages):
    wizard._build_slice()  # the slices the application runs after the first paint
print("Qt" in QtCore.__dict__, flush=True)
while not wizard._build_slice():
    pass
print("Qt" in QtCore.__dict__, flush=True)
wizard.shutdown()
"""


def test_the_other_pages_are_built_without_the_qt_namespace(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", EVERY_PAGE], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    built, after = done.stdout.split()
    assert built == "False", "a page's build used PySide6.QtCore.Qt (see ui/qtprops.py)"
    assert after == "True", "the namespace the gauge paints with is made in a slice of its own, after the pages"


def test_the_first_page_paints_without_the_qt_namespace(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", FIRST_PAINT], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False", "the first page used PySide6.QtCore.Qt (see ui/qtprops.py)"
