"""The support workflow in the wizard: a customer's bundle opened at start or from the device
page, their host shown as `bundle.diagnosis()` resolves it, the suggested fixes applied on
request, the report shown and saved; a file that is not a bundle is one line and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QListWidget, QPushButton

from cann_config.app.support.bundle import load_bundle
from cann_config.app.support.diagnosis import diagnose
from cann_config.app.support.report import make_report, render_html, render_markdown, suggested_profile
from cann_config.ui import dialogs
from cann_config.ui.gauge import CacheGauge

BUNDLES = Path(__file__).resolve().parents[1] / "data" / "bundles"
A2 = BUNDLES / "a2-910b3.json"


@pytest.fixture(autouse=True)
def _no_modal_dialogs(monkeypatch):
    """No test waits on a dialog: closing with choices made discards them, and an error shown
    would fail the test that did not expect it."""
    def unexpected(parent, title, text):
        raise AssertionError(f"unexpected error dialog: {title}: {text}")

    monkeypatch.setattr(dialogs, "ask_unsaved", lambda *args, **kwargs: "discard")
    monkeypatch.setattr(dialogs, "show_error", unexpected)


def customer_diagnosis(wizard, bundle):
    c = wizard.controller
    return bundle.diagnosis(framework=c.profile.framework, device=c.device)


def wait_for_workers(qtbot, wizard):
    qtbot.waitUntil(lambda: all(w.isFinished() for w in wizard.workers), timeout=10000)


def assert_shows_the_customers_host(wizard, bundle):
    """Device, environment, op_cache.ini, effective values, gauge and findings are the bundle's."""
    c = wizard.controller
    assert c.bundle is bundle and c.device == bundle.device and c.device_origin == "bundle"
    assert wizard.device_page.device_combo.currentData() == bundle.device.soc_version
    banner = wizard.findChild(QLabel, "deviceBanner").text()
    assert bundle.source in banner and "from the support bundle" in banner
    assert c.environ == bundle.environ  # this computer's variables no longer count
    assert c.ini is bundle.op_cache_ini
    diagnosis = customer_diagnosis(wizard, bundle)
    page = wizard.cache_page
    assert page.state.resolution.effective == diagnosis.effective
    for oid in ("max_op_cache_size", "remain_cache_size_ratio"):
        effective = diagnosis.effective[oid]
        text = wizard.findChild(QLabel, f"effective_{oid}").text()
        assert f"CANN uses now: {effective.value} " in text and (effective.variable or effective.source) in text
    # The customer's values are the starting choices; nothing is unsaved yet.
    assert c.profile == suggested_profile(diagnosis, [])
    assert not c.dirty
    findings = wizard.findChild(QListWidget, "bundleFindings")
    shown = [findings.item(i).data(Qt.ItemDataRole.UserRole) for i in range(findings.count())]
    assert shown == [f.code for f in diagnosis.findings]
    with_fix = next(f for f in diagnosis.findings if f.fix_text())
    assert any(with_fix.fix_text() in findings.item(i).text() for i in range(findings.count()))
    assert wizard.findChild(QLabel, "bundleSummary").isVisibleTo(wizard.device_page)
    return diagnosis


def test_a_bundle_given_at_start_shows_the_customers_host(make_wizard, qtbot):
    bundle = load_bundle(A2)
    calls = []
    wizard = make_wizard(bundle=str(A2), probe=lambda timeout: calls.append(timeout))
    wizard.show()
    qtbot.waitExposed(wizard)
    assert calls == [] and wizard.workers == []  # no detection: the customer's host is not this one
    bundle = wizard.controller.bundle
    diagnosis = assert_shows_the_customers_host(wizard, bundle)
    page = wizard.cache_page
    # op_cache.ini is the customer's: shown, never saved here.
    ini_status = wizard.findChild(QLabel, "iniStatus").text()
    assert bundle.ini_path in ini_status and "customer's host" in ini_status
    assert not wizard.findChild(QPushButton, "saveIniButton").isEnabled()
    # The gauge is the bundle's measurement; the scan is off and says why.
    cleanup = bundle.cache.to_json()["socs"]["Ascend910B3"]["cleanup"]
    rows = wizard.findChild(CacheGauge, "cacheGauge").rows
    assert [(r.soc, r.used_bytes, r.limit_bytes, r.delete_bytes) for r in rows] == [
        ("Ascend910B3", cleanup["used_bytes"], cleanup["max_bytes"], cleanup["freed_bytes"])]
    scan = wizard.findChild(QPushButton, "scanButton")
    assert not scan.isEnabled() and "customer's host" in scan.toolTip()
    assert "customer's host" in wizard.findChild(QLabel, "scanStatus").text()
    page.usage_panel.toggle_scan()
    assert page.usage_panel.scan_worker is None
    cleanup = {f.code for f in bundle.cache_findings(diagnosis.effective)}
    assert "scan-over-limit" in cleanup
    assert "143 %" in wizard.findChild(QLabel, "scanFindings").text()


