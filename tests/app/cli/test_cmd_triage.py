"""`cann-config triage`: variants of the messages (log prefixes, both torch_npu forms, each size
unit, wrapped lines), the suggestions and the exports that apply them (each passes `diagnose`
without an error), exit status 0/1/2, stdin, --lang."""

from __future__ import annotations

import io
import json
import sys

import pytest

from cann_config.app.cli import main

OLD = ("RuntimeError: NPU out of memory. Tried to allocate {req} (NPU {dev}; {total} total capacity; {alloc} already "
       "allocated; {alloc} current active; {free} free; {reserved} reserved in total by PyTorch) If reserved memory "
       "is >> allocated memory try setting max_split_size_mb to avoid fragmentation.")
NEW = ("torch.OutOfMemoryError: NPU out of memory. Tried to allocate {req} (NPU {dev}; {total} total capacity; "
       "{alloc} already allocated; {alloc} current active; {free} free; {reserved} reserved in total by "
       "PyTorch).If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.")
FRAGMENTED = {"req": "2.00 GiB", "dev": 0, "total": "60.96 GiB", "alloc": "55.91 GiB", "free": "1.80 GiB",
              "reserved": "58.73 GiB"}


def triage(capsys, tmp_path, text, *args):
    log = tmp_path / "job.log"
    log.write_text(text, encoding="utf-8")
    code = main(["triage", str(log), *args])
    out, err = capsys.readouterr()
    return code, out, err


def events(capsys, tmp_path, text, *args):
    code, out, err = triage(capsys, tmp_path, text, "--json", *args)
    assert code in (0, 1), err
    return json.loads(out)["events"]


@pytest.mark.parametrize("form", [OLD, NEW], ids=["RuntimeError", "OutOfMemoryError"])
@pytest.mark.parametrize("prefix", ["", "[rank3]:", "(VllmWorker TP0 pid=4021) ERROR 12-01 10:00:01 [multiproc_executor.py:671] ",
                                    "2026-12-01 10:00:01,123 - ERROR - "])
def test_both_forms_behind_log_prefixes(capsys, tmp_path, form, prefix):
    found = events(capsys, tmp_path, "INFO starting\n" + prefix + form.format(**FRAGMENTED) + "\n")
    assert [(e["kind"], e["line"], e["device"], e["cause"]) for e in found] == [("torch-npu-oom", 2, 0, "fragmentation")]
    assert found[0]["bytes"]["requested"] == 2 << 30


@pytest.mark.parametrize(("printed", "expected"), [
    ("512 bytes", 512), ("1.50 KiB", 1536), ("22.00 MiB", 22 << 20), ("3.47 GiB", round(3.47 * (1 << 30)))])
def test_each_size_unit(capsys, tmp_path, printed, expected):
    text = OLD.format(req=printed, dev=7, total="60.96 GiB", alloc="10.00 GiB", free="1.00 GiB", reserved="10.00 GiB")
    found = events(capsys, tmp_path, text)
    assert found[0]["bytes"]["requested"] == expected
    assert found[0]["device"] == 7


def test_a_message_wrapped_over_lines_keeps_its_first_line(capsys, tmp_path):
    text = ("[rank0]: RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.96 GiB total capacity;\n"
            "[rank0]: 55.91 GiB already allocated; 55.91 GiB current active; 1.80 GiB free;\n"
            "[rank0]: 58.73 GiB reserved in total by PyTorch)\n")
    found = events(capsys, tmp_path, text)
    assert [(e["line"], e["bytes"]["reserved"]) for e in found] == [(1, round(58.73 * (1 << 30)))]


def test_allowed_is_read_when_printed_and_decides_fraction_limit(capsys, tmp_path):
    text = ("RuntimeError: NPU out of memory. Tried to allocate 4.00 GiB (NPU 1; 60.96 GiB total capacity; 28.00 GiB "
            "already allocated; 28.00 GiB current active; 30.00 GiB free; 30.00 GiB allowed; 29.00 GiB reserved in "
            "total by PyTorch)")
    found = events(capsys, tmp_path, text)
    assert found[0]["bytes"]["allowed"] == 30 << 30
    assert found[0]["cause"] == "fraction-limit"
    assert found[0]["suggested"]["env"] == {}


def test_capacity_wins_when_the_request_cannot_fit(capsys, tmp_path):
    # Much is cached but unused, yet allocated + requested > total: capacity whatever else holds memory.
    text = OLD.format(req="10.00 GiB", dev=0, total="60.96 GiB", alloc="52.00 GiB", free="0.50 GiB",
                      reserved="60.00 GiB")
    found = events(capsys, tmp_path, text)
    assert found[0]["cause"] == "capacity"
    assert found[0]["suggested"]["env"] == {}


