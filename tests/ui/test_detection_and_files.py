"""Detection in a worker (never holding the window), npu-smi output, and starting from files."""

from __future__ import annotations

import json

from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QListWidget

from cann_config.ui import dialogs
from cann_config.ui.editors import OptionEditor
from tests.ui.conftest import host_probe

NPU_SMI_310P = """\
+--------------------------------------------------------------------------------------------------------+
| npu-smi 25.2.0                                   Version: 25.2.0                                       |
+-------------------------------+-----------------+------------------------------------------------------+
| NPU     Name                  | Health          | Power(W)     Temp(C)           Hugepages-Usage(page) |
| Chip    Device                | Bus-Id          | AICore(%)    Memory-Usage(MB)                        |
+===============================+=================+======================================================+
| 2       310P3                 | OK              | NA           45                0     / 0             |
| 0       0                     | 0000:01:00.0    | 0            1529 / 44280                            |
+===============================+=================+======================================================+
"""


def test_a_hung_detection_does_not_block_the_window(make_wizard, qtbot, gate):
    def hung_probe(timeout):
        gate.wait()
        return host_probe("Ascend310P3")

    wizard = make_wizard(probe=hung_probe)
    banner = wizard.findChild(QLabel, "deviceBanner")
    wizard.show()
    qtbot.waitExposed(wizard)
    qtbot.waitUntil(gate.entered.is_set, timeout=10000)
    assert "Detecting" in banner.text()
    # The window works while npu-smi hangs: a device chosen by hand takes effect at once.
    combo = wizard.findChild(QComboBox, "deviceCombo")
    combo.setCurrentIndex(combo.findData("Ascend910B3"))
    assert wizard.findChild(OptionEditor, "option_variable_use_1g_huge_page").isEnabled()
    gate.open()
    qtbot.waitUntil(lambda: wizard.controller.detection_state == "done", timeout=10000)
    # The hand-made choice is kept; the banner says what was detected besides.
    assert wizard.controller.profile.device == "Ascend910B3"
    assert "Ascend310P3" in banner.text() and "Ascend910B3" in banner.text()


def test_detection_result_becomes_the_device(make_wizard, qtbot):
    wizard = make_wizard(probe=lambda timeout: host_probe("Ascend310P3"))
    wizard.show()
    qtbot.waitUntil(lambda: wizard.controller.detection_state == "done", timeout=10000)
    banner = wizard.findChild(QLabel, "deviceBanner").text()
    assert "Detected" in banner and "Ascend310P3" in banner and "8.5.0" in banner
    assert wizard.controller.profile.device == "Ascend310P3"
    assert not wizard.findChild(OptionEditor, "option_variable_use_1g_huge_page").isEnabled()


def test_no_device_found_says_what_was_tried(make_wizard, qtbot):
    wizard = make_wizard(probe=lambda timeout: host_probe(None))
    wizard.show()
    qtbot.waitUntil(lambda: wizard.controller.detection_state == "done", timeout=10000)
    banner = wizard.findChild(QLabel, "deviceBanner").text()
    assert "No Ascend device detected" in banner and "npu-smi was not found" in banner
    assert wizard.controller.device is None


def test_a_failing_probe_is_shown(make_wizard, qtbot):
    def broken(timeout):
        raise RuntimeError("driver exploded")

    wizard = make_wizard(probe=broken)
    wizard.show()
    qtbot.waitUntil(lambda: wizard.controller.detection_state == "failed", timeout=10000)
    assert "driver exploded" in wizard.findChild(QLabel, "deviceBanner").text()


def test_with_a_device_given_no_detection_runs(make_wizard, qtbot):
    calls = []
    wizard = make_wizard(device="Ascend910B3", probe=lambda timeout: calls.append(timeout))
    wizard.show()
    qtbot.waitExposed(wizard)
    for _ in range(3):  # a detection would be posted with a zero timer after the show
        QApplication.processEvents()
    assert calls == [] and [w for w in wizard.workers if w.objectName() != "iniReadWorker"] == []


def test_pasted_npu_smi_output_sets_the_device(make_wizard, monkeypatch):
    wizard = make_wizard(device="Ascend910B3")

    def paste(dialog):
        dialog.info_edit.setPlainText(NPU_SMI_310P)
        return True

    monkeypatch.setattr(dialogs, "run_dialog", paste)
    wizard.device_page.paste_button.click()
    assert wizard.controller.device.soc_version == "Ascend310P3"
    assert not wizard.findChild(OptionEditor, "option_variable_use_1g_huge_page").isEnabled()


