"""The wizard driven through its object names: pages, option editors, availability, docs."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QTextBrowser, QToolButton, QWidget, QWizardPage

from cann_config.app.catalog import load_catalog
from cann_config.ui.editors import OptionEditor

PAGES = ("devicePage", "memoryPage", "cachePage", "exportPage")


def editor(wizard, option_id: str) -> OptionEditor:
    found = wizard.findChild(OptionEditor, f"option_{option_id}")
    assert found is not None, option_id
    return found


def choose_device(wizard, data: str) -> None:
    combo = wizard.findChild(QComboBox, "deviceCombo")
    index = combo.findData(data)
    assert index >= 0, data
    combo.setCurrentIndex(index)


def test_object_names_of_the_design(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    assert wizard.objectName() == "configWizard"
    pages = [wizard.page(i) for i in wizard.pageIds()]
    assert [p.objectName() for p in pages] == list(PAGES)
    for name, kind in (("deviceCombo", QComboBox), ("deviceBanner", QLabel), ("docPane", QTextBrowser),
                       ("exportFormatCombo", QComboBox)):
        assert wizard.findChild(kind, name) is not None, name
    for name in ("cacheGauge", "scanButton", "exportPreview", "copyButton", "saveButton",
                 "option_op_compiler_cache_dir"):
        assert wizard.findChild(QWidget, name) is not None, name
    assert wizard.findChild(QToolButton, "browse_op_compiler_cache_dir") is not None


def test_every_catalog_option_is_on_exactly_one_page_with_a_typed_value(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    catalog = load_catalog()
    pages = [wizard.findChild(QWizardPage, name) for name in PAGES]
    for option in catalog.options.values():
        holders = [p.objectName() for p in pages if p.findChild(OptionEditor, f"option_{option.id}") is not None]
        assert len(holders) == 1, (option.id, holders)
        assert holders[0] == f"{option.page}Page"
        value = editor(wizard, option.id).property("value")
        kinds = {"int": int, "float": float, "bool": bool}
        if option.unset_default:
            assert value == "", (option.id, value)
        else:
            assert isinstance(value, kinds.get(option.type, str)), (option.id, value)
        assert option.check(value) is None


def test_310p_greys_huge_pages_with_a_visible_reason_and_910b3_enables_them(make_wizard):
    wizard = make_wizard(device="Ascend310P3")
    huge = editor(wizard, "variable_use_1g_huge_page")
    reason = wizard.findChild(QLabel, "reason_variable_use_1g_huge_page")
    assert not huge.isEnabled()
    assert not reason.isHidden() and "Ascend310P3" in reason.text()
    assert reason.text() != reason.toolTip()  # a visible text, not only a tooltip
    choose_device(wizard, "Ascend910B3")
    assert huge.isEnabled()
    assert reason.isHidden()
    assert wizard.controller.profile.device == "Ascend910B3"
    choose_device(wizard, "atlas-inference")
    assert not huge.isEnabled() and not reason.isHidden()


def test_a_framework_without_memory_options_greys_them_with_its_reason(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    usage = wizard.findChild(QComboBox, "usageCombo")
    usage.setCurrentIndex(usage.findData("pytorch"))
    assert wizard.controller.profile.framework == "pytorch"
    for oid in ("atomic_clean_policy", "static_memory_policy", "variable_use_1g_huge_page"):
        assert not editor(wizard, oid).isEnabled()
        assert not wizard.findChild(QLabel, f"reason_{oid}").isHidden()
    assert editor(wizard, "op_compiler_cache_mode").isEnabled()


def test_value_property_writes_the_profile_and_refuses_invalid_values(make_wizard, qtbot):
    wizard = make_wizard(device="Ascend910B3")
    static = editor(wizard, "static_memory_policy")
    with qtbot.waitSignal(static.valueChanged):
        assert static.setProperty("value", 3)
    assert wizard.controller.profile.options["static_memory_policy"] == 3
    assert static.findChild(QComboBox).currentData() == 3
    static.setProperty("value", 9)  # not a value of the catalog: nothing changes
    static.setProperty("value", "3x")
    assert static.property("value") == 3
    size = editor(wizard, "max_op_cache_size")
    size.setProperty("value", 0)  # 0 is invalid for the limit (docs/cann/op-cache.md#size-limit-and-keep-ratio)
    assert size.property("value") != 0
    size.setProperty("value", -1)
    assert wizard.controller.profile.options["max_op_cache_size"] == -1


def test_the_size_spin_box_skips_invalid_values_when_stepping(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    size = editor(wizard, "max_op_cache_size")
    size.setProperty("value", 1)
    size.spin.stepBy(-1)
    assert size.property("value") == -1
    size.spin.stepBy(1)
    assert size.property("value") == 1


def test_doc_pane_shows_the_focused_option_and_stays_readable_when_disabled(make_wizard, qtbot):
    wizard = make_wizard(device="Ascend310P3")
    catalog = load_catalog()
    doc = wizard.findChild(QTextBrowser, "docPane")
    title = wizard.findChild(QLabel, "title_variable_use_1g_huge_page")
    qtbot.mouseClick(title, Qt.MouseButton.LeftButton)
    text = doc.toPlainText()
    option = catalog.option("variable_use_1g_huge_page")
    assert option.doc["en"][:60] in text
    for value_doc in option.values:
        assert value_doc.text["en"] in text
    assert "Not available" in text and "Ascend310P3" in text
    info = wizard.findChild(QToolButton, "info_static_memory_policy")
    qtbot.mouseClick(info, Qt.MouseButton.LeftButton)
    text = doc.toPlainText()
    assert "2 and 4 are not supported when several graphs execute concurrently" in text
    assert "ge.exec.staticMemoryPolicy" in text  # where the option is set, from the catalog


def test_focusing_an_editor_shows_its_docs(make_wizard, qtbot):
    wizard = make_wizard(device="Ascend910B3")
    wizard.show()
    qtbot.waitExposed(wizard)
    wizard.next()
    atomic = editor(wizard, "atomic_clean_policy")
    atomic.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(lambda: wizard.doc_pane.shown_option == "atomic_clean_policy")
    assert "memset" in wizard.findChild(QTextBrowser, "docPane").toPlainText()


def test_concurrent_graphs_turn_policy_2_into_a_warning(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    notes = wizard.findChild(QLabel, "notes_static_memory_policy")
    concurrent = wizard.findChild(QCheckBox, "concurrentGraphsCheck")
    editor(wizard, "static_memory_policy").setProperty("value", 2)
    assert not notes.isHidden()
    assert "Note:" in notes.text() and "concurrently" in notes.text()
    concurrent.setChecked(True)
    assert "Warning:" in notes.text()
    editor(wizard, "static_memory_policy").setProperty("value", 0)
    assert notes.isHidden()


def test_the_undocumented_option_is_behind_the_advanced_toggle(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    row = wizard.findChild(QWidget, "row_memory_optimization_policy")
    toggle = wizard.findChild(QCheckBox, "advancedToggle")
    assert row.isHidden()
    toggle.setChecked(True)
    assert not row.isHidden()
    assert "undocumented" in wizard.findChild(QLabel, "title_memory_optimization_policy").text().lower()


def test_every_option_editor_is_reachable_with_tab(make_wizard, qtbot):
    wizard = make_wizard(device="Ascend910B3")
    wizard.findChild(QCheckBox, "advancedToggle").setChecked(True)
    wizard.show()
    qtbot.waitExposed(wizard)
    for page_name in ("memoryPage", "cachePage"):
        wizard.next()
        page = wizard.findChild(QWizardPage, page_name)
        targets = {e.focusProxy() for e in page.findChildren(OptionEditor)}
        seen = set()
        widget = wizard
        for _ in range(400):
            widget = widget.nextInFocusChain()
            if widget.focusPolicy() & Qt.FocusPolicy.TabFocus:
                seen.add(widget)
        assert targets <= seen, page_name


@pytest.mark.parametrize("lang, word", [("zh_CN", "静态内存分配策略"), ("en", "Static memory policy")])
def test_language_switch_retranslates_the_catalog_texts(make_wizard, lang, word):
    wizard = make_wizard(device="Ascend910B3")
    wizard.findChild(QAction, f"language_{lang}").trigger()  # the language switch's menu
    assert word in wizard.findChild(QLabel, "title_static_memory_policy").text()
    wizard.set_language("en")


def test_device_combo_lists_the_socs_in_the_cores_order(make_wizard):
    from cann_config.app.device.table import load_device_table

    wizard = make_wizard(device="Ascend910B3")
    combo = wizard.findChild(QComboBox, "deviceCombo")
    table = load_device_table()
    listed = [combo.itemData(i) for i in range(combo.count()) if combo.itemData(i) in set(table.all_socs())]
    assert listed == table.all_socs()


def test_the_pointer_entering_an_option_title_sets_the_help_cursor(make_wizard):
    # Hovering a title ran ClickableLabel.enterEvent, which raised TypeError (testAttribute with
    # an int), and PySide6 crashed the window (segfault) reporting it.
    from PySide6.QtCore import QPointF, Qt
    from PySide6.QtGui import QEnterEvent
    from PySide6.QtWidgets import QApplication

    from cann_config.ui.optionrow import ClickableLabel

    wizard = make_wizard(device="Ascend910B3")
    wizard.show()
    wizard.next()
    title = wizard.currentPage().findChildren(ClickableLabel)[0]
    QApplication.sendEvent(title, QEnterEvent(QPointF(2, 2), QPointF(2, 2), QPointF(2, 2)))
    assert title.cursor().shape() == Qt.CursorShape.WhatsThisCursor
