"""The command line in Chinese and English: `--lang zh_CN` and `LANG=zh_CN.UTF-8` give Chinese
text output for options, detect, diagnose, scan and export, while JSON keys, codes, severities
and sources stay the same in both languages (docs/architecture.md#command-line)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cann_config.app.cli import main
from tests.ui.test_cache_page import make_cache_tree

DATA = Path(__file__).resolve().parents[2] / "data"
CJK = re.compile(r"[\u4e00-\u9fff]")
ENV_VARS = ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO",
            "ACL_OP_COMPILER_CACHE_DIR", "ACL_OP_COMPILER_CACHE_MODE", "ASCEND_WORK_PATH", "LC_ALL", "LC_MESSAGES")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LANG", "C.UTF-8")


@pytest.fixture
def cache(tmp_path):
    kernel_cache = make_cache_tree(tmp_path / "cache", groups=3)
    (kernel_cache / "op_cache.ini").write_text("[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n"
                                               "max_op_cache_size=1\n", encoding="utf-8")
    return tmp_path / "cache"


def commands(cache: Path) -> dict[str, list[str]]:
    return {
        "options": ["options"],
        "detect": ["detect", "--npu-smi-info", str(DATA / "npu-smi" / "a2-910b3.txt")],
        "diagnose": ["diagnose", "--ini", str(DATA / "ini" / "foreign_section_before.ini"), "--device", "Ascend910B3"],
        "scan": ["scan", "--cache-dir", str(cache)],
        "export": ["export", "tf1-estimator", "--set", "static_memory_policy=2", "--device", "Ascend910B3"],
    }


# Something each command says in Chinese (its labels, not only catalog texts).
CHINESE = {"options": "类型 int；默认值 0", "detect": "设备：", "diagnose": "生效值", "scan": "缓存目录",
           "export": "# 由 cann-config"}


def run(capsys, argv):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("name", sorted(CHINESE))
def test_text_output_is_chinese_with_lang_or_the_locale(capsys, monkeypatch, cache, name):
    argv = commands(cache)[name]
    code_en, english, _ = run(capsys, [*argv, "--lang", "en"])
    code_zh, chinese, _ = run(capsys, [*argv, "--lang", "zh_CN"])
    assert code_en == code_zh
    assert CHINESE[name] in chinese and CHINESE[name] not in english
    assert not CJK.search(english)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    # The scan reports its own duration, which differs between two runs.
    assert re.sub(r"\d+\.\d+", "N", run(capsys, argv)[1]) == re.sub(r"\d+\.\d+", "N", chinese)


def keys_of(data: object) -> object:
    """The shape of a JSON document: its keys and list lengths, not its texts."""
    if isinstance(data, dict):
        return {key: keys_of(value) for key, value in data.items()}
    if isinstance(data, list):
        return [keys_of(item) for item in data]
    return type(data).__name__


def stable_tokens(data: object) -> list[object]:
    """Every value whose key names a code, a severity, a source or an id (language-free)."""
    found: list[object] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key in ("code", "severity", "source", "soc_version", "series", "file", "line", "value", "id"):
                found.append((key, json.dumps(value, sort_keys=True)))
            found += stable_tokens(value)
    elif isinstance(data, list):
        for item in data:
            found += stable_tokens(item)
    return found


@pytest.mark.parametrize("name", ["options", "detect", "diagnose", "scan"])
def test_json_keys_and_codes_do_not_change_with_the_language(capsys, cache, name):
    argv = [*commands(cache)[name], "--json"]
    english = json.loads(run(capsys, [*argv, "--lang", "en"])[1])
    chinese = json.loads(run(capsys, [*argv, "--lang", "zh_CN"])[1])
    assert keys_of(english) == keys_of(chinese)
    assert stable_tokens(english) == stable_tokens(chinese)
    if name in ("diagnose", "scan"):
        messages = [f["message"] for f in chinese["findings"]]
        assert messages and all(CJK.search(m) for m in messages)


def test_export_says_what_it_wrote_in_the_language(capsys, tmp_path):
    target = tmp_path / "cann_env.sh"
    assert run(capsys, ["export", "env-bash", "--set", "max_op_cache_size=900", "-o", str(target),
                        "--lang", "zh_CN"])[1] == f"已写入 {target}\n"
    assert run(capsys, ["export", "env-bash", "--set", "max_op_cache_size=900", "-o", str(target),
                        "--lang", "en"])[1] == f"wrote {target}\n"
    assert "ASCEND_MAX_OP_CACHE_SIZE=900" in target.read_text(encoding="utf-8")