def test_text_that_is_not_npu_smi_output_is_refused_with_a_message(make_wizard, monkeypatch):
    wizard = make_wizard(device="Ascend910B3")
    errors = []
    monkeypatch.setattr(dialogs, "show_error", lambda parent, title, text: errors.append(text))

    def paste(dialog):
        dialog.info_edit.setPlainText("hello world\n")
        return True

    monkeypatch.setattr(dialogs, "run_dialog", paste)
    wizard.device_page.paste_button.click()
    assert errors and wizard.controller.device.soc_version == "Ascend910B3"


def test_open_an_npu_smi_file(make_wizard, monkeypatch, tmp_path):
    wizard = make_wizard(device="Ascend910B3")
    path = tmp_path / "npu-smi.txt"
    path.write_text(NPU_SMI_310P)
    monkeypatch.setattr(dialogs, "choose_open_file", lambda *a, **k: str(path))
    wizard.device_page.open_smi_button.click()
    assert wizard.controller.device.soc_version == "Ascend310P3"


def test_start_from_a_profile_an_env_file_and_a_script(make_wizard, tmp_path):
    wizard = make_wizard(device="Ascend910B3")
    profile = tmp_path / "p.json"
    profile.write_text(json.dumps({"format": "cann-config-profile", "version": 1, "device": "Ascend310P3",
                                   "framework": "tf2", "options": {"static_memory_policy": 3}}))
    assert wizard.open_file(str(profile))
    assert wizard.controller.profile.framework == "tf2"
    assert wizard.controller.profile.options == {"static_memory_policy": 3}
    assert wizard.controller.device.soc_version == "Ascend310P3"
    env = tmp_path / "cann.sh"
    env.write_text("export ASCEND_MAX_OP_CACHE_SIZE=700\n")
    assert wizard.open_file(str(env))
    assert "700" in wizard.findChild(QLabel, "effective_max_op_cache_size").text()
    script = tmp_path / "train.py"
    script.write_text("from npu_bridge.npu_init import *\nmem = MemoryConfig(atomic_clean_policy=1)\n")
    assert wizard.open_file(str(script))
    assert wizard.controller.profile.options["atomic_clean_policy"] == 1
    imports = wizard.findChild(QListWidget, "importList")
    shown = [imports.item(i).text() for i in range(imports.count())]
    assert any(str(script) in t for t in shown)
    from cann_config.ui import settings

    assert settings.recent_files()[0] == str(script.resolve())


def test_a_broken_file_is_refused_with_its_reason(make_wizard, tmp_path, monkeypatch):
    wizard = make_wizard(device="Ascend910B3")
    errors = []
    monkeypatch.setattr(dialogs, "show_error", lambda parent, title, text: errors.append(text))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    before = wizard.controller.profile
    assert not wizard.open_file(str(bad))
    assert errors and str(bad) in errors[0]
    assert wizard.controller.profile == before


def test_a_script_read_like_its_author_meant_it(make_wizard, tmp_path):
    """set_option built key by key in a helper: taken, framework PyTorch; a value set at run
    time: listed as such in the import list, never taken as a value."""
    wizard = make_wizard(device="Ascend910B3")
    script = tmp_path / "train.py"
    script.write_text("import os\nimport torch\nimport torch_npu\n\n"
                      "def init_npu(local_rank):\n"
                      "    option = {}\n"
                      "    option['ACL_OP_COMPILER_CACHE_MODE'] = 'disable'\n"
                      "    torch.npu.set_option(option)\n"
                      "    os.environ['ASCEND_CACHE_PATH'] = f'/tmp/ascend_cache_{local_rank}'\n")
    assert wizard.open_file(str(script))
    profile = wizard.controller.profile
    assert profile.framework == "pytorch"
    assert profile.options["op_compiler_cache_mode"] == "disable"
    assert "op_compiler_cache_dir" not in profile.options
    imports = wizard.findChild(QListWidget, "importList")
    shown = [imports.item(i).text() for i in range(imports.count())]
    runtime = [t for t in shown if "op_compiler_cache_dir" in t and "run time" in t]
    assert runtime and any(f"{script}:9" in t for t in runtime), shown
    assert any("cannot take that value" in t for t in runtime)


