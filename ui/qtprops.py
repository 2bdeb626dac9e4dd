"""Settings of the widgets built before the window's first paint, without Python's view of Qt's
`Qt` namespace.

The first use of `PySide6.QtCore.Qt` from Python (an attribute, or any call that returns one of
its enums) makes a Python enum of every enum in the namespace: about a hundred, 15 ms with
Python 3.11, as long as the rest of the device page together (tests/bench/bench_startup.py).
The device page needs four of their values, so it sets them through Qt's property system and
item-data API, which take the integers; the other pages use `Qt` as usual, after the first
paint. tests/ui/test_qtprops.py checks every value here against Qt's own enum and that the first
page is built without the namespace.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

RICH_TEXT = 1  # Qt.TextFormat.RichText
TEXT_SELECTABLE_BY_MOUSE = 1  # Qt.TextInteractionFlag.TextSelectableByMouse
USER_ROLE = 0x0100  # Qt.ItemDataRole.UserRole


def rich_text(label: QLabel, *, selectable: bool = True) -> QLabel:
    """Show `label`'s text as rich text (never guessed from the text: a value from a file that
    looks like markup is escaped by whoever builds the text), selectable by mouse if asked."""
    label.setProperty("textFormat", RICH_TEXT)
    if selectable:
        selectable_text(label)
    return label


def selectable_text(label: QLabel) -> QLabel:
    """Let the user select `label`'s text with the mouse (to copy a path or a message)."""
    label.setProperty("textInteractionFlags", TEXT_SELECTABLE_BY_MOUSE)
    return label
