"""With "Used with: MindSpore" the memory page shows MindSpore's settings (documented in zh and en)
and hides what only other frameworks take; the cache page keeps MindSpore's graph compile cache in
a group of its own, apart from CANN's operator cache; the export page previews the mindspore
snippet."""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QCheckBox, QComboBox, QGroupBox, QLabel, QPlainTextEdit, QTextBrowser, QWidget

from cann_config.ui.editors import OptionEditor


def use(wizard, framework):
    usage = wizard.findChild(QComboBox, "usageCombo")
    index = usage.findData(framework)
    assert index >= 0, framework
    usage.setCurrentIndex(index)
    assert wizard.controller.profile.framework == framework


def row(wizard, oid):
    return wizard.findChild(QWidget, f"row_{oid}")


def test_mindspore_memory_and_cache_pages(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    wizard.memory_page.ensure_built()
    wizard.cache_page.ensure_built()
    # TensorFlow: none of MindSpore's or vLLM's own rows, no graph cache group
    assert row(wizard, "max_device_memory").isHidden() and row(wizard, "gpu_memory_utilization").isHidden()
    assert wizard.findChild(QGroupBox, "graphCacheGroup").isHidden()
    use(wizard, "mindspore")
    assert not row(wizard, "max_device_memory").isHidden()
    assert not row(wizard, "ms_alloc_enable_vmm").isHidden()
    assert row(wizard, "gpu_memory_utilization").isHidden()
    assert "MindSpore" in wizard.findChild(QLabel, "memoryHint").text()
    # MindSpore's default atomic_clean_policy is 1 (the TF Adapter's is 0)
    assert wizard.findChild(OptionEditor, "option_atomic_clean_policy").property("value") == 1
    group = wizard.findChild(QGroupBox, "graphCacheGroup")
    assert not group.isHidden() and "not CANN" in group.title()
    assert group.findChild(OptionEditor, "option_ms_compiler_cache_enable") is not None
    assert wizard.findChild(QWidget, "cacheDirsPanel").findChild(OptionEditor, "option_ms_compiler_cache_enable") is None
    wizard.findChild(OptionEditor, "option_max_device_memory").setProperty("value", "28GB")
    page = wizard.export_page
    page.ensure_built()
    combo = wizard.findChild(QComboBox, "exportFormatCombo")
    combo.setCurrentIndex(combo.findData("mindspore"))
    wizard.findChild(QCheckBox, "changedOnlyCheck").setChecked(True)
    page.regenerate()
    assert 'max_size="28GB",' in wizard.findChild(QPlainTextEdit, "exportPreview").toPlainText()


def test_mindspore_documentation_in_both_languages(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    use(wizard, "mindspore")
    wizard.memory_page.ensure_built()
    wizard.show_option_doc("max_device_memory")
    doc = wizard.findChild(QTextBrowser, "docPane")
    assert "15/16 of the free HBM" in doc.toPlainText()
    wizard.findChild(QAction, "language_zh_CN").trigger()
    try:
        assert "空闲 HBM 的 15/16" in doc.toPlainText()
        wizard.cache_page.ensure_built()
        assert "不是 CANN" in wizard.findChild(QGroupBox, "graphCacheGroup").title()
    finally:
        wizard.findChild(QAction, "language_en").trigger()
