"""`cann-config detect`: the right SoC and series from saved npu-smi output, exit 2 for garbage, never a traceback."""

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cann_config.app.cli import main
from cann_config.app.device.hostprobe import probe_host
from cann_config.app.i18n import current_language, set_language

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "npu-smi"


@pytest.fixture(autouse=True)
def _restore_language():
    before = current_language()
    yield
    set_language(before)


def detect_json(capsys, *args):
    code = main(["detect", "--json", "--lang", "en", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


@pytest.mark.parametrize("info,boards,soc,series", [
    ("a2-910b3.txt", [], "Ascend910B3", "atlas-a2"),
    ("a3-910-9392.txt", ["a3-board-0-0.txt", "a3-board-1-0.txt"], "Ascend910_9392", "atlas-a3"),
    ("310p3-duo.txt", [], "Ascend310P3", "atlas-inference"),
    ("310b4.txt", [], "Ascend310B4", "atlas-200i-500-a2"),
    ("training-910a.txt", [], "Ascend910A", "atlas-training"),
    ("training-910prob.txt", [], "Ascend910ProB", "atlas-training"),
    ("training-910b-nodigit.txt", [], "Ascend910B", "atlas-training"),
    ("950pr.txt", ["950pr-board-0.txt"], "Ascend950PR_9579", "ascend950"),
    ("a2-ticket-crlf.txt", [], "Ascend910B3", "atlas-a2"),
    ("wide-26x.txt", [], "Ascend910B2C", "atlas-a2"),
])
def test_detect_from_files(capsys, info, boards, soc, series):
    args = ["--npu-smi-info", str(DATA / info)]
    if boards:
        args += ["--npu-smi-board", *[str(DATA / b) for b in boards]]
    data = detect_json(capsys, *args)
    # the contract's keys, in order; "product" is additive (null unless the board names one)
    assert list(data) == ["soc_version", "series", "source", "npus", "notes", "product"]
    assert (data["soc_version"], data["series"], data["source"]) == (soc, series, "npu-smi output file")
    assert data["npus"] and all(set(n) == {"npu", "chip", "soc_version"} for n in data["npus"])


def test_repeated_board_option(capsys):
    data = detect_json(capsys, "--npu-smi-info", str(DATA / "a3-910-9392.txt"),
                       "--npu-smi-board", str(DATA / "a3-board-0-0.txt"), "--npu-smi-board", str(DATA / "a3-board-1-0.txt"))
    assert data["soc_version"] == "Ascend910_9392" and data["notes"] == []


def test_a3_without_board_says_what_to_run(capsys):
    data = detect_json(capsys, "--npu-smi-info", str(DATA / "a3-910-9392.txt"))
    assert data["soc_version"] is None and data["series"] is None
    assert any("npu-smi info -t board -i 0 -c 0" in n for n in data["notes"])


def test_board_file_alone(capsys):
    data = detect_json(capsys, "--npu-smi-board", str(DATA / "a3-board-0-0.txt"))
    assert data["soc_version"] == "Ascend910_9392"


@pytest.mark.parametrize("name", ["garbage-nvidia-smi.txt", "garbage-text.txt", "driver-error.txt", "header-only.txt"])
def test_garbage_exits_2_with_one_line_naming_the_file(capsys, name):
    path = str(DATA / name)
    assert main(["detect", "--npu-smi-info", path]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"cann-config: {path}: ")


def test_bad_board_file_exits_2(capsys):
    path = str(DATA / "board-without-chip.txt")
    assert main(["detect", "--npu-smi-info", str(DATA / "a3-910-9392.txt"), "--npu-smi-board", path]) == 2
    assert capsys.readouterr().err.startswith(f"cann-config: {path}: ")


def test_missing_file_exits_2(capsys, tmp_path):
    assert main(["detect", "--npu-smi-info", str(tmp_path / "nope.txt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nope.txt" in err and "cannot read" in err


def test_manual_device(capsys):
    data = detect_json(capsys, "--device", "Ascend310P3")
    assert (data["soc_version"], data["series"], data["source"]) == ("Ascend310P3", "atlas-inference", "manual")
    data = detect_json(capsys, "--device", "atlas-a2")
    assert (data["soc_version"], data["series"]) == (None, "atlas-a2")


def test_manual_device_errors(capsys):
    assert main(["detect", "--device", "nvidia-a100"]) == 2
    assert "--device" in capsys.readouterr().err
    assert main(["detect", "--device", "atlas-a2", "--npu-smi-info", str(DATA / "a2-910b3.txt")]) == 2
    assert "cannot be combined" in capsys.readouterr().err


def test_text_output_in_chinese(capsys):
    assert main(["detect", "--lang", "zh_CN", "--npu-smi-info", str(DATA / "310p3-duo.txt")]) == 0
    out = capsys.readouterr().out
    assert "设备：Atlas 推理系列产品 (Ascend310P3)" in out
    assert "来源：读取自 npu-smi 输出" in out and "NPU 5 芯片 1：Ascend310P3" in out


def test_text_output_lists_npus_and_notes(capsys):
    assert main(["detect", "--lang", "en", "--npu-smi-info", str(DATA / "mixed-910b3-910b4.txt")]) == 0
    out = capsys.readouterr().out
    assert "Series: Atlas A2 training/inference series [atlas-a2]" in out
    assert "NPU 2 chip 0: Ascend910B4" in out and "Notes:" in out and "different SoCs" in out


def test_probe_without_npu_smi(capsys, monkeypatch, tmp_path):
    # This host as the probe sees it when no driver is installed (a fake, empty `/`).
    monkeypatch.setattr("cann_config.app.cli.cmd_detect.probe_host", functools.partial(probe_host, root=tmp_path, environ={"PATH": ""}))
    data = detect_json(capsys)
    assert data["soc_version"] is None and data["series"] is None and data["source"] == "none"
    assert any("npu-smi was not found" in n for n in data["notes"])
    assert main(["detect", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "Device: unknown" in out and "How: not detected" in out and "CANN toolkit: unknown" in out


@pytest.mark.parametrize("option", ["--npu-smi-info", "--npu-smi-board"])
def test_every_fixture_gives_json_or_one_line(capsys, option):
    # In process, any exception other than the tool's own errors would escape main().
    for path in sorted(DATA.glob("*.txt")):
        code = main(["detect", "--json", "--lang", "en", option, str(path)])
        captured = capsys.readouterr()
        assert code in (0, 2), path
        if code == 0:
            assert json.loads(captured.out)["source"] == "npu-smi output file"
        else:
            assert captured.err.count("\n") == 1 and captured.err.startswith(f"cann-config: {path}: ")


def test_garbage_in_a_real_process_has_no_traceback():
    path = DATA / "garbage-nvidia-smi.txt"
    result = subprocess.run([sys.executable, "-m", "cann_config.app", "detect", "--json", "--npu-smi-info", str(path)],
                            capture_output=True, text=True, cwd=ROOT, env={**os.environ, "LANG": "C"}, timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"cann-config: {path}: not npu-smi info output: no device table (a header like " \
                            "'| NPU Name | Health ...' followed by NPU rows) was found\n"
