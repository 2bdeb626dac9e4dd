"""`cann-config triage` on NPU memory errors from public issues (tests/data/triage/public_errors.toml):
every number in bytes, the line, the device and the cause, through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomllib

from cann_config.app.cli import main

DATA = Path(__file__).resolve().parents[2] / "data" / "triage"
CASES = tomllib.loads((DATA / "public_errors.toml").read_text(encoding="utf-8"))
UNITS = {"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def to_bytes(printed: str) -> int:
    number, unit = printed.split()
    return round(float(number) * UNITS[unit])


def triage_json(capsys, tmp_path, text: str, *args: str) -> tuple[int, dict]:
    log = tmp_path / "job.log"
    log.write_text(text.lstrip("\n"), encoding="utf-8")
    code = main(["triage", str(log), "--json", *args])
    out, err = capsys.readouterr()
    assert err == ""
    return code, json.loads(out)


def test_at_least_ten_cases_come_from_public_issues():
    public = [c for c in CASES["case"] if not c.get("variant")]
    assert len(public) + len(CASES["not_event"]) >= 10
    assert all(c["origin"].startswith("https://github.com/") or "docs" in c["origin"] for c in public)
    assert all(c["origin"] for c in CASES["case"] + CASES["not_event"])


@pytest.mark.parametrize("case", CASES["case"], ids=[c["name"] for c in CASES["case"]])
def test_public_error(capsys, tmp_path, case):
    code, data = triage_json(capsys, tmp_path, case["text"])
    assert code == 1
    assert len(data["events"]) == 1, data
    event = data["events"][0]
    assert event["kind"] == case["kind"]
    assert event["line"] == case["line"]
    assert event["device"] == case.get("device")
    assert event["cause"] == case["cause"]
    expected = {key: to_bytes(value) for key, value in case["expect"].items()}
    for key, value in expected.items():
        assert event["bytes"][key] == value, key
    b = event["bytes"]
    assert set(b) == {"requested", "total", "allocated", "reserved", "free", "allowed", "cached_unused", "held_outside"}
    assert all(v is None or isinstance(v, int) for v in b.values())
    if case["kind"] == "torch-npu-oom":
        assert b["cached_unused"] == b["reserved"] - b["allocated"]
        assert b["held_outside"] == max(b["total"] - b["reserved"] - b["free"], 0)
        assert b["allowed"] is None  # printed only with set_per_process_memory_fraction
    if case["kind"] == "serving-start-up":
        assert b["requested"] == round(b["total"] * case["gpu_memory_utilization"])
        assert b["held_outside"] == b["total"] - b["free"]
    if case["kind"] in ("mindspore-device-memory", "serving-kv-negative"):
        assert b["allocated"] is None and b["reserved"] is None
    assert event["findings"] and event["findings"][0]["severity"] == "error"


@pytest.mark.parametrize("case", CASES["not_event"], ids=[c["name"] for c in CASES["not_event"]])
def test_not_an_npu_memory_event(capsys, tmp_path, case):
    code, data = triage_json(capsys, tmp_path, case["text"])
    assert code == 0
    assert data["events"] == []
    assert [f["code"] for f in data["findings"]] == ["triage-none"]


def test_the_worked_numbers_of_the_facts_table(capsys, tmp_path):
    # The worked numbers of vllm-ascend #5020 (docs/cann/npu-memory.md): cached-unused and held-outside, GiB.
    case = next(c for c in CASES["case"] if c["name"] == "vllm-ascend-5020")
    _, data = triage_json(capsys, tmp_path, case["text"])
    b = data["events"][0]["bytes"]
    assert round(b["cached_unused"] / (1 << 30), 2) == 2.82
    assert round(b["held_outside"] / (1 << 30), 2) == 0.43


def test_a_whole_log_gives_every_event_in_line_order(capsys, tmp_path):
    text = "\n".join(c["text"].strip("\n") for c in CASES["case"] + CASES["not_event"])
    code, data = triage_json(capsys, tmp_path, text)
    assert code == 1
    assert [e["kind"] for e in data["events"]] == [c["kind"] for c in CASES["case"]]
    lines = [e["line"] for e in data["events"]]
    assert lines == sorted(lines)
    rows = text.splitlines()
    # Each event's line is the first line of its message.
    for event in data["events"]:
        row = rows[event["line"] - 1]
        assert any(word in row for word in ("NPU out of memory", "Free memory on device", "Available KV cache",
                                            "HCCL_BUFFSIZE is too SMALL", "Out of Memory!!!", "alloc size"))
