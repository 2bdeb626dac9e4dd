"""Every control a user reads is reachable by Tab, in reading order, option titles included
(issue 27): top to bottom, left to right within a line, on each page."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication, QCheckBox, QWidget


def tab_walk(qtbot, wizard, page: QWidget) -> list[QWidget]:
    """The widgets of `page` that Tab reaches, in the order it reaches them."""
    first = None
    for widget in page.findChildren(QWidget):
        if widget.isVisible() and widget.isEnabled() and widget.focusPolicy() & Qt.FocusPolicy.TabFocus:
            first = widget
            break
    seen: list[QWidget] = []
    QApplication.focusWidget() and QApplication.focusWidget().clearFocus()
    wizard.button(wizard.WizardButton.CancelButton).setFocus(Qt.FocusReason.TabFocusReason)
    for _ in range(200):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        focus = QApplication.focusWidget()
        if focus is None:
            break
        if page.isAncestorOf(focus):
            if focus in seen:
                break
            seen.append(focus)
        elif seen:
            break
    assert first is not None and seen
    return seen


def rect_in(page: QWidget, widget: QWidget) -> QRect:
    return QRect(widget.mapTo(page, widget.rect().topLeft()), widget.size())


@pytest.mark.parametrize(("page_name", "framework"), [("memoryPage", "tf1"), ("memoryPage", "pytorch"),
                                                      ("cachePage", "tf1"), ("devicePage", "tf1")])
def test_tab_goes_through_each_page_in_reading_order_titles_included(make_wizard, qtbot, page_name, framework):
    wizard = make_wizard(device="Ascend910B3", framework=framework)
    wizard.resize(1300, 2000)  # tall enough that nothing scrolls: positions are reading positions
    wizard.show()
    qtbot.waitExposed(wizard)
    wizard.activateWindow()
    qtbot.waitUntil(wizard.isActiveWindow)
    while wizard.currentPage().objectName() != page_name:
        wizard.next()
    if page_name == "memoryPage":
        wizard.findChild(QCheckBox, "advancedToggle").setChecked(True)
    page = wizard.currentPage()
    QApplication.processEvents()
    stops = tab_walk(qtbot, wizard, page)
    names = [w.objectName() for w in stops]
    if page_name != "devicePage":
        for oid, row in page.rows.items():
            if row.isVisible():
                assert f"title_{oid}" in names, (oid, names)
                # the title before its "?" and its editor
                assert names.index(f"title_{oid}") < names.index(f"info_{oid}")
    # Reading order: each stop is below the one before, or on its line and to its right.
    for before, after in zip(stops, stops[1:], strict=False):
        a, b = rect_in(page, before), rect_in(page, after)
        same_line = b.top() < a.bottom() and a.top() < b.bottom()
        assert (same_line and b.left() >= a.left()) or b.top() >= a.center().y(), \
            (before.objectName(), a, after.objectName(), b)
    # Every enabled, shown Tab stop of the page is reached.
    reachable = [w for w in page.findChildren(QWidget) if w.isVisible() and w.isEnabled()
                 and w.focusPolicy() & Qt.FocusPolicy.TabFocus == Qt.FocusPolicy.TabFocus and w.focusProxy() is None]
    missed = [w.objectName() or type(w).__name__ for w in reachable if w not in stops]
    assert not missed, missed