def env_file(tmp_path, **values):
    path = tmp_path / "job.env"
    path.write_text("".join(f"export {k}='{v}'\n" for k, v in values.items()), encoding="utf-8")
    return path


def diagnose_errors(capsys, path):
    main(["diagnose", "--env-file", str(path), "--framework", "pytorch", "--json", "--lang", "en"])
    out, _ = capsys.readouterr()
    return [f["code"] for f in json.loads(out)["findings"] if f["severity"] == "error"]


@pytest.mark.parametrize(("current", "expected", "replaced"), [
    (None, "expandable_segments:True", False),
    ("max_split_size_mb:256", "expandable_segments:True", True),
    ("garbage_collection_threshold:0.6,max_split_size_mb:128,page_size:1g", "page_size:1g,expandable_segments:True", True),
    ("expandable_segments:False,base_addr_aligned_kb:2", "base_addr_aligned_kb:2,expandable_segments:True", False),
    ("page_size:1g,segment_size_mb:64", "page_size:1g,segment_size_mb:64,expandable_segments:True", False),
])
def test_fragmentation_suggestion_starts_from_the_job_and_passes_diagnose(capsys, tmp_path, current, expected, replaced):
    args = ["--env-file", str(env_file(tmp_path, PYTORCH_NPU_ALLOC_CONF=current))] if current is not None else []
    found = events(capsys, tmp_path, OLD.format(**FRAGMENTED), *args)
    event = found[0]
    assert event["suggested"]["env"] == {"PYTORCH_NPU_ALLOC_CONF": expected}
    codes = [f["code"] for f in event["findings"]]
    assert ("triage-suggest-replaces" in codes) == replaced
    assert ("triage-current-unknown" in codes) == (current is None)
    # Never expandable_segments:True beside max_split_size_mb / garbage_collection_threshold.
    assert "max_split_size_mb" not in expected and "garbage_collection_threshold" not in expected
    # Each export applies exactly the suggestion.
    exports = {x["format"]: x["text"] for x in event["suggested"]["exports"]}
    assert set(exports) == {"env-bash", "torch-npu"}
    assert f"export PYTORCH_NPU_ALLOC_CONF='{expected}'" in exports["env-bash"]
    assert f'os.environ["PYTORCH_NPU_ALLOC_CONF"] = "{expected}"' in exports["torch-npu"]
    # The job's env file with the export applied passes diagnose without an error finding.
    applied = tmp_path / "applied.env"
    applied.write_text(exports["env-bash"], encoding="utf-8")
    assert diagnose_errors(capsys, applied) == []


def test_expandable_already_on_suggests_nothing(capsys, tmp_path):
    path = env_file(tmp_path, PYTORCH_NPU_ALLOC_CONF="expandable_segments:True")
    event = events(capsys, tmp_path, OLD.format(**FRAGMENTED), "--env-file", str(path))[0]
    assert event["cause"] == "fragmentation"
    assert event["suggested"]["env"] == {}
    assert "triage-expandable-already-on" in [f["code"] for f in event["findings"]]


def test_a_current_value_torch_npu_refuses_gets_no_suggestion(capsys, tmp_path):
    path = env_file(tmp_path, PYTORCH_NPU_ALLOC_CONF="bogus_key:1")
    event = events(capsys, tmp_path, OLD.format(**FRAGMENTED), "--env-file", str(path))[0]
    assert event["suggested"]["env"] == {}
    assert "triage-suggestion-refused" in [f["code"] for f in event["findings"]]


def test_held_outside_and_capacity_change_no_allocator_setting(capsys, tmp_path):
    held = OLD.format(req="22.00 MiB", dev=0, total="60.97 GiB", alloc="10.24 GiB", free="19.52 MiB",
                      reserved="10.65 GiB")
    event = events(capsys, tmp_path, held)[0]
    assert event["cause"] == "held-outside"
    assert event["suggested"] == {"env": {}, "exports": []}
    assert "npu-smi info" in next(f["message"] for f in event["findings"] if f["code"] == "triage-cause-held-outside")


def test_hccl_suggestion_is_at_least_the_needed_size_and_budget_counts_it(capsys, tmp_path):
    text = ("op: HCCL_BUFFSIZE is too SMALL, m = 1, k = 2, topK = 8 NEEDED_HCCL_BUFFSIZE is ((m * k * topK * "
            "sizeof(int8_t)) * 3 + 3MB)= 612MB, HCCL_BUFFSIZE=200MB.\n")
    path = env_file(tmp_path, HCCL_BUFFSIZE="200")
    code, out, _ = triage(capsys, tmp_path, text, "--json", "--env-file", str(path), "--communicators", "3")
    data = json.loads(out)
    event = data["events"][0]
    assert event["kind"] == "hccl-buffer" and int(event["suggested"]["env"]["HCCL_BUFFSIZE"]) >= 612
    assert event["bytes"]["requested"] == 612 << 20 and event["bytes"]["allowed"] == 200 << 20
    budget = data["budget"]
    assert budget["hccl_buffsize_mb"] == 200 and budget["hccl_source"] == "env"
    assert budget["hccl_bytes"] == 3 * 2 * 200 << 20


