"""One host, one picture (issue 24, "Done when"): one fixture set of hosts and bundles run through
`scan`, `diagnose`, `fleet`, the report and the wizard; every view states the same limit, the same
prediction and the same fix, because each asks the same Host (app/support/host.py) and the same
measurement (app/opcache/measurement.py).

The fixtures:
- "ignored": a live host whose op_cache.ini CANN ignores (no version lines; 600 MB / 80 % written
  there) while the environment says 1 MB / 50 % - the first case of the issue, where the gauge
  used to draw the file's 600 MB as if CANN used it;
- "versions": a live host whose op_cache.ini was written by CANN 8.5.0 while 8.3.0 is installed:
  the next start empties the SoC dir;
- tests/data/bundles/a2-910b3.json: a customer's host (op_cache.ini of CANN 8.3.0, 8.5.0
  installed, 1 MB / 0 % from the environment), alone and as a fleet node.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton

from cann_config.app.cli import main
from cann_config.app.support.bundle import load_bundle
from cann_config.app.support.host import host_from_bundle
from cann_config.app.support.report import make_report, render_text
from cann_config.app.units import CANN_MB as MIB
from tests.app.support.test_diagnosis import fake_toolkit
from tests.ui.test_cache_page import make_cache_tree

DATA = Path(__file__).resolve().parents[1] / "data"
A2 = DATA / "bundles" / "a2-910b3.json"
SOC = "Ascend910B3"
IGNORED_INI = b"[op_compiler_cache]\nmax_op_cache_size=600\nremain_cache_size_ratio=80\n"
EMPTIES = "cache-next-start-empties-versions"


@pytest.fixture(autouse=True)
def _known_environment(monkeypatch, tmp_path):
    for name in ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO",
                 "ACL_OP_COMPILER_CACHE_MODE", "ACL_OP_COMPILER_CACHE_DIR", "ASCEND_WORK_PATH", "ASCEND_OPP_PATH",
                 "ASCEND_HOME_PATH", "GE_USE_STATIC_MEMORY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def live_host(tmp_path, monkeypatch, *, ini: bytes, installed: str, env: dict[str, str] | None = None) -> Path:
    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", str(fake_toolkit(tmp_path, installed)))
    base = tmp_path / "cache"
    kernel_cache = make_cache_tree(base, groups=40, size=64 * 1024)  # ~2.6 MB, 10 days old
    (kernel_cache / "op_cache.ini").write_bytes(ini)
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(base))
    for name, value in (env or {}).items():
        monkeypatch.setenv(name, value)
    return kernel_cache


def cli_json(capsys, *args):
    code = main([*args, "--json", "--lang", "en"])
    out, _ = capsys.readouterr()
    return code, json.loads(out)


def scan_in_wizard(make_wizard, qtbot):
    wizard = make_wizard(device=SOC)
    wizard.setCurrentId(wizard.pageIds()[2])  # the cache page
    page = wizard.cache_page.usage_panel
    qtbot.mouseClick(wizard.findChild(QPushButton, "scanButton"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.usage is not None and page.predictions() is not None
                    and (page.choice_settings() is None or page.predictions(page.choice_settings()) is not None),
                    timeout=30000)
    page.refresh()
    return wizard, page


def test_a_live_host_whose_ini_cann_ignores(make_wizard, qtbot, capsys, tmp_path, monkeypatch):
    live_host(tmp_path, monkeypatch, ini=IGNORED_INI, installed="8.5.0",
              env={"ASCEND_MAX_OP_CACHE_SIZE": "1", "ASCEND_REMAIN_CACHE_SIZE_RATIO": "50"})
    _, scanned = cli_json(capsys, "scan")
    _, diagnosed = cli_json(capsys, "diagnose", "--device", SOC)
    # The limit: 1 MB from the environment, in every view.
    assert scanned["limits"]["max_op_cache_size"]["value"] == 1
    assert scanned["limits"]["max_op_cache_size"]["source"] == "env"
    assert diagnosed["effective"]["max_op_cache_size"]["value"] == 1
    assert diagnosed["cache"]["limits"] == scanned["limits"]
    # The prediction: the same object.
    cleanup = scanned["socs"][SOC]["cleanup"]
    assert cleanup["triggers"] and cleanup["delete_bytes"] > 0
    assert diagnosed["cache"]["socs"][SOC]["cleanup"] == cleanup
    # The wizard: what CANN uses now, the same numbers; the file's 600 MB only as the user's choice.
    wizard, page = scan_in_wizard(make_wizard, qtbot)
    (row,) = page.gauge.rows
    assert row.limit_bytes == 1 * MIB == cleanup["max_bytes"]
    assert row.keep_bytes == cleanup["keep_threshold_bytes"]
    assert row.delete_bytes == cleanup["freed_bytes"]
    assert round(row.percent, 1) == cleanup["percent_of_limit"]
    assert row.choice is not None and row.choice.limit_bytes == 600 * MIB
    said = page.gauge.accessibleDescription()
    assert f"of 1 MB ({cleanup['percent_of_limit']:.0f} %)" in said
    assert "Your choice: 600 MB, 80 % kept" in said


def test_a_live_host_whose_next_start_empties_the_soc_dir(make_wizard, qtbot, capsys, tmp_path, monkeypatch):
    kernel_cache = live_host(tmp_path, monkeypatch, ini=(DATA / "ini" / "template.ini").read_bytes(), installed="8.3.0")
    _, scanned = cli_json(capsys, "scan")
    _, diagnosed = cli_json(capsys, "diagnose", "--device", SOC)
    size = scanned["socs"][SOC]["cann_bytes"]
    assert scanned["socs"][SOC]["empties_at_next_start"] == {"reason": "versions-differ", "bytes": size}
    (said_scan,) = [f for f in scanned["findings"] if f["code"] == EMPTIES]
    (said_diagnose,) = [f for f in diagnosed["findings"] if f["code"] == EMPTIES]
    assert said_scan == said_diagnose
    assert str(kernel_cache / SOC) in said_scan["message"] and said_scan["fix"]
    # The wizard: the gauge marks the whole dir, the cache page says the same finding.
    wizard, page = scan_in_wizard(make_wizard, qtbot)
    (row,) = page.gauge.rows
    assert row.empties and "next start empties it" in page.gauge.accessibleDescription()
    assert said_scan["message"] in wizard.findChild(QLabel, "scanFindings").text()


def test_a_bundle_alone_as_a_fleet_node_in_the_report_and_in_the_wizard(make_wizard, capsys):
    code, diagnosed = cli_json(capsys, "diagnose", "--bundle", str(A2))
    (said,) = [f for f in diagnosed["findings"] if f["code"] == EMPTIES]
    _, fleet = cli_json(capsys, "fleet", str(A2), str(DATA / "bundles" / "a3-910-9392.json"))
    (said_fleet,) = [f for f in fleet["node_findings"] if f["code"] == EMPTIES]
    assert said_fleet["node"] == "a2-910b3"
    assert {k: said_fleet[k] for k in said} == said  # the same message, place and fix
    # The limit: the same effective value in diagnose, fleet and the wizard.
    assert diagnosed["effective"]["max_op_cache_size"]["value"] == 1
    assert fleet["rows"][[r["key"] for r in fleet["rows"]].index("max_op_cache_size")]["cells"][0]["value"] == 1
    # The report says the finding and its fix.
    bundle = load_bundle(A2)
    report = render_text(make_report(host_from_bundle(bundle).diagnosis(), bundle), "en")
    assert said["message"] in report and said["fix"] in report
    # The wizard with the bundle: the same limit, the gauge marks the dir, the page says the finding.
    wizard = make_wizard(bundle=str(A2))
    page = wizard.cache_page.usage_panel
    page.refresh()
    assert page.cann_settings()[0] == 1
    (row,) = page.gauge.rows
    assert row.empties and row.limit_bytes == 1 * MIB
    assert said["message"] in wizard.findChild(QLabel, "scanFindings").text()


def test_the_export_preview_after_apply_is_the_reports_suggested_file(make_wizard, qtbot):
    """Issue 24's second case: for tests/data/bundles/ignored-ini.json (an op_cache.ini without
    version lines holding 600/80, the environment 400/50) diagnose and the report suggest "add the
    version lines, keep 600/80". With that bundle open, "Apply suggested fixes" is enabled (the
    customer's choices, 400/50 as CANN uses them now, do not hold the fix), and after it the Export
    page's op-cache-ini preview is the report's suggested op_cache.ini, byte for byte."""
    from PySide6.QtWidgets import QComboBox, QPlainTextEdit

    path = DATA / "bundles" / "ignored-ini.json"
    bundle = load_bundle(path)
    report = make_report(host_from_bundle(bundle).diagnosis(framework="pytorch"), bundle)
    (suggested,) = [e.text for e in report.exports("en") if e.format == "op-cache-ini"]
    assert "adk_version=8.5.0" in suggested and "max_op_cache_size=600" in suggested

    wizard = make_wizard(bundle=str(path), framework="pytorch")
    apply_button = wizard.findChild(QPushButton, "applyFixesButton")
    assert apply_button.isEnabled()
    apply_button.click()
    assert not apply_button.isEnabled(), wizard.device_page.pending_fixes()  # the choices now hold every suggested fix
    wizard.setCurrentId(wizard.pageIds()[3])
    combo = wizard.findChild(QComboBox, "exportFormatCombo")
    combo.setCurrentIndex(combo.findData("op-cache-ini"))
    preview = wizard.findChild(QPlainTextEdit, "exportPreview")
    assert preview.toPlainText() == suggested


def without_time(doc: dict) -> dict:
    """A measurement's document less what moves between two runs and what each view adds of its
    own: the walk's time, the free space, the cache dir's wording, and the findings about the
    inputs (the wizard shows those beside the op_cache.ini and environment, not under the gauge)."""
    data = {k: v for k, v in doc.items() if k not in ("elapsed_seconds", "filesystem", "findings", "cache_dir")}
    data["findings"] = sorted((f["severity"], f["code"], f["message"]) for f in doc["findings"]
                              if f["code"].startswith(("scan-", "cache-next-start-")))
    return data


@pytest.mark.parametrize("case", ["ignored", "versions"])
def test_the_gauge_is_the_measurement_scan_prints(make_wizard, qtbot, capsys, tmp_path, monkeypatch, case):
    """Issue 24 item 2: the wizard measures through app.opcache.measurement.measure_cache (in a
    worker), so its measurement is `scan --json`'s document for the same tree - limit, prediction,
    "the next start empties" - and the gauge's painted text says those numbers."""
    from cann_config.app.units import human_bytes

    if case == "ignored":
        live_host(tmp_path, monkeypatch, ini=IGNORED_INI, installed="8.5.0",
                  env={"ASCEND_MAX_OP_CACHE_SIZE": "1", "ASCEND_REMAIN_CACHE_SIZE_RATIO": "50"})
    else:
        live_host(tmp_path, monkeypatch, ini=(DATA / "ini" / "template.ini").read_bytes(), installed="8.3.0",
                  env={"ASCEND_MAX_OP_CACHE_SIZE": "1"})
    _, scanned = cli_json(capsys, "scan")
    wizard, page = scan_in_wizard(make_wizard, qtbot)
    measured = page.measurement().to_json("en")
    assert without_time(measured) == without_time(scanned)
    soc = scanned["socs"][SOC]
    cleanup = soc["cleanup"]
    said = page.gauge.accessibleDescription()
    limit = cleanup["max_bytes"]
    percent = 100 * cleanup["used_bytes"] / limit
    shown_percent = f"{percent:.0f}" if percent >= 10 else f"{percent:.1f}"  # as scan's text writes it
    assert f"{SOC}: {human_bytes(soc['cann_bytes'])} of {human_bytes(limit)} ({shown_percent} %)" in said
    assert f"{shown_percent} % of the limit" in "\n".join(page.measurement().soc_lines("en"))
    if case == "versions":
        assert soc["empties_at_next_start"] is not None and f"next start empties it ({human_bytes(soc['cann_bytes'])})" in said
    else:
        assert soc["empties_at_next_start"] is None
        assert f"next start deletes {human_bytes(cleanup['freed_bytes'])}" in said
    shown = html.unescape(wizard.findChild(QLabel, "scanFindings").text())
    assert all(f["message"] in shown for f in scanned["findings"] if f["code"].startswith(("scan-", "cache-next-start-")))


