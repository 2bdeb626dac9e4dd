"""Quoting values for the languages the exports are written in: Python, bash and fish.

People paste exports into training scripts and shell profiles, so a value (a cache path with
spaces, quotes, `$`, backticks, newlines, Chinese, backslashes) must come back as exactly the
same bytes when the Python runs or the env file is sourced, and nothing in it may ever be
executed. Each function here returns one token of its language that evaluates to the value:

- Python: a double-quoted literal, escaping what `repr` escapes (non-printable characters,
  including bidirectional overrides that could make code look different from what it is).
- bash: single quotes (nothing is special inside them except the closing quote, written as
  `'\\''`); a non-printable character is a `$'...'` piece of its own (`$'\\n'`, or `\\xHH`
  bytes, which bash decodes without looking at the locale).
- fish: single quotes, where only `\\\\` and `\\'` are escapes; non-printable characters are
  written outside the quotes as `\\XHH` bytes, which fish also decodes whatever the locale.

`shown()` is the form a value takes inside a comment: always escaped, so a newline in a value can
never end a comment and turn the rest of the value into code.
"""

from __future__ import annotations

_PY_SPECIAL = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _py_escape(ch: str) -> str:
    special = _PY_SPECIAL.get(ch)
    if special is not None:
        return special
    if ch.isprintable():
        return ch
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def python_str(value: str) -> str:
    """A Python string literal (double quotes) that evaluates to `value`."""
    if value.isprintable() and "\\" not in value and '"' not in value:
        return f'"{value}"'
    return '"' + "".join(_py_escape(ch) for ch in value) + '"'


def shown(value: object) -> str:
    """A value as it appears in a comment: integers as digits, strings as escaped literals."""
    if isinstance(value, str):
        return python_str(value)
    return str(value)


def _utf8_bytes(ch: str, form: str) -> str:
    return "".join(form.format(b) for b in ch.encode("utf-8", "surrogatepass"))


# Control characters bash's $'...' spells by name (the rest are written as \xHH bytes).
_BASH_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\a": "\\a", "\x1b": "\\e"}


def bash_word(value: str) -> str:
    """A bash word that expands to exactly `value`, with no expansion of anything inside it.

    Printable runs go in single quotes (a quote inside is written '\\''); each non-printable
    character is a separate $'...' piece holding only its escape, so no quote ever appears
    inside $'...'.
    """
    if value.isprintable():
        return "'" + value.replace("'", "'\\''") + "'"
    parts: list[str] = []
    run: list[str] = []
    for ch in value:
        if ch.isprintable():
            run.append(ch)
            continue
        if run:
            parts.append("'" + "".join(run).replace("'", "'\\''") + "'")
            run.clear()
        parts.append("$'" + (_BASH_NAMED.get(ch) or _utf8_bytes(ch, "\\x{:02x}")) + "'")
    if run:
        parts.append("'" + "".join(run).replace("'", "'\\''") + "'")
    return "".join(parts)


def fish_word(value: str) -> str:
    """A fish word that expands to exactly `value`, with no expansion of anything inside it."""
    if value == "":
        return "''"
    parts: list[str] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            text = "".join(run).replace("\\", "\\\\").replace("'", "\\'")
            parts.append(f"'{text}'")
            run.clear()

    for ch in value:
        if ch.isprintable():
            run.append(ch)
            continue
        flush()
        if ch == "\n":
            parts.append("\\n")
        elif ch == "\t":
            parts.append("\\t")
        else:
            parts.append(_utf8_bytes(ch, "\\X{:02X}"))
    flush()
    return "".join(parts)
