"""The cache page's Clean button (`cleanButton`): `cann-config clean` in a child process lists
what CANN means to delete, the user is asked with that list, and only then is it deleted under
CANN's lock; the numbers are measured again after."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QLabel, QPushButton

from cann_config.app.opcache.cleanup import predict_cleanup
from cann_config.app.opcache.scanner import scan_to_end
from cann_config.ui import dialogs
from tests.ui.test_cache_page import editor, make_cache_tree


def scanned_wizard(make_wizard, qtbot, base: Path):
    wizard = make_wizard(device="Ascend910B3")
    editor(wizard, "op_compiler_cache_dir").setProperty("value", str(base))
    clean = wizard.findChild(QPushButton, "cleanButton")
    assert not clean.isEnabled()  # nothing measured yet
    wizard.findChild(QPushButton, "scanButton").click()
    qtbot.waitUntil(clean.isEnabled, timeout=30_000)
    return wizard, clean


def test_clean_lists_asks_then_deletes_what_cann_means_to(make_wizard, qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_MAX_OP_CACHE_SIZE", "1")
    monkeypatch.setenv("ASCEND_REMAIN_CACHE_SIZE_RATIO", "50")
    kernel_cache = make_cache_tree(tmp_path / "cache")
    expected = predict_cleanup(scan_to_end(kernel_cache).socs["Ascend910B3"], 1, 50, atime_rule="noatime")
    assert 0 < len(expected.delete) < 40
    wizard, clean = scanned_wizard(make_wizard, qtbot, tmp_path / "cache")
    asked = []
    monkeypatch.setattr(dialogs, "confirm_clean", lambda parent, text, details: asked.append((text, details)) or True)
    status = wizard.findChild(QLabel, "scanStatus")
    clean.click()
    qtbot.waitUntil(lambda: "Deleted" in status.text() and clean.isEnabled(), timeout=60_000)
    text, details = asked[0]
    assert details.split("\n") == [g.json_path for g in expected.delete]
    assert f"Delete {len(expected.delete)} kernel groups" in text
    assert not any(Path(m.path).exists() for g in expected.delete for m in g.members)
    assert f"Deleted {len(expected.delete)} kernel groups" in status.text()
    # measured again: the SoC dir is now under its limit
    assert wizard.cache_page.usage_panel.usage.socs["Ascend910B3"].cann_bytes < 1024 * 1024


def test_declining_deletes_nothing(make_wizard, qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_MAX_OP_CACHE_SIZE", "1")
    kernel_cache = make_cache_tree(tmp_path / "cache")
    before = sorted(p.name for p in (kernel_cache / "Ascend910B3" / "kernel_meta").iterdir())
    wizard, clean = scanned_wizard(make_wizard, qtbot, tmp_path / "cache")
    monkeypatch.setattr(dialogs, "confirm_clean", lambda parent, text, details: False)
    status = wizard.findChild(QLabel, "scanStatus")
    clean.click()
    qtbot.waitUntil(lambda: "Nothing was deleted" in status.text(), timeout=60_000)
    assert sorted(p.name for p in (kernel_cache / "Ascend910B3" / "kernel_meta").iterdir()) == before


def test_under_the_limit_nothing_is_asked(make_wizard, qtbot, tmp_path, monkeypatch):
    make_cache_tree(tmp_path / "cache")  # 2.5 MiB, far under the default 500 MB
    wizard, clean = scanned_wizard(make_wizard, qtbot, tmp_path / "cache")
    monkeypatch.setattr(dialogs, "confirm_clean", lambda *a: (_ for _ in ()).throw(AssertionError("asked")))
    status = wizard.findChild(QLabel, "scanStatus")
    clean.click()
    qtbot.waitUntil(lambda: "CANN means to delete nothing" in status.text(), timeout=60_000)
