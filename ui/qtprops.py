"""Settings of the widgets the wizard builds, without Python's view of Qt's `Qt` namespace.

The first use of `PySide6.QtCore.Qt` from Python (an attribute, an import of the name, or a call
whose overloads take one of its enums: `QBrush(QColor)`, `QSplitter(parent)`,
`QTextCharFormat.setForeground(QColor)`) makes a Python enum of every enum in the namespace:
about a hundred, ~15 ms with Python 3.11, as long as the rest of the device page together
(tests/bench/bench_startup.py). The pages are built in slices after the first paint, each of
which should stay short (docs/architecture.md#pages-paid-for-when-shown), so the widgets set these few values
through Qt's property system and item-data API, which take the integers. Painting (the cache
gauge's hatched bars and dashed lines) still uses `Qt`: it pays for the namespace when the
gauge is first drawn, not while a page is built. tests/ui/test_qtprops.py checks every value here
against Qt's own enum and that the pages are built without the namespace.

The first page imports this module, so the classes only some helpers need are imported by them:
importing a Qt class makes Python enums of all its enums, which the first paint need not pay for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - typing only
    from PySide6.QtGui import QBrush
    from PySide6.QtWidgets import QLabel, QListWidgetItem, QSplitter, QWidget

PLAIN_TEXT = 0  # Qt.TextFormat.PlainText
RICH_TEXT = 1  # Qt.TextFormat.RichText
TEXT_SELECTABLE_BY_MOUSE = 1  # Qt.TextInteractionFlag.TextSelectableByMouse
TOOLTIP_ROLE = 3  # Qt.ItemDataRole.ToolTipRole
FOREGROUND_ROLE = 9  # Qt.ItemDataRole.ForegroundRole
USER_ROLE = 0x0100  # Qt.ItemDataRole.UserRole
VERTICAL = 2  # Qt.Orientation.Vertical
NO_FOCUS = 0  # Qt.FocusPolicy.NoFocus
STRONG_FOCUS = 11  # Qt.FocusPolicy.StrongFocus (Tab and click, not the wheel)
TEXT_WORD_WRAP = 0x1000  # Qt.TextFlag.TextWordWrap (the cache gauge measures its wrapped lines)


def escape(text: str) -> str:
    """`text` as rich text shows it literally: what html.escape does (the same five characters),
    without importing the html module for the first page (its entity tables cost ~2 ms of the
    first paint); tests/ui/test_qtprops.py checks it against html.escape."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#x27;"))


def rich_text(label: QLabel, *, selectable: bool = True) -> QLabel:
    """Show `label`'s text as rich text (never guessed from the text: a value from a file that
    looks like markup is escaped by whoever builds the text), selectable by mouse if asked."""
    label.setProperty("textFormat", RICH_TEXT)
    if selectable:
        selectable_text(label)
    return label


def plain_text(label: QLabel) -> QLabel:
    """Show `label`'s text as it is, never as markup (a reason quoting a file's value)."""
    label.setProperty("textFormat", PLAIN_TEXT)
    return label


def selectable_text(label: QLabel) -> QLabel:
    """Let the user select `label`'s text with the mouse (to copy a path or a message)."""
    label.setProperty("textInteractionFlags", TEXT_SELECTABLE_BY_MOUSE)
    return label


def no_focus(widget: QWidget) -> QWidget:
    """`widget` never takes the keyboard focus (it shows, it is not edited)."""
    widget.setProperty("focusPolicy", NO_FOCUS)
    return widget


def strong_focus(widget: QWidget) -> QWidget:
    """`widget` takes the keyboard focus by Tab and by a click, never by the mouse wheel."""
    widget.setProperty("focusPolicy", STRONG_FOCUS)
    return widget


def vertical_splitter(parent: QWidget) -> QSplitter:
    """A splitter stacking its widgets top to bottom (made without a parent, then given one:
    the constructor taking a parent is an overload of the one taking an orientation)."""
    from PySide6.QtWidgets import QSplitter

    splitter = QSplitter()
    splitter.setProperty("orientation", VERTICAL)
    splitter.setParent(parent)
    return splitter


def solid_brush(colour: str) -> QBrush:
    """A solid brush of `colour` (through a palette, which hands out solid brushes: the QBrush
    constructors taking a colour are overloads of those taking Qt's colour and style enums)."""
    from PySide6.QtGui import QColor, QPalette

    palette = QPalette()
    palette.setColor(QPalette.ColorRole.WindowText, QColor(colour))
    return palette.windowText()


def set_foreground(item: QListWidgetItem, colour: str) -> None:
    """Draw a list item's text in `colour` (the views take a colour for the foreground role)."""
    from PySide6.QtGui import QColor

    item.setData(FOREGROUND_ROLE, QColor(colour))
