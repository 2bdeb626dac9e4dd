"""Sizes in binary units, as CANN counts its MB (SIZE_MB_UNIT = 1048576)."""

from cann_config.app.units import human_bytes


def test_human_bytes():
    assert human_bytes(0) == "0 B"
    assert human_bytes(1023) == "1023 B"
    assert human_bytes(1536) == "1.5 KiB"
    assert human_bytes(500 * 1048576) == "500.0 MiB"
    assert human_bytes(3 * 1024**5) == "3072.0 TiB"
