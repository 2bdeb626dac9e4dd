"""Tab goes through a page in reading order: top to bottom, and left to right within a line.

Why: Qt's default Tab order is the order the widgets were made in, and the pages make theirs out
of reading order (the memory page moves torch_npu's group first for PyTorch, a row's question
check box is made before the row it sits in, the advanced rows after the toggle above them). A
keyboard user, and a screen reader, must meet the controls as they are read, option titles
included (issue 27). The order follows the layouts, not the pixels: a grid by row and column, a
form by its rows, a scroll area through its content, so hidden widgets get their place too.
"""

from __future__ import annotations

from typing import cast

from PySide6.QtWidgets import QAbstractScrollArea, QGridLayout, QLayout, QScrollArea, QWidget


def _layout_widgets(layout: QLayout) -> list[QWidget]:
    items = [layout.itemAt(i) for i in range(layout.count())]
    if isinstance(layout, QGridLayout):
        # itemAt is the order of adding; a grid reads by row, then column.
        def position(index: int) -> tuple[int, int]:
            # PySide6's stubs say `object`; Qt returns (row, column, rowSpan, columnSpan).
            row, column, _rows, _columns = cast(tuple[int, int, int, int], layout.getItemPosition(index))
            return (row, column)

        items = [items[i] for i in sorted(range(len(items)), key=position)]
    out: list[QWidget] = []
    for item in items:
        if item is None:
            continue
        widget = item.widget()
        inner = item.layout()
        if widget is not None:
            out += _in_reading_order(widget)
        elif inner is not None:
            out += _layout_widgets(inner)
    return out


def _in_reading_order(widget: QWidget) -> list[QWidget]:
    """`widget` and the widgets inside it, in reading order."""
    out = [widget]
    proxy = widget.focusProxy()
    if proxy is not None and widget.isAncestorOf(proxy):
        # A compound widget (an option's editor, a Tab stop itself: ui/editors.py): Qt moves it
        # with its proxy and the Tab stops after it inside it, in the order they were made.
        return out
    content = widget.widget() if isinstance(widget, QScrollArea) else None
    if content is not None:
        return out + _in_reading_order(content)
    if isinstance(widget, QAbstractScrollArea):
        return out  # a list or text view: one stop
    layout = widget.layout()
    if layout is not None:
        out += _layout_widgets(layout)
    return out


def tab_stops(root: QWidget) -> list[QWidget]:
    """The widgets of `root` that Tab stops at (shown or not), in reading order."""
    from PySide6.QtCore import Qt  # at a page's first visit, not while it is built (ui/qtprops.py)

    tab = Qt.FocusPolicy.TabFocus
    seen: set[int] = set()
    stops = []
    for widget in _in_reading_order(root):
        if widget is root or id(widget) in seen:
            continue
        seen.add(id(widget))
        proxy = widget.focusProxy()
        if proxy is not None and not widget.isAncestorOf(proxy):
            continue  # its focus goes to a widget elsewhere, which has its own place
        if widget.focusPolicy() & tab == tab:
            stops.append(widget)
    return stops


def set_reading_order(root: QWidget) -> None:
    """Make Tab go through `root`'s widgets in reading order."""
    stops = tab_stops(root)
    for first, second in zip(stops, stops[1:], strict=False):
        QWidget.setTabOrder(first, second)