def test_apply_suggested_fixes_is_one_explicit_action(make_wizard, qtbot):
    wizard = make_wizard(bundle=A2)
    c = wizard.controller
    bundle = c.bundle
    before = c.profile
    button = wizard.findChild(QPushButton, "applyFixesButton")
    label = wizard.findChild(QLabel, "fixesLabel")
    assert button.isEnabled() and "remain_cache_size_ratio: 0 → 50" in label.text()
    assert before != bundle.suggested_profile(framework=c.profile.framework, device=c.device)
    button.click()
    assert c.profile == bundle.suggested_profile(framework=c.profile.framework, device=c.device)
    assert c.dirty and not button.isEnabled()
    # The export now carries the fix.
    formats = wizard.export_page.format_combo
    formats.setCurrentIndex(formats.findData("env-bash"))
    assert "ASCEND_REMAIN_CACHE_SIZE_RATIO=50" in wizard.export_page.preview.toPlainText()


def test_a_bundle_opened_from_the_device_page(make_wizard, qtbot, monkeypatch):
    bundle = load_bundle(A2)
    wizard = make_wizard(device="Ascend310P3")
    monkeypatch.setattr(dialogs, "choose_open_files", lambda *a, **k: [str(A2)])
    wizard.findChild(QPushButton, "openBundleButton").click()
    qtbot.waitUntil(lambda: wizard.controller.bundle is not None, timeout=10000)
    wait_for_workers(qtbot, wizard)
    assert not wizard.findChild(QLabel, "bundleStatus").isVisibleTo(wizard.device_page)
    assert wizard.controller.bundle.source == bundle.source
    assert_shows_the_customers_host(wizard, wizard.controller.bundle)
    # A detection that ends now does not replace the customer's device with this computer's.
    from tests.ui.conftest import host_probe

    wizard._detected(host_probe("Ascend310P3"))
    assert wizard.controller.device == bundle.device


def test_a_bundle_without_a_device_asks_for_one(make_wizard):
    wizard = make_wizard(bundle=BUNDLES / "no-device.json")
    assert wizard.controller.device is None
    assert "names no device" in wizard.findChild(QLabel, "deviceBanner").text()
    assert "does not exist there" in wizard.findChild(QLabel, "iniStatus").text()
    wizard.device_page.device_combo.setCurrentIndex(wizard.device_page.device_combo.findData("Ascend910B3"))
    assert wizard.controller.device.soc_version == "Ascend910B3" and wizard.controller.bundle is not None


def hostile_files(tmp_path):
    files = {"not JSON": b"{\"format\": \"cann-config-bundle\", \"version\": ",
             "a JSON array": b"[1, 2, 3]",
             "a profile": json.dumps({"format": "cann-config-profile", "version": 1}).encode(),
             "nested too deep": b"[" * 200000 + b"]" * 200000,
             "not UTF-8": b"\xff\xfe\x00<bundle>\n\x1b[31m"}
    paths = []
    for name, data in files.items():
        path = tmp_path / f"{name.replace(' ', '-')}.json"
        path.write_bytes(data)
        paths.append(path)
    return paths


