"""With "Used with: PyTorch" the memory page is torch_npu's allocator, and the export page's
preview is the torch-npu export of those choices."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QPlainTextEdit, QTextBrowser, QWidget

from cann_config.app.io.exporters import export_text
from cann_config.app.io.formats import formats_for
from cann_config.app.profile import Profile
from cann_config.ui.editors import OptionEditor

ALLOC = ("npu_alloc_expandable_segments", "npu_alloc_max_split_size_mb", "npu_alloc_garbage_collection_threshold",
         "npu_alloc_page_size", "npu_alloc_base_addr_aligned_kb")
TF_MEMORY = ("atomic_clean_policy", "static_memory_policy", "variable_use_1g_huge_page")


def editor(wizard, oid):
    return wizard.findChild(OptionEditor, f"option_{oid}")


def use_pytorch(wizard):
    usage = wizard.findChild(QComboBox, "usageCombo")
    usage.setCurrentIndex(usage.findData("pytorch"))
    assert wizard.controller.profile.framework == "pytorch"


def test_tf_frameworks_hide_the_allocator_and_say_why(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    page = wizard.findChild(QWidget, "memoryPage")
    wizard.setCurrentId(wizard.pageIds()[1])
    assert wizard.findChild(QWidget, "allocatorGroup").isHidden()
    hint = page.findChild(QLabel, "memoryHint")
    assert not hint.isHidden() and "PYTORCH_NPU_ALLOC_CONF" in hint.text() and "PyTorch" in hint.text()


def test_pytorch_shows_the_allocator_greys_memoryconfig_and_previews_torch_npu(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    use_pytorch(wizard)
    wizard.setCurrentId(wizard.pageIds()[1])
    assert not wizard.findChild(QWidget, "allocatorGroup").isHidden()
    for oid in ALLOC:
        assert editor(wizard, oid).isEnabled(), oid
        assert wizard.findChild(QLabel, f"reason_{oid}").isHidden()
    for oid in TF_MEMORY:
        assert not editor(wizard, oid).isEnabled()
        reason = wizard.findChild(QLabel, f"reason_{oid}")
        assert not reason.isHidden() and "PYTORCH_NPU_ALLOC_CONF" in reason.text()
    # The docs pane explains an allocator option when asked.
    docs = wizard.findChild(QTextBrowser, "docPane")
    wizard.findChild(QWidget, "memoryPage").docRequested.emit("npu_alloc_page_size")
    shown = docs.toPlainText()
    assert "1g" in shown and "driver (HDK) ≥ 25.0.RC1, CANN ≥ 8.1.RC1" in shown and "page_size:…" in shown
    # true/false in any case through the value property, written True/False.
    editor(wizard, "npu_alloc_expandable_segments").setProperty("value", "TRUE")
    assert wizard.controller.profile.options["npu_alloc_expandable_segments"] is True
    editor(wizard, "npu_alloc_base_addr_aligned_kb").setProperty("value", 8)
    # An unset number is set by ticking "Set"; the spin box only takes what torch_npu takes.
    split = editor(wizard, "npu_alloc_max_split_size_mb")
    assert split.property("value") == ""
    split.findChild(QCheckBox, "set_npu_alloc_max_split_size_mb").setChecked(True)
    assert isinstance(wizard.controller.profile.options["npu_alloc_max_split_size_mb"], int)
    assert wizard.controller.profile.options["npu_alloc_max_split_size_mb"] > 20
    split.setProperty("value", "")
    assert wizard.controller.profile.options.get("npu_alloc_max_split_size_mb", "") == ""
    wizard.setCurrentId(wizard.pageIds()[-1])
    combo = wizard.findChild(QComboBox, "exportFormatCombo")
    assert [combo.itemData(i) for i in range(combo.count())] == list(formats_for("pytorch"))
    assert [combo.itemData(i) for i in range(combo.count())] == ["torch-npu", "env-bash", "env-fish",
                                                                 "op-cache-ini", "profile", "ansible",
                                                                 "ansible-collect", "k8s-configmap"]
    combo.setCurrentIndex(combo.findData("torch-npu"))
    preview = wizard.findChild(QPlainTextEdit, "exportPreview").toPlainText()
    mine = Profile(framework="pytorch", device="Ascend910B3",
                   options={"npu_alloc_expandable_segments": True, "npu_alloc_base_addr_aligned_kb": 8})
    assert preview == export_text(mine, "torch-npu", device=wizard.controller.device).text
    assert 'os.environ["PYTORCH_NPU_ALLOC_CONF"] = "expandable_segments:True,base_addr_aligned_kb:8"' in preview
    assert preview.index("PYTORCH_NPU_ALLOC_CONF\"] =") < preview.index("import torch_npu")
    combo.setCurrentIndex(combo.findData("env-bash"))
    preview = wizard.findChild(QPlainTextEdit, "exportPreview").toPlainText()
    assert "export PYTORCH_NPU_ALLOC_CONF='expandable_segments:True,base_addr_aligned_kb:8'" in preview
    # A float option through its property; a combination torch_npu refuses is refused in the preview.
    editor(wizard, "npu_alloc_garbage_collection_threshold").setProperty("value", 0.6)
    assert wizard.controller.profile.options["npu_alloc_garbage_collection_threshold"] == 0.6
    preview = wizard.findChild(QPlainTextEdit, "exportPreview").toPlainText()
    assert "garbage_collection_threshold:0.6" not in preview.replace("# ", "\n").split("export ")[-1]
    assert "expandable_segments:True cannot be combined with garbage_collection_threshold" in preview


def test_page_size_is_greyed_on_a_device_without_1g_pages(make_wizard):
    wizard = make_wizard(device="Ascend310P3")
    use_pytorch(wizard)
    assert not editor(wizard, "npu_alloc_page_size").isEnabled()
    reason = wizard.findChild(QLabel, "reason_npu_alloc_page_size")
    assert not reason.isHidden() and "Ascend310P3" in reason.text()
    assert editor(wizard, "npu_alloc_expandable_segments").isEnabled()


def test_a_choice_export_refuses_is_an_error_on_the_memory_page_until_undone(make_wizard):
    # Issue 24 item 7: the CLI's validation (check_choices), its severity and words, live on memoryPage.
    from cann_config.app.io.exporters import check_choices

    wizard = make_wizard(device="Ascend910B3", framework="pytorch")
    shown = wizard.findChild(QWidget, "memoryPage").findChild(QLabel, "memoryFindings")
    assert shown.isHidden()
    editor(wizard, "npu_alloc_expandable_segments").setProperty("value", True)
    editor(wizard, "npu_alloc_max_split_size_mb").setProperty("value", 64)
    [refused] = [f for f in check_choices(wizard.controller.profile, wizard.controller.device) if f.severity == "error"]
    assert refused.code == "torchnpu-alloc-expandable-conflict"
    assert not shown.isHidden()
    assert "Error:" in shown.text() and refused.message("en") in shown.accessibleDescription()
    editor(wizard, "npu_alloc_expandable_segments").setProperty("value", False)  # undone
    assert shown.isHidden() and shown.accessibleDescription() == ""


def test_huge_pages_on_a_310p_reached_through_an_import_are_an_error_until_reset(make_wizard, tmp_path, qtbot):
    import json

    from PySide6.QtWidgets import QToolButton

    profile = tmp_path / "mine.json"
    profile.write_text(json.dumps({"format": "cann-config-profile", "version": 1, "device": "Ascend310P3",
                                   "framework": "tf1", "options": {"variable_use_1g_huge_page": 1}}))
    wizard = make_wizard(device="Ascend310P3", profile=str(profile))
    assert wizard.controller.value("variable_use_1g_huge_page") == 1
    shown = wizard.findChild(QWidget, "memoryPage").findChild(QLabel, "memoryFindings")
    assert not shown.isHidden()
    assert "Error:" in shown.text() and "variable_use_1g_huge_page = 1 cannot be used" in shown.accessibleDescription()
    assert "Ascend310P3" in shown.accessibleDescription()
    wizard.findChild(QToolButton, "resetUnavailable_variable_use_1g_huge_page").click()  # "Reset to the default"
    assert wizard.controller.value("variable_use_1g_huge_page") == 0
    assert shown.isHidden()
