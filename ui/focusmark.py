"""A visible focus mark for the Tab stops that Fusion draws none for (tool buttons, check boxes,
combo boxes, a page's scroll area and the option titles, which are Tab stops too, show nothing
when they take the focus from the keyboard):
one QFocusFrame per page follows the focus over them, so a keyboard user always sees where it is.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import QCheckBox, QComboBox, QFocusFrame, QLabel, QScrollArea, QToolButton, QWidget

# The widgets that draw no focus mark of their own under the Fusion style (a label only ever
# takes the focus when it is a Tab stop: an option's title, ui/optionrow.py).
UNMARKED = (QToolButton, QCheckBox, QComboBox, QScrollArea, QLabel)


class FocusMark(QObject):
    """Draws a frame around whichever unmarked widget of `page` has the keyboard focus."""

    def __init__(self, page: QWidget):
        super().__init__(page)
        self.frame = QFocusFrame(page)
        self.frame.setObjectName("focusMark")
        self.frame.hide()
        for widget in page.findChildren(QWidget):
            # Every one (one that never takes the focus gets no FocusIn): asking each for its focus
            # policy would make Python's view of the `Qt` namespace while the page is built (ui/qtprops.py).
            if isinstance(widget, UNMARKED):
                widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if kind == QEvent.Type.FocusIn and isinstance(event, QFocusEvent) and isinstance(watched, QWidget):
            from PySide6.QtCore import Qt  # at a focus change, long after the page was built

            if event.reason() != Qt.FocusReason.MouseFocusReason:
                self.frame.setWidget(watched)
        elif kind == QEvent.Type.FocusOut:
            # QFocusFrame::setWidget takes nullptr (no widget marked); PySide6's stub lacks `| None`.
            self.frame.setWidget(None)  # type: ignore[arg-type]
        return False
