"""The npu-smi notes a bundle carries (written in the collector's language) are said again in the
reader's language: in the report, the findings and the device's notes."""

from __future__ import annotations

from pathlib import Path

import pytest

from cann_config.app.cli import main
from cann_config.app.device.hostprobe import note_message, notes_message
from cann_config.app.errors import Message

BUNDLES = Path(__file__).resolve().parents[2] / "data" / "bundles"
NOT_FOUND_EN = ("npu-smi was not found (looked on PATH and in /usr/sbin, /usr/bin); is the Ascend driver "
                "installed, and is this the host with the NPUs?")


def test_a_note_in_either_language_becomes_its_message():
    english = note_message(NOT_FOUND_EN)
    assert english.code == "devices-probe-not-found" and english.params == {"places": "/usr/sbin, /usr/bin"}
    chinese_text = english.text("zh_CN")
    assert chinese_text.startswith("未找到 npu-smi")
    assert note_message(chinese_text) == english
    assert note_message("npu-smi info -t board -i 0 -c 0 exited with status 3: boom").text("zh_CN") == \
        "npu-smi info -t board -i 0 -c 0 退出状态为 3：boom"


def test_a_note_no_template_matches_stays_as_written():
    assert note_message("something else happened") == Message.literal("something else happened")


def test_joined_notes_are_said_one_by_one():
    joined = f"{NOT_FOUND_EN}; npu-smi info: read 8 NPU chip(s).; a free remark"
    text = notes_message(joined).text("zh_CN")
    assert text.startswith("未找到 npu-smi") and "npu-smi info：读取到 8 个 NPU 芯片。" in text
    assert text.endswith("a free remark")


@pytest.mark.parametrize("lang, said, not_said", [("zh_CN", "未找到 npu-smi", "npu-smi was not found"),
                                                  ("en", "npu-smi was not found", "未找到 npu-smi")])
def test_the_report_says_the_note_in_the_readers_language(capsys, lang, said, not_said):
    main(["diagnose", "--bundle", str(BUNDLES / "no-device.json"), "--lang", lang])
    out = capsys.readouterr().out
    assert said in out and not_said not in out
