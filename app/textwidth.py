"""How wide text is on a terminal, so plain-text tables line up in Chinese too.

Why this module exists: a terminal shows a CJK character (and a full-width form) in two cells, a
combining mark or a zero-width character in none, so `str.ljust` pads `--lang zh_CN` columns
and heading underlines to the wrong place. Every plain-text table and underline of the CLI
(`diagnose`, `scan`, `options`, `detect`, `collect`, the text report, `fleet`) pads through
the functions here, the one copy of the rule.

The widths follow Unicode's East Asian Width property (UAX #11) from the standard library's
`unicodedata`, as terminals do: `W` and `F` are two cells; `A` (ambiguous: `±`, `→`, Greek
letters) is one, as in every Western and Chinese default terminal profile; combining marks
(category Mn, Me), format characters (Cf, except the soft hyphen terminals print) and other
zero-width code points are none. The standard library has all it takes, so the CLI needs no
further dependency (such as `wcwidth`) for it.

Public API:
    display_width(text) -> int
    pad(text, width, align="<") -> str               (left "<", right ">" or centre "^")
    underline(title, char="-") -> str                 (a rule as wide as `title` is shown)
    table_lines(rows, *, align=None, indent="  ", gap="  ", header=False, rule="-") -> list[str]
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from functools import lru_cache

# Zero-width code points that are neither combining nor format characters (Hangul fillers,
# which terminals show as nothing, and the zero-width space that unicodedata calls Cf anyway).
_ZERO_WIDTH = frozenset({"\u200b", "\u1160", "\u3164", "\uffa0"})


@lru_cache(maxsize=4096)
def _char_width(char: str) -> int:
    if char in _ZERO_WIDTH:
        return 0
    if char == "\u00ad":  # soft hyphen: Cf, but terminals print it as a hyphen
        return 1
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def display_width(text: str) -> int:
    """The number of terminal cells `text` takes (one line; see the module docstring)."""
    if text.isascii():
        return len(text)
    return sum(_char_width(char) for char in text)


def pad(text: str, width: int, align: str = "<") -> str:
    """`text` padded with spaces to `width` cells: "<" left-aligned, ">" right, "^" centred.

    Text already at least `width` cells wide comes back unchanged (never cut).
    """
    missing = width - display_width(text)
    if missing <= 0:
        return text
    if align == ">":
        return " " * missing + text
    if align == "^":
        left = missing // 2
        return " " * left + text + " " * (missing - left)
    return text + " " * missing


def underline(title: str, char: str = "-") -> str:
    """A rule of `char` exactly as wide as `title` is shown (a heading's underline)."""
    return char * display_width(title)


def table_lines(rows: Sequence[Sequence[str]], *, align: Sequence[str] | None = None, indent: str = "  ",
                gap: str = "  ", header: bool = False, rule: str = "-") -> list[str]:
    """Rows of cells as lines whose columns line up by display width.

    `align` gives "<" or ">" per column (default: all left). With `header`, the first row is a
    header and a rule of `rule` under each of its columns follows it. The last column of a
    left-aligned row is not padded, so no line ends in spaces.
    """
    if not rows:
        return []
    columns = max(len(row) for row in rows)
    cells = [list(row) + [""] * (columns - len(row)) for row in rows]
    widths = [max(display_width(row[i]) for row in cells) for i in range(columns)]
    aligns = list(align or ()) + ["<"] * (columns - len(align or ()))
    lines = []
    for number, row in enumerate(cells):
        parts = [pad(cell, widths[i], aligns[i]) for i, cell in enumerate(row)]
        lines.append((indent + gap.join(parts)).rstrip())
        if header and number == 0:
            lines.append(indent + gap.join(rule * w for w in widths))
    return lines