def test_the_gauge_names_canns_atime_refresh_as_scan_does(make_wizard, qtbot, capsys, tmp_path, monkeypatch):
    """Issue 30: on a relatime mount CANN's own parse read refreshes the ten-day-old access times
    before its re-check, so the next start deletes nothing; `scan` says why, and the gauge's painted
    text (its accessibleDescription) says it too."""
    from cann_config.app.opcache import scanner

    monkeypatch.setattr(scanner, "_read_mounts", lambda: f"tmpfs {tmp_path.anchor} tmpfs rw,relatime 0 0\n")
    live_host(tmp_path, monkeypatch, installed="8.5.0", ini=b"[op_compiler_cache]\nadk_version=8.5.0\n"
              b"ops_version=8.5.0\nmax_op_cache_size=1\nremain_cache_size_ratio=50\n")
    _, scanned = cli_json(capsys, "scan")
    cleanup = scanned["socs"][SOC]["cleanup"]
    assert cleanup["atime_rule"] == "relatime" and cleanup["triggers"] and cleanup["delete_groups"] == 0
    assert cleanup["read_saved_groups"] == 40
    (finding,) = [f for f in scanned["findings"] if f["code"] == "scan-cleanup-atime-refresh"]
    wizard, page = scan_in_wizard(make_wizard, qtbot)
    said = page.gauge.accessibleDescription()
    assert "next start deletes nothing" in said
    assert "CANN's own read refreshes these access times (40 kernel groups kept)" in said
    assert said == page.gauge.painted_text()
    assert finding["message"] in html.unescape(wizard.findChild(QLabel, "scanFindings").text())


