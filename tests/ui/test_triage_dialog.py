"""The memory page's "Paste an error" dialog shows what `cann-config triage` says for the same
text (the same events, numbers, causes, findings and suggestion), and Apply puts the suggested
allocator settings into the choices without leaving max_split_size_mb beside expandable segments."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
import tomllib
from PySide6.QtWidgets import QComboBox, QLabel, QPlainTextEdit, QPushButton, QWidget

from cann_config.app.cli import main
from cann_config.app.io.envfile import load_env_file

DATA = Path(__file__).resolve().parents[1] / "data" / "triage"
CASES = {c["name"]: c for c in tomllib.loads((DATA / "public_errors.toml").read_text(encoding="utf-8"))["case"]}


def cli_json(capsys, monkeypatch, text, *args):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8"))))
    main(["triage", "-", "--json", "--lang", "en", *args])
    return json.loads(capsys.readouterr().out)


def without_files(data):
    """The triage minus where it was read from (the CLI's <stdin>, the dialog's <pasted text>)."""
    for event in data["events"]:
        for finding in event["findings"]:
            finding.pop("file")
    for finding in data["findings"]:
        finding.pop("file")
    return data


def open_dialog(wizard, qtbot):
    page = wizard.findChild(QWidget, "memoryPage")
    wizard.setCurrentId(wizard.pageIds()[1])
    button = page.findChild(QPushButton, "pasteErrorButton")
    assert button is not None and not button.isHidden() and button.text()
    button.click()
    dialog = wizard.findChild(QWidget, "triageDialog")
    assert dialog is not None and dialog.isVisible()
    return dialog


@pytest.mark.parametrize("name", ["vllm-ascend-5020", "vllm-ascend-19", "vllm-ascend-8621", "hccl-variant"])
def test_the_paste_shows_what_the_cli_says(make_wizard, qtbot, capsys, monkeypatch, name):
    text = CASES[name]["text"]
    wizard = make_wizard(device="Ascend910B3")
    dialog = open_dialog(wizard, qtbot)
    dialog.findChild(QPlainTextEdit, "triagePasteEdit").setPlainText(text)
    assert without_files(dialog.triage.to_json("en")) == without_files(cli_json(capsys, monkeypatch, text))
    shown = dialog.findChild(QPlainTextEdit, "triageResult").toPlainText()
    assert f"cause: {CASES[name]['cause']}" in shown
    for finding in dialog.triage.events[0].findings:
        assert finding.message("en") in shown
    dialog.close()


def test_apply_puts_the_suggestion_into_the_choices(make_wizard, qtbot, capsys, monkeypatch, tmp_path):
    env = tmp_path / "job.env"
    env.write_text("export PYTORCH_NPU_ALLOC_CONF='max_split_size_mb:256,page_size:1g'\n", encoding="utf-8")
    wizard = make_wizard(device="Ascend910B3")
    usage = wizard.findChild(QComboBox, "usageCombo")
    usage.setCurrentIndex(usage.findData("pytorch"))
    controller = wizard.controller
    controller.set_env_file(load_env_file(env))
    controller.set_value("npu_alloc_max_split_size_mb", 256)
    dialog = open_dialog(wizard, qtbot)
    apply = dialog.findChild(QPushButton, "triageApplyButton")
    assert not apply.isEnabled()  # nothing pasted yet
    text = CASES["vllm-ascend-5020"]["text"]
    dialog.findChild(QPlainTextEdit, "triagePasteEdit").setPlainText(text)
    # The same as `triage --env-file`: the job's max_split_size_mb is replaced, page_size kept.
    expected = cli_json(capsys, monkeypatch, text, "--env-file", str(env), "--framework", "pytorch")
    assert without_files(dialog.triage.to_json("en")) == without_files(expected)
    assert dialog.triage.suggested_env() == {"PYTORCH_NPU_ALLOC_CONF": "page_size:1g,expandable_segments:True"}
    assert apply.isEnabled()
    apply.click()
    assert controller.value("npu_alloc_expandable_segments") is True
    assert controller.value("npu_alloc_page_size") == "1g"
    assert controller.value("npu_alloc_max_split_size_mb") == ""  # never beside expandable segments
    assert "Applied" in dialog.findChild(QLabel, "triageStatus").text()
    dialog.close()


def test_held_outside_offers_no_apply(make_wizard, qtbot):
    wizard = make_wizard(device="Ascend910B3")
    dialog = open_dialog(wizard, qtbot)
    dialog.findChild(QPlainTextEdit, "triagePasteEdit").setPlainText(CASES["vllm-ascend-19"]["text"])
    assert not dialog.findChild(QPushButton, "triageApplyButton").isEnabled()
    assert "npu-smi info" in dialog.findChild(QPlainTextEdit, "triageResult").toPlainText()
    dialog.findChild(QPlainTextEdit, "triagePasteEdit").setPlainText("all good\n")
    assert "No NPU memory error" in dialog.findChild(QLabel, "triageStatus").text()
    dialog.close()
