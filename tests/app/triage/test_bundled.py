"""`collect --log FILE` keeps only the NPU memory error lines of a log (sanitized, the rest in
`left_out`), and `diagnose --bundle` (JSON, text and the report) triages them as `triage` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomllib

from cann_config.app.cli import main

DATA = Path(__file__).resolve().parents[2] / "data" / "triage"
CASES = {c["name"]: c for c in tomllib.loads((DATA / "public_errors.toml").read_text(encoding="utf-8"))["case"]}


@pytest.fixture
def customer(tmp_path, monkeypatch):
    """A customer's host with no Ascend device, a job env and a long training log."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PYTORCH_NPU_ALLOC_CONF", "max_split_size_mb:256")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret_value")
    (tmp_path / "home").mkdir()
    log = tmp_path / "train.log"
    lines = [f"step {i} loss 0.{i}" for i in range(1, 500)]
    lines.insert(100, "token=ghp_secret_value " + CASES["vllm-ascend-5020"]["text"].strip() + "\x1b[31m")
    lines.append(CASES["vllm-ascend-19"]["text"].strip())
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path, log


def test_collect_keeps_only_the_error_lines_and_diagnose_triages_them(customer, capsys):
    tmp_path, log = customer
    assert main(["collect", "--log", str(log), "-o", "b.json", "--lang", "en"]) == 0
    capsys.readouterr()
    raw = (tmp_path / "b.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    section = data["memory_errors"]
    assert [row["line"] for row in section["lines"]] == [101, 501]
    assert section["events"] == 2 and section["kept_events"] == 2
    assert "ghp_secret_value" not in raw and "<GITHUB_TOKEN removed>" in section["lines"][0]["text"]
    assert "\x1b" not in raw and "step 1 loss" not in raw
    assert any("499 other lines" in item["what"] for item in data["left_out"])

    assert main(["diagnose", "--bundle", "b.json", "--json", "--lang", "en"]) in (0, 1)
    report = json.loads(capsys.readouterr().out)
    events = report["triage"]["events"]
    assert [(e["line"], e["cause"]) for e in events] == [(101, "fragmentation"), (501, "held-outside")]
    # The suggestion starts from the bundle's own PYTORCH_NPU_ALLOC_CONF: max_split_size_mb replaced.
    assert events[0]["suggested"]["env"] == {"PYTORCH_NPU_ALLOC_CONF": "expandable_segments:True"}
    assert "triage-suggest-replaces" in [f["code"] for f in events[0]["findings"]]
    assert all(f["line"] == 101 for f in events[0]["findings"])

    main(["diagnose", "--bundle", "b.json", "--lang", "en"])
    text = capsys.readouterr().out
    assert "NPU memory errors" in text and "Line 101 of" in text and "fragmentation" in text
    main(["diagnose", "--bundle", "b.json", "--report", "r.md", "--lang", "zh_CN"])
    capsys.readouterr()
    assert "NPU 内存错误" in (tmp_path / "r.md").read_text(encoding="utf-8")


def test_a_bundle_without_a_log_says_how_to_collect_one(customer, capsys):
    tmp_path, _ = customer
    assert main(["collect", "-o", "b.json"]) == 0
    assert "memory_errors" not in json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))
    capsys.readouterr()
    main(["diagnose", "--bundle", "b.json", "--json"])
    assert json.loads(capsys.readouterr().out)["triage"] is None
    main(["diagnose", "--bundle", "b.json", "--lang", "en"])
    assert "collect --log FILE" in capsys.readouterr().out


def test_an_unusable_log_is_exit_2_and_no_bundle(customer, capsys):
    tmp_path, _ = customer
    binary = tmp_path / "core.bin"
    binary.write_bytes(b"\x00\x01")
    assert main(["collect", "--log", str(binary), "-o", "b.json"]) == 2
    assert not (tmp_path / "b.json").exists()
    assert str(binary) in capsys.readouterr().err
