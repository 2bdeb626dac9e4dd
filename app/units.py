"""Sizes and counts as people read them, spelled the same in every output.

Sizes are in the binary units CANN itself counts in: CANN's "MB" is 2^20 bytes (SIZE_MB_UNIT =
1048576, docs/cann/op-cache.md#size-limit-and-keep-ratio), so the tool says MB for 2^20 bytes,
GB for 2^30, KB for 2^10, as CANN's settings and docs do: one spelling, "400 MB", for the
spin box, the gauge and every command (docs/cann/op-cache.md says once that it is MiB).
Counts group thousands with "," in both languages ("8,402"): the zh_CN locale groups digits the
same way.

A module of its own, free of other imports, so the wizard's first page can use it without
loading the scanner.
"""

from __future__ import annotations

# Bytes in one of CANN's MB: max_op_cache_size and ASCEND_MAX_OP_CACHE_SIZE count in MiB
# (docs/cann/op-cache.md#size-limit-and-keep-ratio), so "500 MB" is 500 x 1024 x 1024 bytes.
CANN_MB = 1048576
UNITS = ("B", "KB", "MB", "GB", "TB")  # powers of 1024, as CANN's MB


def human_bytes(n: int | float) -> str:
    """`400 MB`, `1.5 GB`: powers of 1024 spelled as CANN spells its MB; one decimal unless whole."""
    value = float(n)
    for unit in UNITS:
        if abs(value) < 1024 or unit == UNITS[-1]:
            if unit == "B" or value == int(value):
                return f"{int(value)} {unit}"
            return f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def format_count(n: int) -> str:
    """`8,402`: a count of files, groups or kernels, the same in every command and language."""
    return f"{n:,}"