def test_a_file_that_is_not_a_bundle_is_one_line_and_changes_nothing(make_wizard, qtbot, tmp_path):
    wizard = make_wizard(device="Ascend910B3")
    c = wizard.controller
    before = (c.profile, c.device, dict(c.environ), c.ini)
    status = wizard.findChild(QLabel, "bundleStatus")
    for path in [*hostile_files(tmp_path), tmp_path / "missing.json"]:
        worker = wizard.open_bundle(str(path))
        qtbot.waitUntil(worker.isFinished, timeout=20000)
        qtbot.waitUntil(lambda: status.text().startswith("Not opened"), timeout=10000)
        text = status.text()
        assert "\n" not in text and str(path) in text, text
        assert status.isVisibleTo(wizard.device_page)
        assert c.bundle is None and (c.profile, c.device, dict(c.environ), c.ini) == before
        assert not wizard.findChild(QLabel, "bundleSummary").isVisibleTo(wizard.device_page)
        assert wizard.device_page.open_bundle_button.isEnabled()


def test_a_hostile_bundle_is_shown_as_text(make_wizard, qtbot, tmp_path, monkeypatch):
    data = json.loads(A2.read_text(encoding="utf-8"))
    data["created"] = "<img src=x onerror=alert(1)>"
    data["tool_version"] = "\x1b[31mred\u202e"
    data["op_cache_ini"]["path"] = "/data/<b>bold</b>/op_cache.ini"
    data["environment"]["ASCEND_CACHE_PATH"] = "/data/<script>alert(1)</script>"
    data["npu_smi"]["info"] = "<h1>not npu-smi</h1>"
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    wizard = make_wizard(bundle=path)
    page = wizard.device_page
    for label in (page.banner, page.bundle_summary, wizard.cache_page.ini_panel.ini_status, wizard.cache_page.dirs_panel.dirs_label):
        assert "<img" not in label.text() and "<script" not in label.text() and "<b>bold" not in label.text()
    assert "&lt;img" in page.bundle_summary.text()
    shown = []
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: shown.append(dialog) or False)
    wizard.export_page.ensure_built()
    wizard.findChild(QPushButton, "reportButton").click()
    assert shown and "<script" not in shown[0].html and "<img" not in shown[0].html


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_the_report_of_a_bundle_is_shown_and_saved(make_wizard, qtbot, tmp_path, monkeypatch, lang):
    wizard = make_wizard(bundle=A2)
    if lang != "en":
        wizard.set_language(lang)
    bundle = wizard.controller.bundle
    shown = []
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: shown.append(dialog) or False)
    wizard.next()
    wizard.next()
    wizard.next()
    wizard.findChild(QPushButton, "reportButton").click()
    report = make_report(customer_diagnosis(wizard, bundle), bundle)
    dialog = shown[0]
    assert dialog.html == render_html(report, lang)
    assert dialog.view.toPlainText().strip()
    # Saved in the format the button names; the extension is added when the name has none.
    monkeypatch.setattr(dialogs, "choose_save_file", lambda *a, **k: str(tmp_path / "ticket"))
    assert dialog.save_markdown() == tmp_path / "ticket.md"
    assert (tmp_path / "ticket.md").read_text(encoding="utf-8") == render_markdown(report, lang)
    assert dialog.save_html() == tmp_path / "ticket.html"
    assert (tmp_path / "ticket.html").read_text(encoding="utf-8") == render_html(report, lang)
    assert str(tmp_path / "ticket.html") in dialog.findChild(QLabel, "reportStatus").text()
    dialog.close()


def test_the_report_without_a_bundle_describes_the_current_choices(make_wizard, monkeypatch, tmp_path):
    wizard = make_wizard(device="Ascend910B3", framework="tf2")
    wizard.controller.set_value("max_op_cache_size", 800)
    shown = []
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: shown.append(dialog) or False)
    wizard.findChild(QPushButton, "reportButton").click()
    c = wizard.controller
    expected = diagnose(device=c.device, framework="tf2", profile=c.profile)
    assert shown[0].html == render_html(make_report(expected), "en")
    assert expected.effective["max_op_cache_size"].value == 800
    # A refusal to write is shown, not raised.
    errors = []
    monkeypatch.setattr(dialogs, "show_error", lambda parent, title, text: errors.append(text))
    monkeypatch.setattr(dialogs, "choose_save_file", lambda *a, **k: str(tmp_path / "missing-dir" / "r.md"))
    assert shown[0].save_markdown() is None
    assert errors and "Not saved" in shown[0].findChild(QLabel, "reportStatus").text()


