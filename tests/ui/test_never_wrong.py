"""Issue 14 in the wizard, through the object names: the op_cache.ini CANN reads, what a save
writes so that CANN uses it, and the same answers as `diagnose --json` for the same inputs."""

from __future__ import annotations

import json

from cann_config.app.cli import main
from cann_config.ui import dialogs
from cann_config.ui.editors import OptionEditor
from PySide6.QtWidgets import QLabel, QLineEdit, QWidget

GOOD = (b"[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n"
        b"max_op_cache_size=400\nremain_cache_size_ratio=60\n")


def editor(wizard, oid):
    return wizard.findChild(OptionEditor, f"option_{oid}")


def no_cann_here(monkeypatch):
    import cann_config.ui.pages.cache_panels.state as state

    monkeypatch.setattr(state, "installed_op_cache_versions", lambda *a, **k: {})


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
    assert cann_path in wizard.findChild(QLabel, "cacheFindings").text()
    # The editors still show the opened file's values: they are what a save of it keeps.
    assert editor(wizard, "max_op_cache_size").property("value") == 400


def test_new_file_without_known_versions_asks_for_them_and_save_is_not_the_default(make_wizard, tmp_path,
                                                                                      monkeypatch, qtbot):
    no_cann_here(monkeypatch)
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(tmp_path / "cache"))
    seen = []
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: seen.append(dialog) or False)
    wizard = make_wizard(device="Ascend910B3")
    box = wizard.findChild(QWidget, "iniVersionsBox")
    assert not box.isHidden()
    assert "ignores" in wizard.findChild(QLabel, "iniStatus").text()
    assert "version.info" in wizard.findChild(QLabel, "iniVersionsNote").text()
    editor(wizard, "max_op_cache_size").setProperty("value", 2000)
    wizard.cache_page.ini_panel.review_and_save()
    dialog = seen[-1]
    assert not dialog.save_button.isDefault() and dialog.cancel_button.isDefault()
    assert "adk_version" not in dialog.diff_text
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
    assert wizard.cache_page.ini_panel.review_and_save() is False
    assert ini.read_bytes() == b"remain_cache_size_ratio=80\n"
    assert "outside any section" in wizard.findChild(QLabel, "iniStatus").text()


def test_diagnose_json_and_the_wizard_agree_on_every_effective_value(make_wizard, tmp_path, monkeypatch, capsys):
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
        resolution = wizard.cache_page.state.resolution
        for oid in ("max_op_cache_size", "remain_cache_size_ratio", "op_compiler_cache_mode"):
            mine = resolution.effective[oid]
            theirs = report["effective"][oid]
            assert (mine.value, mine.source, mine.file, mine.line) == \
                (theirs["value"], theirs["source"], theirs["file"], theirs["line"]), (name, oid)
        assert str(resolution.cache_dir.ini_path) == report["cache_dir"]["op_cache_ini"], name
