"""`diagnose --script F`: a Python script's default-if-unset and run-time branches, stated as the
shell reader states its twins (issue 25 item 5; docs/cann/launch-scripts.md#python-scripts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cann_config.app.cli import main

TWINS = Path(__file__).resolve().parents[2] / "data" / "scripts" / "twins"
ALLOC = ("npu_alloc_expandable_segments", "npu_alloc_max_split_size_mb", "npu_alloc_garbage_collection_threshold",
         "npu_alloc_page_size", "npu_alloc_base_addr_aligned_kb")
VARIABLES = ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO", "CACHE_RATIO",
             "ACL_OP_COMPILER_CACHE_MODE", "ACL_OP_COMPILER_CACHE_DIR", "ASCEND_WORK_PATH", "GE_USE_STATIC_MEMORY",
             "PYTORCH_NPU_ALLOC_CONF", "PYTORCH_ALLOC_CONF")


@pytest.fixture(autouse=True)
def _quiet_environment(monkeypatch, tmp_path):
    # Without --env-file the command reads this process's environment: make it a known one.
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def diagnose_json(capsys, *args: str) -> tuple[int, dict]:
    code = main(["diagnose", "--json", *args])
    return code, json.loads(capsys.readouterr().out)


def diagnose_text(capsys, *args: str) -> str:
    main(["diagnose", "--lang", "en", *args])
    return capsys.readouterr().out


def states(entry: dict) -> tuple:
    return entry["value"], entry.get("inherited", False), entry.get("inherited_from"), entry.get("runtime", False)


def test_defaults_if_unset_keep_the_default_marked_inherited(capsys):
    _, data = diagnose_json(capsys, "--script", str(TWINS / "defaults.py"))
    eff = data["effective"]
    for oid in ALLOC:  # every key of the allocator variable, also those the default leaves out
        assert eff[oid]["inherited"] is True and eff[oid]["inherited_from"] == "PYTORCH_NPU_ALLOC_CONF", oid
    assert eff["npu_alloc_expandable_segments"]["value"] is True
    assert states(eff["max_op_cache_size"]) == (1000, True, "ASCEND_MAX_OP_CACHE_SIZE", False)
    assert eff["max_op_cache_size"]["line"] == 7
    # `os.getenv("CACHE_RATIO") or "80"`: the launching CACHE_RATIO replaces it
    assert states(eff["remain_cache_size_ratio"]) == (80, True, "CACHE_RATIO", False)
    found = {(f["code"], f["line"]) for f in data["findings"]}
    assert {("import-default-if-unset", 6), ("import-default-if-unset", 7), ("import-default-if-unset", 8)} <= found
    assert "import-dynamic-value" not in {code for code, _ in found}


def test_defaults_show_in_the_text_as_the_shell_ones_do(capsys):
    text = diagnose_text(capsys, "--script", str(TWINS / "defaults.py"))
    assert "1000 MB (unless the launching environment sets ASCEND_MAX_OP_CACHE_SIZE)" in text
    assert "80 % (unless the launching environment sets CACHE_RATIO)" in text
    assert "True (unless the launching environment sets PYTORCH_NPU_ALLOC_CONF)" in text
    zh = main(["diagnose", "--lang", "zh_CN", "--script", str(TWINS / "defaults.py")])
    assert zh == 0 and "除非启动环境已设置 ASCEND_MAX_OP_CACHE_SIZE" in capsys.readouterr().out


def test_the_launching_environment_replaces_the_defaults(capsys, monkeypatch):
    monkeypatch.setenv("PYTORCH_NPU_ALLOC_CONF", "expandable_segments:False")
    monkeypatch.setenv("ASCEND_MAX_OP_CACHE_SIZE", "300")
    monkeypatch.setenv("CACHE_RATIO", "60")
    _, data = diagnose_json(capsys, "--script", str(TWINS / "defaults.py"))
    eff = data["effective"]
    assert (eff["npu_alloc_expandable_segments"]["value"], eff["npu_alloc_expandable_segments"]["source"]) == (
        False, "env")
    assert not any(eff[oid].get("inherited") for oid in ALLOC)
    assert (eff["max_op_cache_size"]["value"], eff["max_op_cache_size"]["source"]) == (300, "env")
    # `os.environ[X] = os.getenv(Y) or d` copies Y's value into X
    assert (eff["remain_cache_size_ratio"]["value"], eff["remain_cache_size_ratio"].get("inherited")) == (60, None)


def test_an_empty_launching_value_counts_for_get_but_not_for_or(capsys, monkeypatch):
    monkeypatch.setenv("ASCEND_MAX_OP_CACHE_SIZE", "")  # os.environ.get(X, d) keeps ""
    monkeypatch.setenv("CACHE_RATIO", "")  # os.getenv(Y) or d takes d
    _, data = diagnose_json(capsys, "--script", str(TWINS / "defaults.py"))
    eff = data["effective"]
    # CANN reads an empty ASCEND_MAX_OP_CACHE_SIZE as not set: its default, not the script's 1000
    assert states(eff["max_op_cache_size"]) == (500, False, None, False)
    assert eff["max_op_cache_size"]["source"] == "default"
    assert states(eff["remain_cache_size_ratio"]) == (80, True, "CACHE_RATIO", False)


def test_the_python_twin_and_the_shell_twin_say_the_same(capsys):
    _, python = diagnose_json(capsys, "--script", str(TWINS / "defaults.py"))
    _, shell = diagnose_json(capsys, "--env-file", str(TWINS / "defaults.sh"))
    for oid in (*ALLOC, "max_op_cache_size", "remain_cache_size_ratio"):
        assert states(python["effective"][oid]) == states(shell["effective"][oid]), oid


def test_run_time_branches_are_conditional_never_a_plain_value(capsys):
    _, data = diagnose_json(capsys, "--script", str(TWINS / "branches.py"))
    eff = data["effective"]
    cache_dir = eff["op_compiler_cache_dir"]
    assert (cache_dir["value"], cache_dir["runtime"], cache_dir["line"]) == (None, True, 22)
    assert cache_dir["expression"] == "/data/rank0_cache when args.local_rank == 0; not set here otherwise"
    assert data["cache_dir"]["known"] is False
    for oid in ALLOC:
        assert eff[oid]["runtime"] is True and eff[oid]["value"] is None, oid
    assert eff["npu_alloc_expandable_segments"]["expression"] == (
        "expandable_segments:True when args.expandable; max_split_size_mb:256 otherwise")
    assert eff["op_compiler_cache_mode"]["expression"] == "enable when no exception; disable when ImportError is raised"
    # a method nothing calls by name: only if it is called
    assert eff["remain_cache_size_ratio"]["expression"] == "70 when Trainer.configure() is called; not set here otherwise"
    # set in a function main() calls, after a sys.exit() on the other way: plain
    assert (eff["max_op_cache_size"]["value"], eff["max_op_cache_size"]["line"]) == (2048, 14)
    assert "runtime" not in eff["max_op_cache_size"]
    codes = [(f["code"], f["line"]) for f in data["findings"]]
    assert ("import-conditional-value", 22) in codes and ("cache-dir-runtime", 22) in codes
    assert not any(code in ("import-dynamic-value", "import-set-twice") for code, _ in codes)


def test_run_time_branches_in_the_text(capsys):
    text = diagnose_text(capsys, "--script", str(TWINS / "branches.py"))
    assert "from /data/rank0_cache when args.local_rank == 0; not set here otherwise" in text
    assert "ASCEND_REMAIN_CACHE_SIZE_RATIO depends on a condition known only at run time: 70 when " \
           "Trainer.configure() is called; not set here otherwise." in text
    assert "2048 MB " in text


def test_a_script_on_top_of_an_env_file_keeps_the_env_files_values(capsys, tmp_path):
    env_file = tmp_path / "job.env"
    env_file.write_text("export ASCEND_MAX_OP_CACHE_SIZE=700\n", encoding="utf-8")
    _, data = diagnose_json(capsys, "--env-file", str(env_file), "--script", str(TWINS / "defaults.py"))
    size = data["effective"]["max_op_cache_size"]
    assert (size["value"], size.get("inherited")) == (700, None)
    assert data["effective"]["npu_alloc_expandable_segments"]["inherited"] is True