def test_every_text_of_the_support_workflow_is_translated_in_zh_CN(make_wizard, qtbot, monkeypatch):
    from tests.ui.test_translations import shown_texts, switch, untranslated

    wizard = make_wizard(bundle=A2)
    switch(wizard, "zh_CN")
    wizard.show()
    qtbot.waitExposed(wizard)
    problems = []
    for page_id in wizard.pageIds():
        while wizard.currentId() != page_id:
            wizard.next()
        page = wizard.currentPage()
        for name, text in shown_texts(page):
            if untranslated(text):
                problems.append(f"{page.objectName()} {name}: {text!r} has {untranslated(text)}")
    shown = []
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: shown.append(dialog) or False)
    wizard.findChild(QPushButton, "reportButton").click()
    dialog = shown[0]
    dialog.show()
    qtbot.waitExposed(dialog)
    problems += [f"report {name}: {text!r}" for name, text in shown_texts(dialog) if untranslated(text)]
    dialog.close()
    assert not problems, "\n".join(problems)
    assert "支持信息包" in wizard.device_page.bundle_box.title()
    assert '<html lang="zh-CN">' in dialog.html


@pytest.mark.parametrize("width, height", [(1240, 800), (1000, 700)])
def test_no_text_of_the_support_workflow_is_cut_off_in_zh_CN(make_wizard, qtbot, width, height):
    from tests.ui.test_screenshots_zh import cjk_font, clipped
    from tests.ui.test_translations import switch

    if not cjk_font():
        pytest.skip("needs a CJK font (apt-get install fonts-wqy-microhei)")
    wizard = make_wizard(bundle=A2)
    switch(wizard, "zh_CN")
    wizard.resize(width, height)
    wizard.show()
    qtbot.waitExposed(wizard)
    problems = []
    for _ in wizard.pageIds():
        for _ in range(3):  # the layouts settle in the event loop
            QApplication.processEvents()
        problems += [f"{wizard.currentPage().objectName()} {text}" for text in clipped(wizard)]
        wizard.next()
    assert not problems, "\n".join(problems)


def test_apply_and_the_export_preview_show_the_reports_fix(make_wizard):
    # Issue 24 item 4: the report, diagnose --json and the wizard show the same fix (app/support/fixes.py).
    wizard = make_wizard(bundle=A2)
    c = wizard.controller
    report = make_report(customer_diagnosis(wizard, c.bundle), c.bundle)
    wizard.findChild(QPushButton, "applyFixesButton").click()
    assert c.profile == report.profile
    formats = wizard.export_page.format_combo
    compared = 0
    for export in report.exports("en"):
        if export.format != "env-bash" or formats.findData(export.format) < 0:
            continue
        formats.setCurrentIndex(formats.findData(export.format))
        preview = wizard.export_page.preview.toPlainText().splitlines()
        for line in export.text.splitlines():
            if line.startswith("export "):
                assert line in preview, (export.format, line)
                compared += 1
    assert compared


def test_a_bundles_allocator_conflict_is_shown_as_it_is_and_fixed_on_apply(make_wizard, tmp_path):
    # Issue 24: the customer's expandable_segments:True beside max_split_size_mb is their value (an
    # error on memoryPage), and the suggested fix turns expandable segments off, keeping max_split.
    data = json.loads(A2.read_text(encoding="utf-8"))
    data["environment"]["PYTORCH_NPU_ALLOC_CONF"] = "expandable_segments:True,max_split_size_mb:64"
    bundle_path = tmp_path / "conflict.json"
    bundle_path.write_text(json.dumps(data), encoding="utf-8")
    wizard = make_wizard(bundle=bundle_path, framework="pytorch")
    c = wizard.controller
    assert c.value("npu_alloc_expandable_segments") is True and c.value("npu_alloc_max_split_size_mb") == 64
    shown = wizard.findChild(QLabel, "memoryFindings")
    assert not shown.isHidden() and "expandable_segments:True cannot be combined" in shown.accessibleDescription()
    wizard.findChild(QPushButton, "applyFixesButton").click()
    assert c.value("npu_alloc_expandable_segments") is False and c.value("npu_alloc_max_split_size_mb") == 64
    assert shown.isHidden()