def test_serving_budget_and_appended_expandable_note(capsys, tmp_path):
    text = ("(EngineCore_DP0 pid=1) ValueError: Free memory on device (27.18/60.96 GiB) on startup is less than desired "
            "GPU memory utilization (0.9, 54.86 GiB). Decrease GPU memory utilization or reduce GPU memory used by "
            "other processes.\n")
    code, out, _ = triage(capsys, tmp_path, text, "--json", "--communicators", "2")
    data = json.loads(out)
    assert code == 1
    budget = data["budget"]
    total = round(60.96 * (1 << 30))
    assert budget["framework"] == "vllm-ascend" and budget["framework_bytes"] == round(total * 0.9)
    assert budget["hccl_bytes"] == 2 * 2 * 200 * (1 << 20)
    # P2P communicators were not given: the budget names them and leaves "left" unknown, never guessed.
    assert "p2p_communicators" in budget["unknown"] and budget["left"] is None
    assert "0.44" in data["events"][0]["findings"][0]["message"]  # 27.18 / 60.96 = 0.4458: at most 0.44


def test_exit_status_and_stdin(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(OLD.format(**FRAGMENTED).encode())))
    assert main(["triage", "-", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["events"][0]["cause"] == "fragmentation"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"all good\n")))
    assert main(["triage", "-"]) == 0
    assert "No NPU memory error found" in capsys.readouterr().out
    binary = tmp_path / "core.gz"
    binary.write_bytes(b"\x1f\x8b\x08\x00\x00\x00")
    assert main(["triage", str(binary)]) == 2
    err = capsys.readouterr().err
    assert str(binary) in err and len(err.strip().splitlines()) == 1
    assert main(["triage", str(tmp_path / "missing.log")]) == 2
    assert main(["triage", str(tmp_path)]) == 2  # a directory
    capsys.readouterr()
    assert main(["triage", str(binary), "--env-file", "a", "--bundle", "b"]) == 2
    assert main(["triage", str(binary), "--gpu-memory-utilization", "1.5"]) == 2


def test_lang_changes_no_key_kind_cause_number_or_code(capsys, tmp_path):
    text = OLD.format(**FRAGMENTED)
    _, en, _ = triage(capsys, tmp_path, text, "--json", "--lang", "en")
    _, zh, _ = triage(capsys, tmp_path, text, "--json", "--lang", "zh_CN")
    a, b = json.loads(en), json.loads(zh)

    def skeleton(data):
        return [(e["kind"], e["line"], e["device"], e["bytes"], e["cause"], [f["code"] for f in e["findings"]],
                 e["suggested"]["env"]) for e in data["events"]]

    assert skeleton(a) == skeleton(b)
    assert a["events"][0]["findings"][0]["message"] != b["events"][0]["findings"][0]["message"]
    code, out, _ = triage(capsys, tmp_path, text, "--lang", "zh_CN")
    assert code == 1 and "原因" in out and "fragmentation" in out


def test_fraction_rejection_reads_its_numbers_from_the_warning_before_it(capsys, tmp_path):
    # Built from torch-npu 2.14.0's texts (docs/cann/npu-memory.md#the-messages): the warning's
    # layout is not confirmed, so only its labelled sizes are read; without it they stay null.
    error = ("RuntimeError: NPU out of memory. Allocation was preemptively rejected because it would exceed "
             "per_process_memory_fraction limit. Requested size: 2.00 GiB")
    warning = ("[W compiler_depend.ts:120] Warning: Preemptively rejecting allocation: 30.00 GiB allocated, "
               "limit 30.50 GiB, total capacity 60.96 GiB")
    alone = events(capsys, tmp_path, error + "\n")
    assert [(e["kind"], e["cause"], e["bytes"]["requested"], e["bytes"]["allowed"]) for e in alone] == [
        ("torch-npu-fraction", "fraction-limit", 2 << 30, None)]
    found = events(capsys, tmp_path, warning + "\nstep 3\n" + error + "\n")
    assert found[0]["line"] == 3
    b = found[0]["bytes"]
    assert (b["allocated"], b["allowed"], b["total"]) == (30 << 30, round(30.5 * (1 << 30)), round(60.96 * (1 << 30)))
