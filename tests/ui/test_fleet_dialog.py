"""Several support bundles opened at once: the wizard shows the nodes side by side (fleetDialog)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel, QPushButton

from cann_config.ui import dialogs

BUNDLES = Path(__file__).resolve().parents[1] / "data" / "bundles"


@pytest.fixture
def three_bundles(tmp_path):
    base = json.loads((BUNDLES / "a2-910b3.json").read_text(encoding="utf-8"))
    paths = []
    for name, ratio in (("node-a", "0"), ("node-b", "0"), ("node-c", "30")):
        data = copy.deepcopy(base)
        data["environment"]["ASCEND_REMAIN_CACHE_SIZE_RATIO"] = ratio
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        paths.append(str(path))
    return paths


@pytest.fixture(autouse=True)
def _no_modal_dialogs(monkeypatch):
    def unexpected(parent, title, text):
        raise AssertionError(f"unexpected error dialog: {title}: {text}")

    monkeypatch.setattr(dialogs, "ask_unsaved", lambda *args: "discard")
    monkeypatch.setattr(dialogs, "show_error", unexpected)


def test_several_bundles_show_the_comparison(make_wizard, qtbot, monkeypatch, three_bundles):
    wizard = make_wizard(device="Ascend910B3")
    shown = []
    monkeypatch.setattr(dialogs, "choose_open_files", lambda *a, **k: list(three_bundles))
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: shown.append(dialog) or True)
    wizard.findChild(QPushButton, "openBundleButton").click()
    qtbot.waitUntil(lambda: bool(shown), timeout=15000)
    qtbot.waitUntil(lambda: all(w.isFinished() for w in wizard.workers), timeout=10000)
    dialog = shown[0]
    qtbot.addWidget(dialog)
    assert dialog.objectName() == "fleetDialog"
    table = dialog.table
    assert [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())] == ["node-a", "node-b", "node-c"]
    labels = [table.verticalHeaderItem(r).text() for r in range(table.rowCount())]
    # Exactly the ratio differs: it is marked, shown bold, and no other row is.
    marked = [label for label in labels if label.startswith("≠")]
    assert marked == ["≠ remain_cache_size_ratio"]
    row = labels.index("≠ remain_cache_size_ratio")
    assert [table.item(row, c).text() for c in range(3)] == ["0 (environment)", "0 (environment)",
                                                             "30 (environment)"]
    assert all(table.item(row, c).font().bold() for c in range(3))
    other = labels.index("max_op_cache_size")
    assert not any(table.item(other, c).font().bold() for c in range(3))
    assert dialog.differing_rows() == ["remain_cache_size_ratio"]
    assert "1 of" in dialog.findChild(QLabel, "fleetSummary").text()
    # The wizard itself still shows this computer: no bundle was opened into it.
    assert wizard.controller.bundle is None
    qtbot.waitUntil(wizard.device_page.open_bundle_button.isEnabled, timeout=5000)


def test_a_file_that_is_not_a_bundle_among_several_is_one_line(make_wizard, qtbot, monkeypatch, three_bundles,
                                                                 tmp_path):
    wizard = make_wizard(device="Ascend910B3")
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    monkeypatch.setattr(dialogs, "choose_open_files", lambda *a, **k: [*three_bundles, str(bad)])
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: pytest.fail("no comparison expected"))
    wizard.findChild(QPushButton, "openBundleButton").click()
    qtbot.waitUntil(lambda: all(w.isFinished() for w in wizard.workers) and wizard.device_page.open_bundle_button
                    .isEnabled(), timeout=15000)
    status = wizard.findChild(QLabel, "bundleStatus")
    assert "bad.json" in status.text() and status.isVisibleTo(wizard.device_page)
    assert wizard.controller.bundle is None


def test_every_node_has_a_column_and_home_only_rows_hide_until_asked(qtbot, tmp_path):
    """Six nodes, each its own user: every node is a column of bounded width (the table scrolls
    sideways), and the default cache dir $HOME/atc_data, which differs only by user, is hidden
    until fleetShowAll is checked."""
    from PySide6.QtWidgets import QCheckBox

    from cann_config.app.support.fleet import compare_bundles
    from cann_config.ui.fleet_dialog import MAX_COLUMN_WIDTH, FleetDialog

    base = json.loads((BUNDLES / "a2-910b3.json").read_text(encoding="utf-8"))
    paths = []
    for i in range(6):
        data = copy.deepcopy(base)
        data["environment"] = {"HOME": f"/home/a-rather-long-user-name-for-node-{i}"}
        if i == 5:
            data["environment"]["ASCEND_REMAIN_CACHE_SIZE_RATIO"] = "30"
        path = tmp_path / f"node-{i}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        paths.append(str(path))
    dialog = FleetDialog(compare_bundles(paths))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    table = dialog.table
    assert table.columnCount() == 6
    assert [table.horizontalHeaderItem(c).text() for c in range(6)] == [f"node-{i}" for i in range(6)]
    assert all(table.columnWidth(c) <= MAX_COLUMN_WIDTH for c in range(6))
    assert table.horizontalScrollBar().maximum() > 0  # the sixth node is a scroll away, not gone
    assert dialog.differing_rows() == ["remain_cache_size_ratio"]
    assert "op_compiler_cache_dir" not in dialog.shown_rows()
    show_all = dialog.findChild(QCheckBox, "fleetShowAll")
    assert show_all.isVisible()
    assert "hidden (op_compiler_cache_dir" in dialog.findChild(QLabel, "fleetSummary").text()
    show_all.setChecked(True)
    assert "op_compiler_cache_dir" in dialog.shown_rows()
    row = [r.key for r in dialog.comparison.rows].index("op_compiler_cache_dir")
    assert table.item(row, 0).toolTip() == "/home/a-rather-long-user-name-for-node-0/atc_data (default)"
    assert "they are not marked" in dialog.findChild(QLabel, "fleetSummary").text()


def test_a_node_whose_start_empties_its_cache_is_named_in_the_dialog(qtbot, tmp_path):
    from PySide6.QtWidgets import QListWidget

    from cann_config.app.support.fleet import compare_bundles
    from cann_config.ui.fleet_dialog import FleetDialog

    base = json.loads((BUNDLES / "a2-910b3.json").read_text(encoding="utf-8"))
    paths = []
    for name, adk in (("node-a", "8.5.0"), ("node-b", "8.0.0")):
        data = copy.deepcopy(base)
        data["op_cache_ini"]["text"] = (f"[op_compiler_cache]\nadk_version={adk}\nops_version=8.5.0\n"
                                        "max_op_cache_size=2048\nremain_cache_size_ratio=80\n")
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        paths.append(str(path))
    dialog = FleetDialog(compare_bundles(paths))
    qtbot.addWidget(dialog)
    assert "op_cache.ini adk_version" in dialog.differing_rows()
    findings = dialog.findChild(QListWidget, "fleetFindings")
    lines = [findings.item(i).text() for i in range(findings.count())]
    assert any(line.startswith("node-b: ") and "cache-next-start-empties-versions" in line for line in lines), lines
    assert not any(line.startswith("node-a: ") and "empties" in line for line in lines)
