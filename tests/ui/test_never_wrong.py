"""Issue 14 in the wizard, through the object names: the op_cache.ini CANN reads, what a save
writes so that CANN uses it, and the same answers as `diagnose --json` for the same inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel, QLineEdit, QWidget

from cann_config.app.cli import main
from cann_config.ui import dialogs
from cann_config.ui.editors import OptionEditor
from tests.ui.conftest import wait_for_ini

GOOD = (b"[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n"
        b"max_op_cache_size=400\nremain_cache_size_ratio=60\n")


def editor(wizard, oid):
    return wizard.findChild(OptionEditor, f"option_{oid}")


def no_cann_here(monkeypatch):
    import cann_config.app.opcache.ini as ini

    monkeypatch.setattr(ini, "installed_op_cache_versions", lambda *a, **k: {})


def test_gui_ini_elsewhere_says_not_read_and_shows_what_cann_uses(make_wizard, tmp_path, monkeypatch):
    base = tmp_path / "cache"
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(base))
    monkeypatch.delenv("ASCEND_MAX_OP_CACHE_SIZE", raising=False)
    elsewhere = tmp_path / "elsewhere" / "op_cache.ini"
    elsewhere.parent.mkdir()
    elsewhere.write_bytes(GOOD)
    wizard = make_wizard(device="Ascend910B3", ini=elsewhere)
    cann_path = str(base / "kernel_cache" / "op_cache.ini")
    size = wizard.findChild(QLabel, "effective_max_op_cache_size").text()
    assert "500" in size and "op_cache.ini" not in size  # CANN's default, not the file's 400
    status = wizard.findChild(QLabel, "iniStatus").text()
    assert "not read by CANN" in status and cann_path in status
    assert cann_path in wizard.findChild(QLabel, "iniFindings").text()
    # The editors still show the opened file's values: they are what a save of it keeps.
    assert editor(wizard, "max_op_cache_size").property("value") == 400


def test_new_file_without_known_versions_asks_for_them_and_save_is_not_the_default(make_wizard, tmp_path,
                                                                                      monkeypatch, qtbot):
    no_cann_here(monkeypatch)
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(tmp_path / "cache"))
    seen = []
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: seen.append(dialog) or False)
    wizard = make_wizard(device="Ascend910B3")
    wait_for_ini(qtbot, wizard)
    box = wizard.findChild(QWidget, "iniVersionsBox")
    assert not box.isHidden()
    assert "ignores" in wizard.findChild(QLabel, "iniStatus").text()
    assert "version.info" in wizard.findChild(QLabel, "iniVersionsNote").text()
    editor(wizard, "max_op_cache_size").setProperty("value", 2000)
    # Issue 24 item 6: a file CANN would ignore is refused before any review, as export refuses it.
    assert wizard.cache_page.ini_panel.review_and_save() is False
    assert not seen and not (tmp_path / "cache").exists()
    assert "CANN would ignore the file" in wizard.findChild(QLabel, "iniSaveStatus").text()
    qtbot.keyClicks(wizard.findChild(QLineEdit, "iniAdkVersion"), "8.5.0")
    qtbot.keyClicks(wizard.findChild(QLineEdit, "iniOpsVersion"), "8.5.1")
    assert "ignores" not in wizard.findChild(QLabel, "iniStatus").text()
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: seen.append(dialog) or True)
    assert wizard.cache_page.ini_panel.review_and_save()
    dialog = seen[-1]
    assert dialog.save_button.isDefault()
    written = (tmp_path / "cache" / "kernel_cache" / "op_cache.ini").read_text(encoding="utf-8")
    assert "adk_version=8.5.0\n" in written and "ops_version=8.5.1\n" in written
    assert "max_op_cache_size=2000\n" in written and "remain_cache_size_ratio=50\n" in written


def test_wizard_refuses_an_edit_that_would_activate_orphaned_keys(make_wizard, tmp_path, monkeypatch):
    no_cann_here(monkeypatch)
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: True)
    ini = tmp_path / "op_cache.ini"
    ini.write_bytes(b"remain_cache_size_ratio=80\n")
    wizard = make_wizard(device="Ascend910B3", ini=ini)
    editor(wizard, "max_op_cache_size").setProperty("value", 1000)
    assert wizard.cache_page.ini_panel.review_and_save() is False  # no versions known: CANN would ignore it
    assert "CANN would ignore the file" in wizard.findChild(QLabel, "iniSaveStatus").text()
    for name, version in (("iniAdkVersion", "8.5.0"), ("iniOpsVersion", "8.5.0")):
        wizard.findChild(QLineEdit, name).textEdited.emit(version)
    assert wizard.cache_page.ini_panel.review_and_save() is False
    assert ini.read_bytes() == b"remain_cache_size_ratio=80\n"
    assert "outside any section" in wizard.findChild(QLabel, "iniSaveStatus").text()


def test_diagnose_json_and_the_wizard_agree_on_every_effective_value(make_wizard, qtbot, tmp_path, monkeypatch,
                                                                      capsys):
    """The same inputs (this host's environment with ASCEND_* set, the op_cache.ini CANN reads)
    to `diagnose --json` and to create_wizard: the same value and source for each cache option."""
    base = tmp_path / "cache"
    (base / "kernel_cache").mkdir(parents=True)
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(base))
    cases = {
        "ini used": (GOOD, {}),
        "ini without versions": (GOOD.replace(b"adk_version=8.5.0\n", b""), {"ASCEND_MAX_OP_CACHE_SIZE": "700"}),
        "only max in ini": (b"[op_compiler_cache]\nadk_version=1\nops_version=1\nmax_op_cache_size=300\n",
                            {"ASCEND_REMAIN_CACHE_SIZE_RATIO": "30"}),
        "env invalid": (None, {"ASCEND_MAX_OP_CACHE_SIZE": "0", "ASCEND_REMAIN_CACHE_SIZE_RATIO": "101"}),
    }
    ini = base / "kernel_cache" / "op_cache.ini"
    for name, (data, env) in cases.items():
        for var in ("ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO"):
            monkeypatch.delenv(var, raising=False)
        for var, value in env.items():
            monkeypatch.setenv(var, value)
        if data is None:
            ini.unlink(missing_ok=True)
        else:
            ini.write_bytes(data)
        main(["diagnose", "--json", "--lang", "en", "--framework", "tf1", "--device", "Ascend910B3"])
        report = json.loads(capsys.readouterr().out)
        wizard = make_wizard(device="Ascend910B3", framework="tf1")
        wait_for_ini(qtbot, wizard)
        resolution = wizard.cache_page.state.resolution
        for oid in ("max_op_cache_size", "remain_cache_size_ratio", "op_compiler_cache_mode"):
            mine = resolution.effective[oid]
            theirs = report["effective"][oid]
            assert (mine.value, mine.source, mine.file, mine.line) == \
                (theirs["value"], theirs["source"], theirs["file"], theirs["line"]), (name, oid)
        assert str(resolution.cache_dir.ini_path) == report["cache_dir"]["op_cache_ini"], name


# -- item 6: a greyed-out option whose value the device cannot take can be reset ------------------


def test_unavailable_value_has_its_own_reset(make_wizard):
    from PySide6.QtWidgets import QToolButton

    from cann_config.app.profile import Profile

    wizard = make_wizard(device="Ascend310P3", profile=Profile(options={"variable_use_1g_huge_page": 1}))
    wizard.memory_page.ensure_built()
    row_editor = editor(wizard, "variable_use_1g_huge_page")
    assert not row_editor.isEnabled()
    reset = wizard.findChild(QToolButton, "resetUnavailable_variable_use_1g_huge_page")
    assert not reset.isHidden() and reset.isEnabled()
    reset.click()
    assert "variable_use_1g_huge_page" not in wizard.controller.profile.options
    assert reset.isHidden()
    assert row_editor.property("value") == 0


# -- item 7: the close prompt covers the op_cache.ini edit too -------------------------------------


def test_close_prompt_offers_to_save_the_op_cache_ini_edit(make_wizard, tmp_path, monkeypatch, qtbot):
    no_cann_here(monkeypatch)
    base = tmp_path / "cache"
    (base / "kernel_cache").mkdir(parents=True)
    ini = base / "kernel_cache" / "op_cache.ini"
    ini.write_bytes(GOOD)
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(base))
    asked = []

    def ask(parent, details, *, choices=True, ini_path=None):
        asked.append((choices, ini_path))
        return "save-ini"

    monkeypatch.setattr(dialogs, "ask_unsaved", ask)
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: True)
    wizard = make_wizard(device="Ascend910B3")
    wizard.show()
    qtbot.waitExposed(wizard)
    wait_for_ini(qtbot, wizard)
    editor(wizard, "max_op_cache_size").setProperty("value", 1000)
    wizard.close()
    assert asked == [(True, str(ini))]
    assert b"max_op_cache_size=1000\n" in ini.read_bytes()
    assert not wizard.isVisible()


# -- item 4: bundle mode shows the customer's values on the export page too ------------------------


def export_as(wizard, fmt, *, changed_only):
    from PySide6.QtWidgets import QCheckBox, QComboBox

    page = wizard.export_page
    page.ensure_built()
    combo = wizard.findChild(QComboBox, "exportFormatCombo")
    combo.setCurrentIndex(combo.findData(fmt))
    wizard.findChild(QCheckBox, "changedOnlyCheck").setChecked(changed_only)
    page.regenerate()
    return page.result


def finding_texts(wizard):
    from PySide6.QtWidgets import QListWidget

    items = wizard.findChild(QListWidget, "findingsList")
    return [items.item(i).text() for i in range(items.count())]


def test_bundle_export_changes_only_what_differs_from_the_customer(make_wizard):
    from pathlib import Path

    bundles = Path(__file__).resolve().parents[1] / "data" / "bundles"
    wizard = make_wizard(bundle=bundles / "a2-910b3.json")
    c = wizard.controller
    assert c.ini is not None
    # The cache page names the source the bundle and `diagnose --bundle` name.
    diagnosis = c.bundle_diagnosis()
    assert diagnosis.cache_dir.variable == "ASCEND_CACHE_PATH"
    wizard.cache_page.ensure_built()
    dirs = wizard.findChild(QLabel, "cacheDirsLabel").text()
    assert "ASCEND_CACHE_PATH" in dirs and "set by op_compiler_cache_dir" not in dirs
    assert wizard.cache_page.state.dir_resolution.variable == "ASCEND_CACHE_PATH"
    result = export_as(wizard, "op-cache-ini", changed_only=True)
    assert result.data == c.ini.original  # nothing chosen yet: the customer's file as it is
    assert not any("not set" in text for text in finding_texts(wizard))
    tf1 = export_as(wizard, "tf1-estimator", changed_only=True).text
    assert "op_compiler_cache_dir=" not in tf1  # the customer's own directory is not a change
    editor(wizard, "max_op_cache_size").setProperty("value", 1234)
    result = export_as(wizard, "op-cache-ini", changed_only=True)
    assert b"max_op_cache_size=1234" in result.data


# -- item 5: one severity per rule, one name per device origin ------------------------------------


def severities(wizard, code_text):
    return {text.split(":")[0] for text in finding_texts(wizard) if code_text in text}


def test_concurrency_rule_has_the_same_severity_on_the_memory_and_export_pages(make_wizard):
    from PySide6.QtWidgets import QCheckBox

    from cann_config.app.profile import Profile

    wizard = make_wizard(device="Ascend910B3", profile=Profile(options={"static_memory_policy": 2}))
    wizard.memory_page.ensure_built()
    check = wizard.findChild(QCheckBox, "concurrentGraphsCheck")
    rule = "not supported when several graphs execute concurrently"
    for ticked, word in ((False, "Note"), (True, "Warning")):
        check.setChecked(ticked)
        notes = wizard.findChild(QLabel, "notes_static_memory_policy").text()
        assert f"<b>{word}:</b></span> 2 and 4 are {rule}" in notes
        export_as(wizard, "tf1-estimator", changed_only=False)
        assert severities(wizard, rule) == {word}


def test_device_chosen_by_hand_is_named_so_on_the_export_page(make_wizard):
    from cann_config.app.profile import Profile

    wizard = make_wizard(profile=Profile(options={"variable_use_1g_huge_page": 1}))
    wizard.controller.set_device_choice("Ascend310P3")
    export_as(wizard, "tf1-estimator", changed_only=False)
    refused = [t for t in finding_texts(wizard) if "variable_use_1g_huge_page" in t]
    assert refused and all("chosen by hand" in t and "from the profile" not in t for t in refused)


INI_FIXTURES = sorted((Path(__file__).resolve().parents[1] / "data" / "ini").glob("*.ini"))
ENV_FIXTURES = sorted((Path(__file__).resolve().parents[1] / "data" / "env").glob("*"))


@pytest.mark.parametrize("fixture", INI_FIXTURES, ids=lambda p: p.name)
def test_diagnose_and_the_wizard_agree_on_every_ini_fixture(fixture, make_wizard, qtbot, tmp_path, monkeypatch,
                                                             capsys):
    """Each op_cache.ini fixture, put where CANN reads it, to `diagnose --json` and to the wizard:
    the same value, source, file and line for every cache option, and the same path read."""
    base = tmp_path / "cache"
    (base / "kernel_cache").mkdir(parents=True)
    (base / "kernel_cache" / "op_cache.ini").write_bytes(fixture.read_bytes())
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(base))
    for var in ("ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO", "ACL_OP_COMPILER_CACHE_MODE"):
        monkeypatch.delenv(var, raising=False)
    no_cann_here(monkeypatch)
    main(["diagnose", "--json", "--lang", "en", "--framework", "tf1", "--device", "Ascend910B3"])
    report = json.loads(capsys.readouterr().out)
    wizard = make_wizard(device="Ascend910B3", framework="tf1")
    wait_for_ini(qtbot, wizard)
    resolution = wizard.cache_page.state.resolution
    for oid in ("max_op_cache_size", "remain_cache_size_ratio", "op_compiler_cache_mode", "op_compiler_cache_dir"):
        mine, theirs = resolution.effective[oid], report["effective"][oid]
        assert (mine.value, mine.source, mine.file, mine.line) == \
            (theirs["value"], theirs["source"], theirs["file"], theirs["line"]), oid
    assert str(resolution.cache_dir.ini_path) == report["cache_dir"]["op_cache_ini"]


@pytest.mark.parametrize("fixture", [p for p in ENV_FIXTURES if p.is_file()], ids=lambda p: p.name)
def test_diagnose_and_the_wizard_agree_on_every_env_fixture(fixture, make_wizard, tmp_path, monkeypatch, capsys):
    """Each env-file fixture's variables as this shell's environment, to `diagnose --json` and to
    the wizard: the same effective cache values with the same sources."""
    from cann_config.app.errors import InputError
    from cann_config.app.io.envfile import load_env_file

    try:
        env = load_env_file(fixture, base={"HOME": str(tmp_path)})
    except InputError:
        pytest.skip("not a usable env file (diagnose exits 2 on it; tests/app/io/test_envfile.py)")
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO",
                "ACL_OP_COMPILER_CACHE_MODE", "ACL_OP_COMPILER_CACHE_DIR"):
        monkeypatch.delenv(var, raising=False)
    for name, value in env.values.items():
        if name.startswith(("ASCEND_", "ACL_")) and "\0" not in value:
            monkeypatch.setenv(name, value)
    no_cann_here(monkeypatch)
    main(["diagnose", "--json", "--lang", "en", "--framework", "pytorch", "--device", "Ascend910B3"])
    report = json.loads(capsys.readouterr().out)
    resolution = make_wizard(device="Ascend910B3", framework="pytorch").cache_page.state.resolution
    for oid in ("max_op_cache_size", "remain_cache_size_ratio", "op_compiler_cache_mode"):
        mine, theirs = resolution.effective[oid], report["effective"][oid]
        assert (mine.value, mine.source) == (theirs["value"], theirs["source"]), oid
