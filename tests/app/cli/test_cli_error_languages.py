"""Exit-2 reasons in the chosen language: with `--lang zh_CN` (or LANG=zh_CN) a file that cannot
be used gets one Chinese line that still names the file (and the line where known), exit 2;
in English the same line as before. Parser errors keep argparse's own text but the sentence
around it follows the language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cann_config.app.cli import main

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def english_locale(monkeypatch, tmp_path):
    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def cases(tmp: Path) -> dict[str, tuple[list[str], str, str]]:
    """name -> (arguments, where the line must start, its Chinese reason)."""
    garbage = tmp / "garbage.txt"
    garbage.write_text("hello\nworld\n", encoding="utf-8")
    profile = tmp / "p.json"
    profile.write_text('{"format": "cann-config-profile", "version": 1, "colour": "red"}\n', encoding="utf-8")
    broken = tmp / "broken.json"
    broken.write_text('{\n  "format": "cann-config-profile",\n  "version": 1,,\n}\n', encoding="utf-8")
    folder = tmp / "bundle-dir"
    folder.mkdir()
    missing = tmp / "missing.ini"
    return {
        "missing-ini": (["diagnose", "--ini", str(missing)], f"{missing}: ", "无法读取：文件或目录不存在"),
        "garbage-npu-smi": (["detect", "--npu-smi-info", str(garbage)], f"{garbage}: ",
                            "不是 npu-smi info 的输出：没有找到设备表格"),
        "bad-set-value": (["export", "tf1-estimator", "--set", "static_memory_policy=9"], "--set：",
                          "static_memory_policy 的取值必须是 0, 1, 2, 3, 4 之一，而不是 9"),
        "unknown-profile-key": (["export", "tf1-estimator", "--profile", str(profile)], f"{profile}: ",
                                "未知的键 'colour'"),
        "profile-json-line": (["export", "tf1-estimator", "--profile", str(broken)], f"{broken}:3: ",
                              "不是合法的 JSON："),
        "directory-as-bundle": (["diagnose", "--bundle", str(folder)], f"{folder}: ", "是目录，不是支持信息包"),
    }


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("name", ["missing-ini", "garbage-npu-smi", "bad-set-value", "unknown-profile-key",
                                  "profile-json-line", "directory-as-bundle"])
def test_unusable_input_gets_one_chinese_line_naming_the_file(capsys, tmp_path, name):
    argv, where, chinese = cases(tmp_path)[name]
    code, out, err = run(capsys, ["--lang", "zh_CN", *argv])
    assert code == 2 and out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith(f"cann-config: {where}"), err
    assert chinese in err

    # The same failure in English: the same file and line, no Chinese.
    code, _, err_en = run(capsys, ["--lang", "en", *argv])
    assert code == 2 and err_en.count("\n") == 1
    assert err_en.startswith(f"cann-config: {where.replace('：', ': ')}") and not CJK.search(err_en), err_en


def test_the_locale_chooses_chinese_too(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    missing = tmp_path / "missing.ini"
    code, _, err = run(capsys, ["diagnose", "--ini", str(missing)])
    assert code == 2 and err == f"cann-config: {missing}: 无法读取：文件或目录不存在\n"


def test_english_lines_are_unchanged(capsys, tmp_path):
    missing = tmp_path / "missing.ini"
    code, _, err = run(capsys, ["diagnose", "--ini", str(missing)])
    assert code == 2 and err == f"cann-config: {missing}: cannot read: No such file or directory\n"


def test_a_parser_error_says_its_hint_in_the_language_asked_before_parsing(capsys):
    # The language must be known before argparse fails: here the bad option comes after --lang.
    code, _, err = run(capsys, ["--lang", "zh_CN", "export", "tf1-estimator", "--no-such-flag"])
    assert code == 2
    # argparse's own words come in Chinese too (app/cli/helptext.py)
    assert err.startswith("cann-config: 无法识别的参数：--no-such-flag")
    assert err.rstrip("\n").endswith("（请参阅 'cann-config --help'）") and err.count("\n") == 1

    code, _, err = run(capsys, ["export", "--lang=zh_CN", "tf1-estimator", "--no-such-flag"])
    assert code == 2 and "请参阅" in err


def test_an_unknown_language_is_refused_in_the_locales_language(capsys, monkeypatch):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, _, err = run(capsys, ["--lang", "fr", "options"])
    assert code == 2 and "未知的语言 'fr'；请使用 zh_CN 或 en" in err
