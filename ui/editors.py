"""One editor widget per catalog option, generated from the catalog entry.

Whatever the widget (a combo for enumerated values and booleans, a checked spin box for numbers,
a "set" check box beside the spin box for numbers that are unset by default, a line edit with a
browse button for paths), each editor is named `option_<id>` and has a read/write Qt property
`value` typed as the catalog types the option (int, float, bool or str; "" for not set), with `valueChanged` as its
notify signal, so tests and accessibility tools drive every option the same way (docs/architecture.md#object-names).
A value the catalog refuses (`Option.check`) is never taken: the spin box rejects it while it is
typed, and `setProperty("value", ...)` with an invalid value changes nothing. A size (an option
counting in KB, MB or GB) is typed as people type it, "2 GB", "1.5 GiB" or "2048", read by the
core's one size parser (`Option.parse_typed`, app/sizes.py) when the box is left; the unit is
stated beside the box, with the converted value ("= 2 GB") or, in words, why the text was refused.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Property, QCoreApplication, QEvent, QObject, Signal
from PySide6.QtGui import QFocusEvent, QKeyEvent, QValidator
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QStyle,
    QToolButton,
    QWidget,
)

from cann_config.app.catalog import Option, Value
from cann_config.app.i18n import current_language, pick
from cann_config.ui.qtprops import TOOLTIP_ROLE, strong_focus

translate = QCoreApplication.translate


def shown_value(value: Value) -> str:
    """How a value is written in the UI ("" is the catalog's "not set")."""
    return translate("OptionEditor", "(not set)") if value == "" else str(value)


def value_summary(text: str) -> str:
    """The start of a value's meaning (up to the first sentence or clause end, in English or
    Chinese punctuation) for a combo box item: whole, never cut with "…" (the combo box elides
    only what its width cannot show, and its list is as wide as its widest item)."""
    return re.split(r"\. |; |。|；", text, maxsplit=1)[0].rstrip(".")


def coerce_value(option: Option, value: object) -> Value | None:
    """`value` as the option's type, or None when it cannot be one (no guessing from floats)."""
    if option.unset_default and isinstance(value, str) and value.strip().lower() in ("", "unset"):
        return ""
    if option.type not in ("bool", "float", "int"):
        return value if isinstance(value, str) else None
    if isinstance(value, str):
        try:
            return option.parse(value)
        except ValueError:
            return None
    if isinstance(value, bool):
        return value if option.type == "bool" else None
    if option.type == "float" and isinstance(value, (int, float)):
        return float(value)
    if option.type == "int" and isinstance(value, int):
        return value
    if option.type == "int" and isinstance(value, float) and value.is_integer():
        return int(value)
    return None


class OptionEditor(QWidget):
    """Base of every option editor: the `value` property and the focus signal for the docs."""

    # Qt's own type name: the signal carries any value (PySide6 takes a C++ type name where its stub
    # wants a Python type).
    valueChanged = Signal("QVariant")  # type: ignore[arg-type]
    focused = Signal(str)

    def __init__(self, option: Option, parent: QWidget | None = None):
        super().__init__(parent)
        self.option = option
        self._value: Value = option.default
        self.setObjectName(f"option_{option.id}")
        # A Tab stop as its focus proxy (set by each editor) is: Qt's Tab walk takes a widget with a
        # proxy at the proxy's policy, and only a widget that takes the focus can be given its
        # place in the Tab order (ui/taborder.py).
        strong_focus(self)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        # A size's unit beside its box, and the converted value or the refusal (see _size_box).
        self.unit: QLabel | None = None
        self.note: QLabel | None = None
        self._refusal = ""

    def _watch_focus(self, widget: QWidget) -> None:
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.FocusIn:
            self.focused.emit(self.option.id)
        return False

    def get_value(self) -> Value:
        return self._value

    def set_value(self, value: object) -> None:
        coerced = coerce_value(self.option, value)
        if coerced is None or self.option.check(coerced) is not None:
            return
        if coerced == self._value and self._shows(coerced):
            return
        self._value = coerced
        self._display(coerced)
        self.valueChanged.emit(coerced)

    def _user_changed(self, value: object) -> None:
        self.set_value(value)

    def _shows(self, value: Value) -> bool:
        return True

    def _display(self, value: Value) -> None:
        """Show `value` in the widget (each concrete editor overrides this)."""

    def retranslate(self) -> None:
        """Re-read the catalog texts in the current language."""

    # -- a size typed as people type it (options counting in KB, MB or GB) --------------------

    def _size_box(self) -> _SizeSpinBox:
        """The spin box of a size, with its unit (`unit_<id>`) and its note (`sizeNote_<id>`),
        for the editor to lay out."""
        size = _SizeSpinBox(self.option, self)
        self.unit = QLabel(str(self.option.unit), self)
        self.unit.setObjectName(f"unit_{self.option.id}")
        self.unit.setBuddy(size)
        self.note = QLabel(self)
        self.note.setObjectName(f"sizeNote_{self.option.id}")
        size.refused.connect(self._refused)
        return size

    def _size_tooltip(self, box: QWidget) -> None:
        if self.note is not None:
            box.setToolTip(translate("OptionEditor", "Type a size: 2048, 2 GB, 2048 MB or 1.5 GiB (1 MB = "
                                                     "1024 × 1024 bytes, as CANN counts); it is read when you "
                                                     "leave the box"))
            self._show_note()

    def _refused(self, reason: str) -> None:
        self._refusal = reason
        self._show_note()

    def _show_note(self) -> None:
        """The converted value ("= 2 GB") or, in words, why the text typed was not taken."""
        if self.note is None:
            return
        if self._refusal:
            self.note.setText(translate("OptionEditor", "Not taken: %1").replace("%1", self._refusal))
            self.note.setStyleSheet("color: #b00020;")
            self.note.setWordWrap(True)
            return
        self.note.setStyleSheet("")
        self.note.setText(converted_size(self._value, str(self.option.unit)))

    value = Property("QVariant", get_value, set_value, notify=valueChanged)  # type: ignore[arg-type]  # as Signal above


class ChoiceEditor(OptionEditor):
    """A combo box with each allowed value and the start of its meaning."""

    def __init__(self, option: Option, parent: QWidget | None = None):
        super().__init__(option, parent)
        self.combo = QComboBox(self)
        self.combo.setObjectName(f"combo_{option.id}")
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(30)
        self._layout.addWidget(self.combo, 1)
        self.setFocusProxy(self.combo)
        self._watch_focus(self.combo)
        self.retranslate()
        self._display(self._value)
        self.combo.currentIndexChanged.connect(self._index_changed)

    def retranslate(self) -> None:
        self.combo.blockSignals(True)
        current = self.combo.currentIndex()
        self.combo.clear()
        for doc in self.option.values:
            text = pick(doc.text)
            self.combo.addItem(f"{shown_value(doc.value)}  —  {value_summary(text)}", doc.value)
            self.combo.setItemData(self.combo.count() - 1, text, TOOLTIP_ROLE)
        if current >= 0:
            self.combo.setCurrentIndex(current)
        self.combo.blockSignals(False)
        # The opened list shows every item whole, however narrow the combo box itself is.
        view = self.combo.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + 2 * view.frameWidth()
                             + view.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent))
        self._display(self._value)
        self._show_tooltip()

    def _show_tooltip(self) -> None:
        """The full meaning of the value shown, for when the box is too narrow for its item."""
        index = self.combo.currentIndex()
        self.combo.setToolTip(self.combo.itemData(index, TOOLTIP_ROLE) or "" if index >= 0 else "")

    def _index_changed(self, index: int) -> None:
        self._show_tooltip()
        if index >= 0:
            self._user_changed(self.combo.itemData(index))

    def _shows(self, value: Value) -> bool:
        return self.combo.currentData() == value

    def _display(self, value: Value) -> None:
        index = self.combo.findData(value)
        if index >= 0 and index != self.combo.currentIndex():
            self.combo.blockSignals(True)
            self.combo.setCurrentIndex(index)
            self.combo.blockSignals(False)
        self._show_tooltip()


