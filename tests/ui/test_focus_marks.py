"""Every Tab stop of the memory and cache pages shows where the keyboard focus is: the pixels
around a widget change when it takes the focus by Tab (its own mark, or ui/focusmark.py's frame)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QWidget, QWizard


def test_every_tab_stop_of_the_memory_and_cache_pages_shows_the_focus(make_wizard, qtbot):
    wizard = make_wizard(device="Ascend910B3")
    wizard.show()
    qtbot.waitExposed(wizard)
    wizard.activateWindow()
    qtbot.waitUntil(wizard.isActiveWindow)
    wizard.next()
    wizard.findChild(QCheckBox, "advancedToggle").setChecked(True)
    unmarked, seen = [], 0
    for _ in range(2):
        page = wizard.currentPage()
        back = wizard.button(QWizard.WizardButton.BackButton)
        # (an option's editor hands its focus to its proxy, which is a stop of its own)
        stops = [w for w in page.findChildren(QWidget) if w.isVisible() and w.isEnabled()
                 and w.focusPolicy() & Qt.FocusPolicy.TabFocus == Qt.FocusPolicy.TabFocus and w.focusProxy() is None]
        for widget in stops:
            around = widget.geometry().adjusted(-4, -4, 4, 4)
            back.setFocus(Qt.FocusReason.TabFocusReason)
            before = widget.parentWidget().grab(around).toImage()
            widget.setFocus(Qt.FocusReason.TabFocusReason)
            assert widget.hasFocus()
            if widget.parentWidget().grab(around).toImage() == before:
                unmarked.append(f"{page.objectName()}: {type(widget).__name__} {widget.objectName()}")
            seen += 1
        wizard.next()
    assert seen > 20 and not unmarked, unmarked