def test_an_opened_script_lists_the_values_it_gave_with_their_lines(make_wizard, tmp_path):
    from tests.ui.test_translations import switch

    wizard = make_wizard(device="Ascend910B3")
    script = tmp_path / "train.py"
    script.write_text("from npu_bridge.npu_init import *\n\n"
                      "mem = MemoryConfig(atomic_clean_policy=1,\n"
                      "                   static_memory_policy=2)\n")
    assert wizard.open_file(str(script))
    imports = wizard.findChild(QListWidget, "importList")
    shown = [imports.item(i).text().strip() for i in range(imports.count())]
    assert shown[:3] == [f"Read {script}, took:", "atomic_clean_policy = 1 (line 3)",
                         "static_memory_policy = 2 (line 4)"], shown
    empty = tmp_path / "empty.py"
    empty.write_text("print('nothing for CANN here')\n")
    assert wizard.open_file(str(empty))
    shown = [imports.item(i).text().strip() for i in range(imports.count())]
    assert f"Read {empty}: no setting taken from it" in shown
    switch(wizard, "zh_CN")
    shown = [imports.item(i).text().strip() for i in range(imports.count())]
    assert "atomic_clean_policy = 1 （第 3 行）" in shown, shown
    assert f"已读取 {script}，采用了：" in shown, shown


def test_the_paste_dialog_says_what_it_recognises_while_the_user_pastes(make_wizard, qtbot):
    from pathlib import Path

    from PySide6.QtWidgets import QDialogButtonBox, QPlainTextEdit

    from cann_config.ui.npusmi_dialog import NpuSmiDialog
    from tests.ui.test_translations import switch

    data = Path(__file__).resolve().parents[1] / "data" / "npu-smi"
    wizard = make_wizard(device=None)
    dialog = NpuSmiDialog(wizard)
    qtbot.addWidget(dialog)
    said = dialog.findChild(QLabel, "npuSmiRecognised")
    ok = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
    info = dialog.findChild(QPlainTextEdit, "npuSmiInfoEdit")
    assert "Paste the output" in said.text() and not ok.isEnabled()
    text = (data / "a2-910b3.txt").read_text(encoding="utf-8")
    info.insertPlainText(text[:120])  # the first lines only: no device table yet, and why
    assert said.text().startswith("Not recognised: ") and "no device table" in said.text()
    info.insertPlainText(text[120:])
    assert said.text() == "Recognised: Atlas A2 training/inference series (Ascend910B3)" and ok.isEnabled()
    info.setPlainText((data / "a3-910-9392.txt").read_text(encoding="utf-8"))
    assert said.text().startswith("No SoC recognised.") and "npu-smi info -t board -i 0 -c 0" in said.text()
    dialog.findChild(QPlainTextEdit, "npuSmiBoardEdit").setPlainText(
        (data / "a3-board-0-0.txt").read_text(encoding="utf-8"))
    assert said.text().startswith("Recognised: ") and "Ascend910_93" in said.text(), said.text()
    switch(wizard, "zh_CN")
    info.setPlainText(text)
    assert said.text().startswith("已识别：") and "Ascend910B3" in said.text()


def test_scripts_in_other_encodings_and_with_surrogates_open_as_python_reads_them(make_wizard):
    """A GBK script's cache dir arrives as Python decodes it; lone surrogates in literals are
    findings in the import list, never an uncaught exception."""
    from pathlib import Path

    encodings = Path(__file__).resolve().parents[1] / "data" / "scripts" / "encodings"
    wizard = make_wizard(device="Ascend910B3")
    assert wizard.open_file(str(encodings / "gbk_cookie.py"))
    assert wizard.controller.profile.options["op_compiler_cache_dir"] == "/data/缓存"
    editor = wizard.findChild(OptionEditor, "option_op_compiler_cache_dir")
    assert editor.property("value") == "/data/缓存"
    imports = wizard.findChild(QListWidget, "importList")
    shown = [imports.item(i).text() for i in range(imports.count())]
    assert any("gbk" in t for t in shown), shown
    assert wizard.open_file(str(encodings / "surrogates.py"))
    assert wizard.controller.profile.options["op_compiler_cache_dir"] == "/data/缓存"  # nothing bad taken