class _CheckedSpinBox(QSpinBox):
    """A spin box that only accepts what the catalog allows (e.g. no 0 for the size limit)."""

    def __init__(self, option: Option, parent: QWidget | None = None):
        super().__init__(parent)
        self.option = option
        specials = [d.value for d in option.special if isinstance(d.value, int)]
        # An int option's bounds are ints (app/catalog.py checks them against its type).
        low = min([int(option.min) if option.min is not None else -(2**31)] + specials)
        high = max([int(option.max) if option.max is not None else 2**31 - 1] + specials)
        self.setRange(low, min(high, 2**31 - 1))
        self.setAccelerated(True)
        if option.unit:
            self.setSuffix(f" {option.unit}")

    def validate(self, text: str, pos: int):  # noqa: ANN201 - PySide6 returns (state, text, pos)
        state, text, pos = super().validate(text, pos)
        if state == QValidator.State.Acceptable and self.option.check(self.valueFromText(text)) is not None:
            state = QValidator.State.Intermediate
        return state, text, pos

    def stepBy(self, steps: int) -> None:  # noqa: N802 - Qt override
        target = self.value() + steps * self.singleStep()
        direction = 1 if steps > 0 else -1
        while self.minimum() <= target <= self.maximum() and self.option.check(target) is not None:
            target += direction
        if self.minimum() <= target <= self.maximum():
            self.setValue(target)


