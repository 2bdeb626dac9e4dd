"""Plain-text tables and heading underlines line up by display width in Chinese (two terminal
cells per CJK character), in every command that prints one; the severity words are Chinese too;
`diagnose --report` says in one line where the report went."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cann_config.app.cli import main
from cann_config.app.textwidth import display_width
from tests.app.cli.test_cli_languages import CJK, cache, clean_env  # noqa: F401 - fixtures

DATA = Path(__file__).resolve().parents[2] / "data"
RULE = re.compile(r"^\s*-+(  -+)*$")
UNDERLINE = re.compile(r"^([=~-])\1*$")


def run(capsys, argv):
    code = main(argv)
    return code, capsys.readouterr().out


def cell_starts(line: str) -> list[int]:
    """The display column where each cell of a table row starts (cells are 2+ spaces apart)."""
    starts, column, previous_blank = [], 0, 2
    for char in line:
        if char != " " and previous_blank >= 2:
            starts.append(column)
        previous_blank = previous_blank + 1 if char == " " else 0
        column += display_width(char)
    return starts


def check_rules_and_underlines(text: str) -> int:
    """Every heading underline is as wide as its heading; every row under a table's rule starts
    its cells where the rule's segments start. Returns how many things were checked."""
    lines = text.splitlines()
    checked = 0
    for number, line in enumerate(lines[1:], 1):
        above = lines[number - 1]
        if UNDERLINE.match(line) and above.strip() and not RULE.match(above):
            assert len(line) == display_width(above), (above, line)
            checked += 1
        elif RULE.match(line) and line.strip():
            rule = cell_starts(line)
            assert cell_starts(above) == rule, (above, line)
            for row in lines[number + 1:]:
                if not row.strip():
                    break
                assert cell_starts(row)[:len(rule)] == rule[:len(cell_starts(row))], (row, line)
                checked += 1
    return checked


def check_block(text: str, heading: str, cells: int) -> int:
    """The rows after `heading` (to the next blank line) start their first `cells` cells in the
    same display columns."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(heading)) + 1
    rows = []
    indent = len(lines[start]) - len(lines[start].lstrip())
    for line in lines[start:]:
        if not line.strip() or len(line) - len(line.lstrip()) != indent:
            break
        rows.append(cell_starts(line)[:cells])
    assert len(rows) >= 2 and all(row == rows[0] for row in rows), rows
    return len(rows)


def test_diagnose_in_chinese_lines_up(capsys, tmp_path):
    # A customer's files (an env file): the ini stands for the one their CANN reads.
    env = tmp_path / "job.env"
    env.write_text("")
    code, out = run(capsys, ["diagnose", "--ini", str(DATA / "ini" / "foreign_section_before.ini"),
                             "--env-file", str(env), "--device", "Ascend910B3", "--lang", "zh_CN"])
    assert code == 1
    assert check_block(out, "生效值", 3) == 4
    assert "  错误 cache-ini-foreign-section" in out and "  警告 cache-ini-values-ignored" in out
    assert "warning" not in out and "error " not in out
    # the message under a finding starts where its code does
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if "cache-ini-foreign-section" in line)
    assert display_width(lines[head][:lines[head].index("cache-")]) == len(lines[head + 1]) - len(lines[head + 1].lstrip())


def test_diagnose_bundle_report_in_chinese_lines_up(capsys):
    code, out = run(capsys, ["diagnose", "--bundle", str(DATA / "bundles" / "a2-910b3.json"), "--lang", "zh_CN"])
    assert CJK.search(out)
    assert check_rules_and_underlines(out) >= 10


def test_options_in_chinese_lines_up(capsys):
    code, out = run(capsys, ["options", "op_compiler_cache_dir", "--lang", "zh_CN"])
    assert code == 0 and check_block(out, "各处的名称", 2) == 9


def test_scan_in_chinese_says_severity_in_chinese(capsys, cache):  # noqa: F811
    code, out = run(capsys, ["scan", "--cache-dir", str(cache), "--lang", "zh_CN"])
    finding_lines = [line for line in out.splitlines() if re.match(r"  \S+ +[a-z]+-[a-z-]+:", line)]
    assert finding_lines and all(line.split()[0] in ("错误", "警告", "提示") for line in finding_lines)
    code, english = run(capsys, ["scan", "--cache-dir", str(cache), "--lang", "en"])
    assert any(line.split()[0] in ("error", "warning", "info") for line in english.splitlines()
               if re.match(r"  \S+ +[a-z]+-[a-z-]+:", line))


@pytest.mark.parametrize("lang, words", [("en", "Wrote the report"), ("zh_CN", "已写入报告")])
def test_diagnose_report_prints_one_line_saying_where(capsys, tmp_path, lang, words):
    target = tmp_path / "r.html"
    code, out = run(capsys, ["diagnose", "--ini", str(DATA / "ini" / "foreign_section_before.ini"),
                             "--report", str(target), "--lang", lang])
    assert code == 1 and target.is_file() and "<html" in target.read_text(encoding="utf-8").lower()
    assert out.count("\n") == 1 and words in out and str(target) in out
