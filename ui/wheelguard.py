"""The mouse wheel changes a value only in the editor that has the keyboard focus.

Why: at scale 2 every page scrolls, so the pointer often rests on an editor while the user turns
the wheel to scroll the page; Qt's combo and spin boxes take the wheel (and the focus) wherever
the pointer is, so one notch changed a value behind the user's back (issue 27). As GNOME's and
dconf-editor's controls do, a guarded widget takes the keyboard focus by Tab or a click only
(Qt's StrongFocus, not WheelFocus), and a wheel turned over it while it does not have the focus
scrolls the page instead: the event goes to the nearest scroll area's viewport. The focus policy
is set through the property system (ui/qtprops.py), so guarding a page while it is built makes
no `Qt` namespace.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox, QWidget

from cann_config.ui.qtprops import strong_focus

# The widgets whose value the wheel changes.
WHEELED = (QComboBox, QAbstractSpinBox, QAbstractSlider)


def _scroll_area_of(widget: QWidget) -> QAbstractScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QAbstractScrollArea):
        parent = parent.parentWidget()
    return parent


class WheelGuard(QObject):
    """Turns a wheel event over an unfocused guarded widget into one for the page's scroll area."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() != QEvent.Type.Wheel or not isinstance(watched, QWidget):
            return False
        focus = QApplication.focusWidget()
        if focus is not None and (focus is watched or watched.isAncestorOf(focus)):
            return False  # the user is editing this value: the wheel is theirs
        assert isinstance(event, QWheelEvent)
        area = _scroll_area_of(watched)
        if area is not None:
            viewport = area.viewport()
            forwarded = QWheelEvent(viewport.mapFromGlobal(event.globalPosition()), event.globalPosition(),
                                    event.pixelDelta(), event.angleDelta(), event.buttons(), event.modifiers(),
                                    event.phase(), event.inverted(), event.source())
            QCoreApplication.sendEvent(viewport, forwarded)
        event.accept()
        return True


_GUARD: list[WheelGuard] = []


def guard_wheel(*roots: QWidget) -> None:
    """Guard `roots` and every widget in them whose value the wheel changes."""
    if not _GUARD or not shiboken6.isValid(_GUARD[0]):
        _GUARD[:] = [WheelGuard(QCoreApplication.instance())]
    guard = _GUARD[0]
    for root in roots:
        root.installEventFilter(guard)
        for widget in root.findChildren(QWidget):
            if isinstance(widget, WHEELED):
                strong_focus(widget)
                widget.installEventFilter(guard)
        if isinstance(root, WHEELED):
            strong_focus(root)
