"""With "Used with: Serving with vLLM-Ascend" the memory page is torch_npu's allocator as the
serving stack rewrites it, with the sleep-mode and RL-mode questions, and the export page offers
the vllm-serve launch script (app/vllm_ascend.py)."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QListWidget, QPlainTextEdit, QTextBrowser, QWidget

from cann_config.ui.editors import OptionEditor


def use_serving(wizard):
    usage = wizard.findChild(QComboBox, "usageCombo")
    index = usage.findData("vllm-ascend")
    assert index >= 0
    usage.setCurrentIndex(index)
    assert wizard.controller.profile.framework == "vllm-ascend"


def findings(wizard):
    items = wizard.findChild(QListWidget, "findingsList")
    return [items.item(i).text() for i in range(items.count())]


def export(wizard, fmt):
    page = wizard.export_page
    page.ensure_built()
    combo = wizard.findChild(QComboBox, "exportFormatCombo")
    combo.setCurrentIndex(combo.findData(fmt))
    wizard.findChild(QCheckBox, "changedOnlyCheck").setChecked(True)
    page.regenerate()
    return wizard.findChild(QPlainTextEdit, "exportPreview").toPlainText()


def test_serving_asks_sleep_and_rl_mode_and_exports_the_launch_script(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    use_serving(wizard)
    wizard.memory_page.ensure_built()
    assert not wizard.findChild(QWidget, "allocatorGroup").isHidden()
    hint = wizard.findChild(QLabel, "memoryHint").text()
    assert "vLLM-Ascend" in hint
    sleep = wizard.findChild(QCheckBox, "vllmSleepModeCheck")
    rl = wizard.findChild(QCheckBox, "vllmRlModeCheck")
    assert not sleep.isHidden() and not rl.isHidden()
    # the serving stack's default: expandable segments on
    assert wizard.findChild(OptionEditor, "option_npu_alloc_expandable_segments").property("value") is True
    wizard.findChild(OptionEditor, "option_gpu_memory_utilization").setProperty("value", 0.8)
    text = export(wizard, "vllm-serve")
    assert 'exec vllm serve --gpu-memory-utilization 0.8 "$@"' in text
    # expandable_segments:False is written out (the serving default is True); RL mode would strip
    # it and leave the variable empty, which the start-up rewrite turns into a refused value.
    wizard.findChild(OptionEditor, "option_npu_alloc_expandable_segments").setProperty("value", False)
    assert "export PYTORCH_NPU_ALLOC_CONF='expandable_segments:False'" in export(wizard, "vllm-serve")
    rule = "whose leading comma torch_npu refuses"
    for ticked, word in ((False, "Note"), (True, "Warning")):
        rl.setChecked(ticked)
        export(wizard, "vllm-serve")
        assert {t.split(":")[0] for t in findings(wizard) if rule in t} == {word}
    assert not sleep.isChecked()


def test_serving_documentation_in_both_languages(make_wizard):
    from PySide6.QtGui import QAction

    wizard = make_wizard(device="Ascend910B3")
    use_serving(wizard)
    wizard.memory_page.ensure_built()
    wizard.show_option_doc("gpu_memory_utilization")
    doc = wizard.findChild(QTextBrowser, "docPane")
    assert "fraction of each NPU's total memory" in doc.toPlainText()
    wizard.findChild(QAction, "language_zh_CN").trigger()
    try:
        assert "服务可使用" in doc.toPlainText() and "--gpu-memory-utilization" in doc.toPlainText()
        assert "sleep 模式" in wizard.findChild(QCheckBox, "vllmSleepModeCheck").text()
    finally:
        wizard.findChild(QAction, "language_en").trigger()


def test_the_sleep_mode_note_shows_for_vllm_ascend_only(make_wizard):
    """The catalog's note on expandable segments and vLLM-Ascend's sleep mode (scoped to
    vllm-ascend) is under the row when serving with vLLM-Ascend, not for a PyTorch job."""
    wizard = make_wizard(device="Ascend910B3")
    usage = wizard.findChild(QComboBox, "usageCombo")
    usage.setCurrentIndex(usage.findData("pytorch"))
    wizard.memory_page.ensure_built()
    editor = wizard.findChild(OptionEditor, "option_npu_alloc_expandable_segments")
    notes = wizard.findChild(QLabel, "notes_npu_alloc_expandable_segments")
    editor.setProperty("value", True)
    assert wizard.controller.value("npu_alloc_expandable_segments") is True
    assert "sleep mode" not in notes.text()
    use_serving(wizard)
    assert wizard.controller.value("npu_alloc_expandable_segments") is True
    assert "sleep mode" in notes.text() and not notes.isHidden()
