"""One validation of the choices, live on every page (issue 24 item 7).

`deviceFindings`, `memoryFindings` and `cacheFindings` show the errors and warnings `cann-config
export` gives for the current choices (app.session.Session.page_findings over
app.io.exporters.check_choices), with the severity word and the CLI's words; each goes away when
the choice (or the device) is undone, and the Save buttons refuse what `export` refuses.
"""

from __future__ import annotations

import json

from PySide6.QtWidgets import QComboBox, QLabel, QToolButton

from cann_config.app.cli import main
from cann_config.ui.editors import OptionEditor
from tests.ui.conftest import wait_for_ini


def label(wizard, name):
    return wizard.findChild(QLabel, name)


def cli_refusal(capsys, *args):
    """What `cann-config export` prints for a choice it refuses (exit 1): its error lines' words."""
    code = main(["export", "env-bash", "--lang", "en", *args])
    err = capsys.readouterr().err
    assert code == 1
    return [line.split("error: ", 1)[1] for line in err.splitlines() if "error: " in line and "nothing exported" not in line]


def test_huge_pages_on_a_310p_from_an_import_on_the_device_and_memory_pages(make_wizard, tmp_path, capsys):
    profile = tmp_path / "mine.json"
    profile.write_text(json.dumps({"format": "cann-config-profile", "version": 1, "device": "Ascend310P3",
                                   "framework": "tf1", "options": {"variable_use_1g_huge_page": 1}}))
    wizard = make_wizard(device="Ascend310P3", profile=str(profile))
    (said,) = cli_refusal(capsys, "--framework", "tf1", "--device", "Ascend310P3", "--set", "variable_use_1g_huge_page=1")
    device, memory, cache = (label(wizard, n) for n in ("deviceFindings", "memoryFindings", "cacheFindings"))
    for shown in (device, memory):
        assert not shown.isHidden()
        assert shown.accessibleDescription() == f"Error: {said}"
        assert "Error:" in shown.text()
    assert cache.isHidden()
    # Another device that takes 1 GB huge pages: the device's finding goes, and the memory page's.
    wizard.controller.set_device_choice("Ascend910B3")
    assert device.isHidden() and memory.isHidden()
    wizard.controller.set_device_choice("Ascend310P3")
    assert not device.isHidden() and not memory.isHidden()
    # The export page's Save refuses it as `export` does.
    wizard.setCurrentId(wizard.pageIds()[3])
    assert wizard.export_page.save() is False
    assert said in wizard.findChild(QLabel, "exportStatus").text()
    # Undone: every page says nothing.
    wizard.findChild(QToolButton, "resetUnavailable_variable_use_1g_huge_page").click()
    assert device.isHidden() and memory.isHidden() and device.accessibleDescription() == ""


def test_a_cache_mode_mindspore_does_not_take_is_an_error_on_the_cache_page(make_wizard, qtbot, tmp_path, monkeypatch,
                                                                            capsys):
    base = tmp_path / "cache"
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(base))
    wizard = make_wizard(device="Ascend910B3", framework="pytorch")
    wizard.setCurrentId(wizard.pageIds()[2])
    wait_for_ini(qtbot, wizard)
    cache, memory, device = (label(wizard, n) for n in ("cacheFindings", "memoryFindings", "deviceFindings"))
    wizard.findChild(OptionEditor, "option_op_compiler_cache_mode").setProperty("value", "force")
    # A warning the row states already (the catalog's note on force) is not repeated.
    assert wizard.controller.value("op_compiler_cache_mode") == "force" and cache.isHidden()
    usage = wizard.findChild(QComboBox, "usageCombo")
    usage.setCurrentIndex(usage.findData("mindspore"))
    (said,) = cli_refusal(capsys, "--framework", "mindspore", "--set", "op_compiler_cache_mode=force")
    assert not cache.isHidden() and cache.accessibleDescription() == f"Error: {said}"
    assert memory.isHidden() and device.isHidden()
    # The cache page's Save of op_cache.ini refuses it as `export op-cache-ini` does: nothing written.
    panel = wizard.cache_page.ini_panel
    assert panel.review_and_save() is False
    assert said in label(wizard, "iniSaveStatus").text() and "Not saved" in label(wizard, "iniSaveStatus").text()
    assert not (base / "kernel_cache" / "op_cache.ini").exists()
    # Undone (back to PyTorch, which takes the mode): gone.
    usage.setCurrentIndex(usage.findData("pytorch"))
    assert cache.isHidden() and cache.accessibleDescription() == ""


def test_a_graph_cache_choice_pytorch_does_not_take_shows_on_the_cache_page_until_reset(make_wizard, capsys):
    wizard = make_wizard(device="Ascend910B3", framework="mindspore")
    wizard.controller.set_value("ms_compiler_cache_enable", "1")
    cache = label(wizard, "cacheFindings")
    assert cache.isHidden()  # MindSpore takes it
    usage = wizard.findChild(QComboBox, "usageCombo")
    usage.setCurrentIndex(usage.findData("pytorch"))
    (said,) = cli_refusal(capsys, "--framework", "pytorch", "--set", "ms_compiler_cache_enable=1")
    assert cache.accessibleDescription() == f"Error: {said}" and not cache.isHidden()
    assert label(wizard, "memoryFindings").isHidden()
    wizard.controller.reset_value("ms_compiler_cache_enable")
    assert cache.isHidden()