# How each format says the report's env-bash lines (export NAME=VALUE, unset NAME).
_AS_FORMAT = {
    "env-bash": (lambda name, value: f"export {name}={value}", lambda name: f"unset {name}"),
    "env-fish": (lambda name, value: f"set -gx {name} {value}", lambda name: f"set -e {name}"),
    "torch-npu": (lambda name, value: f'os.environ["{name}"] = "{value.strip(chr(39))}"',
                  lambda name: f'os.environ.pop("{name}", None)'),
}


@pytest.mark.parametrize("environment", [
    # both allocator variables (an unset), a conflicting PYTORCH_NPU_ALLOC_CONF, a size in the env
    {"PYTORCH_NPU_ALLOC_CONF": "expandable_segments:True,max_split_size_mb:64",
     "PYTORCH_ALLOC_CONF": "max_split_size_mb:128"},
    {"PYTORCH_NPU_ALLOC_CONF": "expandable_segments:True,garbage_collection_threshold:0.6"},
])
def test_after_apply_every_env_format_previews_the_reports_lines(make_wizard, tmp_path, environment):
    # fixes2 item 1: after "Apply suggested fixes" the Export page's env-bash, env-fish and
    # torch-npu previews carry exactly the report's suggested settings and removals (diagnose --json's).
    from PySide6.QtWidgets import QComboBox, QPlainTextEdit

    data = json.loads(A2.read_text(encoding="utf-8"))
    data["environment"].update(environment)
    path = tmp_path / "customer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    wizard = make_wizard(bundle=str(path), framework="pytorch")
    c = wizard.controller
    report = make_report(customer_diagnosis(wizard, c.bundle), c.bundle)
    assert report.to_json("en")["suggested_exports"] == [{"format": e.format, "text": e.text}
                                                        for e in report.exports("en")]
    (suggested,) = [e.text for e in report.exports("en") if e.format == "env-bash"]
    sets = [line[len("export "):].split("=", 1) for line in suggested.splitlines() if line.startswith("export ")]
    unsets = [line.split()[1] for line in suggested.splitlines() if line.startswith("unset ")]
    assert sets and "ASCEND_REMAIN_CACHE_SIZE_RATIO" in unsets  # the size in the env: back to CANN's default
    assert ("PYTORCH_ALLOC_CONF" in unsets) == ("PYTORCH_ALLOC_CONF" in environment)
    wizard.findChild(QPushButton, "applyFixesButton").click()
    wizard.setCurrentId(wizard.pageIds()[3])
    combo = wizard.findChild(QComboBox, "exportFormatCombo")
    for fmt, (set_line, unset_line) in _AS_FORMAT.items():
        combo.setCurrentIndex(combo.findData(fmt))
        preview = wizard.findChild(QPlainTextEdit, "exportPreview").toPlainText().splitlines()
        for name, value in sets:
            assert set_line(name, value) in preview, (fmt, name)
        for name in unsets:
            assert preview.count(unset_line(name)) == 1, (fmt, name)
            if fmt == "torch-npu":  # before torch_npu and CANN read the environment
                assert preview.index(unset_line(name)) < preview.index("import torch")
    # the env-bash preview says every setting line of the report's export
    combo.setCurrentIndex(combo.findData("env-bash"))
    preview = wizard.findChild(QPlainTextEdit, "exportPreview").toPlainText().splitlines()
    assert all(line in preview for line in suggested.splitlines() if line and not line.startswith("#"))
    # a value chosen since then is not removed again by a stale line
    c.set_value("remain_cache_size_ratio", 60)
    preview = wizard.findChild(QPlainTextEdit, "exportPreview").toPlainText().splitlines()
    assert "unset ASCEND_REMAIN_CACHE_SIZE_RATIO" not in preview
    assert "export ASCEND_REMAIN_CACHE_SIZE_RATIO=60" in preview
