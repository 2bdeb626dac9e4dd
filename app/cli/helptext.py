"""`--help` (and argparse's own messages) in the reader's language.

Why this module exists: argparse prints its headings ("usage:", "positional arguments",
"options"), the `-h` line and its error messages through `gettext`, for which Python ships no
zh_CN catalog, and the commands' help texts are English literals in their `add_argument` calls.
Both are looked up here in one table, `resources/messages/help.toml`, keyed by the English text
as a gettext msgid is: a command keeps its English literal, and the table gives the Chinese.

- `HelpFormatter` translates every help text, description and command summary when the help
  is formatted, and wraps Chinese by display width (two terminal cells a character,
  app/textwidth.py) at character boundaries, as Chinese text breaks.
- `argparse_language(lang)` puts the table in front of argparse's `gettext` while a command
  line is parsed (argparse looks its `_` up when it needs a string), and puts it back after.

English needs no table: nothing is read unless the language is Chinese.

Public API:
    translate(text, lang=None) -> str
    HelpFormatter                                  (argparse.HelpFormatter)
    argparse_language(lang) -> context manager
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from collections.abc import Iterator
from functools import lru_cache

from cann_config.app.i18n import current_language, normalize_language

HELP_TABLE = "help.toml"
# An ASCII word (kept whole), a run of spaces, or one other character (a Chinese character may
# end a line anywhere). The patterns are compiled (and cached by `re`) when help is formatted, not
# when a command line is parsed: the Chinese range alone cost ~1 ms of every command's start-up.
_TOKENS = r"[\x21-\x7e]+|\s+|."
_CHINESE_HEADING = r"(?m)^(\S[^\n]*[\u4e00-\u9fff]):$"
# Closing punctuation never starts a line (the line-breaking rule of Chinese text, kinsoku).
_NO_BREAK_BEFORE = frozenset("，。、）：；！？」』】》〉,.;:!?)]}>%")


@lru_cache(maxsize=1)
def chinese_help() -> dict[str, str]:
    """English text -> Chinese text, from resources/messages/help.toml (read only for Chinese:
    English `--help` pays for no TOML parser)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    from cann_config.app.resources import resource

    data = tomllib.loads(resource("messages").joinpath(HELP_TABLE).read_text(encoding="utf-8"))
    return {entry["en"]: entry["zh"] for entry in data.values()}


def translate(text: str, lang: str | None = None) -> str:
    """`text` in `lang` (default: the current language); a text the table lacks stays as it is."""
    if normalize_language(lang or current_language()) != "zh_CN":
        return text
    return chinese_help().get(text, text)


def _wrap(text: str, width: int) -> list[str]:
    """Lines of at most `width` terminal cells, breaking between ASCII words and between
    Chinese characters."""
    from cann_config.app.textwidth import display_width

    lines: list[str] = []
    line, used = "", 0
    for token in re.findall(_TOKENS, " ".join(text.split())):
        size = display_width(token)
        if token.isspace():
            if line:
                line, used = line + " ", used + 1
            continue
        if used + size > width and line.strip() and token[0] not in _NO_BREAK_BEFORE:
            lines.append(line.rstrip())
            line, used = "", 0
        line, used = line + token, used + size
    if line.strip():
        lines.append(line.rstrip())
    return lines


def _terminal_columns() -> int:
    """The terminal's width as `shutil.get_terminal_size().columns` gives it (COLUMNS, then the
    terminal of stdout, then 80), without importing shutil: argparse builds a formatter for every
    `add_argument`, and its default width costs an import of shutil (with bz2 and lzma) on every
    command line, --help or not (tests/bench/bench_cli.py)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, with every text of ours looked up in the help table."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        # argparse's own default: the terminal's width less 2
        super().__init__(prog, indent_increment, max_help_position,
                         _terminal_columns() - 2 if width is None else width)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        return translate(action.help) if action.help else action.help

    def _format_text(self, text: str) -> str:
        return super()._format_text(translate(text))

    def format_help(self) -> str:
        text = super().format_help()
        if text.isascii():
            # No Chinese heading to change. argparse formats a usage line while it builds the
            # parser (add_subparsers), and the pattern's CJK range costs ~1 ms to compile.
            return text
        # argparse ends each heading with ":"; after a Chinese heading a full-width one
        return re.sub(_CHINESE_HEADING, "\\1：", text)

    def _split_lines(self, text: str, width: int) -> list[str]:
        if text.isascii():
            return super()._split_lines(text, width)
        return _wrap(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.isascii():
            return super()._fill_text(text, width, indent)
        return "\n".join(indent + line for line in _wrap(text, width - len(indent)))


def _as_written(text: str) -> str:
    return text


@contextlib.contextmanager
def argparse_language(lang: str) -> Iterator[None]:
    """argparse's own strings in `lang` while the block runs (parsing, printing help, errors).

    English is argparse's own text, given as it is: argparse asks gettext for its headings each
    time it builds a parser (~30 times a command line), and gettext searches the disk for a
    catalog at every call (Python ships none), ~2 ms of every command (tests/bench/bench_cli.py)."""
    saved = argparse._  # type: ignore[attr-defined]
    if normalize_language(lang) != "zh_CN":
        argparse._ = _as_written  # type: ignore[attr-defined]
    else:
        argparse._ = lambda text: translate(text, lang)  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._ = saved  # type: ignore[attr-defined]
