"""The framework decides what is shown first (issue 27): the documentation pane opens on the
first option the framework uses, and switching the framework offers to drop the choices the new
framework cannot take (listed), instead of leaving them for the export to refuse."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QLabel, QPushButton, QTextBrowser, QWidget

from cann_config.app.profile import Profile


def test_the_docs_pane_opens_on_an_option_the_framework_uses(make_wizard, qtbot):
    wizard = make_wizard(device="Ascend910B3", framework="pytorch")
    wizard.show()
    qtbot.waitExposed(wizard)
    wizard.next()
    assert wizard.currentPage().objectName() == "memoryPage"
    doc = wizard.findChild(QTextBrowser, "docPane")
    assert wizard.doc_pane.shown_option == "npu_alloc_expandable_segments"
    assert "Not available" not in doc.toPlainText()
    wizard.back()
    wizard.findChild(QComboBox, "usageCombo").setCurrentIndex(
        wizard.findChild(QComboBox, "usageCombo").findData("tf2"))
    wizard.next()
    assert wizard.doc_pane.shown_option == "atomic_clean_policy"


def test_switching_the_framework_offers_to_drop_the_choices_it_cannot_take(make_wizard, qtbot):
    wizard = make_wizard(device="Ascend910B3", profile=Profile(framework="tf1", options={
        "static_memory_policy": 2, "max_op_cache_size": 2048}))
    box = wizard.findChild(QWidget, "dropChoicesBox")
    assert box.isHidden()
    usage = wizard.findChild(QComboBox, "usageCombo")
    usage.setCurrentIndex(usage.findData("pytorch"))  # item data: the framework id
    assert wizard.controller.profile.framework == "pytorch"
    assert not box.isHidden()
    label = wizard.findChild(QLabel, "dropChoicesLabel")
    assert "Static memory policy = 2" in label.text() and "Cache size" not in label.text()
    # Left as it is, the export would refuse it.
    from cann_config.app.io.exporters import export_text

    assert any(f.severity == "error" for f in export_text(wizard.controller.profile, "torch-npu").findings)
    button = wizard.findChild(QPushButton, "dropChoicesButton")
    assert "drop" in button.objectName().lower()
    button.click()
    assert wizard.controller.profile.options == {"max_op_cache_size": 2048}
    assert box.isHidden()
    assert not any(f.severity == "error" for f in export_text(wizard.controller.profile, "torch-npu").findings)


def test_each_usage_item_carries_its_framework_id(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    usage = wizard.findChild(QComboBox, "usageCombo")
    catalog = wizard.controller.catalog
    assert {usage.itemData(i) for i in range(usage.count())} <= set(catalog.frameworks)
    usage.setCurrentIndex(usage.findData("atc"))
    assert wizard.controller.profile.framework == "atc"
