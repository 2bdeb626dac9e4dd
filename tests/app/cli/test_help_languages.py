"""`--help` in Chinese: argparse's headings, usage and its own lines, every command's help
texts and descriptions, from the help table (resources/messages/help.toml); English unchanged."""

from __future__ import annotations

import argparse
import inspect
import re

import pytest

from cann_config.app.cli import COMMANDS, build_parser, main
from cann_config.app.cli.helptext import argparse_language, chinese_help, translate
from cann_config.app.textwidth import display_width

CJK = re.compile(r"[\u4e00-\u9fff]")


def help_texts(parser: argparse.ArgumentParser, recurse: bool = True) -> list[str]:
    """Every text of ours a parser's --help prints: descriptions, help of every argument, the
    command summaries (with `recurse`, those of every command's parser too)."""
    texts = [parser.description] if parser.description else []
    for action in parser._actions:
        if action.help and action.help is not argparse.SUPPRESS:
            texts.append(action.help)
        if isinstance(action, argparse._SubParsersAction):
            texts += [choice.help for choice in action._choices_actions if choice.help]
            for sub in dict.fromkeys(action.choices.values()) if recurse else ():
                texts += help_texts(sub)
    return texts


def run(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exc:  # --help exits 0
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_every_help_text_of_every_command_has_a_chinese_entry():
    texts = [text for name in [None, *COMMANDS] for text in help_texts(build_parser(name))]
    assert len(texts) > 40
    missing = [text for text in dict.fromkeys(texts) if text not in chinese_help()]
    assert missing == []


def test_the_entries_keep_argparse_placeholders():
    for english, chinese in chinese_help().items():
        assert re.findall(r"%\(\w+\)[sr]|%[sr]", english) == re.findall(r"%\(\w+\)[sr]|%[sr]", chinese), english


def test_argparse_still_uses_the_strings_translated():
    """The help table's argparse entries are argparse's msgids; the headings must still be (a
    Python whose argparse rewords one would silently print English again)."""
    source = inspect.getsource(argparse)
    for msgid in ("usage: ", "positional arguments", "options", "show this help message and exit",
                  "unrecognized arguments: %s"):
        assert f"_('{msgid}')" in source or f'_("{msgid}")' in source, msgid
        assert msgid in chinese_help()


@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_help_of_every_command_in_chinese(capsys, monkeypatch, command):
    argv = ([command] if command else []) + ["--help"]
    code, chinese, _ = run(capsys, [*argv, "--lang", "zh_CN"])
    assert code == 0
    assert chinese.startswith("用法：cann-config") and "选项：" in chinese and "显示本帮助信息并退出" in chinese
    assert "usage:" not in chinese and "show this help" not in chinese and "options:" not in chinese
    parser = build_parser(command)
    if command:
        parser = parser._subparsers._group_actions[0].choices[command]
    for text in help_texts(parser, recurse=False):
        first_words = translate(text, "zh_CN").split("%")[0][:8]
        assert first_words in chinese.replace("\n", "").replace(" ", "") or first_words.replace(" ", "") in \
            chinese.replace("\n", "").replace(" ", ""), text
    # wrapped by display width: no line wider than argparse's width (COLUMNS, less 2) unless a word is
    width = max(display_width(line) for line in chinese.splitlines() if CJK.search(line))
    assert width <= 120
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert run(capsys, argv)[1] == chinese
    monkeypatch.setenv("LANG", "C.UTF-8")
    code, english, _ = run(capsys, argv)
    assert english.startswith("usage: cann-config") and not CJK.search(english)


def test_argparse_errors_in_chinese_and_argparse_restored(capsys):
    saved = argparse._
    code, _, err = run(capsys, ["diagnose", "--framework", "tf3", "--lang", "zh_CN"])
    assert code == 2 and "无效的选择：'tf3'" in err and err.count("\n") == 1
    assert argparse._ is saved
    # English is argparse's own text as written (no gettext catalog search, issue 16), and put back after.
    with argparse_language("en"):
        assert argparse._("usage: ") == "usage: " and argparse._("invalid choice: %(value)r") == \
            "invalid choice: %(value)r"
    assert argparse._ is saved
    code, _, err = run(capsys, ["diagnose", "--framework", "tf3", "--lang", "en"])
    assert "invalid choice: 'tf3'" in err
