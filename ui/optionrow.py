"""One option on a page: its title, editor, the meaning of the chosen value, the visible reason
when it is disabled (`reason_<id>`: a label, not a tooltip, since disabled widgets get hover
poorly) and the catalog's rules that apply to the chosen value.

The title and the small "?" button stay enabled when the editor is not, so the documentation of
a disabled option can still be opened with the mouse or the keyboard.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtGui import QEnterEvent, QFocusEvent, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QToolButton, QWidget

from cann_config.app.catalog import Note, Option, Value
from cann_config.app.i18n import pick
from cann_config.ui.docpane import SEVERITY_COLOURS, severity_prefix
from cann_config.ui.editors import OptionEditor, make_editor
from cann_config.ui.qtprops import escape, plain_text, rich_text, strong_focus
from cann_config.ui.wheelguard import guard_wheel

translate = QCoreApplication.translate


class ClickableLabel(QLabel):
    """A label that says when it is clicked (to show an option's docs, even when disabled), and a
    Tab stop that says so on Space or Enter: a keyboard user reads the titles in order too."""

    clicked = Signal()

    def enterEvent(self, event: QEnterEvent) -> None:  # noqa: N802 - Qt override
        # The "what's this" cursor is set when the mouse first comes, not when the row is built:
        # naming the cursor shape builds Python's view of the Qt namespace (ui/qtprops.py).
        # (testAttribute takes only the enum: a plain int raised TypeError here, and PySide6 6.11
        # crashed the whole window reporting an error raised in an event handler.)
        from PySide6.QtCore import Qt

        if not self.testAttribute(Qt.WidgetAttribute.WA_SetCursor):
            self.setCursor(Qt.CursorShape.WhatsThisCursor)
        super().enterEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        self.clicked.emit()
        super().mousePressEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        if event.text() in (" ", "\r", "\n"):
            self.clicked.emit()
            return
        super().keyPressEvent(event)

    def focusInEvent(self, event: QFocusEvent) -> None:  # noqa: N802 - Qt override
        # Reaching a title by Tab shows its documentation, as reaching its editor does.
        super().focusInEvent(event)
        self.clicked.emit()


class OptionRow(QWidget):
    """The widgets of one option, laid out in a small grid."""

    docRequested = Signal(str)
    resetRequested = Signal(str)  # the option's chosen value, which the device cannot take, is to go

    def __init__(self, option: Option, parent: QWidget | None = None):
        super().__init__(parent)
        self.option = option
        self.setObjectName(f"row_{option.id}")
        grid = self.grid = QGridLayout(self)  # pages add a line under the row (ui/pages/cache_panels/limits.py)
        grid.setContentsMargins(0, 4, 0, 4)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(2)
        self.title = ClickableLabel(self)
        self.title.setObjectName(f"title_{option.id}")
        strong_focus(self.title)
        self.info = QToolButton(self)
        self.info.setObjectName(f"info_{option.id}")
        self.info.setText("?")
        self.info.setAutoRaise(True)
        self.editor: OptionEditor = make_editor(option, self)
        self.title.setBuddy(self.editor)
        guard_wheel(self.editor)
        # Whether the value differs from where it started (the page decides: ui/pages/options.py),
        # and the way back to it; hidden while it does not.
        self.modified = QLabel(self)
        self.modified.setObjectName(f"modified_{option.id}")
        # Its colour and weight in its rich text, not a style sheet: a style sheet per row was
        # ~0.3 ms of each row's slice while the page is built.
        rich_text(self.modified, selectable=False)
        self.modified.hide()
        self.reset = QToolButton(self)
        self.reset.setObjectName(f"reset_{option.id}")
        self.reset.setEnabled(False)
        self.reset.hide()
        head = QHBoxLayout()
        head.setSpacing(4)
        head.addWidget(self.title)
        head.addWidget(self.info)
        head.addStretch(1)
        # On the title's line, not beside the editor: the editor's line is the widest of the row.
        head.addWidget(self.modified)
        head.addWidget(self.reset)
        self.extra = QHBoxLayout()  # pages add their own widgets beside the editor here
        self.meaning = QLabel(self)
        self.meaning.setObjectName(f"meaning_{option.id}")
        self.meaning.setWordWrap(True)
        self.reason = QLabel(self)
        self.reason.setObjectName(f"reason_{option.id}")
        self.reason.setWordWrap(True)
        plain_text(self.reason)
        self.reason.setStyleSheet(f"color: {SEVERITY_COLOURS['error']}; background: #fdecea; padding: 3px; border-radius: 3px;")
        self.reason.hide()
        # A greyed-out option whose value the device cannot take must not be stuck: its own Reset
        # (the export leaves such a value out and says so; docs/cann/memory.md#huge-pages).
        self.reset_unavailable = QToolButton(self)
        self.reset_unavailable.setObjectName(f"resetUnavailable_{option.id}")
        self.reset_unavailable.clicked.connect(lambda: self.resetRequested.emit(option.id))
        self.reset_unavailable.hide()
        self.notes = QLabel(self)
        self.notes.setObjectName(f"notes_{option.id}")
        self.notes.setWordWrap(True)
        rich_text(self.notes, selectable=False)
        self.notes.hide()
        editor_line = QHBoxLayout()
        editor_line.addWidget(self.editor, 1)
        editor_line.addLayout(self.extra)
        grid.addLayout(head, 0, 0)
        grid.addLayout(editor_line, 1, 0)
        grid.addWidget(self.meaning, 2, 0)
        reason_line = QHBoxLayout()
        reason_line.addWidget(self.reason, 1)
        reason_line.addWidget(self.reset_unavailable)
        grid.addLayout(reason_line, 3, 0)
        grid.addWidget(self.notes, 4, 0)
        self.title.clicked.connect(lambda: self.docRequested.emit(option.id))
        self.info.clicked.connect(lambda: self.docRequested.emit(option.id))
        self.editor.focused.connect(self.docRequested)
        self.retranslate()

    def retranslate(self) -> None:
        title = pick(self.option.title)
        if not self.option.documented and translate("OptionRow", "undocumented") not in title.lower():
            title += " " + translate("OptionRow", "(undocumented)")
        self.title.setText(f"<b>{title}</b>")
        self.info.setToolTip(translate("OptionRow", "Show the documentation of this option"))
        self.info.setAccessibleName(translate("OptionRow", "Documentation: %1").replace("%1", pick(self.option.title)))
        self.editor.setAccessibleName(pick(self.option.title))
        self.editor.retranslate()
        self.modified.setText(self._modified_text() if not self.modified.isHidden() else "")
        self.reset.setText(translate("OptionRow", "Reset"))
        self.reset.setToolTip(translate("OptionRow", "Go back to the value this option started with"))
        self.reset.setAccessibleName(translate("OptionRow", "Reset %1").replace("%1", pick(self.option.title)))
        self.reset_unavailable.setText(translate("OptionRow", "Reset to the default"))
        self.reset_unavailable.setToolTip(translate("OptionRow", "This device cannot take the value: go back to "
                                                                 "the default, which the export can carry"))

    @staticmethod
    def _modified_text() -> str:
        text = translate("OptionRow", "modified")
        return f"<b style='color: #8a5a00'>{escape(text)}</b>"

    def show_modified(self, modified: bool, tooltip: str = "") -> None:
        """Mark the value as changed from where it started (`modified_<id>`) and offer the way
        back (`reset_<id>`), or neither."""
        self.modified.setText(self._modified_text() if modified else "")
        self.modified.setVisible(modified)
        self.reset.setEnabled(modified)
        self.reset.setVisible(modified)
        if tooltip:
            self.reset.setToolTip(tooltip)

    def show_state(self, value: Value, availability: Any, notes: list[tuple[Note, str]],
                   default: Value | None = None) -> None:
        """Show the chosen value, whether the option can be used, and the rules that apply.

        `notes` pairs each rule with the severity to show it with (a page may lower one that
        depends on a question the user answered, e.g. concurrent graphs).
        """
        self.editor.set_value(value)
        doc = self.option.value_doc(value)
        self.meaning.setText(pick(doc.text) if doc else "")
        self.meaning.setVisible(bool(doc))
        enabled = availability is None or availability.enabled
        self.editor.setEnabled(enabled)
        if enabled:
            self.reason.hide()
            self.reason.clear()
        else:
            text = pick(availability.reason) if availability.reason else translate("OptionRow", "Not available here.")
            self.reason.setText(translate("OptionRow", "Not available: %1").replace("%1", text))
            self.reason.show()
        self.reset_unavailable.setVisible(not enabled and value != (self.option.default if default is None else default))
        if notes:
            lines = [f"<span style='color:{SEVERITY_COLOURS.get(sev, '#000')}'><b>{escape(severity_prefix(sev))}</b></span> "
                     f"{escape(pick(note.text))}" for note, sev in notes]
            self.notes.setText("<br>".join(lines))
            self.notes.show()
        else:
            self.notes.clear()
            self.notes.hide()
