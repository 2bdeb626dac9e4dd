"""Sizes in CANN's binary units, spelled as CANN spells its MB (2^20 bytes); counts grouped."""

from cann_config.app.units import format_count, human_bytes


def test_human_bytes():
    assert human_bytes(0) == "0 B"
    assert human_bytes(1023) == "1023 B"
    assert human_bytes(1536) == "1.5 KB"
    assert human_bytes(400 * 1048576) == "400 MB"  # as the spin box says it
    assert human_bytes(500 * 1048576 + 100 * 1024) == "500.1 MB"
    assert human_bytes(3 * 1024**5) == "3072 TB"


def test_format_count():
    assert format_count(8402) == "8,402"
    assert format_count(12) == "12"