class _SizeSpinBox(_CheckedSpinBox):
    """A size as people type it: any text may be typed, and it is read by the core
    (`Option.parse_typed`) only when the box is left or Enter is pressed (no keyboard tracking:
    the value never takes the "2" of a "2 GB" being typed). Text that is no size keeps the old
    value, and `refused` says why."""

    refused = Signal(str)  # the reason in the current language; "" when the text was taken

    def __init__(self, option: Option, parent: QWidget | None = None):
        super().__init__(option, parent)
        self.setSuffix("")
        self.setKeyboardTracking(False)

    def _typed(self, text: str) -> int | None:
        try:
            value = self.option.parse_typed(text)
        except ValueError:
            return None
        return value if isinstance(value, int) else None

    def validate(self, text: str, pos: int):  # noqa: ANN201 - PySide6 returns (state, text, pos)
        # Never Invalid: what cannot be read is refused in words when the box is left.
        state = QValidator.State.Acceptable if self._typed(text) is not None else QValidator.State.Intermediate
        return state, text, pos

    def valueFromText(self, text: str) -> int:  # noqa: N802 - Qt override
        value = self._typed(text)
        return self.value() if value is None else value

    def textFromValue(self, value: int) -> str:  # noqa: N802 - Qt override
        return str(value)

    def _check_typed(self) -> None:
        from cann_config.app.errors import explain

        text = self.lineEdit().text()
        try:
            self.option.parse_typed(text)
        except ValueError as exc:
            self.refused.emit(explain(exc).text(current_language()))
            return
        self.refused.emit("")

    def focusOutEvent(self, event: QFocusEvent) -> None:  # noqa: N802 - Qt override
        self._check_typed()
        super().focusOutEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        if event.text() in ("\r", "\n"):
            self._check_typed()
        super().keyPressEvent(event)


class NumberEditor(OptionEditor):
    """An integer with its unit; values outside the catalog's range are refused while typing. A
    size takes "2 GB" too (`_SizeSpinBox`), with the unit stated beside the box and, under it,
    the converted value or why the text was refused (`sizeNote_<id>`)."""

    def __init__(self, option: Option, parent: QWidget | None = None):
        super().__init__(option, parent)
        self.spin: _CheckedSpinBox = self._size_box() if option.takes_sizes else _CheckedSpinBox(option, self)
        self.spin.setObjectName(f"spin_{option.id}")
        self._layout.addWidget(self.spin)
        if self.unit is not None and self.note is not None:
            self._layout.addWidget(self.unit)
            self._layout.addWidget(self.note, 1)
        self._layout.addStretch(1)
        self.setFocusProxy(self.spin)
        self._watch_focus(self.spin)
        self.retranslate()
        self._display(self._value)
        self.spin.valueChanged.connect(self._user_changed)

    def retranslate(self) -> None:
        self._size_tooltip(self.spin)

    def _user_changed(self, value: object) -> None:
        self._refusal = ""
        super()._user_changed(value)
        self._show_note()

    def _shows(self, value: Value) -> bool:
        return self.spin.value() == value

    def _display(self, value: Value) -> None:
        if self.spin.value() != value:
            self.spin.blockSignals(True)
            self.spin.setValue(int(value))
            self.spin.blockSignals(False)
        self._show_note()


def converted_size(value: Value, unit: str) -> str:
    """The value in the largest unit that shows it ("= 2 GB" for 2048 MB) when that says more than
    the number beside the box ("" for 500 MB, and for -1, which is no size)."""
    from cann_config.app.units import human_bytes

    factor = {"KB": 1024, "MB": 1024**2, "GB": 1024**3}.get(unit)
    if factor is None or not isinstance(value, int) or isinstance(value, bool) or value < 0:
        return ""
    text = human_bytes(value * factor)
    return "" if text == f"{value} {unit}" else f"= {text}"