def test_a_missing_op_cache_ini_is_said_by_the_gauge_as_by_scan(make_wizard, qtbot, capsys, tmp_path, monkeypatch):
    """CANN creates a missing op_cache.ini at the next start, which empties the SoC dir: the gauge
    marks the whole dir and the page says scan's warning."""
    kernel_cache = live_host(tmp_path, monkeypatch, ini=b"", installed="8.5.0")
    (kernel_cache / "op_cache.ini").unlink()
    _, scanned = cli_json(capsys, "scan")
    (said,) = [f for f in scanned["findings"] if f["code"] == "cache-next-start-empties-ini-missing"]
    wizard, page = scan_in_wizard(make_wizard, qtbot)
    (row,) = page.gauge.rows
    assert row.empties and "next start empties it" in page.gauge.accessibleDescription()
    assert page.measurement().to_json("en")["next_start_empties"]["reason"] == "ini-missing"
    assert said["message"] in html.unescape(wizard.findChild(QLabel, "scanFindings").text())


def test_a_bundles_file_cann_ignores_for_its_form_is_previewed_as_the_reports_new_file(make_wizard, tmp_path):
    """The customer's op_cache.ini starts with a BOM (CANN ignores it; the writer refuses to edit it):
    the report suggests the file written anew; after "Apply suggested fixes" the Export page's
    op-cache-ini preview is that file, byte for byte, not a refused edit of the old one."""
    import json

    from PySide6.QtWidgets import QComboBox, QPlainTextEdit

    data = json.loads((DATA / "bundles" / "ignored-ini.json").read_text(encoding="utf-8"))
    data["op_cache_ini"]["text"] = "\ufeff" + data["op_cache_ini"]["text"]
    path = tmp_path / "bom.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    bundle = load_bundle(path)
    report = make_report(host_from_bundle(bundle).diagnosis(framework="pytorch"), bundle)
    assert any(c.rewrite for c in report.changes)
    (suggested,) = [e.text for e in report.exports("en") if e.format == "op-cache-ini"]

    wizard = make_wizard(bundle=str(path), framework="pytorch")
    wizard.setCurrentId(wizard.pageIds()[3])
    combo = wizard.findChild(QComboBox, "exportFormatCombo")
    combo.setCurrentIndex(combo.findData("op-cache-ini"))
    assert wizard.export_page.result.refused  # before: an edit of a file CANN ignores is refused
    apply_button = wizard.findChild(QPushButton, "applyFixesButton")
    assert apply_button.isEnabled()
    apply_button.click()
    preview = wizard.findChild(QPlainTextEdit, "exportPreview")
    assert preview.toPlainText() == suggested
    assert not wizard.export_page.result.refused


