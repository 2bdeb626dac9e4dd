"""Decoding a Python script's bytes the way the Python interpreter does before it runs it.

A customer's training script is not always UTF-8: a UTF-8 BOM (Windows editors), or a PEP 263
cookie such as `# -*- coding: gbk -*-` in one of its first two lines, tells Python which encoding
its bytes are in. Reading such a file as UTF-8 would refuse a BOM script as "not Python" and turn
`/data/缓存` into `/data/����`, a path the job never uses. So the bytes are decoded as
`tokenize.detect_encoding` (the interpreter's own rule: BOM, then a cookie in line 1 or 2, else
UTF-8, PEP 3120) says, strictly: bytes that the declared encoding cannot decode make Python refuse
the file with a SyntaxError, so the tool refuses it too, naming the line.

Public API:
    decode_python_source(data, source) -> PythonSource   (InputError when Python would refuse it)
    PythonSource                                          text, encoding, declared_line, unusual
"""

from __future__ import annotations

import codecs
import io
import tokenize
from typing import NamedTuple

from cann_config.app.errors import InputError

# Encodings a Python author meets without surprise: the default (PEP 3120) and its subsets. A
# cookie naming anything else is worth a word to support staff: the script only reads right in
# an editor set to that encoding.
_USUAL = frozenset({"utf-8", "utf-8-sig", "ascii", "us-ascii"})


class PythonSource(NamedTuple):
    """A script's text as Python reads it, and how its bytes were decoded."""

    text: str
    encoding: str  # the codec's canonical name ("utf-8", "gbk", ...)
    declared_line: int | None  # the line of a PEP 263 cookie, None without one
    bom: bool  # the file starts with a UTF-8 byte-order mark

    @property
    def unusual(self) -> bool:
        """The declared encoding is not UTF-8 (or ASCII)."""
        return self.encoding not in _USUAL


def _cookie_line(data: bytes) -> int | None:
    """1 or 2 when that line holds a PEP 263 encoding declaration (as tokenize matches it)."""
    lines = data.split(b"\n", 2)[:2]
    for number, raw in enumerate(lines, start=1):
        if tokenize.cookie_re.match(raw.decode("latin-1")):  # latin-1 decodes every byte
            return number
        if number == 1 and not tokenize.blank_re.match(raw):
            return None  # PEP 263: line 2 counts only when line 1 is blank or a comment
    return None


def _line_of_offset(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def decode_python_source(data: bytes, source: str) -> PythonSource:
    """Decode a script as Python would; InputError (`import-not-python`, with the line) if Python
    would refuse the file: an unknown encoding, a BOM beside a non-UTF-8 cookie, or bytes the
    encoding cannot decode."""
    try:
        encoding, _lines = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        # "unknown encoding: xyz", "encoding problem: gbk with BOM", invalid UTF-8 in line 1/2.
        raise InputError.from_code("import-not-python", source, _cookie_line(data) or 1,
                                   reason=str(exc.msg if hasattr(exc, "msg") else exc)) from None
    bom = data.startswith(codecs.BOM_UTF8)
    body = data[len(codecs.BOM_UTF8):] if bom else data
    codec = "utf-8" if encoding == "utf-8-sig" else encoding
    try:
        text = body.decode(codec)
    except UnicodeDecodeError as exc:
        start = exc.start + (len(codecs.BOM_UTF8) if bom else 0)
        raise InputError.from_code("import-not-python", source, _line_of_offset(data, start),
                                   reason=f"'{codecs.lookup(codec).name}' codec can't decode byte "
                                          f"0x{data[start]:02x}: {exc.reason}") from None
    return PythonSource(text, codecs.lookup(codec).name, _cookie_line(data), bom)