class OptionalNumberEditor(OptionEditor):
    """A number that is not set unless the user ticks "Set" (the catalog's unset default, ""):
    the check box, then a spin box that only takes what the catalog allows."""

    def __init__(self, option: Option, parent: QWidget | None = None):
        super().__init__(option, parent)
        self.check = QCheckBox(self)
        self.check.setObjectName(f"set_{option.id}")
        if option.type == "float":
            self.spin: QSpinBox | QDoubleSpinBox = QDoubleSpinBox(self)
            self.spin.setDecimals(3)
            self.spin.setSingleStep(0.05)
            low, high = option.min if option.min is not None else 0.0, option.max if option.max is not None else 1e9
            self.spin.setRange(float(low) + (0.001 if option.min_exclusive else 0),
                               float(high) - (0.001 if option.max_exclusive else 0))
        else:
            self.spin = self._size_box() if option.takes_sizes else QSpinBox(self)
            low = (option.min if option.min is not None else 0) + (1 if option.min_exclusive else 0)
            high = (option.max if option.max is not None else 2**31 - 1) - (1 if option.max_exclusive else 0)
            self.spin.setRange(int(low), int(min(high, 2**31 - 1)))
        self.spin.setObjectName(f"spin_{option.id}")
        if option.unit and self.unit is None:
            self.spin.setSuffix(f" {option.unit}")
        self.spin.setEnabled(False)
        self._layout.addWidget(self.check)
        self._layout.addWidget(self.spin)
        if self.unit is not None and self.note is not None:
            self._layout.addWidget(self.unit)
            self._layout.addWidget(self.note, 1)
        self._layout.addStretch(1)
        self.setFocusProxy(self.check)
        self._watch_focus(self.check)
        self._watch_focus(self.spin)
        self.retranslate()
        self._display(self._value)
        self.check.toggled.connect(self._toggled)
        self.spin.valueChanged.connect(lambda number: self._user_changed(number) if self.check.isChecked() else None)

    def retranslate(self) -> None:
        self.check.setText(translate("OptionEditor", "Set"))
        self.spin.setSpecialValueText("")
        self._size_tooltip(self.spin)

    def _toggled(self, checked: bool) -> None:
        self.spin.setEnabled(checked)
        self._user_changed(self.spin.value() if checked else "")

    def _user_changed(self, value: object) -> None:
        self._refusal = ""
        super()._user_changed(value)
        self._show_note()

    def _shows(self, value: Value) -> bool:
        if value == "":
            return not self.check.isChecked()
        return self.check.isChecked() and self.spin.value() == value

    def _display(self, value: Value) -> None:
        self.check.blockSignals(True)
        self.spin.blockSignals(True)
        unset = isinstance(value, str)  # "": not set
        self.check.setChecked(not unset)
        self.spin.setEnabled(not unset)
        if not isinstance(value, str):
            self.spin.setValue(int(value))  # an int option's value
        self.spin.blockSignals(False)
        self.check.blockSignals(False)
        self._show_note()


class PathEditor(OptionEditor):
    """A directory: typed, or chosen with the browse button."""

    browseRequested = Signal(str)

    def __init__(self, option: Option, parent: QWidget | None = None):
        super().__init__(option, parent)
        self.line = QLineEdit(self)
        self.line.setObjectName(f"line_{option.id}")
        self.line.setClearButtonEnabled(True)
        self.browse = QToolButton(self)
        self.browse.setObjectName(f"browse_{option.id}")
        self._layout.addWidget(self.line, 1)
        self._layout.addWidget(self.browse)
        self.setFocusProxy(self.line)
        self._watch_focus(self.line)
        self._watch_focus(self.browse)
        self.retranslate()
        self._display(self._value)
        self.line.textEdited.connect(self._user_changed)
        self.browse.clicked.connect(lambda: self.browseRequested.emit(self.option.id))

    def retranslate(self) -> None:
        self.browse.setText(translate("OptionEditor", "Bro&wse…"))

    def _shows(self, value: Value) -> bool:
        return self.line.text() == value

    def _display(self, value: Value) -> None:
        if self.line.text() != value:
            self.line.setText(str(value))


def make_editor(option: Option, parent: QWidget | None = None) -> OptionEditor:
    """The editor that fits the option: choices, a number, or a path."""
    if option.enumerated:
        return ChoiceEditor(option, parent)
    if option.unset_default and option.type in ("int", "float"):
        return OptionalNumberEditor(option, parent)
    if option.type == "int":
        return NumberEditor(option, parent)
    return PathEditor(option, parent)
