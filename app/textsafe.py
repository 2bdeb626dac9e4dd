"""Text read from files, made safe to print on a terminal.

Why this module exists: `diagnose` prints values and paths that come from files the user did not
write (a customer's op_cache.ini, env file or support bundle). A control character in them -
ESC starting an escape sequence, a carriage return overwriting the line - would be interpreted
by the terminal of whoever prints it: it could recolour, retitle or rewrite what support reads.
Bytes that are not UTF-8 are replaced too (see _CONTROL).
Every printer of such text passes it through this module, the one copy of this rule: the values
of every message (app.errors.localized_params, so CLI errors, findings, reports and the wizard's
labels alike), the text reports of `diagnose`, `scan`, `detect` and `collect`, and the Markdown
and HTML reports (app/support/report.py) as a whole. JSON keeps the data: `json_text` writes
the same characters as JSON escapes instead.

Public API:
    terminal_text(text, one_line=True) -> str
    inline_text(text) -> str        a value inside a sentence: controls replaced, breaks as spaces
    json_text(text) -> str          JSON text with the characters a terminal interprets escaped
"""

from __future__ import annotations

import re
from functools import cache

# C0 controls except tab and newline, DEL and C1 (U+0080-U+009F: 8-bit CSI and friends), and
# lone surrogates: the bytes of a file that are not UTF-8, as surrogateescape decodes them (app/
# envfile.py, app/opcache/ini.py keep them to write the file back unchanged). Printed, such a
# surrogate is either written back as its raw byte (0x9b is CSI on an 8-bit terminal) or, under a
# strict UTF-8 locale, a UnicodeEncodeError.
# Also the Unicode bidirectional controls (U+200E/F, U+202A-E, U+2066-9): they reorder what the
# terminal shows, so a hostile value could make a line read differently from what it says.
_CONTROL = r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u200e\u200f\u202a-\u202e\u2066-\u2069]"
# The same characters as they can occur in ASCII text.
_CONTROL_ASCII = r"[\x00-\x08\x0b-\x1f\x7f]"
_WHITESPACE = re.compile(r"\s+")

# Why two patterns: a character class reaching past U+00FF costs ~1 ms to compile (re builds a
# bitmap of the whole Basic Multilingual Plane), once per process, and most text printed -
# English messages, paths, numbers - is ASCII, where only the small class can match
# (tests/bench/bench_cli.py). Each pattern is compiled when first needed.


@cache
def _pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _controls(text: str) -> re.Pattern[str]:
    """The pattern of the controls `text` can contain."""
    return _pattern(_CONTROL_ASCII if text.isascii() else _CONTROL)


def terminal_text(text: object, one_line: bool = True) -> str:
    """`text` with every control character replaced by U+FFFD; with `one_line`, every run of
    whitespace (line breaks included) becomes one space, so a value cannot start a line of its own."""
    text = str(text)
    safe = _controls(text).sub("\ufffd", text)
    return _WHITESPACE.sub(" ", safe) if one_line else safe


# Every line boundary of str.splitlines (CRLF as one), and tabs; in ASCII text, the same less
# U+0085, U+2028 and U+2029.
_BREAKS = r"\r\n|[\n\r\t\v\f\x1c-\x1e\x85\u2028\u2029]"
_BREAKS_ASCII = r"\r\n|[\n\r\t\v\f\x1c-\x1e]"


def inline_text(text: object) -> str:
    """`text` as a value inside a sentence: every control character replaced by U+FFFD (as in
    terminal_text) and each line break or tab by one space, so the value cannot start a line
    of its own; runs of spaces are kept (they can be part of the value)."""
    text = str(text)
    spaced = _pattern(_BREAKS_ASCII if text.isascii() else _BREAKS).sub(" ", text)
    return _controls(spaced).sub("\ufffd", spaced)


# Inside JSON strings: json.dumps(ensure_ascii=False) escapes C0 controls but writes DEL, C1 and
# the bidirectional controls as they are; these are the same characters as escapes. In ASCII
# text only DEL can occur.
_JSON_RAW = r"[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]"


def json_text(text: str) -> str:
    """JSON text (from json.dumps) with every character a terminal would interpret written as a
    `\\uXXXX` escape: the same data, safe to print. Outside strings JSON holds only ASCII
    punctuation, digits and literals, so every match is inside a string."""
    if text.isascii():
        return text.replace("\x7f", "\\u007f")
    return _pattern(_JSON_RAW).sub(lambda m: f"\\u{ord(m.group()):04x}", text)
