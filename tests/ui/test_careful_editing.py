"""No value changes behind the user's back (issue 27): the wheel changes a value only in the
editor with the keyboard focus (elsewhere it scrolls the page); every option row marks a value
that differs from where it started (`modified_<id>`) and has the way back (`reset_<id>`); sizes
are typed as people type them; the cache gauge says what it paints."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QScrollArea, QToolButton, QWidget, QWizard


def editor(wizard, option_id: str) -> QWidget:
    found = wizard.findChild(QWidget, f"option_{option_id}")
    assert found is not None, option_id
    return found


def wheel(widget: QWidget, notches: int = -1) -> None:
    """One turn of the wheel over the middle of `widget`, as the window system sends it."""
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0), QPoint(0, 120 * notches),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def shown_on(make_wizard, qtbot, page: str, **kwargs):
    wizard = make_wizard(**kwargs)
    wizard.resize(760, 420)  # small: every page scrolls, as at scale 2 on a laptop
    wizard.show()
    qtbot.waitExposed(wizard)
    while wizard.currentPage().objectName() != page:
        wizard.next()
    QApplication.processEvents()
    return wizard


@pytest.mark.parametrize(("page", "option_id", "framework", "inner"), [
    ("memoryPage", "static_memory_policy", "tf1", "combo_static_memory_policy"),
    ("memoryPage", "npu_alloc_expandable_segments", "pytorch", "combo_npu_alloc_expandable_segments"),
    ("memoryPage", "npu_alloc_max_split_size_mb", "pytorch", "spin_npu_alloc_max_split_size_mb"),
    ("cachePage", "max_op_cache_size", "tf1", "spin_max_op_cache_size"),
    ("cachePage", "remain_cache_size_ratio", "tf1", "spin_remain_cache_size_ratio"),
    ("cachePage", "op_compiler_cache_mode", "tf1", "combo_op_compiler_cache_mode"),
])
def test_the_wheel_over_an_unfocused_editor_scrolls_the_page_and_changes_nothing(make_wizard, qtbot, page, option_id,
                                                                                framework, inner):
    wizard = shown_on(make_wizard, qtbot, page, device="Ascend910B3", framework=framework)
    if option_id == "npu_alloc_max_split_size_mb":
        editor(wizard, option_id).setProperty("value", 512)  # ticked: its spin box is enabled
    box = editor(wizard, option_id)
    widget = box.findChild(QWidget, inner)
    before = box.property("value")
    scroll = wizard.currentPage().findChild(QScrollArea)
    bar = scroll.verticalScrollBar()
    assert bar.maximum() > 0
    scroll.ensureWidgetVisible(widget)
    bar.setValue(min(bar.value(), bar.maximum() - 10))
    wizard.button(QWizard.WizardButton.NextButton).setFocus()
    start = bar.value()
    for target in (widget, box):  # over the box itself, and over the editor it is made of
        wheel(target, -1)
        assert box.property("value") == before
    assert bar.value() > start, "the page did not scroll"
    assert not widget.hasFocus()  # the wheel does not take the focus either
    # With the keyboard focus, the wheel is the user's: it changes the value.
    widget.setFocus()
    wheel(widget, -1 if option_id != "remain_cache_size_ratio" else 1)
    assert box.property("value") != before


@pytest.mark.parametrize(("option_id", "framework", "start", "other"), [
    ("static_memory_policy", "tf1", 0, 2),  # a combo
    ("npu_alloc_expandable_segments", "pytorch", False, True),  # a switch (a boolean combo)
    ("npu_alloc_max_split_size_mb", "pytorch", "", 512),  # a spin box behind "Set"
    ("op_compiler_cache_mode", "tf1", "enable", "force"),
    ("op_compiler_cache_dir", "tf1", "", "/data/cache"),  # a path
    ("max_op_cache_size", "tf1", 500, 2048),  # a size
    ("remain_cache_size_ratio", "tf1", 50, 80),  # a spin box
])
def test_every_row_marks_a_changed_value_and_resets_it(make_wizard, option_id, framework, start, other):
    wizard = make_wizard(device="Ascend910B3", framework=framework)
    box = editor(wizard, option_id)
    mark = wizard.findChild(QLabel, f"modified_{option_id}")
    reset = wizard.findChild(QToolButton, f"reset_{option_id}")
    assert mark is not None and reset is not None
    assert box.property("value") == start
    assert mark.isHidden() or mark.text() == ""
    assert not reset.isEnabled()
    box.setProperty("value", other)
    assert box.property("value") == other
    assert not mark.isHidden() and "modified" in mark.text() and reset.isEnabled()
    reset.click()
    assert box.property("value") == start
    assert mark.isHidden() or mark.text() == ""


def test_reset_returns_to_the_value_of_the_profile_started_from(make_wizard, tmp_path):
    from cann_config.app.profile import Profile

    wizard = make_wizard(device="Ascend910B3", profile=Profile(framework="tf1", options={"static_memory_policy": 3}))
    box = editor(wizard, "static_memory_policy")
    mark = wizard.findChild(QLabel, "modified_static_memory_policy")
    assert box.property("value") == 3 and mark.isHidden()
    box.setProperty("value", 0)
    assert not mark.isHidden()
    wizard.findChild(QToolButton, "reset_static_memory_policy").click()
    assert box.property("value") == 3 and wizard.controller.profile.options["static_memory_policy"] == 3


def type_size(qtbot, wizard, text: str) -> QLineEdit:
    box = editor(wizard, "max_op_cache_size")
    line = box.findChild(QLineEdit)
    line.setFocus()
    line.selectAll()
    qtbot.keyClicks(line, text)
    return line


def leave(wizard) -> None:
    wizard.findChild(QWidget, "scanButton").setFocus()
    QApplication.processEvents()


@pytest.mark.parametrize(("typed", "mb", "shown"), [
    ("2 GB", 2048, "= 2 GB"), ("2G", 2048, "= 2 GB"), ("2048 MB", 2048, "= 2 GB"), ("1.5 GiB", 1536, "= 1.5 GB"),
    ("2048", 2048, "= 2 GB"), ("800", 800, ""),
])
def test_a_size_typed_as_people_type_it(make_wizard, qtbot, typed, mb, shown):
    wizard = shown_on(make_wizard, qtbot, "cachePage", device="Ascend910B3")
    box = editor(wizard, "max_op_cache_size")
    type_size(qtbot, wizard, typed)
    assert box.property("value") == 500  # nothing is taken while the unit is being typed
    leave(wizard)
    assert box.property("value") == mb
    assert wizard.controller.profile.options["max_op_cache_size"] == mb
    note = wizard.findChild(QLabel, "sizeNote_max_op_cache_size")
    assert note.text() == shown
    unit = wizard.findChild(QLabel, "unit_max_op_cache_size")
    assert unit.isVisible() and unit.text() == "MB"


@pytest.mark.parametrize(("typed", "words"), [
    ("abc", "takes a size in MB"), ("2 XB", "is not a unit"), ("1.5 MB", "whole number of MB"), ("0", "at least 1"),
])
def test_a_size_that_cannot_be_converted_is_refused_in_words(make_wizard, qtbot, typed, words):
    wizard = shown_on(make_wizard, qtbot, "cachePage", device="Ascend910B3")
    box = editor(wizard, "max_op_cache_size")
    type_size(qtbot, wizard, typed)
    leave(wizard)
    assert box.property("value") == 500
    note = wizard.findChild(QLabel, "sizeNote_max_op_cache_size")
    assert note.isVisible() and words in note.text() and note.text().startswith("Not taken:")
    # Taken again once a size is typed.
    type_size(qtbot, wizard, "1 GB")
    leave(wizard)
    assert box.property("value") == 1024 and "Not taken" not in note.text()


def test_a_tiny_limit_is_a_visible_warning(make_wizard, qtbot):
    wizard = shown_on(make_wizard, qtbot, "cachePage", device="Ascend910B3")
    type_size(qtbot, wizard, "2 MB")
    leave(wizard)
    assert editor(wizard, "max_op_cache_size").property("value") == 2
    notes = wizard.findChild(QLabel, "notes_max_op_cache_size")
    assert notes.isVisible() and "below 64 MB" in notes.toolTip() + notes.text()


def test_the_gauge_says_what_it_paints_before_and_after_a_scan(make_wizard, qtbot, tmp_path):
    soc = tmp_path / "cache" / "kernel_cache" / "Ascend910B3"
    soc.mkdir(parents=True)
    (soc / "a.json").write_text("{}")
    (soc / "a.o").write_bytes(b"x" * 4096)
    wizard = shown_on(make_wizard, qtbot, "cachePage", device="Ascend910B3")
    gauge = wizard.findChild(QWidget, "cacheGauge")
    before = gauge.accessibleDescription()
    assert before and "Scan" in before
    editor(wizard, "op_compiler_cache_dir").setProperty("value", str(tmp_path / "cache"))
    wizard.findChild(QWidget, "scanButton").click()
    qtbot.waitUntil(lambda: "Ascend910B3" in gauge.accessibleDescription(), timeout=20000)
    assert gauge.accessibleDescription() != before


def test_the_wheel_over_the_device_pages_combos_does_not_switch_the_framework(make_wizard, qtbot):
    wizard = shown_on(make_wizard, qtbot, "devicePage", device="Ascend910B3", framework="tf2")
    usage = wizard.findChild(QWidget, "usageCombo")
    device = wizard.findChild(QWidget, "deviceCombo")
    wizard.button(QWizard.WizardButton.NextButton).setFocus()
    for combo in (usage, device):
        wheel(combo, -1)
    assert wizard.controller.profile.framework == "tf2"
    assert wizard.controller.device.soc_version == "Ascend910B3"


def test_enter_in_the_size_box_takes_the_size_and_goes_on(make_wizard, qtbot):
    wizard = shown_on(make_wizard, qtbot, "cachePage", device="Ascend910B3")
    line = type_size(qtbot, wizard, "3 GB")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    assert editor(wizard, "max_op_cache_size").property("value") == 3072
    assert wizard.controller.profile.options["max_op_cache_size"] == 3072


def test_torch_npus_split_size_takes_a_size_as_typed_too(make_wizard, qtbot):
    wizard = shown_on(make_wizard, qtbot, "memoryPage", device="Ascend910B3", framework="pytorch")
    box = editor(wizard, "npu_alloc_max_split_size_mb")
    box.setProperty("value", 512)
    line = box.findChild(QLineEdit)
    line.setFocus()
    line.selectAll()
    qtbot.keyClicks(line, "1 GB")
    assert box.property("value") == 512
    wizard.findChild(QWidget, "title_npu_alloc_max_split_size_mb").setFocus()
    QApplication.processEvents()
    assert box.property("value") == 1024
    assert wizard.findChild(QLabel, "sizeNote_npu_alloc_max_split_size_mb").text() == "= 1 GB"
