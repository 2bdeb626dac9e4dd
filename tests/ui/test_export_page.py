"""The export page: the preview is the core exporter's output for the current choices, always."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QListWidget, QPlainTextEdit, QPushButton

from cann_config.app.catalog import load_catalog
from cann_config.app.io.exporters import FORMATS, check_choices, export_text
from cann_config.app.io.formats import export_format, formats_for
from cann_config.app.profile import Profile
from cann_config.ui import dialogs
from cann_config.ui.editors import OptionEditor


def parts(wizard):
    return (wizard.findChild(QComboBox, "exportFormatCombo"), wizard.findChild(QPlainTextEdit, "exportPreview"),
            wizard.findChild(QCheckBox, "changedOnlyCheck"))


def expected(profile: Profile, fmt: str, changed_only: bool) -> str:
    # The device as `export --device` and `gui --device` know it: chosen by hand.
    from cann_config.app.device.table import device_from_choice

    device = device_from_choice(profile.device, source="manual") if profile.device else None
    return export_text(profile, fmt, changed_only=changed_only, device=device).text


def test_preview_follows_every_change_and_equals_the_exporter(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    combo, preview, changed_only = parts(wizard)
    catalog = load_catalog()
    # The wizard's Profile is built independently here, so a wrong Profile cannot hide.
    mine = Profile(framework="tf1", device="Ascend910B3")
    assert preview.toPlainText() == expected(mine, combo.currentData(), False)
    for option in catalog.on_page("memory"):
        for value_doc in option.values:
            edit = wizard.findChild(OptionEditor, f"option_{option.id}")
            if edit.property("value") != value_doc.value:  # setting the shown value again changes nothing
                mine = mine.with_value(option.id, value_doc.value)
            edit.setProperty("value", value_doc.value)
            assert wizard.controller.profile == mine
            for index in range(combo.count()):
                combo.setCurrentIndex(index)
                for flag in (False, True):
                    changed_only.setChecked(flag)
                    assert preview.toPlainText() == expected(mine, combo.itemData(index), flag), \
                        (option.id, value_doc.value, combo.itemData(index), flag)
    changed_only.setChecked(False)
    wizard.findChild(OptionEditor, "option_variable_use_1g_huge_page").setProperty("value", 1)
    device = wizard.findChild(QComboBox, "deviceCombo")
    device.setCurrentIndex(device.findData("Ascend310P3"))  # the choice becomes impossible
    mine = Profile(framework="tf1", device="Ascend310P3", options={**mine.options, "variable_use_1g_huge_page": 1})
    assert wizard.controller.profile == mine
    assert preview.toPlainText() == expected(mine, combo.currentData(), False)


def test_formats_are_those_of_the_framework_and_follow_the_usage(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    combo, preview, _ = parts(wizard)
    usage = wizard.findChild(QComboBox, "usageCombo")
    for index in range(usage.count()):
        usage.setCurrentIndex(index)
        framework = wizard.controller.profile.framework
        shown = [combo.itemData(i) for i in range(combo.count())]
        assert shown == list(formats_for(framework))
        assert set(shown) <= set(FORMATS)
        # Every format has its own name in the list (not its id) and the registry's file name.
        page = wizard.page(wizard.pageIds()[-1])
        assert all(combo.itemText(i) != combo.itemData(i) for i in range(combo.count())), shown
        assert all(page.suggested_name(fmt) == export_format(fmt).file_name for fmt in shown)
        assert preview.toPlainText() == expected(wizard.controller.profile, combo.currentData(), False)
    # Item data is the framework id; the usage (TF1 Estimator or sess.run) is in USAGE_ROLE.
    from cann_config.ui.pages.device import USAGE_ROLE

    usage.setCurrentIndex(usage.findData("tf1-session", USAGE_ROLE))
    assert combo.currentData() == "tf1-session" and usage.currentData() == "tf1"
    usage.setCurrentIndex(usage.findData("tf1-estimator", USAGE_ROLE))
    assert combo.currentData() == "tf1-estimator"


def test_findings_are_listed_with_their_severity(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    wizard.findChild(OptionEditor, "option_variable_use_1g_huge_page").setProperty("value", 1)
    device = wizard.findChild(QComboBox, "deviceCombo")
    device.setCurrentIndex(device.findData("Ascend310P3"))
    findings = wizard.findChild(QListWidget, "findingsList")
    texts = [findings.item(i).text() for i in range(findings.count())]
    wanted = check_choices(wizard.controller.profile, wizard.controller.device, wizard.controller.answers)
    assert any(f.severity == "error" for f in wanted)
    for finding in wanted:
        assert any(t.startswith({"error": "Error", "warning": "Warning", "info": "Note"}[finding.severity] + ":")
                   and finding.message() in t for t in texts), finding.code


def test_copy_puts_the_preview_on_the_clipboard(make_wizard, qtbot):
    wizard = make_wizard(device="Ascend910B3")
    wizard.findChild(OptionEditor, "option_static_memory_policy").setProperty("value", 2)
    assert wizard.controller.dirty
    qtbot.mouseClick(wizard.findChild(QPushButton, "copyButton"), Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == wizard.findChild(QPlainTextEdit, "exportPreview").toPlainText()
    assert not wizard.controller.dirty


def test_save_writes_the_export_and_says_where(make_wizard, tmp_path, monkeypatch):
    wizard = make_wizard(device="Ascend910B3")
    target = tmp_path / "out" / "snippet.py"
    target.parent.mkdir()
    target.write_text("old content\n")
    monkeypatch.setattr(dialogs, "choose_save_file", lambda *a, **k: str(target))
    wizard.findChild(OptionEditor, "option_static_memory_policy").setProperty("value", 2)
    wizard.findChild(QPushButton, "saveButton").click()
    assert target.read_text(encoding="utf-8") == wizard.findChild(QPlainTextEdit, "exportPreview").toPlainText()
    assert str(target) in wizard.export_page.status.text()
    assert [p.name for p in target.parent.iterdir()] == ["snippet.py"]  # no temporary file left


def test_save_to_an_unwritable_place_is_reported(make_wizard, tmp_path, monkeypatch):
    wizard = make_wizard(device="Ascend910B3")
    errors = []
    monkeypatch.setattr(dialogs, "choose_save_file", lambda *a, **k: str(tmp_path / "missing" / "x.py"))
    monkeypatch.setattr(dialogs, "show_error", lambda parent, title, text: errors.append(text))
    assert wizard.export_page.save() is False
    assert errors and "Not saved" in wizard.export_page.status.text()
    assert not Path(tmp_path / "missing").exists()


def test_saved_to_clears_when_the_snippet_changes_and_stays_over_a_language_switch(make_wizard, tmp_path,
                                                                                    monkeypatch):
    from tests.ui.test_translations import switch

    wizard = make_wizard(device="Ascend910B3")
    target = tmp_path / "cann_env.sh"
    monkeypatch.setattr(dialogs, "choose_save_file", lambda *a, **k: str(target))
    status = wizard.findChild(QLabel, "exportStatus")
    wizard.findChild(QPushButton, "saveButton").click()
    assert status.text() == f"Saved to {target}"
    wizard.export_page.regenerate()  # the same snippet again
    assert str(target) in status.text()
    switch(wizard, "zh_CN")  # the same snippet in other words: still saved there
    assert str(target) in status.text() and "已保存" in status.text()
    switch(wizard, "en")
    wizard.findChild(OptionEditor, "option_static_memory_policy").setProperty("value", 2)
    assert status.text() == ""
    wizard.findChild(QPushButton, "copyButton").click()
    assert status.text() == "Copied to the clipboard."
    wizard.findChild(OptionEditor, "option_static_memory_policy").setProperty("value", 0)
    assert status.text() == ""
    switch(wizard, "zh_CN")  # a cleared status is not brought back by a switch
    assert status.text() == ""


def _choose_format(wizard, fmt):
    combo = wizard.findChild(QComboBox, "exportFormatCombo")
    combo.setCurrentIndex(combo.findData(fmt))


def test_save_refuses_what_export_refuses_and_writes_nothing(make_wizard, tmp_path, monkeypatch):
    # Issue 24 items 6 and 7: the Save button follows `cann-config export`'s exit-1 decisions.
    import cann_config.app.opcache.ini as ini

    monkeypatch.setattr(ini, "installed_op_cache_versions", lambda *a, **k: {})
    chosen = []
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setattr(dialogs, "choose_save_file", lambda *a, **k: chosen.append(a) or str(out / "x"))
    wizard = make_wizard(device="Ascend910B3")
    wizard.findChild(OptionEditor, "option_max_op_cache_size").setProperty("value", 900)
    _choose_format(wizard, "op-cache-ini")
    assert wizard.export_page.result.refused  # no version lines known: CANN would ignore the file
    wizard.findChild(QPushButton, "saveButton").click()
    status = wizard.findChild(QLabel, "exportStatus").text()
    assert "Not saved" in status and "CANN would ignore the file" in status
    assert not chosen and list(out.iterdir()) == []
    # A choice the device cannot take (1 GB huge pages on an Ascend310P3): refused the same way.
    wizard = make_wizard(device="Ascend310P3")
    wizard.findChild(OptionEditor, "option_variable_use_1g_huge_page").setProperty("value", 1)
    _choose_format(wizard, "tf1-estimator")
    wizard.findChild(QPushButton, "saveButton").click()
    status = wizard.findChild(QLabel, "exportStatus").text()
    assert "Not saved" in status and "Ascend310P3" in status
    assert not chosen and list(out.iterdir()) == []