def test_an_opened_ini_cann_does_not_read_leaves_the_gauge_to_canns_file(make_wizard, qtbot, capsys, tmp_path,
                                                                           monkeypatch):
    """An op_cache.ini opened elsewhere is not read by CANN: the gauge's "the next start empties" is
    decided by CANN's own file and its version lines, as `diagnose --ini` decides it."""
    from tests.ui.conftest import wait_for_ini

    kernel_cache = live_host(tmp_path, monkeypatch, ini=(DATA / "ini" / "template.ini").read_bytes(), installed="8.3.0")
    other = tmp_path / "elsewhere" / "op_cache.ini"
    other.parent.mkdir()
    other.write_bytes(b"[op_compiler_cache]\nadk_version=8.3.0\nops_version=8.3.0\n")
    _, diagnosed = cli_json(capsys, "diagnose", "--ini", str(other), "--device", SOC)
    assert diagnosed["cache"]["next_start_empties"]["file"] == str(kernel_cache / "op_cache.ini")
    wizard = make_wizard(device=SOC, ini=other)
    wizard.setCurrentId(wizard.pageIds()[2])
    wait_for_ini(qtbot, wizard)
    page = wizard.cache_page.usage_panel
    qtbot.mouseClick(wizard.findChild(QPushButton, "scanButton"), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.usage is not None and page.predictions() is not None, timeout=30000)
    page.refresh()
    assert not wizard.cache_page.state.read_by_cann
    (row,) = page.gauge.rows
    assert row.empties and "next start empties it" in page.gauge.accessibleDescription()
    assert page.measurement().to_json("en")["next_start_empties"] == diagnosed["cache"]["next_start_empties"]
