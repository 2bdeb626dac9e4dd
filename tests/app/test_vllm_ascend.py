"""vLLM-Ascend's rewrite of PYTORCH_NPU_ALLOC_CONF (app/vllm_ascend.py): the golden table recorded by
running vLLM-Ascend's own functions (tests/tools/record_vllm_rewrite.py), then the same cases
through `diagnose --framework vllm-ascend` and `export vllm-serve`."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from cann_config.app.cli import main
from cann_config.app.vllm_ascend import serving_value, sleep_mode_refuses

GOLDEN = json.loads((Path(__file__).resolve().parents[1] / "data" / "serving" / "vllm_rewrite.json")
                    .read_text(encoding="utf-8"))
CASES = GOLDEN["cases"]


def test_the_table_names_its_origin():
    assert "vllm-project/vllm-ascend 182b75ea84" in GOLDEN["origin"]
    assert len(CASES) >= 16


@pytest.mark.parametrize("case", CASES, ids=[repr(c["input"]) for c in CASES])
def test_rewrite_matches_vllm_ascend(case):
    value = case["input"]
    assert serving_value(value) == case["startup"]
    assert serving_value(value, sleep_mode=True) == case["sleep_mode"]
    assert serving_value(value, rl_mode=True) == case["rl_mode"]
    assert serving_value(value, sleep_mode=True, rl_mode=True) == case["rl_and_sleep_mode"]
    assert sleep_mode_refuses(serving_value(value, sleep_mode=True)) == case["sleep_pool_refuses"]


@pytest.fixture(autouse=True)
def _quiet_environment(monkeypatch, tmp_path):
    for name in ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO",
                 "ACL_OP_COMPILER_CACHE_MODE", "ACL_OP_COMPILER_CACHE_DIR", "PYTORCH_NPU_ALLOC_CONF",
                 "PYTORCH_ALLOC_CONF"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def diagnose(capsys, tmp_path, value):
    env = tmp_path / "serve.env"
    env.write_text("" if value is None else f"export PYTORCH_NPU_ALLOC_CONF={shlex.quote(value)}\n")
    code = main(["diagnose", "--framework", "vllm-ascend", "--env-file", str(env), "--json", "--lang", "en"])
    out, _ = capsys.readouterr()
    data = json.loads(out)
    return code, data, {f["code"]: f for f in data["findings"]}


@pytest.mark.parametrize("case", CASES, ids=[repr(c["input"]) for c in CASES])
def test_diagnose_reports_what_torch_npu_reads_after_the_rewrite(capsys, tmp_path, case):
    code, data, found = diagnose(capsys, tmp_path, case["input"])
    after = case["startup"]
    refused = after.startswith(",") or ",," in after or "Expandable" in after or ":true" in after
    assert (code == 1) == refused, found
    assert any(f["severity"] == "error" for f in data["findings"]) == refused
    expandable = data["effective"]["npu_alloc_expandable_segments"]
    if not refused and after.replace(" ", "").split(",").count("expandable_segments:True"):
        assert expandable["value"] is True and expandable["source"] == "env"
    if case["input"] is None or (after != case["input"] and not refused):
        # the rewrite set it: the serving stack is named
        assert "vLLM-Ascend" in expandable["detail"], expandable
    if after != case["input"]:
        assert "vllm-alloc-rewritten" in found


def test_traps_are_warnings(capsys, tmp_path):
    _, _, found = diagnose(capsys, tmp_path, "pin_memory_expandable_segments:True")
    assert found["vllm-alloc-pin-memory-substring"]["severity"] == "warning"
    code, data, found = diagnose(capsys, tmp_path, "expandable_segments: True")
    assert code == 0 and found["vllm-alloc-spaced-expandable"]["severity"] == "warning"
    assert data["effective"]["npu_alloc_expandable_segments"]["value"] is True
    # RL mode strips it and leaves the variable empty: the rewrite then makes a refused value
    assert found["vllm-rl-mode-leading-comma"]["severity"] == "warning"
    for value in ("expandable_segments:False", "expandable_segments: False"):
        _, _, found = diagnose(capsys, tmp_path, value)
        assert "vllm-alloc-spaced-expandable" not in found and "vllm-alloc-pin-memory-substring" not in found


def test_sleep_mode_is_a_question(capsys, tmp_path):
    _, _, found = diagnose(capsys, tmp_path, "expandable_segments:True")
    assert found["vllm-sleep-mode-refused"]["severity"] == "warning"
    _, _, found = diagnose(capsys, tmp_path, None)
    assert found["vllm-sleep-mode-value"]["severity"] == "info"
    assert "vllm-sleep-mode-refused" not in found


def test_empty_value_is_an_error_with_the_serving_stack_named(capsys, tmp_path):
    code, _, found = diagnose(capsys, tmp_path, "")
    assert code == 1
    assert found["vllm-alloc-empty"]["severity"] == "error"
    assert "vLLM-Ascend" in found["vllm-alloc-empty"]["message"]


def test_other_frameworks_are_not_rewritten(capsys, tmp_path):
    env = tmp_path / "serve.env"
    env.write_text("export PYTORCH_NPU_ALLOC_CONF=page_size:1g\n")
    main(["diagnose", "--framework", "pytorch", "--env-file", str(env), "--json"])
    data = json.loads(capsys.readouterr()[0])
    assert data["effective"]["npu_alloc_expandable_segments"]["source"] == "default"
    assert not any(f["code"].startswith("vllm-") for f in data["findings"])


def export(capsys, *args):
    code = main(["export", *args, "--lang", "en"])
    out, err = capsys.readouterr()
    return code, out, err


def test_export_vllm_serve_sets_env_and_flags(capsys):
    code, out, _ = export(capsys, "vllm-serve", "--framework", "vllm-ascend", "--set", "npu_alloc_page_size=1g",
                          "--set", "gpu_memory_utilization=0.85", "--changed-only")
    assert code == 0
    assert out.startswith("#!/usr/bin/env bash\n")
    assert "export PYTORCH_NPU_ALLOC_CONF='page_size:1g'\n" in out
    assert "'page_size:1g,expandable_segments:True'" in out  # what vLLM-Ascend turns it into
    assert out.rstrip().endswith('exec vllm serve --gpu-memory-utilization 0.85 "$@"')


def test_export_keeps_expandable_off_explicitly(capsys):
    # The serving stack turns expandable segments on unless the variable names them: the
    # framework's default is True, and False must be written out.
    code, out, _ = export(capsys, "env-bash", "--framework", "vllm-ascend",
                          "--set", "npu_alloc_expandable_segments=false", "--changed-only")
    assert code == 0
    assert "export PYTORCH_NPU_ALLOC_CONF='expandable_segments:False'" in out
    code, out, _ = export(capsys, "env-bash", "--framework", "vllm-ascend", "--changed-only")
    assert "export PYTORCH_NPU_ALLOC_CONF" not in out


def test_export_max_split_is_no_conflict_under_serving(capsys):
    # expandable_segments at the serving default (True) is not written, so vLLM-Ascend does not
    # add it next to max_split_size_mb: torch_npu accepts the result.
    code, out, err = export(capsys, "env-bash", "--framework", "vllm-ascend",
                            "--set", "npu_alloc_max_split_size_mb=256", "--changed-only")
    assert code == 0, err
    assert "export PYTORCH_NPU_ALLOC_CONF='max_split_size_mb:256'" in out


def test_gpu_memory_utilization_range(capsys):
    code, _, err = export(capsys, "vllm-serve", "--framework", "vllm-ascend", "--set", "gpu_memory_utilization=1.5")
    assert code == 2 and "gpu_memory_utilization" in err
    code, out, _ = export(capsys, "env-bash", "--framework", "vllm-ascend", "--set", "gpu_memory_utilization=0.8")
    assert code == 0 and "vllm-serve" in out  # the env file points to the export that carries it


def test_a_launcher_script_that_sets_the_variable_is_rewritten_too(capsys, tmp_path):
    # An explicit expandable_segments:False stays False (vLLM-Ascend sees the substring); a value
    # without any of the three substrings gets expandable_segments:True appended.
    for text, expandable in (("expandable_segments:False", False), ("page_size:1g", True)):
        script = tmp_path / "launch.py"
        script.write_text(f'import os\nos.environ["PYTORCH_NPU_ALLOC_CONF"] = "{text}"\n'
                          'from vllm import LLM\nllm = LLM(model="m")\n', encoding="utf-8")
        code = main(["diagnose", "--framework", "vllm-ascend", "--script", str(script), "--json", "--lang", "en"])
        data = json.loads(capsys.readouterr()[0])
        assert code == 0
        effective = data["effective"]["npu_alloc_expandable_segments"]
        assert effective["value"] is expandable and effective["line"] == 2
        if expandable:
            assert "vLLM-Ascend" in effective["detail"]
