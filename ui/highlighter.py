"""Syntax colours for the export preview (Python, shell, INI, JSON), with QSyntaxHighlighter.

Colours only: the text itself always comes from app.io.exporters, unchanged.
"""

from __future__ import annotations

import re

from PySide6.QtGui import QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from cann_config.ui.qtprops import solid_brush


def _format(colour: str, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    # A brush, not a QColor: the conversion would build Python's view of Qt's namespace (ui/qtprops.py).
    fmt.setForeground(solid_brush(colour))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setFontItalic(italic)
    return fmt


KEYWORD = _format("#7a1fa2", bold=True)
STRING = _format("#1b7a2e")
NUMBER = _format("#a04800")
COMMENT = _format("#6a737d", italic=True)
NAME = _format("#0b57a4")
SECTION = _format("#7a1fa2", bold=True)

_PY_KEYWORDS = ("import", "from", "as", "def", "return", "if", "else", "elif", "for", "in", "with", "True",
                "False", "None", "and", "or", "not", "class", "try", "except", "pass", "lambda")
_SH_KEYWORDS = ("export", "set", "unset", "if", "then", "fi", "end", "test", "source")

RULES: dict[str, list[tuple[re.Pattern[str], QTextCharFormat]]] = {
    "python": [
        (re.compile(r"\b(" + "|".join(_PY_KEYWORDS) + r")\b"), KEYWORD),
        (re.compile(r"\b[0-9]+\b"), NUMBER),
        (re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?==)"), NAME),
        (re.compile(r"[bru]?\"(?:[^\"\\]|\\.)*\"|[bru]?'(?:[^'\\]|\\.)*'"), STRING),
        (re.compile(r"#.*$"), COMMENT),
    ],
    "shell": [
        (re.compile(r"\b(" + "|".join(_SH_KEYWORDS) + r")\b"), KEYWORD),
        (re.compile(r"(?<=export )[A-Za-z_][A-Za-z0-9_]*|(?<=-gx )[A-Za-z_][A-Za-z0-9_]*"), NAME),
        (re.compile(r"\b[0-9]+\b"), NUMBER),
        (re.compile(r"\"(?:[^\"\\]|\\.)*\"|'[^']*'"), STRING),
        (re.compile(r"(?:^|\s)#.*$"), COMMENT),
    ],
    "ini": [
        (re.compile(r"^\s*\[[^\]]*\]"), SECTION),
        (re.compile(r"^[^#=\[]+(?==)"), NAME),
        (re.compile(r"(?<==).*$"), STRING),
        (re.compile(r"^#.*$"), COMMENT),
    ],
    "json": [
        (re.compile(r"\"(?:[^\"\\]|\\.)*\"(?=\s*:)"), NAME),
        (re.compile(r":\s*\"(?:[^\"\\]|\\.)*\""), STRING),
        (re.compile(r"\b(true|false|null)\b|-?\b[0-9]+\b"), NUMBER),
    ],
}


class PreviewHighlighter(QSyntaxHighlighter):
    """Colours a document as one of the languages in RULES; later rules win over earlier ones."""

    def __init__(self, document: QTextDocument):
        super().__init__(document)
        self.language = "python"

    def set_language(self, language: str) -> None:
        if language != self.language:
            self.language = language
            self.rehighlight()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt override
        for pattern, fmt in RULES.get(self.language, []):
            for match in pattern.finditer(text):
                self.setFormat(match.start(), match.end() - match.start(), fmt)
