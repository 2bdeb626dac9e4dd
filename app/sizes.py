"""Sizes as people type them: `2 GB`, `2G`, `2048 MB`, `1.5 GiB`, `2048`, turned into the whole
number of the unit an option counts in (CANN's MB for `max_op_cache_size`).

Why a module of its own: the wizard's size box and the CLI's `--set` must read the same text the
same way (one parser, called through `Option.parse_typed`), and neither may guess. CANN's MB is 2^20
bytes (docs/cann/op-cache.md#size-limit-and-keep-ratio: `SIZE_MB_UNIT = 1048576`), so every unit
here is a power of 1024 whether it is spelled `GB`, `G` or `GiB`: people who type "2 GB" into
CANN's setting mean 2048 of CANN's MB. A plain number is in the option's own unit. A size that
is not a whole number of that unit (`1.5 MB`, `100 KB` for an MB setting) is refused with the
reason, never rounded: CANN reads an integer.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from cann_config.app.errors import InvalidValue

if TYPE_CHECKING:  # pragma: no cover - typing only
    from fractions import Fraction

# Powers of 1024, by the spellings people use (case does not matter).
UNIT_POWERS = {"b": 0, "k": 1, "kb": 1, "kib": 1, "m": 2, "mb": 2, "mib": 2, "g": 3, "gb": 3, "gib": 3,
               "t": 4, "tb": 4, "tib": 4}

_SIZE = re.compile(r"\s*([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([A-Za-z]*)\s*")
# What may still become a size while it is being typed: a number, then the start of a unit.
_PARTIAL = re.compile(r"\s*[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]*)?\s*([A-Za-z]{0,3})\s*")


def parse_size(text: str, unit: str, *, option: str = "") -> int:
    """`text` as a whole number of `unit` (KB, MB or GB): "2 GB" -> 2048 for "MB".

    Raises InvalidValue (a ValueError) saying why, and naming the unit, when the text is not a
    size or not a whole number of `unit`."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise InvalidValue.from_code("sizes-not-a-size", option=option, value=text, unit=unit)
    from fractions import Fraction  # when a size is read, not when the catalog is

    sign, number, typed_unit = match.groups()
    power = UNIT_POWERS.get(typed_unit.lower()) if typed_unit else UNIT_POWERS[unit.lower()]
    if power is None:
        raise InvalidValue.from_code("sizes-unknown-unit", option=option, value=text, typed=typed_unit, unit=unit)
    amount = Fraction(number) * Fraction(1024) ** (power - UNIT_POWERS[unit.lower()])
    if sign == "-":
        amount = -amount
    if amount.denominator != 1:
        raise InvalidValue.from_code("sizes-not-whole", option=option, value=text, unit=unit,
                                     amount=_decimal(amount))
    return int(amount)


def may_become_size(text: str) -> bool:
    """Whether `text` could still become a size as the user goes on typing ("2 G", "1.")."""
    return _PARTIAL.fullmatch(text) is not None


def _decimal(amount: Fraction) -> str:
    """`amount` with up to four decimals, for a reason (0.0977 MB)."""
    return f"{float(amount):.4f}".rstrip("0").rstrip(".")
