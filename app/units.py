"""Sizes as people read them, in the binary units CANN itself counts in.

A module of its own, free of other imports, so the wizard's first page can use it without
loading the scanner.
"""

from __future__ import annotations

# Bytes in one of CANN's MB: max_op_cache_size and ASCEND_MAX_OP_CACHE_SIZE count in MiB
# (docs/cann/op-cache.md#size-limit-and-keep-ratio), so "500 MB" is 500 x 1024 x 1024 bytes.
CANN_MB = 1048576


def human_bytes(n: int | float) -> str:
    """`1.5 MiB`: binary units, as CANN's MB are (CANN_MB)."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < 1024 or unit == "TiB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"
