"""Text read from files, made safe to print on a terminal.

Why this module exists: `diagnose` prints values and paths that come from files the user did not
write (a customer's op_cache.ini, env file or support bundle). A control character in them -
ESC starting an escape sequence, a carriage return overwriting the line - would be interpreted
by the terminal of whoever prints it: it could recolour, retitle or rewrite what support reads.
Bytes that are not UTF-8 are replaced too (see _CONTROL).
Every printer of such text (app/diagnosis.py `to_text`, app/report.py `render_text`) passes it
through `terminal_text`, the one copy of this rule.

Public API:
    terminal_text(text, one_line=True) -> str
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL and C1 (U+0080-U+009F: 8-bit CSI and friends), and
# lone surrogates: the bytes of a file that are not UTF-8, as surrogateescape decodes them (app/
# envfile.py, app/opcache_ini.py keep them to write the file back unchanged). Printed, such a
# surrogate is either written back as its raw byte (0x9b is CSI on an 8-bit terminal) or, under a
# strict UTF-8 locale, a UnicodeEncodeError.
# Also the Unicode bidirectional controls (U+200E/F, U+202A-E, U+2066-9): they reorder what the
# terminal shows, so a hostile value could make a line read differently from what it says.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_WHITESPACE = re.compile(r"\s+")


def terminal_text(text: object, one_line: bool = True) -> str:
    """`text` with every control character replaced by U+FFFD; with `one_line`, every run of
    whitespace (line breaks included) becomes one space, so a value cannot start a line of its own."""
    safe = _CONTROL.sub("\ufffd", str(text))
    return _WHITESPACE.sub(" ", safe) if one_line else safe
