"""Sizes as people read them, in the binary units CANN itself counts in.

A module of its own, free of other imports, so the wizard's first page can use it without
loading the scanner.
"""

from __future__ import annotations


def human_bytes(n: int | float) -> str:
    """`1.5 MiB`: binary units, as CANN's MB are (SIZE_MB_UNIT = 1048576)."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"
